"""The MCP tools: what a model reads (name, description, input schema, hints) and the REST operation each
one runs.

A tool does not call the services itself: it names the existing API operation (method, path, body), and
`protocol._run` runs that operation's view in process, as the key's agent. The API classes already are the
orchestration layer over the services (input validation, owner scoping, recording recall reads with
`drawer_reads_push`, the error envelope); calling them keeps one implementation of each, so a tool can
never see or do more than the same key can over REST. It costs a URL resolve and a view dispatch
(`bench/mcp_latency.py` measures it), no network hop."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from memory_site.lib.ids import CONVERSATION_ID_PATTERN, MESSAGE_BAD_CONVERSATION_ID, is_valid_conversation_id
from palace import assembly

API = "/api/v1"
MEMORY_TYPES = ["episodic", "semantic", "procedural", "control", "standard", "strategy"]
FORGET_KINDS = ["drawer", "conversation", "entity"]


class ToolInputError(ValueError):
    """Arguments that pass the schema but do not name one operation (e.g. `set` without `fields`)."""


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: dict[str, Any] | None = None
    query: dict[str, str] | None = None


@dataclass(frozen=True)
class McpTool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    route: Callable[[dict[str, Any]], Call]
    read_only: bool
    destructive: bool
    idempotent: bool


def _segment(value: Any) -> str:
    return quote(str(value), safe="")


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _pick(arguments: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: arguments[name] for name in names if name in arguments}


CONVERSATION_ID = {
    "type": "string",
    "pattern": "^" + CONVERSATION_ID_PATTERN.pattern + "$",  # the REST rule: no slash may reach another route
    "description": "Your id for the conversation: ASCII letters, digits and . _ : @ ~ - (1 to 256).",
}
DATETIME = {"type": "string", "format": "date-time"}
TURNS = {
    "type": "array",
    "description": "Turns in order, stored verbatim.",
    "items": {
        "type": "object",
        "properties": {
            "role": {"type": "string", "enum": ["user", "assistant", "system", "tool"]},
            "content": {"type": "string"},
            "timestamp": {**DATETIME, "description": "When it was said (ISO 8601); default: now."},
        },
        "required": ["role", "content"],
    },
}


def _recall(a: dict[str, Any]) -> Call:
    filters = a.get("filters") or {}
    body = {"query": a["query"], **_pick(a, "top_k"), **_pick(filters, "wing", "room", "agent", "since", "until")}
    return Call("POST", f"{API}/recall", body)


def _context(a: dict[str, Any]) -> Call:
    return Call("POST", f"{API}/context", _pick(a, "query", "conversation_id", "token_budget", "layers"))


def _add_conversation(a: dict[str, Any]) -> Call:
    return Call("POST", f"{API}/conversations", _pick(a, "conversation_id", "title", "turns", "complete"))


def _append_turns(a: dict[str, Any]) -> Call:
    return Call("POST", f"{API}/conversations/{_segment(a['conversation_id'])}/turns", {"turns": a["turns"]})


def _job_status(a: dict[str, Any]) -> Call:
    return Call("GET", f"{API}/jobs/{_segment(a['job_id'])}")


def _remember(a: dict[str, Any]) -> Call:
    body = _pick(a, "content", "session_id", "entity_id", "steps", "trigger_conditions", "metadata")
    return Call("POST", f"{API}/memories/typed/{_segment(a['memory_type'])}", body)


def _search_memories(a: dict[str, Any]) -> Call:
    return Call("POST", f"{API}/memories/typed/query", _pick(a, "query", "memory_types", "top_k"))


def _working_memory(a: dict[str, Any]) -> Call:
    path = f"{API}/working-memory/{_segment(a['conversation_id'])}"
    if a["action"] == "get":
        return Call("GET", path)
    if not a.get("fields"):
        raise ToolInputError("`set` needs `fields`: an object of field names to values.")
    return Call("PUT", path, {"fields": a["fields"]})


def _ledger(a: dict[str, Any]) -> Call:
    path = f"{API}/ledger/{_segment(a['conversation_id'])}/{a['action']}"
    return Call("POST", path, {"item": a["item"]})


def _kg_query(a: dict[str, Any]) -> Call:
    return Call("GET", f"{API}/kg/entities/{_segment(a['entity'])}", query=_pick(a, "as_of"))


def _kg_add(a: dict[str, Any]) -> Call:
    body = _pick(a, "subject", "predicate", "object", "object_is_entity", "valid_from", "replace", "confidence")
    return Call("POST", f"{API}/kg/relations", body)


def _forget(a: dict[str, Any]) -> Call:
    kind, target = a["kind"], a["id"]
    if kind == "drawer":
        if not re.fullmatch(r"[0-9]{1,18}", str(target)):  # "²" is a digit to isdigit(), not to int()
            raise ToolInputError("A drawer id is a number (the drawer_id recall returns).")
        return Call("DELETE", f"{API}/palace/drawers/{int(target)}")
    if kind == "conversation":
        if not is_valid_conversation_id(target):
            raise ToolInputError(MESSAGE_BAD_CONVERSATION_ID)
        return Call("DELETE", f"{API}/conversations/{_segment(target)}")
    return Call("DELETE", f"{API}/kg/entities/{_segment(target)}")


_TOOLS = [
    McpTool(
        name="recall",
        title="Recall memories",
        description=(
            "Search this user's long-term memory for what matters to a query. Returns the best drawers "
            "(verbatim turns of past conversations), each with its AAAK pointer (e.g. § W-042/R-11/D-007), its "
            "place (wing and room), when it happened, a score and the per-signal scores (semantic, keyword, "
            "temporal, preference, speaker, entity, pinned), plus `memory_context`: a ready block to paste into "
            "your prompt. "
            "Mentions of time in the query ('last week') are understood."
        ),
        input_schema=_schema(
            {
                "query": {"type": "string", "minLength": 1, "maxLength": 4000, "description": "What to recall."},
                "top_k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many; default 5."},
                "filters": {
                    "type": "object",
                    "description": "Optional limits.",
                    "properties": {
                        "wing": {"type": "integer", "description": "Only this wing (and linked wings)."},
                        "room": {"type": "integer", "description": "Only this room."},
                        "agent": {"type": "string", "format": "uuid", "description": "Only this agent's talks."},
                        "since": {**DATETIME, "description": "Only memories from this time on."},
                        "until": {**DATETIME, "description": "Only memories before this time."},
                    },
                    "additionalProperties": False,
                },
            },
            ["query"],
        ),
        route=_recall,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="context",
        title="Assemble context",
        description=(
            "Build one `memory_context` block for a query from every memory layer (the conversation's working "
            "memory, short- and long-term memory, episodes, typed memories, palace drawers), deduplicated, "
            "ranked and cut to a token budget. Use it right before an LLM call when you want one block."
        ),
        input_schema=_schema(
            {
                "query": {"type": "string", "minLength": 1, "maxLength": 4000},
                "conversation_id": {**CONVERSATION_ID, "description": "Include this conversation's working memory."},
                "token_budget": {"type": "integer", "minimum": 50, "maximum": 32000, "description": "Default 1500."},
                "layers": {
                    "type": "array",
                    "items": {"type": "string", "enum": assembly.layer_names()},
                    "minItems": 1,
                    "description": "Only these layers; default all.",
                },
            },
            ["query"],
        ),
        route=_context,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="add_conversation",
        title="Store a conversation",
        description=(
            "Store a new conversation verbatim; it is mined into memory in the background. Returns `job_id`: "
            "pass it to `job_status` to know when the memories are recallable. Use `append_turns` for later turns."
        ),
        input_schema=_schema(
            {
                "conversation_id": CONVERSATION_ID,
                "title": {"type": "string", "maxLength": 300},
                "turns": TURNS,
                "complete": {"type": "boolean", "description": "True when the conversation is over."},
            },
            ["conversation_id", "turns"],
        ),
        route=_add_conversation,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    McpTool(
        name="append_turns",
        title="Append turns",
        description="Add new turns to a stored conversation (mined in the background). Returns `job_id`.",
        input_schema=_schema(
            {"conversation_id": CONVERSATION_ID, "turns": {**TURNS, "minItems": 1}},
            [
                "conversation_id",
                "turns",
            ],
        ),
        route=_append_turns,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    McpTool(
        name="job_status",
        title="Mining job status",
        description="The state of a mining job from `add_conversation` / `append_turns` (queued, running, done).",
        input_schema=_schema({"job_id": {"type": "string", "format": "uuid"}}, ["job_id"]),
        route=_job_status,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="remember",
        title="Remember a fact, procedure or lesson",
        description=(
            "Store one typed memory directly: semantic (a fact, optionally about `entity_id`), episodic (an "
            "event in `session_id`), procedural (how to do something: `steps`), control or strategy (when to "
            "do what: `trigger_conditions`), standard (a rule to follow)."
        ),
        input_schema=_schema(
            {
                "memory_type": {"type": "string", "enum": MEMORY_TYPES},
                "content": {"type": "string", "minLength": 1, "maxLength": 20000},
                "session_id": {"type": "string", "maxLength": 64},
                "entity_id": {"type": "string", "maxLength": 128},
                "steps": {"type": "array", "items": {"type": "string"}},
                "trigger_conditions": {"type": "array", "items": {"type": "string"}},
                "metadata": {"type": "object"},
            },
            ["memory_type", "content"],
        ),
        route=_remember,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    McpTool(
        name="search_memories",
        title="Search typed memories",
        description="Search the typed memories stored with `remember`, across the chosen types.",
        input_schema=_schema(
            {
                "query": {"type": "string", "minLength": 1, "maxLength": 2000},
                "memory_types": {"type": "array", "items": {"type": "string", "enum": MEMORY_TYPES}},
                "top_k": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            ["query"],
        ),
        route=_search_memories,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="working_memory",
        title="Working memory",
        description=(
            "A conversation's short-lived scratch state (a key-value hash that expires). `get` returns every "
            "field; `set` merges `fields` in, leaving the other fields as they are."
        ),
        input_schema=_schema(
            {
                "conversation_id": CONVERSATION_ID,
                "action": {"type": "string", "enum": ["get", "set"]},
                "fields": {"type": "object", "description": "For `set`: field names to values."},
            },
            ["conversation_id", "action"],
        ),
        route=_working_memory,
        read_only=False,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="ledger",
        title="Injection ledger",
        description=(
            "Avoid injecting the same skill or context block twice in a conversation: `check` answers whether "
            "`item` was injected already; `mark` records that it now is."
        ),
        input_schema=_schema(
            {
                "conversation_id": CONVERSATION_ID,
                "action": {"type": "string", "enum": ["check", "mark"]},
                "item": {"type": "string", "minLength": 1, "maxLength": 256, "description": "A skill or block id."},
            },
            ["conversation_id", "action", "item"],
        ),
        route=_ledger,
        read_only=False,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="kg_query",
        title="Facts about an entity",
        description=(
            "What the knowledge graph holds about an entity (a person, project, place...) at a point in time: "
            "each relation with its validity window (valid_from, valid_to; null: still true) and "
            "source_drawer_id, the drawer it was learned from (null when added with kg_add)."
        ),
        input_schema=_schema(
            {
                "entity": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Its name."},
                "as_of": {**DATETIME, "description": "Facts true at this time; default now."},
            },
            ["entity"],
        ),
        route=_kg_query,
        read_only=True,
        destructive=False,
        idempotent=True,
    ),
    McpTool(
        name="kg_add",
        title="Add a fact",
        description=(
            "Add a fact to the knowledge graph: subject, predicate, object (e.g. Alice works_at Acme). With "
            "`replace`, the subject's current facts with this predicate end when this one starts."
        ),
        input_schema=_schema(
            {
                "subject": {"type": "string", "minLength": 1, "maxLength": 200},
                "predicate": {"type": "string", "minLength": 1, "maxLength": 100},
                "object": {"type": "string", "minLength": 1, "maxLength": 500},
                "object_is_entity": {"type": "boolean", "description": "False: the object is a literal value."},
                "valid_from": DATETIME,
                "replace": {"type": "boolean"},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            },
            ["subject", "predicate", "object"],
        ),
        route=_kg_add,
        read_only=False,
        destructive=False,
        idempotent=False,
    ),
    McpTool(
        name="forget",
        title="Forget",
        description=(
            "Erase a drawer (by drawer_id), a whole conversation (by conversation_id) or an entity and every "
            "fact about it (by name), with everything derived from it. Returns the erasure receipt. Cannot be "
            "undone: only do this when the user asks."
        ),
        input_schema=_schema(
            {"kind": {"type": "string", "enum": FORGET_KINDS}, "id": {"type": ["string", "integer"]}},
            ["kind", "id"],
        ),
        route=_forget,
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
]

TOOLS: dict[str, McpTool] = {tool.name: tool for tool in _TOOLS}
