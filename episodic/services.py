"""Writes of the episodic app: episodes (store, propose, delete, expire, backfill) and typed memories.

Embeddings are computed before any transaction (STYLE habit 6); when the embedder fails the row is
stored with a null embedding and `embedding_backfill` fills it in later.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Agent, UsageRecord
from episodic import embedded, heuristics, providers
from episodic.models import Episode, TypedMemory
from memory_site.lib import text

logger = logging.getLogger(__name__)

DEFAULT_SCOPES = {
    TypedMemory.Type.EPISODIC: TypedMemory.Scope.AGENT,
    TypedMemory.Type.SEMANTIC: TypedMemory.Scope.GLOBAL,
    TypedMemory.Type.PROCEDURAL: TypedMemory.Scope.GLOBAL,
    TypedMemory.Type.CONTROL: TypedMemory.Scope.GLOBAL,
}
REQUIRED_FIELDS = {TypedMemory.Type.EPISODIC: ("session_id",)}
# The per-type fields of seed 001; a field of another type is refused rather than silently stored.
TYPE_FIELDS = {
    TypedMemory.Type.EPISODIC: {"session_id", "sequence_number"},
    TypedMemory.Type.SEMANTIC: {"entity_id"},
    TypedMemory.Type.PROCEDURAL: {"steps", "trigger_conditions"},
    TypedMemory.Type.CONTROL: {"error_pattern", "severity", "source_trajectory_id"},
}
_ALL_TYPE_FIELDS = set().union(*TYPE_FIELDS.values())


class MissingField(ValueError):
    def __init__(self, field_name: str, memory_type: str) -> None:
        super().__init__(f"{field_name} is required for {memory_type} memories.")
        self.field_name = field_name


class ForeignField(ValueError):
    def __init__(self, field_name: str, memory_type: str) -> None:
        super().__init__(f"{field_name} does not belong to {memory_type} memories.")
        self.field_name = field_name


class EmptyTeam(ValueError):
    field_name = "shared_with"

    def __init__(self) -> None:
        super().__init__("A team memory names at least one agent in shared_with.")


def _search_text(summary: str, topic: str, keywords: list[str]) -> str:
    return "\n".join([summary, topic, " ".join(keywords)])


def episode_store(
    *,
    owner: User,
    agent: Agent | None,
    conversation_id: str,
    summary: str,
    keywords: list[str] | None = None,
    topic: str = "",
    importance: float = 0.5,
    episode_type: str = Episode.Type.CONVERSATION,
    metadata: dict[str, Any] | None = None,
    user_id: str = "",
    occurred_at: datetime | None = None,
    ttl_seconds: int | None = None,
) -> Episode:
    keywords = keywords if keywords is not None else text.keywords(summary)
    topic = topic or (keywords[0] if keywords else "")
    vector = providers.embed_query(owner_id=owner.pk, text=summary)  # before the transaction
    now = timezone.now()
    return Episode.objects.create(
        owner=owner,
        agent=agent,
        conversation_id=conversation_id,
        summary=summary,
        keywords=keywords,
        topic=topic,
        importance=importance,
        episode_type=episode_type,
        metadata=metadata or {},
        user_id=user_id,
        occurred_at=occurred_at or now,
        expires_at=now + timedelta(seconds=ttl_seconds or settings.EPISODE_TTL),
        search_text=_search_text(summary, topic, keywords),
        embedding=vector,
        embedding_model=providers.get_embedder().name if vector is not None else "",
    )


@dataclass(frozen=True)
class Proposal:
    verdict: heuristics.Verdict
    episode: Episode | None
    summarizer: str  # "llm" or "extractive"


def _summarize(*, owner: User, transcript: str) -> tuple[str, list[str], str, str]:
    """(summary, keywords, topic, how): from the LLM when one is configured and answers, else extractive."""
    completion = providers.chat(
        owner_id=owner.pk,
        source=UsageRecord.Source.SUMMARIZE,
        json_mode=True,
        messages=[
            {"role": "system", "content": "Summarise the conversation for a memory store. Answer JSON: "
             '{"summary": "<=3 sentences, facts and decisions", "keywords": ["..."], "topic": "..."}'},
            {"role": "user", "content": transcript[:12000]},
        ],
    )  # fmt: skip
    if completion is not None:
        try:
            data = json.loads(completion.text)
            summary = str(data["summary"]).strip()
            if summary:
                words = [str(k).lower() for k in data.get("keywords", [])][:10]
                return summary, words or text.keywords(summary), str(data.get("topic", ""))[:200], "llm"
        except (ValueError, KeyError, TypeError):
            logger.warning("the LLM's summary was not the JSON asked for; using the extractive summary")
    lines = [line.split(": ", 1) for line in transcript.splitlines()]
    plain = "\n".join(parts[-1] for parts in lines)
    user_side = "\n".join(parts[-1] for parts in lines if parts[0] == "user")
    summary = text.extractive_summary(plain)
    words = text.keywords(user_side or plain)
    return summary, words, words[0] if words else "", "extractive"


def episode_propose(
    *,
    owner: User,
    agent: Agent | None,
    conversation_id: str,
    turns: list[dict[str, str]],
    user_id: str = "",
    occurred_at: datetime | None = None,
    metadata: dict[str, Any] | None = None,
) -> Proposal:
    """Decide with the heuristic rules whether the transcript is worth an episode; store it if so."""
    verdict = heuristics.decide(turns)
    if verdict.decision == "skip":
        return Proposal(verdict=verdict, episode=None, summarizer="")
    transcript = "\n".join(f"{t.get('role', 'user')}: {t.get('content', '')}" for t in turns)
    summary, words, topic, how = _summarize(owner=owner, transcript=transcript)
    episode = episode_store(
        owner=owner, agent=agent, conversation_id=conversation_id, summary=summary, keywords=words, topic=topic,
        importance=verdict.importance, episode_type=verdict.episode_type, metadata=metadata, user_id=user_id,
        occurred_at=occurred_at,
    )  # fmt: skip
    return Proposal(verdict=verdict, episode=episode, summarizer=how)


def episode_delete(*, episode: Episode) -> None:
    episode.delete()


def typed_memory_create(
    *,
    owner: User,
    agent: Agent,
    memory_type: str,
    content: str,
    scope: str | None = None,
    **fields: Any,
) -> TypedMemory:
    for required in REQUIRED_FIELDS.get(TypedMemory.Type(memory_type), ()):
        if not fields.get(required):
            raise MissingField(required, memory_type)
    own_fields = TYPE_FIELDS.get(TypedMemory.Type(memory_type))
    if own_fields is not None:
        given = {name for name, value in fields.items() if value not in (None, "", [])}
        for name in sorted((_ALL_TYPE_FIELDS - own_fields) & given):
            raise ForeignField(name, memory_type)
    if scope == TypedMemory.Scope.TEAM and not fields.get("shared_with"):
        raise EmptyTeam()
    vector = providers.embed_query(owner_id=owner.pk, text=content)  # before the transaction
    return TypedMemory.objects.create(
        owner=owner,
        agent=agent,
        memory_type=memory_type,
        content=content,
        scope=scope or DEFAULT_SCOPES.get(memory_type, TypedMemory.Scope.ACCOUNT),  # type: ignore[call-overload]
        embedding=vector,
        embedding_model=providers.get_embedder().name if vector is not None else "",
        **fields,
    )


def typed_memory_delete(*, memory: TypedMemory) -> None:
    memory.delete()


def typed_memory_touch(*, ids: list[Any]) -> None:
    """Count an access of each memory returned to an agent (one UPDATE; F() so concurrent reads add up)."""
    if ids:
        TypedMemory.objects.filter(pk__in=ids).update(
            access_count=F("access_count") + 1, last_accessed_at=timezone.now()
        )


def embedding_backfill(*, batch_size: int = 64, max_batches: int = 50) -> dict[str, int]:
    """Embed rows stored without an embedding (the embedder was down). Safe to run twice at once: each
    row is written only while its embedding is still null."""
    counts: dict[str, int] = {"failed": 0}
    for table in embedded.tables():
        model, text_field = table.model, table.text_field
        key = str(model._meta.verbose_name_plural).replace(" ", "_")
        counts.setdefault(key, 0)
        for _ in range(max_batches):
            rows = list(
                model._default_manager.filter(embedding__isnull=True)
                .order_by("created_at")
                .values("pk", "owner_id", text_field)[:batch_size]
            )
            if not rows:
                break
            by_owner: dict[int, list[dict[str, Any]]] = {}
            for row in rows:
                by_owner.setdefault(row["owner_id"], []).append(row)
            progressed = False
            for owner_id, owner_rows in by_owner.items():
                vectors = providers.embed_documents(owner_id=owner_id, texts=[r[text_field] for r in owner_rows])
                if vectors is None:
                    counts["failed"] += len(owner_rows)
                    continue
                name = providers.get_embedder().name
                with transaction.atomic():
                    for row, vector in zip(owner_rows, vectors, strict=True):
                        counts[key] += model._default_manager.filter(pk=row["pk"], embedding__isnull=True).update(
                            embedding=vector, embedding_model=name
                        )
                progressed = True
            if not progressed:
                return counts  # the embedder is still down; the next run tries again
    return counts
