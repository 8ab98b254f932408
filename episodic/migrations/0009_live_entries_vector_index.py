"""Context entries' HNSW index covers live entries only (current, not archived, not merged): the
tiers router's long-term search, context assembly's long_term layer and dedup's neighbour probe read
only those, and a row that dedup or context rot retires then costs no index insert. Fill factor 90
leaves room on each page so that dedup's updates of survivors (metadata, importance) can be HOT
updates, which touch no index at all."""

import pgvector.django.indexes
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_usage_record"),
        ("episodic", "0008_schedule_maintenance_jobs"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE episodic_contextentry SET (fillfactor = 90)",
            "ALTER TABLE episodic_contextentry RESET (fillfactor)",
        ),
        migrations.RemoveIndex(
            model_name="contextentry",
            name="context_entry_embedding_hnsw",
        ),
        migrations.AddIndex(
            model_name="contextentry",
            index=pgvector.django.indexes.HnswIndex(
                condition=models.Q(
                    ("archived_at__isnull", True), ("deprecated_at__isnull", True), ("is_current", True)
                ),
                ef_construction=64,
                fields=["embedding"],
                m=16,
                name="context_entry_embedding_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        ),
    ]
