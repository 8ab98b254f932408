"""The Python client (clients/python) against the live test server. The shared venv must not point at
one worktree's copy, so the package is imported from its source tree here; a fresh `make test` also
installs it (requirements-dev.txt)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

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
def _connections_closed(live_server_connections_closed: None) -> None:
    """Every test here runs against the live server (tests/fixtures/live_server.py says why)."""
