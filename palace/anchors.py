"""What a query names in the owner's palace: the people, places, organisations and works it mentions
by a wing's name or alias ("my friend Rachel", "the Walk for Hunger"). Recall looks for their drawers
even when the name is a common word across all owners, and scores a drawer about one of them with the
`entity` signal: an aggregation question ("what have I told you about Rachel") needs every mention,
including the ones whose meaning is about something else (a supplier search that opens with "my
friend Rachel told me…").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from palace.models import Wing
from palace.short_forms import alias_regex, written_as_name

MAX_WORDS_IN_NAME = 4
# Agent wings and topic wings are not things a person names: a topic is matched by its words already.
ANCHOR_KINDS = (
    Wing.Kind.PERSON,
    Wing.Kind.PLACE,
    Wing.Kind.ORGANISATION,
    Wing.Kind.PROJECT,
    Wing.Kind.WORK,
)
TAG_LETTERS = ("p", "l", "i", "e")
_WORD = re.compile(r"[\w&'.-]+")


@dataclass
class Anchors:
    names: set[str] = field(default_factory=set)  # lower-cased names and aliases of the wings named
    _pattern: re.Pattern[str] | None = None

    def __bool__(self) -> bool:
        return bool(self.names)

    def about(self, content: str, tags: dict[str, Any]) -> bool:
        """Whether a drawer is about one of the named wings: tagged with it, or naming it."""
        tagged = {str(value).lower() for letter in TAG_LETTERS for value in tags.get(letter, [])}
        if tagged & self.names:
            return True
        if self._pattern is None:
            alternatives = "|".join(alias_regex(name) for name in sorted(self.names, key=len, reverse=True))
            self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I)
        return bool(self._pattern.search(content))


def _phrases(query: str) -> list[str]:
    """Every run of 1 to MAX_WORDS_IN_NAME words of the query, lower-cased, with and without a
    possessive ("Rachel's" → "rachel")."""
    words = [w.strip(".'-").lower() for w in _WORD.findall(query)]
    words = [w.removesuffix("'s") for w in words if w]
    return list(
        {" ".join(words[i : i + n]) for n in range(1, MAX_WORDS_IN_NAME + 1) for i in range(len(words) - n + 1)}
    )


def named_in(*, owner_id: int, query: str) -> Anchors:
    """The owner's wings the query names, in one query on the wing aliases' GIN index."""
    # "tell us" names no country: a short form that is an everyday word counts only as written ("the US").
    phrases = [p for p in _phrases(query) if written_as_name(p, query)]
    if not phrases:
        return Anchors()
    rows = Wing.objects.filter(owner_id=owner_id, kind__in=ANCHOR_KINDS, aliases__has_any_keys=phrases).values_list(
        "name", "aliases"
    )
    names: set[str] = set()
    for name, aliases in rows:
        names.add(name.lower())
        names.update(str(alias).lower() for alias in aliases or [])
    return Anchors(names=names)
