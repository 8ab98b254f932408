"""Activity events of recalls no longer carry the last query's text (it outlived a forgotten drawer in the
activity log); the events written before lose it too."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("palace", "0011_drawer_passages")]

    operations = [
        migrations.RunSQL(
            "UPDATE palace_activityevent SET data = data - 'last_query' WHERE kind = 'memory_recalled'",
            reverse_sql=migrations.RunSQL.noop,
        )
    ]
