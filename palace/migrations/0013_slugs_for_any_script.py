"""Slugs keep other scripts and digest names with no letter (palace/naming.py): wings and entities that the
old ASCII-only slug made "unnamed" get the slug of their own name (one such row per owner could exist)."""

from typing import Any

from django.db import migrations


def reslug(apps: Any, schema_editor: Any) -> None:
    from palace.naming import slug_of

    for model_name in ("Wing", "Entity"):
        model = apps.get_model("palace", model_name)
        for row in model.objects.filter(slug="unnamed"):
            slug = slug_of(row.name)
            if slug != "unnamed" and not model.objects.filter(owner_id=row.owner_id, slug=slug).exists():
                model.objects.filter(pk=row.pk).update(slug=slug)


class Migration(migrations.Migration):
    dependencies = [("palace", "0012_recalled_events_without_queries")]

    operations = [migrations.RunPython(reslug, migrations.RunPython.noop)]
