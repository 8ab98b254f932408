"""`AsyncLoci`: the asyncio client, method for method `Loci` (client.py) with every method awaitable."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import httpx

from loci_client import _calls as calls
from loci_client import types as t
from loci_client._base import DEFAULT_TIMEOUT, api_root, decode, headers, request_args, wait_timed_out
from loci_client.errors import from_transport

T = TypeVar("T")
TurnLike = t.Turn | Mapping[str, Any]


class AsyncLoci:
    """`AsyncLoci(base_url, api_key)`, defaults as `Loci`'s. Use it with `async with`, or await
    `aclose()`, to release its connections."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=api_root(base_url), headers=headers(api_key), timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> AsyncLoci:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: calls.Call[T]) -> T:
        try:
            response = await self._http.request(call.method, call.path, **request_args(call))
        except httpx.HTTPError as exc:
            raise from_transport(exc) from exc
        return decode(call, response)

    # recall and context: call one before each LLM call, put `memory_context` in the system prompt

    async def recall(
        self,
        query: str,
        *,
        top_k: int | None = None,
        wing: int | None = None,
        room: int | None = None,
        agent: UUID | str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        reference_time: datetime | str | None = None,
        use_rerank: bool | None = None,
    ) -> t.RecallResult:
        return await self._send(
            calls.recall(
                query,
                top_k=top_k,
                wing=wing,
                room=room,
                agent=agent,
                since=since,
                until=until,
                reference_time=reference_time,
                use_rerank=use_rerank,
            )
        )

    async def context(
        self,
        query: str,
        *,
        conversation_id: str | None = None,
        token_budget: int | None = None,
        per_layer: int | None = None,
        layers: Sequence[str] | None = None,
        reference_time: datetime | str | None = None,
    ) -> t.ContextResult:
        return await self._send(
            calls.context(
                query,
                conversation_id=conversation_id,
                token_budget=token_budget,
                per_layer=per_layer,
                layers=layers,
                reference_time=reference_time,
            )
        )

    # conversations and their mining jobs

    async def conversation_create(
        self,
        conversation_id: str,
        turns: Iterable[TurnLike] = (),
        *,
        title: str | None = None,
        user_id: str | None = None,
        started_at: datetime | str | None = None,
        complete: bool | None = None,
    ) -> t.Accepted:
        return await self._send(
            calls.conversation_create(
                conversation_id, turns, title=title, user_id=user_id, started_at=started_at, complete=complete
            )
        )

    async def conversation_append(self, conversation_id: str, turns: Iterable[TurnLike]) -> t.Accepted:
        return await self._send(calls.conversation_append(conversation_id, turns))

    async def conversation_complete(self, conversation_id: str) -> t.Accepted:
        return await self._send(calls.conversation_complete(conversation_id))

    async def job_get(self, job_id: str) -> t.Job:
        return await self._send(calls.job_get(job_id))

    async def job_wait(self, job_id: str, *, timeout: float = 60.0, interval: float = 0.5) -> t.Job:
        """Poll until the job is `done` or `failed` and return it (check `status`); LociError with status
        None when `timeout` seconds pass first."""
        deadline = time.monotonic() + timeout
        while True:
            job = await self.job_get(job_id)
            if job["status"] in calls.FINISHED:
                return job
            if time.monotonic() + interval > deadline:
                raise wait_timed_out(job_id, timeout, job["status"])
            await asyncio.sleep(interval)

    # typed memories

    async def memory_create(
        self,
        memory_type: t.MemoryType | str,
        content: str,
        *,
        scope: str | None = None,
        shared_with: Sequence[UUID | str] | None = None,
        session_id: str | None = None,
        sequence_number: int | None = None,
        entity_id: str | None = None,
        steps: Sequence[str] | None = None,
        trigger_conditions: Sequence[str] | None = None,
        error_pattern: str | None = None,
        severity: str | None = None,
        source_trajectory_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> t.TypedMemory:
        return await self._send(
            calls.memory_create(
                memory_type,
                content,
                scope=scope,
                shared_with=shared_with,
                session_id=session_id,
                sequence_number=sequence_number,
                entity_id=entity_id,
                steps=list(steps) if steps is not None else None,
                trigger_conditions=list(trigger_conditions) if trigger_conditions is not None else None,
                error_pattern=error_pattern,
                severity=severity,
                source_trajectory_id=source_trajectory_id,
                metadata=dict(metadata) if metadata is not None else None,
            )
        )

    async def memory_query(
        self, query: str, *, memory_types: Sequence[t.MemoryType | str] | None = None, top_k: int | None = None
    ) -> t.Page[t.TypedHit]:
        return await self._send(calls.memory_query(query, memory_types=memory_types, top_k=top_k))

    # working memory: a conversation's short-lived fields (in Redis), shared by the owner's agents

    async def working_memory_get(self, conversation_id: str) -> dict[str, Any]:
        return await self._send(calls.working_memory_get(conversation_id))

    async def working_memory_set(
        self, conversation_id: str, fields: Mapping[str, Any], *, ttl_seconds: int | None = None
    ) -> t.WorkingMemoryWrite:
        """Merge `fields` into the conversation's working memory (never replaces the others)."""
        return await self._send(calls.working_memory_set(conversation_id, fields, ttl_seconds=ttl_seconds))

    async def working_memory_delete(
        self, conversation_id: str, fields: Sequence[str] | None = None
    ) -> t.WorkingMemoryDelete:
        """Remove the named fields, or everything when `fields` is None."""
        return await self._send(calls.working_memory_delete(conversation_id, fields))

    # the injection ledger: what was already put into a conversation's prompt

    async def ledger_check(self, conversation_id: str, item: str) -> t.LedgerCheck:
        return await self._send(calls.ledger_check(conversation_id, item))

    async def ledger_mark(self, conversation_id: str, item: str, *, value: str | None = None) -> t.LedgerMark:
        return await self._send(calls.ledger_mark(conversation_id, item, value=value))

    # the knowledge graph

    async def kg_add(
        self,
        subject: str,
        predicate: str,
        object: str,  # the API names it so; shadowing the builtin is harmless here
        *,
        object_is_entity: bool | None = None,
        valid_from: datetime | str | None = None,
        replace: bool | None = None,
        confidence: float | None = None,
    ) -> t.Relation:
        return await self._send(
            calls.kg_add(
                subject,
                predicate,
                object,
                object_is_entity=object_is_entity,
                valid_from=valid_from,
                replace=replace,
                confidence=confidence,
            )
        )

    async def kg_entity(self, name: str, *, as_of: datetime | str | None = None) -> t.EntityAsOf:
        """The entity and the relations true at `as_of` (default now)."""
        return await self._send(calls.kg_entity(name, as_of=as_of))

    async def kg_timeline(self, name: str) -> t.EntityTimeline:
        return await self._send(calls.kg_timeline(name))

    # forgetting: each answers the erasure receipt

    async def forget_drawer(self, drawer_id: int) -> t.Receipt:
        return await self._send(calls.forget_drawer(drawer_id))

    async def forget_conversation(self, conversation_id: str) -> t.Receipt:
        return await self._send(calls.forget_conversation(conversation_id))

    async def forget_entity(self, name: str) -> t.Receipt:
        return await self._send(calls.forget_entity(name))

    async def forget(self, kind: str, ids: Sequence[str | int]) -> t.Receipt:
        """Many at once: kind `drawer`, `conversation`, `wing`, `entity`, `typed_memory` or `episode`."""
        return await self._send(calls.forget(kind, ids, confirm=None))

    async def forget_everything(self, *, confirm: str) -> t.Receipt:
        """Every memory of the key's owner. `confirm` must be the word "everything"."""
        return await self._send(calls.forget("everything", [], confirm=confirm))
