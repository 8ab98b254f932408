"""HNSW (cosine) over context entries' embeddings. Used by the tiers router's semantic search over
long-term memory (`episodic.contexts.entry_search`), context assembly's long_term layer and the dedup
job's nearest-neighbour probe (`episodic.maintenance.dedup`)."""

import pgvector.django.indexes
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("episodic", "0006_short_term_pools_contexts")]

    operations = [
        migrations.AddIndex(
            model_name="contextentry",
            index=pgvector.django.indexes.HnswIndex(
                ef_construction=64,
                fields=["embedding"],
                m=16,
                name="context_entry_embedding_hnsw",
                opclasses=["vector_cosine_ops"],
            ),
        ),
    ]
