"""The activity log a person reads at /memory/activity: what happened to their memory, never the text."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from palace.models import ActivityEvent


def activity_record(*, owner: User, kind: str, data: dict[str, Any] | None = None) -> ActivityEvent:
    return ActivityEvent.objects.create(owner=owner, kind=kind, data=data or {})


# What the maintenance jobs report through memory_site.events, as the person's activity log names it.
MAINTENANCE_KINDS = {
    "memory.consolidated": "memory_consolidated",
    "memory.deduplicated": "memory_deduplicated",
    "memory.archived": "memory_archived",
}


def maintenance_activity_record(*, owner_id: int, type: str, payload: dict[str, Any]) -> None:
    """A maintenance job changed this person's memory: say so in their activity log, in the job's
    transaction (ids, counts and keys, as the event carries; never memory text)."""
    kind = MAINTENANCE_KINDS.get(type)
    if kind is None:
        return
    agent_id = payload.get("agent_id")
    ActivityEvent.objects.create(owner_id=owner_id, agent_id=agent_id or None, kind=kind, data=payload)
