"""`manage.py mcp --key KEY`: the SDK's stdio client spawns it; the key is checked once at start."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memory_site.api.authentication import MESSAGE_INVALID_KEY
from memory_site.config import BASE_DIR
from tests.conftest import Personas

pytestmark = pytest.mark.django_db(transaction=True)  # the subprocess reads the committed key


def _server(key: str) -> list[str]:
    return [sys.executable, str(BASE_DIR / "manage.py"), "mcp", "--key", key]


def test_a_stdio_client_lists_the_tools_and_calls_one(personas: Personas, celery_env: dict[str, str]) -> None:
    command, *args = _server(personas.owner.key)

    async def run() -> tuple[list[str], Any]:
        params = StdioServerParameters(command=command, args=args, env=celery_env, cwd=str(BASE_DIR))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            marked = await session.call_tool("ledger", {"conversation_id": "c1", "action": "mark", "item": "skill-a"})
            return [tool.name for tool in tools.tools], marked

    names, marked = anyio.run(run)
    assert "recall" in names and len(names) <= 12
    assert not marked.is_error and marked.structured_content["newly_marked"] is True


def test_an_invalid_key_stops_the_command_with_a_clear_message(celery_env: dict[str, str]) -> None:
    done = subprocess.run(
        _server("loci_not-a-key"), env=celery_env, cwd=BASE_DIR, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and MESSAGE_INVALID_KEY in done.stderr and done.stdout == ""
