"""Short forms of places ("NYC", "the US"): the full name each stands for, every short form of a name, and
how to match one in text — a short form that is an everyday word in lower case ("us", "la") names the place
only as written."""

from __future__ import annotations

import re

# Well-known short forms; the generic initials rule (NYC ~ New York City) covers the rest.
_SHORT_FORMS = {
    "New York City": "nyc",
    "New York": "ny",
    "Los Angeles": "la",
    "San Francisco": "sf",
    "Washington, D.C.": "dc",
    "United Kingdom": "uk u.k.",
    "United States": "us u.s. usa u.s.a. america the-us the-states",
    "United Arab Emirates": "uae",
    "New Orleans": "nola",
    "Philadelphia": "philly",
}
ALIASES: dict[str, str] = {
    short.replace("-", " "): name for name, shorts in _SHORT_FORMS.items() for short in shorts.split()
}
SHORT_FORMS_OF: dict[str, set[str]] = {
    name.lower(): {short.replace("-", " ") for short in shorts.split()} for name, shorts in _SHORT_FORMS.items()
}
# Short forms that are everyday words in lower case ("tell us", "à la carte", "a DC motor" aside): they name the
# place only as written.
_CASED_SHORT_FORMS = {
    "us": "U\\.?S\\.?",
    "la": "LA",
    "ny": "NY",
    "sf": "SF",
    "dc": "D\\.?C\\.?",
    "uk": "U\\.?K\\.?",
    "the us": "[Tt]he U\\.?S\\.?",
    "the states": "[Tt]he States",
}


def alias_regex(alias: str) -> str:
    """A regex for one lower-cased alias, to use in a case-blind pattern: the alias itself, but a short form
    that is an everyday word in lower case ("us") only as the name is written ("US")."""
    cased = _CASED_SHORT_FORMS.get(alias.lower())
    return f"(?-i:{cased})" if cased else re.escape(alias)


def written_as_name(alias: str, text: str) -> bool:
    """Whether `text` may name `alias`: always, but for a short form that is an everyday word, which must be
    written as the name is ("the US", not "tell us")."""
    cased = _CASED_SHORT_FORMS.get(alias.lower())
    return cased is None or re.search(rf"(?<!\w)(?:{cased})(?!\w)", text) is not None
