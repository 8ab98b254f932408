from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("episodic", "0009_live_entries_vector_index")]

    operations = [
        migrations.CreateModel(
            name="MaintenanceMark",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("job", models.CharField(max_length=50, unique=True)),
                ("probed_until", models.DateTimeField()),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
        ),
    ]
