"""Beat entry of the mining outbox, created once (editable in the admin afterwards)."""

from django.db import migrations


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.get_or_create(
        name="mining outbox",
        defaults={
            "task": "palace.outbox_requeue",
            "interval": interval,
            "description": "Send again mining jobs the broker did not take.",
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="mining outbox").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("palace", "0001_conversations_and_palace"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
