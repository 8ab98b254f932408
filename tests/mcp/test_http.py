"""MCP over streamable HTTP at /mcp, end to end: the SDK's client against the live test server, acting as an
agent's API key; mining runs in a real Celery worker."""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
import pytest
from mcp.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from accounts.services import api_key_revoke
from memory_site.redis_client import get_redis
from palace.models import Drawer, DrawerRead
from palace.services import reads
from palace.tasks import drawer_reads_flush
from tests.conftest import Personas
from tests.mcp.client import over_http, structured

pytestmark = pytest.mark.django_db(transaction=True)

LISBON = "My sister Anna is flying to Lisbon next week for a conference."
TOOL_NAMES = {
    "recall",
    "context",
    "add_conversation",
    "append_turns",
    "job_status",
    "remember",
    "search_memories",
    "working_memory",
    "ledger",
    "kg_query",
    "kg_add",
    "forget",
}


def _call(url: str, key: str, name: str, arguments: dict[str, Any]) -> Any:
    async def work(session: ClientSession) -> Any:
        return await session.call_tool(name, arguments)

    return over_http(url, key, work)


def _store_and_mine(url: str, key: str) -> dict[str, Any]:
    turns = [
        {"role": "user", "content": LISBON},
        {"role": "assistant", "content": "Lisbon in spring is lovely; she should try the pastel de nata."},
    ]
    added = structured(
        _call(url, key, "add_conversation", {"conversation_id": "trip", "turns": turns, "complete": True})
    )
    deadline = time.monotonic() + 90
    while True:
        job = structured(_call(url, key, "job_status", {"job_id": added["job_id"]}))
        if job["status"] in ("done", "failed"):
            return job
        assert time.monotonic() < deadline, f"the mining job did not finish: {job}"
        time.sleep(0.3)


def test_it_lists_at_most_twelve_tools_each_described_with_a_schema_and_hints(
    live_server: Any, personas: Personas
) -> None:
    async def work(session: ClientSession) -> Any:
        return await session.list_tools()

    tools = over_http(live_server.url, personas.owner.key, work).tools
    assert {tool.name for tool in tools} == TOOL_NAMES and len(tools) <= 12
    for tool in tools:
        assert tool.description and tool.input_schema["type"] == "object"
        hints = tool.annotations
        assert hints is not None
        assert None not in (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint)
    by_name = {tool.name: tool for tool in tools}
    assert by_name["recall"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert by_name["forget"].annotations.destructive_hint is True  # type: ignore[union-attr]


def test_a_conversation_added_through_mcp_is_mined_and_recalled_verbatim(
    live_server: Any, personas: Personas, celery_worker: str
) -> None:
    url, key = live_server.url, personas.owner.key
    assert _store_and_mine(url, key)["status"] == "done"
    get_redis().delete(reads.QUEUE_KEY)
    recalled = structured(_call(url, key, "recall", {"query": "When does Anna fly to Lisbon?", "top_k": 3}))
    lead = recalled["results"][0]
    assert lead["content"] == LISBON
    assert lead["pointer"].startswith("§ W-") and set(lead["signals"]) >= {"semantic", "keyword"}
    assert lead["wing"]["name"] and lead["room"]["title"]
    assert LISBON in recalled["memory_context"]
    assert Drawer.objects.filter(owner=personas.owner.user, content=LISBON).exists()
    # Recorded like a REST recall: queued in Redis off the request path, written by the flush.
    assert get_redis().llen(reads.QUEUE_KEY) > 0
    drawer_reads_flush()
    read = DrawerRead.objects.get(drawer_id=lead["drawer_id"])
    assert read.agent_id == personas.owner.agent.pk and read.source == "recall"

    # A teammate (another agent of the same person) shares the memory; an outsider sees none of it.
    shared = structured(_call(url, personas.teammate.key, "recall", {"query": "Anna Lisbon"}))
    assert [hit["content"] for hit in shared["results"]][:1] == [LISBON]
    _assert_outsider_sees_nothing(url, personas.outsider.key, lead["drawer_id"], added_job=recalled)


def _assert_outsider_sees_nothing(url: str, key: str, drawer_id: int, added_job: dict[str, Any]) -> None:
    assert structured(_call(url, key, "recall", {"query": "Anna Lisbon"}))["results"] == []
    context = structured(_call(url, key, "context", {"query": "Anna Lisbon"}))
    assert LISBON not in context["memory_context"]
    facts = _call(url, key, "kg_query", {"entity": "Anna"})
    assert facts.is_error and structured(facts)["status"] == 404  # no such entity for this owner
    refused = _call(url, key, "forget", {"kind": "drawer", "id": drawer_id})
    assert refused.is_error and structured(refused)["status"] == 404
    refused = _call(url, key, "append_turns", {"conversation_id": "trip", "turns": [{"role": "user", "content": "x"}]})
    assert refused.is_error or structured(refused)["conversation_id"] == "trip"
    assert Drawer.objects.filter(pk=drawer_id).exists()  # the owner's drawer is untouched


def test_the_sdk_high_level_client_falls_back_from_discover_to_the_handshake(
    live_server: Any, personas: Personas
) -> None:
    async def run() -> list[str]:
        headers = {"Authorization": f"Bearer {personas.owner.key}"}
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(f"{live_server.url}/mcp", http_client=http)) as client,
        ):
            return [tool.name for tool in (await client.list_tools()).tools]

    assert set(anyio.run(run)) == TOOL_NAMES


def test_a_missing_wrong_or_revoked_key_is_refused_before_any_tool_runs(live_server: Any, personas: Personas) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer nope"}):
        refused = httpx.post(f"{live_server.url}/mcp", json=body, headers=headers)
        assert refused.status_code == 401 and refused.json()["message"]
    api_key_revoke(api_key=personas.owner.api_key)
    refused = httpx.post(f"{live_server.url}/mcp", json=body, headers={"Authorization": f"Bearer {personas.owner.key}"})
    assert refused.status_code == 401 and refused.json() == {"message": "Invalid or revoked API key.", "extra": {}}


def test_the_sdk_client_reports_a_revoked_key(live_server: Any, personas: Personas) -> None:
    api_key_revoke(api_key=personas.owner.api_key)

    async def work(session: ClientSession) -> Any:
        return await session.list_tools()

    with pytest.raises(BaseException):  # noqa: B017 - the SDK raises its transport error in an exception group
        over_http(live_server.url, personas.owner.key, work)


def test_a_body_that_is_not_json_rpc_gets_a_json_rpc_error(live_server: Any, personas: Personas) -> None:
    headers = {"Authorization": f"Bearer {personas.owner.key}", "Content-Type": "application/json"}
    broken = httpx.post(f"{live_server.url}/mcp", content=b'{"jsonrpc": "2.0", "id": 1,', headers=headers)
    assert broken.status_code == 400
    assert broken.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error."}}
    old = httpx.post(f"{live_server.url}/mcp", json={"jsonrpc": "1.0", "id": 2, "method": "ping"}, headers=headers)
    error = old.json()["error"]
    assert error["code"] == -32600 and '"jsonrpc": "2.0"' in error["message"]
