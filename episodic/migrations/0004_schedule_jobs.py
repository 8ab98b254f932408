"""Beat entries of the episodic jobs, created once (operators edit them in the admin afterwards)."""

from django.db import migrations

JOBS = [
    ("embedding backfill", "episodic.embedding_backfill", 5, "Embed rows stored without an embedding."),
    ("expired cleanup", "episodic.expired_cleanup", 1, "Delete episodes past expires_at."),
]


def create_schedules(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for name, task, minutes, description in JOBS:
        interval, _ = IntervalSchedule.objects.get_or_create(every=minutes, period="minutes")
        PeriodicTask.objects.get_or_create(
            name=name, defaults={"task": task, "interval": interval, "description": description}
        )


def remove_schedules(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=[j[0] for j in JOBS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("episodic", "0003_vector_and_search_indexes"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedules, remove_schedules)]
