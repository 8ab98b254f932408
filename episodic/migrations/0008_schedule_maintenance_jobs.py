"""Beat entries of every maintenance job, named as the jobs are (DESIGN §5.7): the daily ones at
MAINTENANCE_DAILY_AT (04:00 by default) in the server's time zone, expired_cleanup every minute and
embedding_backfill every 5 minutes. Created once; operators edit them in the admin afterwards."""

from django.conf import settings
from django.db import migrations

DAILY = [
    ("consolidation", "Promote short-term entries read 3+ times to long-term memory; forget expired ones."),
    ("dedup", "Merge near-duplicate long-term entries and typed memories (cosine >= 0.92)."),
    ("context_rot", "Archive context entries whose staleness reached 0.9."),
]
EVERY = [
    ("expired_cleanup", 1, "Delete short-term entries, episodes and pools past expires_at."),
    ("embedding_backfill", 5, "Embed rows stored without an embedding."),
]
RENAMED = {"expired cleanup": "expired_cleanup", "embedding backfill": "embedding_backfill"}


def create_schedules(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for old, new in RENAMED.items():
        PeriodicTask.objects.filter(name=old).update(name=new)
    hour, minute = settings.MAINTENANCE_DAILY_AT
    daily, _ = CrontabSchedule.objects.get_or_create(
        minute=str(minute),
        hour=str(hour),
        day_of_week="*",
        day_of_month="*",
        month_of_year="*",
        timezone=settings.TIME_ZONE,
    )
    for job, description in DAILY:
        PeriodicTask.objects.get_or_create(
            name=job, defaults={"task": f"episodic.{job}", "crontab": daily, "description": description}
        )
    for job, minutes, description in EVERY:
        interval, _ = IntervalSchedule.objects.get_or_create(every=minutes, period="minutes")
        PeriodicTask.objects.update_or_create(
            name=job, defaults={"task": f"episodic.{job}", "interval": interval, "description": description}
        )


def remove_schedules(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[job for job, _ in DAILY]).delete()
    for old, new in RENAMED.items():
        PeriodicTask.objects.filter(name=new).update(name=old)


class Migration(migrations.Migration):
    dependencies = [
        ("episodic", "0007_context_entry_vector_index"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedules, remove_schedules)]
