"""Pin and never-recall flags on drawers, who read a drawer (DrawerRead), the agent of an activity
event, and the beat entry that writes the batched reads."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def create_schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=30, period="seconds")
    PeriodicTask.objects.get_or_create(
        name="drawer reads flush",
        defaults={
            "task": "palace.drawer_reads_flush",
            "interval": interval,
            "description": "Write the drawer reads recall and context assembly queued in Redis.",
            # A run missed while the worker was busy is superseded by the next one half a minute later.
            "expire_seconds": 60,
        },
    )


def remove_schedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name="drawer reads flush").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_usage_record"),
        ("palace", "0008_forget_receipt"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="drawer",
            name="pinned",
            field=models.BooleanField(default=False, help_text="Always a recall candidate, and boosted when relevant."),
        ),
        migrations.AddField(
            model_name="drawer",
            name="never_recall",
            field=models.BooleanField(
                default=False, help_text="Kept and browsable, never returned by recall or context assembly."
            ),
        ),
        migrations.AddIndex(
            model_name="drawer",
            index=models.Index(condition=models.Q(("pinned", True)), fields=["owner"], name="drawer_owner_pinned"),
        ),
        migrations.AddField(
            model_name="activityevent",
            name="agent",
            field=models.ForeignKey(
                blank=True,
                help_text="The agent whose call caused it; null for the person's own actions.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="accounts.agent",
            ),
        ),
        migrations.AddIndex(
            model_name="activityevent",
            index=models.Index(fields=["owner", "agent", "-created_at"], name="activity_owner_agent_recent"),
        ),
        migrations.CreateModel(
            name="DrawerRead",
            fields=[
                ("id", models.UUIDField(editable=False, primary_key=True, serialize=False)),
                (
                    "source",
                    models.CharField(choices=[("recall", "Recall"), ("context", "Context assembly")], max_length=10),
                ),
                (
                    "query",
                    models.CharField(
                        blank=True, default="", help_text="The query, cut to 300 characters.", max_length=300
                    ),
                ),
                (
                    "created_at",
                    models.DateTimeField(help_text="When it was read (not when the batch was written)."),
                ),
                (
                    "agent",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.agent",
                    ),
                ),
                (
                    "drawer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="reads", to="palace.drawer"
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["drawer", "-created_at"], name="drawer_read_recent")],
            },
        ),
        migrations.RunPython(create_schedule, remove_schedule),
    ]
