"""What a conversation is filed under: its primary subject (the room's wing) and the others it links."""

from __future__ import annotations

from dataclasses import dataclass

from palace import extraction
from palace.models import Wing


@dataclass(frozen=True)
class Subjects:
    primary: tuple[str, str]  # (name, kind)
    others: list[tuple[str, str]]


LINKED_WINGS_MAX = 8  # a room links the subjects named most, not every capitalised word


# Ties go to what a conversation is most likely filed under: a project, then a person, then the rest.
_KIND_ORDER = {"project": 0, "person": 1, "work": 2, "organisation": 3, "place": 4}


def subjects_of(found: extraction.Extraction, agent_name: str) -> Subjects:
    """The primary subject is the entity named most (a project wins a tie: a conversation about a
    project is filed under it); the others are the next LINKED_WINGS_MAX entities named most. With
    none, the conversation goes to its agent's wing (a recurring topic may link it later)."""
    if not found.entities:
        return Subjects(primary=(agent_name, Wing.Kind.AGENT), others=[])
    # The primary, of those named as often: a project first, then what the conversation names first ("I
    # signed up for the Lisbon Half Marathon … my physio, Dr. Patel" is about the race), then by kind.
    primary = min(
        found.entities,
        key=lambda e: (-e.mentions, e.kind != "project", e.first or (1 << 30, 0), _KIND_ORDER.get(e.kind, 9), e.name),
    )
    ranked = sorted(found.entities, key=lambda e: (-e.mentions, _KIND_ORDER.get(e.kind, 9), e.name))
    others = [(e.name, e.kind) for e in ranked if e is not primary][:LINKED_WINGS_MAX]
    return Subjects(primary=(primary.name, primary.kind), others=others)
