"""The pgvector extension, in a migration of its own: every embedding column (episodes, typed memories,
context entries, palace drawers) depends on it. Needs a role allowed to CREATE EXTENSION (the embedded
server's `postgres` superuser; on a managed server, create it once as an admin)."""

from django.db import migrations
from pgvector.django import VectorExtension


class Migration(migrations.Migration):
    initial = True
    dependencies: list[tuple[str, str]] = []
    operations = [VectorExtension()]
