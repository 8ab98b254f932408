"""Palace data for recall tests: conversations posted and mined through the real services; where a
test needs to know exactly how close a drawer is to a query, it gives the drawer a crafted vector
(and passes the query's vector to recall itself)."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, cast

from django.contrib.auth.models import User

from accounts.models import Agent, MemorySettings
from palace.models import Conversation, Drawer
from palace.services import intake, mining

DIM = 384


def unit(*weights: tuple[int, float]) -> list[float]:
    """A unit vector with the given (axis, weight) components."""
    vector = [0.0] * DIM
    for axis, weight in weights:
        vector[axis] = weight
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


def mine(
    owner: User,
    conversation_id: str,
    turns: list[dict[str, Any]],
    at: datetime | None = None,
    agent: Agent | None = None,
) -> list[Drawer]:
    MemorySettings.objects.filter(user=owner).update(auto_mine=False)  # mined right here, not by a worker
    intake.conversation_create(
        owner=owner,
        agent=agent,
        external_id=conversation_id,
        complete=True,
        turns=cast(list[intake.TurnInput], [{"timestamp": at, **t} for t in turns]),
        started_at=at,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(owner=owner, external_id=conversation_id))
    return list(Drawer.objects.filter(owner=owner, conversation__external_id=conversation_id).order_by("turn_index"))


def set_vector(drawer: Drawer, vector: list[float] | None) -> None:
    Drawer.objects.filter(pk=drawer.pk).update(embedding=vector)
