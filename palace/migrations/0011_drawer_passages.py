# Passages: the sentences of user turns, each with its own vector (palace.models.Passage). The vector column
# takes EMBEDDING_DIM when this runs, like the drawers'; the HNSW index serves recall's nearest-passage query.

import django.db.models.deletion
import pgvector.django.indexes
import pgvector.django.vector
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("palace", "0010_turn_pending"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Passage",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "embedding",
                    pgvector.django.vector.VectorField(blank=True, dimensions=settings.EMBEDDING_DIM, null=True),
                ),
                ("embedding_model", models.CharField(blank=True, default="", max_length=200)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "position",
                    models.PositiveSmallIntegerField(help_text="The sentence's place among the drawer's passages."),
                ),
                ("text", models.TextField()),
                (
                    "drawer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="passages", to="palace.drawer"
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "indexes": [
                    pgvector.django.indexes.HnswIndex(
                        ef_construction=64,
                        fields=["embedding"],
                        m=16,
                        name="passage_embedding_hnsw",
                        opclasses=["vector_cosine_ops"],
                    )
                ],
                "constraints": [models.UniqueConstraint(fields=("drawer", "position"), name="passage_unique_position")],
            },
        ),
    ]
