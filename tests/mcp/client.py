"""The SDK's own MCP client, driven from synchronous tests: each helper opens a session, runs one coroutine
and closes it (the ORM calls the tests make stay outside the event loop)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

T = TypeVar("T")


def over_http(url: str, key: str | None, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    async def run() -> T:
        headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
        async with (
            create_mcp_http_client(headers=headers) as http,
            streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(run)


def structured(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None, result
    content: dict[str, Any] = result.structured_content
    return content
