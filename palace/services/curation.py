"""A person's (or an agent's) say over single drawers: pin one (always a recall candidate, boosted when
relevant) or mark it never recall (kept and browsable, never in a recall or a context block). Each
change is an activity event that names the drawer by id and pointer, never by its text."""

from __future__ import annotations

from accounts.models import Agent
from palace.models import ActivityEvent, Drawer

KIND_PINNED = "drawer_pinned"
KIND_UNPINNED = "drawer_unpinned"
KIND_NEVER_RECALL = "drawer_never_recall"
KIND_RECALL_ALLOWED = "drawer_recall_allowed"


def _record(*, drawer: Drawer, kind: str, agent: Agent | None) -> None:
    ActivityEvent.objects.create(
        owner_id=drawer.owner_id,
        agent=agent,
        kind=kind,
        data={"drawer_id": drawer.pk, "pointer": drawer.aaak},
    )


def drawer_pin(*, drawer: Drawer, pinned: bool, agent: Agent | None = None) -> Drawer:
    """Pin or unpin; setting the value it already has changes nothing and records nothing. Pinning lets a
    drawer marked never recall back in: the two say opposite things, the newer wins."""
    if pinned and drawer.never_recall:
        drawer_never_recall(drawer=drawer, never=False, agent=agent)
    if drawer.pinned != pinned:
        drawer.pinned = pinned
        drawer.save(update_fields=["pinned"])
        _record(drawer=drawer, kind=KIND_PINNED if pinned else KIND_UNPINNED, agent=agent)
    return drawer


def drawer_never_recall(*, drawer: Drawer, never: bool, agent: Agent | None = None) -> Drawer:
    """Keep a drawer out of recall and context assembly (or let it back in); idempotent like drawer_pin.
    Never recall unpins: a pin means "always consider this", which a drawer kept out cannot be."""
    if never and drawer.pinned:
        drawer_pin(drawer=drawer, pinned=False, agent=agent)
    if drawer.never_recall != never:
        drawer.never_recall = never
        drawer.save(update_fields=["never_recall"])
        _record(drawer=drawer, kind=KIND_NEVER_RECALL if never else KIND_RECALL_ALLOWED, agent=agent)
    return drawer
