"""Recall finds keyword candidates by the query's informative words, judged by PostgreSQL's statistics
of the full-text column (pg_stats.most_common_elems). The default target keeps only lexemes in more
than about 1% of drawers; 1000 keeps them down to about 0.04%."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("palace", "0005_preference_mentions")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE palace_drawer ALTER COLUMN search_vector SET STATISTICS 1000",
            "ALTER TABLE palace_drawer ALTER COLUMN search_vector SET STATISTICS -1",
        )
    ]
