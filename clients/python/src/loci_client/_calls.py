"""Each operation as data: method, path, body and query, and the type its answer decodes to. The sync
and async clients only send these, so the two cannot drift apart on a path or a field name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from loci_client import types as t

T = TypeVar("T")

FINISHED: frozenset[str] = frozenset({"done", "failed"})


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    json: dict[str, Any] | None = None
    params: dict[str, str] = field(default_factory=dict)
    # Some answers are wrapped ({"receipt": {...}}); the client hands back the inside.
    unwrap: str | None = None


def _segment(value: str | int) -> str:
    # Conversation ids may hold ":" and "@", entity names spaces: one path segment each, whatever they hold.
    return quote(str(value), safe="")


def _time(value: datetime | str) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


def _body(**fields: Any) -> dict[str, Any]:
    """Leave unset (None) fields out, so the server's defaults apply; times go as ISO strings."""
    return {k: _time(v) if isinstance(v, datetime) else v for k, v in fields.items() if v is not None}


def recall(query: str, **options: Any) -> Call[t.RecallResult]:
    if options.get("agent") is not None:
        options["agent"] = str(options["agent"])
    return Call("POST", "recall", _body(query=query, **options))


def context(query: str, **options: Any) -> Call[t.ContextResult]:
    if options.get("layers") is not None:
        options["layers"] = list(options["layers"])
    return Call("POST", "context", _body(query=query, **options))


def _turns(turns: Iterable[t.Turn | Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [_body(**turn) for turn in turns]


def conversation_create(
    conversation_id: str, turns: Iterable[t.Turn | Mapping[str, Any]], **options: Any
) -> Call[t.Accepted]:
    return Call("POST", "conversations", _body(conversation_id=conversation_id, turns=_turns(turns), **options))


def conversation_append(conversation_id: str, turns: Iterable[t.Turn | Mapping[str, Any]]) -> Call[t.Accepted]:
    return Call("POST", f"conversations/{_segment(conversation_id)}/turns", {"turns": _turns(turns)})


def conversation_complete(conversation_id: str) -> Call[t.Accepted]:
    return Call("POST", f"conversations/{_segment(conversation_id)}/complete")


def job_get(job_id: str) -> Call[t.Job]:
    return Call("GET", f"jobs/{_segment(job_id)}")


def memory_create(memory_type: str, content: str, **options: Any) -> Call[t.TypedMemory]:
    if options.get("shared_with") is not None:
        options["shared_with"] = [str(agent) for agent in options["shared_with"]]
    return Call("POST", f"memories/typed/{_segment(memory_type)}", _body(content=content, **options))


def memory_query(query: str, *, memory_types: Sequence[str] | None, top_k: int | None) -> Call[t.Page[t.TypedHit]]:
    types = list(memory_types) if memory_types is not None else None
    return Call("POST", "memories/typed/query", _body(query=query, memory_types=types, top_k=top_k))


def working_memory_get(conversation_id: str) -> Call[dict[str, Any]]:
    return Call("GET", f"working-memory/{_segment(conversation_id)}")


def working_memory_set(
    conversation_id: str, fields: Mapping[str, Any], *, ttl_seconds: int | None
) -> Call[t.WorkingMemoryWrite]:
    body = _body(fields=dict(fields), ttl_seconds=ttl_seconds)
    return Call("PUT", f"working-memory/{_segment(conversation_id)}", body)


def working_memory_delete(conversation_id: str, fields: Sequence[str] | None) -> Call[t.WorkingMemoryDelete]:
    body = {"fields": list(fields)} if fields is not None else None
    return Call("DELETE", f"working-memory/{_segment(conversation_id)}", body)


def ledger_check(conversation_id: str, item: str) -> Call[t.LedgerCheck]:
    return Call("POST", f"ledger/{_segment(conversation_id)}/check", {"item": item})


def ledger_mark(conversation_id: str, item: str, *, value: str | None) -> Call[t.LedgerMark]:
    return Call("POST", f"ledger/{_segment(conversation_id)}/mark", _body(item=item, value=value))


def kg_add(subject: str, predicate: str, obj: str, **options: Any) -> Call[t.Relation]:
    return Call("POST", "kg/relations", _body(subject=subject, predicate=predicate, object=obj, **options))


def kg_entity(name: str, *, as_of: datetime | str | None) -> Call[t.EntityAsOf]:
    params = {"as_of": _time(as_of)} if as_of is not None else {}
    return Call("GET", f"kg/entities/{_segment(name)}", params=params)


def kg_timeline(name: str) -> Call[t.EntityTimeline]:
    return Call("GET", f"kg/entities/{_segment(name)}/timeline")


def forget_drawer(drawer_id: int) -> Call[t.Receipt]:
    return Call("DELETE", f"palace/drawers/{_segment(drawer_id)}", unwrap="receipt")


def forget_conversation(conversation_id: str) -> Call[t.Receipt]:
    return Call("DELETE", f"conversations/{_segment(conversation_id)}", unwrap="receipt")


def forget_entity(name: str) -> Call[t.Receipt]:
    return Call("DELETE", f"kg/entities/{_segment(name)}", unwrap="receipt")


def forget(kind: str, ids: Sequence[str | int], *, confirm: str | None) -> Call[t.Receipt]:
    return Call("POST", "forget", _body(kind=kind, ids=list(ids), confirm=confirm), unwrap="receipt")
