"""Beat entry for the webhook outbox sweep (resends never-sent events and due retries), created once and
never overwritten, like palace's outbox entry."""

from django.db import migrations


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.get_or_create(
        name="webhooks sweep",
        defaults={
            "task": "webhooks.sweep",
            "interval": interval,
            "description": "Send webhook events never sent and delivery retries that are due.",
            "expires": None,
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="webhooks sweep").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
