"""The activity log a person reads at /memory/activity: what happened to their memory, never the text."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from palace.models import ActivityEvent


def activity_record(*, owner: User, kind: str, data: dict[str, Any] | None = None) -> ActivityEvent:
    return ActivityEvent.objects.create(owner=owner, kind=kind, data=data or {})
