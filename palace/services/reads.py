"""Who read a drawer: every drawer an agent receives in a recall or a context block is recorded, off
the request path. The request pushes one small JSON record per drawer onto a Redis list in a single
RPUSH; `drawer_reads_flush` (a Celery task, beat every few seconds, and sent early when the list
passes FLUSH_AT) moves them into DrawerRead rows in bulk.

Losing a read is acceptable, failing or slowing a recall is not: with Redis down the records are
dropped with one log line. Each record carries its own uuid, the DrawerRead's primary key, so a
batch written twice (a flush that died between the insert and the trim) adds nothing."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypedDict

import kombu.exceptions
import redis
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Agent
from memory_site import events
from memory_site.redis_client import get_redis
from palace.models import ActivityEvent, Drawer, DrawerRead

logger = logging.getLogger(__name__)

QUEUE_KEY = "loci:palace:drawer-reads"
LOCK_KEY = "loci:palace:drawer-reads:flush"
QUERY_CHARS = 300
FLUSH_AT = 500  # records waiting: past this, the request that crossed it sends a flush at once
BATCH = 1000  # records per insert
MAX_BATCHES = 50  # per flush run, so one run never holds the worker long; beat sends the next


class ReadRecord(TypedDict):
    id: str
    drawer_id: int
    agent_id: str | None
    source: str
    query: str
    at: str  # ISO 8601


def drawer_reads_push(*, agent: Agent | None, source: DrawerRead.Source, query: str, drawer_ids: Iterable[int]) -> None:
    """Queue one read per drawer; never raises for Redis. Only agents' reads are recorded: a person
    searching their own memory in the browser is not an agent reading it."""
    ids = list(dict.fromkeys(drawer_ids))
    if agent is None or not ids:
        return
    at = timezone.now().isoformat()
    records = [
        json.dumps(
            ReadRecord(
                id=str(uuid.uuid4()),
                drawer_id=pk,
                agent_id=str(agent.pk),
                source=str(source),
                query=query[:QUERY_CHARS],
                at=at,
            )
        )
        for pk in ids
    ]
    try:
        waiting = int(get_redis().rpush(QUEUE_KEY, *records))
    except redis.RedisError as exc:
        logger.warning("drawer reads dropped (%d): Redis unavailable: %s", len(records), exc)
        return
    if waiting - len(records) < FLUSH_AT <= waiting:
        _send_flush()


def _send_flush() -> None:
    from palace.tasks import drawer_reads_flush  # the task module imports the services

    try:
        drawer_reads_flush.delay()
    except (redis.RedisError, kombu.exceptions.OperationalError) as exc:  # beat flushes within seconds anyway
        logger.warning("drawer reads flush not sent early: %s", exc)


def _rows(records: list[ReadRecord]) -> list[DrawerRead]:
    """Records whose drawer still exists, as rows; the owner is the drawer's, never the record's word."""
    owners = dict(Drawer.objects.filter(pk__in={r["drawer_id"] for r in records}).values_list("pk", "owner_id"))
    agent_ids = {r["agent_id"] for r in records if r["agent_id"]}
    agents = {str(pk) for pk in Agent.objects.filter(pk__in=agent_ids).values_list("pk", flat=True)}
    return [
        DrawerRead(
            id=uuid.UUID(r["id"]),
            drawer_id=r["drawer_id"],
            owner_id=owners[r["drawer_id"]],
            agent_id=r["agent_id"] if r["agent_id"] in agents else None,
            source=r["source"],
            query=r["query"][:QUERY_CHARS],
            created_at=datetime.fromisoformat(r["at"]),
        )
        for r in records
        if r["drawer_id"] in owners
    ]


def _activity(rows: list[DrawerRead]) -> None:
    """One `memory_recalled` activity event per owner, agent and source of the batch (a flush runs every
    few seconds): how many turns went to the agent and for how many queries, so the person's activity log
    says who read their memory without a row per recall. The queries' text is not in it: it stays with the
    reads of each drawer (its page shows them), which go when the drawer is forgotten. A batch written
    twice (a crash between the insert and the trim) may log its event twice; the reads are not doubled."""
    groups: dict[tuple[int, Any, str], list[DrawerRead]] = {}
    for row in rows:
        groups.setdefault((row.owner_id, row.agent_id, row.source), []).append(row)
    ActivityEvent.objects.bulk_create(
        ActivityEvent(
            owner_id=owner_id,
            agent_id=agent_id,
            kind="memory_recalled",
            data={
                "source": source,
                "turns": len({r.drawer_id for r in group}),
                "queries": len({r.query for r in group}),
            },
        )
        for (owner_id, agent_id, source), group in groups.items()
    )


def _write(records: list[ReadRecord]) -> int:
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                rows = _rows(records)
                written = len(DrawerRead.objects.bulk_create(rows, ignore_conflicts=True))
                _activity(rows)
                _recalled_events(rows)
                return written
        except IntegrityError:
            # A drawer or agent deleted between the lookup and the commit (the foreign keys are
            # checked at commit): look again, once.
            if attempt == 2:
                raise
    return 0


def _recalled_events(rows: list[DrawerRead]) -> None:
    """memory.recalled, one per owner, agent and source of the batch: which agent received which drawers
    (ids only, never the query). Written with the reads; only for endpoints that opted in."""
    groups: dict[tuple[int, str | None, str], list[int]] = {}
    for row in rows:
        key = (row.owner_id, str(row.agent_id) if row.agent_id else None, str(row.source))
        groups.setdefault(key, []).append(row.drawer_id)
    for (owner_id, agent_id, source), drawer_ids in groups.items():
        events.memory_event_emit(
            owner_id=owner_id,
            type=events.MEMORY_RECALLED,
            payload={"agent_id": agent_id, "source": source, "drawer_ids": sorted(set(drawer_ids))},
        )


def _parse(raw: list[Any]) -> list[ReadRecord]:
    """The readable records; one that is not (an older shape, a hand-pushed value) is skipped rather
    than left to fail every flush after it."""
    records: list[ReadRecord] = []
    for item in raw:
        try:
            record = json.loads(item)
            uuid.UUID(record["id"])
            if record.get("agent_id") is not None:
                uuid.UUID(record["agent_id"])
            datetime.fromisoformat(record["at"])
            if not isinstance(record["drawer_id"], int) or record["source"] not in DrawerRead.Source.values:
                raise ValueError(record)
            records.append(
                ReadRecord(
                    id=record["id"],
                    drawer_id=record["drawer_id"],
                    agent_id=record.get("agent_id"),
                    source=record["source"],
                    query=str(record.get("query", "")),
                    at=record["at"],
                )
            )
        except (ValueError, KeyError, TypeError):
            logger.warning("drawer read record not readable, skipped: %.80s", item)
    return records


def drawer_reads_flush() -> dict[str, int]:
    """Write what is queued, a batch at a time: read a batch, insert it, then trim it off the list. One
    flush at a time (a Redis lock): two would trim each other's batches. Records pushed meanwhile go
    to the tail and are never trimmed unread."""
    client = get_redis()
    lock = client.lock(LOCK_KEY, timeout=300, blocking=False)
    if not lock.acquire():
        return {"written": 0, "read": 0, "busy": 1}
    written = seen = 0
    try:
        for _ in range(MAX_BATCHES):
            raw: list[Any] = client.lrange(QUEUE_KEY, 0, BATCH - 1)  # type: ignore[assignment]
            if not raw:
                break
            written += _write(_parse(raw))
            seen += len(raw)
            client.ltrim(QUEUE_KEY, len(raw), -1)
    finally:
        try:
            lock.release()
        except redis.exceptions.LockError:
            logger.warning("drawer reads flush outlived its lock")
    return {"written": written, "read": seen, "busy": 0}
