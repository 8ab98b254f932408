"""Beat's schedule lives in the database (django-celery-beat) so operators edit it in the admin. Entries
are created once here, never overwritten: an operator's change survives restarts and deploys."""

from django.db import migrations


def create_schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="30", hour="3", day_of_week="*", day_of_month="*", month_of_year="*", timezone="UTC"
    )
    PeriodicTask.objects.get_or_create(
        name="prune job runs",
        defaults={
            "task": "ops.prune_job_runs",
            "crontab": crontab,
            "description": "Delete job records older than JOB_RUN_RETENTION_DAYS.",
            "expires": None,
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="prune job runs").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ops", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create_schedule, remove_schedule)]
