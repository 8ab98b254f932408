import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("palace", "0007_entity_kinds_and_room_keyphrases"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RelationCitation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "drawer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="palace.drawer"
                    ),
                ),
                (
                    "relation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="citations", to="palace.relation"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("relation", "drawer"), name="relation_citation_unique")
                ],
            },
        ),
        # Existing relations cite the one drawer they were read from.
        migrations.RunSQL(
            "INSERT INTO palace_relationcitation (relation_id, drawer_id) "
            "SELECT id, source_drawer_id FROM palace_relation WHERE source_drawer_id IS NOT NULL",
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.CreateModel(
            name="ForgetReceipt",
            fields=[
                ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                (
                    "asked",
                    models.JSONField(
                        default=dict, help_text='{"kind": ..., "ids": [...], "actor": agent name or "person"}'
                    ),
                ),
                ("counts", models.JSONField(default=dict, help_text="Rows (or Redis keys) removed, per kind.")),
                ("digest", models.CharField(max_length=64)),
                (
                    "removed_ids",
                    models.JSONField(default=dict, help_text="Removed ids per kind (ids only, never text)."),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["owner", "-created_at"], name="forget_receipt_owner_recent")],
            },
        ),
    ]
