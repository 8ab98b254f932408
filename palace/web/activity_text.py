"""The activity log in a person's words: what each kind of event is called, and its details as a short
line ("turns 2, closets 1", "enabled: no → yes") instead of stored field names and Python's dict text."""

from __future__ import annotations

from typing import Any

KIND_LABELS = {
    "memory_mined": "Conversation filed",
    "mining_failed": "Filing failed",
    "memory_recalled": "Read by an agent",
    "memory_forgotten": "Forgotten",
    "memory_exported": "Exported",
    "memory_imported": "Imported",
    "settings_changed": "Settings changed",
    "drawer_pinned": "Turn pinned",
    "drawer_unpinned": "Turn unpinned",
    "drawer_never_recall": "Turn kept out of recall",
    "drawer_recall_allowed": "Turn back in recall",
    "exclusion_purged": "Stored turns matching a rule forgotten",
    "webhook_created": "Webhook added",
    "webhook_changed": "Webhook changed",
    "webhook_deleted": "Webhook removed",
    "webhook_failing": "Webhook failing",
    "webhook_recovered": "Webhook working again",
    "webhook_replayed": "Webhook delivery sent again",
}
HIDDEN = frozenset({"drawer_ids"})  # long id lists: the count beside them says it
MAX_ITEMS = 8


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind.replace("_", " ").capitalize())


def _words(key: str) -> str:
    return key.replace("_", " ")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None or value == "":
        return "—"
    if isinstance(value, dict):
        if set(value) == {"old", "new"}:
            return f"{_value(value['old'])} → {_value(value['new'])}"
        return ", ".join(f"{_words(str(k))} {_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        shown = ", ".join(_value(v) for v in value[:MAX_ITEMS])
        return shown + (f" and {len(value) - MAX_ITEMS} more" if len(value) > MAX_ITEMS else "")
    return str(value)


def details(data: dict[str, Any]) -> str:
    """ "conversation id: trip-1 · wing: Lisbon · drawers 12" style: one line per event."""
    return " · ".join(f"{_words(key)}: {_value(value)}" for key, value in data.items() if key not in HIDDEN)
