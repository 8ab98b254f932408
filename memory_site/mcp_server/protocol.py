"""JSON-RPC for MCP, shared by both transports: parse one message, answer it with the SDK's types."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from io import BytesIO
from typing import Any
from urllib.parse import unquote, unquote_to_bytes, urlencode

import mcp_types as types
from django.contrib.auth.models import User
from django.core.handlers.wsgi import WSGIRequest
from django.urls import Resolver404, resolve
from jsonschema import Draft202012Validator
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from accounts.models import ApiKey
from memory_site.mcp_server.tools import TOOLS, Call, ToolInputError

SERVER_NAME = "loci"
SERVER_VERSION = "1"
INSTRUCTIONS = (
    "Loci is this user's long-term memory. Call `recall` (or `context` for a ready, budgeted block) before "
    "answering, and `add_conversation` / `append_turns` to store what was said; it is mined in the background."
)
MESSAGE_UNKNOWN_TOOL = "Unknown tool: {name}."
MESSAGE_UNKNOWN_METHOD = "Method not found: {method}."
MESSAGE_NOT_A_REQUEST = 'Not a JSON-RPC 2.0 message: send one object with "jsonrpc": "2.0" (batches are not supported).'
MESSAGE_PARSE_ERROR = "Parse error."


@dataclass(frozen=True)
class Caller:
    """Who is calling: the API key already authenticated by the transport, and its agent's owner."""

    owner: User
    api_key: ApiKey
    host: str


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    error = _dump(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)))
    return {**error, "id": request_id}  # JSON-RPC: "id": null when the request's id could not be read


def parse_error() -> dict[str, Any]:
    return _error(None, types.PARSE_ERROR, MESSAGE_PARSE_ERROR)


def _result(request_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": _dump(result)}


def _initialize(params: dict[str, Any]) -> types.InitializeResult:
    asked = params.get("protocolVersion")
    # Answer the client's version when we speak it; otherwise offer ours and let the client decide.
    version = asked if asked in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    return types.InitializeResult(
        protocol_version=version,
        capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
        server_info=types.Implementation(name=SERVER_NAME, version=SERVER_VERSION),
        instructions=INSTRUCTIONS,
    )


def tools_list() -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=tool.name,
                title=tool.title,
                description=tool.description,
                input_schema=tool.input_schema,
                annotations=types.ToolAnnotations(
                    title=tool.title,
                    read_only_hint=tool.read_only,
                    destructive_hint=tool.destructive,
                    idempotent_hint=tool.idempotent,
                    open_world_hint=False,
                ),
            )
            for tool in TOOLS.values()
        ]
    )


def _internal_request(call: Call, caller: Caller) -> WSGIRequest:
    body = json.dumps(call.body).encode() if call.body is not None else b""
    request = WSGIRequest(
        {
            "REQUEST_METHOD": call.method,
            # Decoded, as a WSGI server hands it to Django: UTF-8 bytes read as Latin-1 (PEP 3333), so a name
            # outside Latin-1 ("Łódź", "東京") reaches the view as itself.
            "PATH_INFO": unquote_to_bytes(call.path).decode("latin-1"),
            "SCRIPT_NAME": "",
            "QUERY_STRING": urlencode(call.query or {}),
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_ACCEPT": "application/json",
            "HTTP_HOST": caller.host,
            "SERVER_NAME": caller.host,
            "SERVER_PORT": "80",
            "wsgi.input": BytesIO(body),
            "wsgi.url_scheme": "http",
        }
    )
    # DRF's hook for an already-authenticated request (its Request reads these two attributes): the key was
    # checked once by the transport, so the operation runs as that key's agent without a second lookup.
    request._force_auth_user = caller.owner  # type: ignore[attr-defined]
    request._force_auth_token = caller.api_key  # type: ignore[attr-defined]
    return request


def _run(call: Call, caller: Caller) -> tuple[int, Any]:
    """Run the REST operation behind a tool in process; its status code and JSON body."""
    try:
        match = resolve(unquote(call.path))  # the tools quote names ("Anna Smith", "A/B") into the path
    except Resolver404:
        return 404, {"message": "Not found.", "extra": {}}
    response = match.func(_internal_request(call, caller), *match.args, **match.kwargs)
    render = getattr(response, "render", None)
    if render is not None:
        render()
    content = response.content
    return response.status_code, json.loads(content) if content else {}


def tools_call(params: dict[str, Any], caller: Caller) -> types.CallToolResult:
    name = params.get("name")
    tool = TOOLS.get(name) if isinstance(name, str) else None
    if tool is None:
        raise KeyError(name)
    arguments = params.get("arguments") or {}
    problems = sorted(Draft202012Validator(tool.input_schema).iter_errors(arguments), key=lambda e: list(e.path))
    if problems:  # each argument's problems under its name, as the REST envelope's extra.fields
        fields: dict[str, list[str]] = {}
        for problem in problems:
            missing = re.match(r"'([^']+)' is a required property", problem.message)
            name = ".".join(map(str, problem.path)) or (missing.group(1) if missing else "arguments")
            fields.setdefault(name, []).append(problem.message)
        return _tool_result(400, {"message": "Invalid input.", "extra": {"fields": fields}})
    try:
        call = tool.route(arguments)
    except ToolInputError as exc:
        return _tool_result(400, {"message": str(exc), "extra": {}})
    status, body = _run(call, caller)
    return _tool_result(status, body)


def _tool_result(status: int, body: Any) -> types.CallToolResult:
    structured = body if isinstance(body, dict) else {"results": body}
    if status >= 400:
        structured = {**structured, "status": status}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured, ensure_ascii=False))],
        structured_content=structured,
        is_error=status >= 400,
    )


def handle(message: Any, caller: Caller) -> dict[str, Any] | None:
    """The answer to one JSON-RPC message, or None for a notification or a response (nothing to send)."""
    try:
        parsed = types.jsonrpc_message_adapter.validate_python(message)
    except ValidationError:
        return _error(None, types.INVALID_REQUEST, MESSAGE_NOT_A_REQUEST)
    if not isinstance(parsed, types.JSONRPCRequest):
        return None
    request_id, method = parsed.id, parsed.method
    params: dict[str, Any] = message.get("params") or {}
    if method == "initialize":
        return _result(request_id, _initialize(params))
    if method == "ping":
        return _result(request_id, types.EmptyResult())
    if method == "tools/list":
        return _result(request_id, tools_list())
    if method == "tools/call":
        try:
            return _result(request_id, tools_call(params, caller))
        except KeyError:
            return _error(request_id, types.INVALID_PARAMS, MESSAGE_UNKNOWN_TOOL.format(name=params.get("name")))
    # Includes 2026's `server/discover`: the SDK's client reads "method not found" as a handshake-era
    # server and falls back to `initialize`.
    return _error(request_id, types.METHOD_NOT_FOUND, MESSAGE_UNKNOWN_METHOD.format(method=method))
