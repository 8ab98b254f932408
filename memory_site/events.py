"""Memory events: the one hook through which palace and episodic report a change to whoever listens.

The webhooks app registers its outbox writer here at start-up (webhooks/apps.py); the apps that make
the changes only call `memory_event_emit` and never import webhooks (dependencies run one way). The
handler runs synchronously, in the caller's transaction: an event is written together with the change
it reports, and rolled back with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Handler = Callable[..., object]
_handlers: list[Handler] = []

MEMORY_MINED = "memory.mined"
MEMORY_DELETED = "memory.deleted"
MEMORY_CONSOLIDATED = "memory.consolidated"
MEMORY_DEDUPLICATED = "memory.deduplicated"
MEMORY_ARCHIVED = "memory.archived"
MEMORY_RECALLED = "memory.recalled"
CONVERSATION_COMPLETED = "conversation.completed"
EVENT_TYPES = (
    MEMORY_MINED,
    MEMORY_DELETED,
    MEMORY_CONSOLIDATED,
    MEMORY_DEDUPLICATED,
    MEMORY_ARCHIVED,
    MEMORY_RECALLED,
    CONVERSATION_COMPLETED,
)


def memory_event_handler_register(handler: Handler) -> None:
    if handler not in _handlers:
        _handlers.append(handler)


def memory_event_emit(*, owner_id: int, type: str, payload: dict[str, Any]) -> None:
    """Report one change of an owner's memory. Payloads carry ids, counts and names, never memory text."""
    for handler in _handlers:
        handler(owner_id=owner_id, type=type, payload=payload)
