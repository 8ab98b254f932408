"""Reads for identity. Every query is filtered by owner."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import User
from django.db.models import QuerySet

from accounts.models import Agent, ApiKey
from accounts.services import API_KEY_SCHEME, api_key_hash


def api_key_for_raw_key(*, raw_key: str) -> ApiKey | None:
    """The active key matching `raw_key`, with its agent and owner loaded; None for unknown, revoked
    or malformed keys and for keys whose owner is deactivated."""
    if not raw_key.startswith(f"{API_KEY_SCHEME}_") or len(raw_key) > 200:
        return None
    # Looked up by hash (a unique index): no per-key comparison loop to time.
    return (
        ApiKey.objects.select_related("agent", "agent__owner")
        .filter(key_hash=api_key_hash(raw_key), revoked_at__isnull=True, agent__owner__is_active=True)
        .first()
    )


def agent_list(*, owner: User) -> QuerySet[Agent]:
    return Agent.objects.filter(owner=owner).order_by("name")


def agent_get(*, owner: User, agent_id: uuid.UUID | str) -> Agent | None:
    try:
        agent_uuid = agent_id if isinstance(agent_id, uuid.UUID) else uuid.UUID(str(agent_id))
    except ValueError:
        return None
    return Agent.objects.filter(owner=owner, pk=agent_uuid).first()


def api_key_list(*, owner: User) -> QuerySet[ApiKey]:
    return ApiKey.objects.select_related("agent").filter(agent__owner=owner).order_by("-created_at")


def api_key_get(*, owner: User, prefix: str) -> ApiKey | None:
    return ApiKey.objects.select_related("agent").filter(agent__owner=owner, prefix=prefix).first()
