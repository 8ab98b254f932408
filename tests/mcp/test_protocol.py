"""The JSON-RPC edges of /mcp, with the test client: what the SDK's client never sends but others may."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from tests.conftest import Personas


def _rpc(api: APIClient, personas: Personas, method: str, params: dict[str, Any] | None = None) -> Any:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, **({"params": params} if params is not None else {})}
    return api.post("/mcp", body, format="json", **personas.owner.headers)


def test_get_is_405_since_the_server_never_opens_a_stream(api: APIClient, personas: Personas) -> None:
    assert api.get("/mcp", **personas.owner.headers).status_code == 405


def test_a_notification_is_accepted_with_no_body(api: APIClient, personas: Personas) -> None:
    body = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    answered = api.post("/mcp", body, format="json", **personas.owner.headers)
    assert answered.status_code == 202 and answered.content == b""


def test_an_unknown_method_or_tool_is_a_json_rpc_error(api: APIClient, personas: Personas) -> None:
    discover = _rpc(api, personas, "server/discover").json()
    assert discover["id"] == 7 and discover["error"]["code"] == -32601
    unknown = _rpc(api, personas, "tools/call", {"name": "delete_everything", "arguments": {}}).json()
    assert unknown["error"]["code"] == -32602 and "delete_everything" in unknown["error"]["message"]
    batch = api.post("/mcp", [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], format="json", **personas.owner.headers)
    assert batch.json()["error"]["code"] == -32600


def test_initialize_answers_the_clients_version_when_spoken(api: APIClient, personas: Personas) -> None:
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    result = _rpc(api, personas, "initialize", params).json()["result"]
    assert result["protocolVersion"] == "2025-06-18" and result["serverInfo"]["name"] == "loci"
    assert result["capabilities"]["tools"] == {"listChanged": False}
    params["protocolVersion"] = "1999-01-01"
    assert _rpc(api, personas, "initialize", params).json()["result"]["protocolVersion"] == "2025-11-25"
