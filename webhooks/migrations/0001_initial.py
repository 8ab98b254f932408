import uuid

import django.contrib.postgres.fields
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

EVENT_TYPE_CHOICES = [
    ("memory.mined", "memory.mined"),
    ("memory.deleted", "memory.deleted"),
    ("memory.consolidated", "memory.consolidated"),
    ("memory.deduplicated", "memory.deduplicated"),
    ("memory.archived", "memory.archived"),
    ("memory.recalled", "memory.recalled"),
    ("conversation.completed", "conversation.completed"),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Endpoint",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("url", models.URLField(max_length=2000)),
                (
                    "event_types",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.CharField(choices=EVENT_TYPE_CHOICES, max_length=40),
                        help_text="The event types sent here; memory.recalled only when listed (opt-in).",
                        size=None,
                    ),
                ),
                ("active", models.BooleanField(default=True)),
                ("secret", models.CharField(max_length=100)),
                ("failing_since", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_endpoints",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["created_at"],
                "indexes": [models.Index(fields=["owner", "created_at"], name="webhook_endpoint_owner")],
            },
        ),
        migrations.CreateModel(
            name="Event",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ("type", models.CharField(db_index=True, max_length=40)),
                ("payload", models.JSONField(default=dict)),
                (
                    "endpoint_ids",
                    django.contrib.postgres.fields.ArrayField(base_field=models.UUIDField(), default=list, size=None),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("dispatched_at", models.DateTimeField(blank=True, null=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("dispatched_at__isnull", True)),
                        fields=["created_at"],
                        name="webhook_event_undispatched",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Delivery",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("attempt", models.PositiveIntegerField()),
                ("status_code", models.PositiveIntegerField(blank=True, null=True)),
                ("latency_ms", models.PositiveIntegerField(blank=True, null=True)),
                ("response_snippet", models.CharField(blank=True, default="", max_length=500)),
                ("error", models.CharField(blank=True, default="", max_length=500)),
                ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                ("delivered_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "endpoint",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="webhooks.endpoint",
                    ),
                ),
                (
                    "event",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="deliveries", to="webhooks.event"
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
                "indexes": [
                    models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_endpoint"),
                    models.Index(
                        condition=models.Q(("next_attempt_at__isnull", False)),
                        fields=["next_attempt_at"],
                        name="webhook_delivery_due",
                    ),
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("event", "endpoint", "attempt"), name="webhook_delivery_attempt_once"
                    )
                ],
            },
        ),
    ]
