"""The code base's own checks, part of the suite so `make test` (CI) runs them: lint, types,
migrations in step with the models, and an OpenAPI schema without warnings."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from memory_site.config import BASE_DIR

BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = _run(str(BIN / "ruff"), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
    result = _run(str(BIN / "ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = _run(str(BIN / "mypy"), ".")
    assert result.returncode == 0, result.stdout + result.stderr


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
