import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_exclusion_rules"),
    ]

    operations = [
        migrations.AddField(
            model_name="memorysettings",
            name="monthly_budget_usd",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text="Paid LLM and embedding calls per calendar month (UTC). Empty: the default "
                "(MEMORY_MONTHLY_BUDGET_USD). Over it, LLM work takes the offline path.",
                max_digits=10,
                null=True,
                validators=[django.core.validators.MinValueValidator(0)],
                verbose_name="monthly budget (USD)",
            ),
        ),
    ]
