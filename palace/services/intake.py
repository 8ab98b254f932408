"""Conversations in: turns are stored verbatim, durable before the response, together with their
mining request.

Nothing posted is lost: turns and their mining request commit together; the task is sent on commit,
and a job whose send failed (broker down) stays `queued` with `enqueued_at` null until the outbox job
sends it again (palace/services/jobs.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Agent
from accounts.services import MESSAGE_MEMORY_PAUSED, memory_require_enabled
from memory_site import events
from memory_site.lib.errors import ConflictError, NotFoundError
from palace.models import Conversation, MiningJob, Turn
from palace.services.jobs import job_send

MESSAGE_MEMORY_OFF = MESSAGE_MEMORY_PAUSED
MESSAGE_CONVERSATION_EXISTS = "A conversation with this id exists; append turns to it instead."
MESSAGE_NO_CONVERSATION = "Conversation not found."


class ConversationExists(ConflictError):
    message = MESSAGE_CONVERSATION_EXISTS


class ConversationMissing(NotFoundError):
    message = MESSAGE_NO_CONVERSATION


class TurnInput(TypedDict, total=False):
    role: str
    content: str
    timestamp: datetime | None


def _check_enabled(owner: User) -> bool:
    """Raises MemoryPaused (409, see accounts.services) when the owner paused memory; returns auto_mine."""
    return memory_require_enabled(owner=owner).auto_mine


def _add_turns(conversation: Conversation, turns: list[TurnInput]) -> None:
    start = conversation.turn_count
    Turn.objects.bulk_create(
        Turn(
            conversation=conversation,
            index=start + offset,
            role=turn["role"],
            content=turn["content"],
            timestamp=turn.get("timestamp"),
        )
        for offset, turn in enumerate(turns)
    )
    conversation.turn_count = start + len(turns)
    conversation.save(update_fields=["turn_count", "complete", "updated_at"])


def _new_job(conversation: Conversation, *, ready: bool) -> MiningJob:
    job = MiningJob.objects.create(owner_id=conversation.owner_id, conversation=conversation, ready=ready)
    if ready:
        # Earlier requests still waiting for this conversation are covered by this run.
        MiningJob.objects.filter(conversation=conversation, status=MiningJob.Status.QUEUED, ready=False).update(
            ready=True
        )
        transaction.on_commit(lambda: job_send(job_id=job.id))
    return job


def conversation_create(
    *,
    owner: User,
    agent: Agent | None,
    external_id: str,
    turns: list[TurnInput],
    complete: bool = False,
    title: str = "",
    user_id: str = "",
    started_at: datetime | None = None,
) -> MiningJob:
    """Store a conversation and its turns verbatim, with its mining request, in one transaction."""
    auto_mine = _check_enabled(owner)
    first_timestamp = next((t["timestamp"] for t in turns if t.get("timestamp")), None)
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(
                owner=owner,
                agent=agent,
                external_id=external_id,
                title=title,
                user_id=user_id,
                complete=complete,
                started_at=started_at or first_timestamp or timezone.now(),
            )
            _add_turns(conversation, turns)
            if complete:
                _completed(conversation)
            return _new_job(conversation, ready=complete and auto_mine)
    except IntegrityError:
        raise ConversationExists(MESSAGE_CONVERSATION_EXISTS) from None


def _completed(conversation: Conversation) -> None:
    events.memory_event_emit(
        owner_id=conversation.owner_id,
        type=events.CONVERSATION_COMPLETED,
        payload={
            "conversation_id": conversation.external_id,
            "agent_id": str(conversation.agent_id) if conversation.agent_id else None,
            "turns": conversation.turn_count,
        },
    )


def _locked_conversation(owner: User, external_id: str) -> Conversation:
    conversation = Conversation.objects.select_for_update().filter(owner=owner, external_id=external_id).first()
    if conversation is None:
        raise ConversationMissing(MESSAGE_NO_CONVERSATION)
    return conversation


def conversation_append(*, owner: User, external_id: str, turns: list[TurnInput]) -> MiningJob:
    """Append turns (indexes continue the conversation's) with their mining request. Appending to a
    complete conversation mines the new turns automatically (auto-mine)."""
    auto_mine = _check_enabled(owner)
    with transaction.atomic():
        # The row lock orders concurrent appends: each one sees the other's turn_count.
        conversation = _locked_conversation(owner, external_id)
        _add_turns(conversation, turns)
        return _new_job(conversation, ready=conversation.complete and auto_mine)


def conversation_complete(*, owner: User, external_id: str) -> MiningJob:
    auto_mine = _check_enabled(owner)
    with transaction.atomic():
        conversation = _locked_conversation(owner, external_id)
        conversation.complete = True
        conversation.save(update_fields=["complete", "updated_at"])
        _completed(conversation)
        return _new_job(conversation, ready=auto_mine)


def conversation_request_mining(*, owner: User, external_id: str) -> MiningJob:
    _check_enabled(owner)
    with transaction.atomic():
        return _new_job(_locked_conversation(owner, external_id), ready=True)
