"""The code base's checks that need the database: migrations in step with the models, and an
OpenAPI schema without warnings. Lint and types are `make lint` (CI runs it before the tests)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command


@pytest.mark.django_db
def test_migrations_match_the_models() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:
        pytest.fail(f"models changed without a migration:\n{out.getvalue()}")


def test_the_openapi_schema_builds_without_warnings(tmp_path: Path) -> None:
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text())
    operations = [op for path in schema["paths"].values() for op in path.values()]
    assert all(op.get("summary") for op in operations), "every endpoint has a summary"
    assert "/api/v1/agents/me" in schema["paths"]


def test_url_names_are_unique() -> None:
    """`{% url %}` and reverse() take the last route of a name: two routes sharing one send a page's form
    to the wrong view (the settings page once posted to the API)."""
    from collections import Counter

    from django.urls import URLPattern, URLResolver, get_resolver

    def names(patterns: list[URLPattern | URLResolver]) -> list[str]:
        found: list[str] = []
        for entry in patterns:
            if isinstance(entry, URLResolver):
                if entry.namespace is None:
                    found += names(entry.url_patterns)
            elif entry.name:
                found.append(entry.name)
        return found

    repeated = [name for name, n in Counter(names(get_resolver().url_patterns)).items() if n > 1]
    assert not repeated, repeated
