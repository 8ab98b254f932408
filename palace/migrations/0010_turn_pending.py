import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

# Turns already filed as drawers are not pending; the others (an open conversation's, or a backlog's)
# are, and become findable by full text at once.
MARK_FILED = """
UPDATE palace_turn AS t SET pending = false
WHERE EXISTS (
    SELECT 1 FROM palace_drawer AS d WHERE d.conversation_id = t.conversation_id AND d.turn_index = t.index
)
"""


class Migration(migrations.Migration):
    dependencies = [("palace", "0009_drawer_flags_and_reads")]

    operations = [
        migrations.AddField(model_name="turn", name="pending", field=models.BooleanField(default=True)),
        migrations.RunSQL(MARK_FILED, migrations.RunSQL.noop),
        migrations.AddIndex(
            model_name="turn",
            index=django.contrib.postgres.indexes.GinIndex(
                django.contrib.postgres.search.SearchVector("content", config="english"),
                condition=models.Q(("pending", True)),
                name="turn_pending_text",
            ),
        ),
    ]
