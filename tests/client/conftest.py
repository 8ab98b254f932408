"""The Python client (clients/python) against the live test server. The shared venv must not point at
one worktree's copy, so the package is imported from its source tree here; a fresh `make test` also
installs it (requirements-dev.txt)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from memory_site.config import BASE_DIR

CLIENT_SOURCE = str(BASE_DIR / "clients" / "python" / "src")
if CLIENT_SOURCE not in sys.path:
    # First on the path: an installed copy (another checkout's) must not shadow the code under test.
    sys.path.insert(0, CLIENT_SOURCE)

from loci_client import Loci  # noqa: E402

from tests.factories import Persona  # noqa: E402


@pytest.fixture
def connect(live_server: Any) -> Iterator[Any]:
    """`connect(persona)` → a sync client with that persona's key; closed after the test."""
    opened: list[Loci] = []

    def _connect(persona: Persona) -> Loci:
        client = Loci(live_server.url, persona.key, timeout=30)
        opened.append(client)
        return client

    yield _connect
    for client in opened:
        client.close()


@pytest.fixture(scope="session", autouse=True)
def _live_server_connections_closed(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """As tests/e2e/conftest.py's: the live server's request threads can leave database sessions open;
    end them so the test database can be dropped at the end of the run."""
    yield
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
