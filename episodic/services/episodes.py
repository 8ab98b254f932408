"""Writes of episodes: store, propose (the heuristic rules decide), delete. Expired episodes are deleted
by the expired_cleanup job (episodic.services.maintenance).

The embedding is computed before any transaction (STYLE habit 6); when the embedder fails the row is
stored with a null embedding and the embedding_backfill job fills it in later.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import Agent, UsageRecord
from accounts.services import memory_require_enabled
from episodic import heuristics, providers
from episodic.models import Episode
from memory_site.lib import text
from memory_site.lib.errors import InvalidFieldError

logger = logging.getLogger(__name__)


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
    memory_require_enabled(owner=owner)  # paused memory keeps nothing new (409)
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


def episode_edit(*, episode: Episode, summary: str) -> Episode:
    """A person's correction of an episode's summary, embedded again at once (as typed_memory_edit)."""
    summary = summary.strip()
    if not summary:
        raise InvalidFieldError("summary", "An episode cannot be empty; forget it instead.")
    vector = providers.embed_query(owner_id=episode.owner_id, text=summary)  # before the transaction
    episode.summary = summary
    episode.search_text = _search_text(summary, episode.topic, episode.keywords)
    episode.embedding = vector
    episode.embedding_model = providers.get_embedder().name if vector is not None else ""
    episode.save(update_fields=["summary", "search_text", "embedding", "embedding_model"])
    return episode


@dataclass(frozen=True)
class Proposal:
    verdict: heuristics.Verdict
    episode: Episode | None
    summarizer: str  # "llm", "extractive", or "extractive (budget)" when the owner is over budget


def _summarize(*, owner: User, transcript: str) -> tuple[str, list[str], str, str]:
    """(summary, keywords, topic, how): from the LLM when one is configured and answers, else extractive."""
    if providers.llm_over_budget(owner_id=owner.pk):
        return (*_extractive(transcript), "extractive (budget)")
    completion = providers.chat(
        owner_id=owner.pk,
        source=UsageRecord.Source.SUMMARIZE,
        json_mode=True,
        messages=[
            {
                "role": "system",
                "content": "Summarise the conversation for a memory store. Answer JSON: "
                '{"summary": "<=3 sentences, facts and decisions", "keywords": ["..."], "topic": "..."}',
            },
            {"role": "user", "content": transcript[:12000]},
        ],
    )
    if completion is not None:
        try:
            data = json.loads(completion.text)
            summary = str(data["summary"]).strip()
            if summary:
                words = [str(k).lower() for k in data.get("keywords", [])][:10]
                return summary, words or text.keywords(summary), str(data.get("topic", ""))[:200], "llm"
        except (ValueError, KeyError, TypeError):
            logger.warning("the LLM's summary was not the JSON asked for; using the extractive summary")
    return (*_extractive(transcript), "extractive")


def _extractive(transcript: str) -> tuple[str, list[str], str]:
    lines = [line.split(": ", 1) for line in transcript.splitlines()]
    plain = "\n".join(parts[-1] for parts in lines)
    user_side = "\n".join(parts[-1] for parts in lines if parts[0] == "user")
    summary = text.extractive_summary(plain)
    words = text.keywords(user_side or plain)
    return summary, words, words[0] if words else ""


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
        owner=owner,
        agent=agent,
        conversation_id=conversation_id,
        summary=summary,
        keywords=words,
        topic=topic,
        importance=verdict.importance,
        episode_type=verdict.episode_type,
        metadata=metadata,
        user_id=user_id,
        occurred_at=occurred_at,
    )
    return Proposal(verdict=verdict, episode=episode, summarizer=how)


def episode_delete(*, episode: Episode) -> None:
    episode.delete()
