"""Offline extraction of entities and topics from turns: patterns and keyphrases, no network, no model.
(The LLM path, when one is configured, is a later step of mining.)

Tags follow the AAAK letters: p people, l locations, e events, i items, t times.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from memory_site.lib.text import STOPWORDS, content_words

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
TIME = re.compile(
    rf"\b((?:last|next|this)\s+(?:week|month|year|weekend|{_DAYS})|yesterday|today|tomorrow|tonight|"
    rf"(?:{_DAYS})|(?:{_MONTHS})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?|\d{{4}}-\d{{2}}-\d{{2}}|"
    rf"\d+\s+(?:days?|weeks?|months?|years?)\s+ago)\b",
    re.IGNORECASE,
)
EVENT = re.compile(
    r"\b(wedding|birthday|meeting|trip|party|conference|interview|concert|funeral|graduation|vacation|holiday|"
    r"appointment|game|match|race|festival|launch|deadline|exam|workshop|dinner|lunch|anniversary)s?\b",
    re.IGNORECASE,
)
RELATIVE = re.compile(
    r"\b(?i:my)\s+(sister|brother|mother|mom|father|dad|wife|husband|partner|son|daughter|friend|boss|colleague|"
    r"coworker|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|girlfriend|boyfriend|neighbou?r|"
    r"manager|teacher|doctor|dog|cat)\b(?:,?\s+([A-Z][a-z]+))?"
)
PLACE = re.compile(r"\b(?:in|at|to|from|near|visit(?:ed|ing)?)\s+((?:[A-Z][a-zA-Z]+)(?:\s+[A-Z][a-zA-Z]+){0,2})")
PROJECT = re.compile(
    r"\b(?:project|app|repo|product|startup|company)\s+(?:called\s+|named\s+)?([A-Z][\w-]+)|"
    r"\b([A-Z][\w-]+)\s+(?:project|app|repo)\b"
)
ITEM = re.compile(
    r"\b(?:my|a|an|the|new|bought|got|ordered)\s+(?:new\s+)?((?:[a-z]+\s+)?"
    r"(?:laptop|phone|camera|lens|bike|car|guitar|watch|battery|book|tent|drone|printer|monitor|"
    r"keyboard|headphones|speaker|board|efoil|kayak|couch|desk|jacket|shoes))\b",
    re.IGNORECASE,
)
CAPITALIZED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,}(?:\s+[A-Z][a-z]{2,})?)\b")
# At a sentence start a capital proves nothing, unless it is a two-word name ("Derek Smith is …").
SENTENCE_START_NAME = re.compile(r"(?:^|[.!?]\s+)([A-Z][a-z]{2,}\s+[A-Z][a-z]{2,})\b")
_NOT_NAMES = frozenset(
    (_MONTHS + "|" + _DAYS).split("|")
    + "i the a an it this that these those my your our their his her we you they he she what when where why how "
    "hi hello hey thanks thank yes no okay ok sure please also but and or so if then great good well actually "
    "english french spanish german italian chinese japanese monday sunday".split()
)


@dataclass
class Extraction:
    people: Counter[str] = field(default_factory=Counter)
    places: Counter[str] = field(default_factory=Counter)
    projects: Counter[str] = field(default_factory=Counter)
    items: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    times: Counter[str] = field(default_factory=Counter)

    def tags(self) -> dict[str, list[str]]:
        return {
            key: [name for name, _ in counter.most_common(8)]
            for key, counter in (
                ("p", self.people),
                ("l", self.places),
                ("e", self.events),
                ("i", self.items),
                ("t", self.times),
            )
            if counter
        }


def extract(text: str) -> Extraction:
    found = Extraction()
    for match in TIME.finditer(text):
        found.times[match.group(1).lower()] += 1
    for match in EVENT.finditer(text):
        found.events[match.group(1).lower()] += 1
    for match in ITEM.finditer(text):
        found.items[match.group(1).lower().strip()] += 1
    for match in PROJECT.finditer(text):
        name = match.group(1) or match.group(2)
        if name and name.lower() not in _NOT_NAMES:
            found.projects[name] += 1
    places = set()
    for match in PLACE.finditer(text):
        name = match.group(1)
        if name.split()[0].lower() not in _NOT_NAMES:
            found.places[name] += 1
            places.add(name)
    counted: set[int] = set()  # start offsets of names already counted (one mention counts once)
    for match in RELATIVE.finditer(text):
        if match.group(2) and match.group(2).lower() not in _NOT_NAMES:
            found.people[match.group(2)] += 1
            counted.add(match.start(2))
    for match in [*CAPITALIZED.finditer(text), *SENTENCE_START_NAME.finditer(text)]:
        name = match.group(1)
        if match.start(1) in counted:
            continue
        counted.add(match.start(1))
        first = name.split()[0].lower()
        if first in _NOT_NAMES or first in STOPWORDS or name in places or name in found.projects:
            continue
        found.people[name] += 1
    # A known name also counts where it opens a sentence ("Derek owns …" once "… with Derek" is seen).
    for name in list(found.people):
        for match in re.finditer(rf"(?:^|[.!?]\s+)({re.escape(name)})\b", text):
            if match.start(1) not in counted:
                counted.add(match.start(1))
                found.people[name] += 1
    # "Smith" alone is the same person as "Derek Smith" when both appear.
    for name in [n for n in found.people if " " in n]:
        for part in name.split():
            if part in found.people:
                found.people[name] += found.people.pop(part)
    return found


def topic_words(text: str, limit: int = 6) -> set[str]:
    counts = Counter(content_words(text))
    return {word for word, _ in counts.most_common(limit)}


def segment(texts: list[str], *, min_size: int = 2, threshold: float = 0.08) -> list[int]:
    """Start a new topic where consecutive turns stop sharing keyphrases: returns, for each text, the
    index of its segment. A segment has at least `min_size` turns before it can end."""
    segments: list[int] = []
    current: Counter[str] = Counter()
    size = 0
    index = 0
    for text in texts:
        words = topic_words(text)
        if size >= min_size and words:
            overlap = len(words & set(current)) / len(words | set(current.keys())) if current else 0.0
            if overlap < threshold:
                index += 1
                current, size = Counter(), 0
        current.update(words)
        size += 1
        segments.append(index)
    return segments


def tags_for(text: str, known: Extraction) -> dict[str, list[str]]:
    """The AAAK tags of one turn: what the turn itself names, plus the conversation's people, places
    and projects that it mentions (a name at a sentence start is only recognised this way)."""
    own = extract(text)
    for mine, theirs in ((own.people, known.people), (own.places, known.places), (own.projects, known.projects)):
        for name in theirs:
            if name not in mine and any(re.search(rf"\b{re.escape(part)}\b", text) for part in name.split()):
                mine[name] += 1
    tags = own.tags()
    if own.projects:
        tags.setdefault("i", [])
        tags["i"] = [*[p for p, _ in own.projects.most_common(4)], *tags["i"]][:8]
    return tags


OWNS = re.compile(
    r"\b([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\s+(?:owns|has bought|bought|has)\s+(?:a|an|the|his|her|their)\s+"
    r"((?:[A-Za-z0-9-]+\s){0,2}[A-Za-z0-9-]+)"
)


@dataclass(frozen=True)
class Triple:
    subject: str
    predicate: str
    object: str
    object_is_entity: bool
    confidence: float


def triples(text: str, known: Extraction) -> list[Triple]:
    """Relations the offline path can see in one turn: ownership ("Derek owns the board"), relatives
    of the user ("my sister Anna"), and people/projects named together (co-mention, low confidence)."""
    found: list[Triple] = []
    for match in OWNS.finditer(text):
        subject = next((n for n in known.people if match.group(1) in n.split() or n == match.group(1)), None)
        if subject:
            found.append(Triple(subject, "owns", match.group(2).lower(), True, 0.8))
    for match in RELATIVE.finditer(text):
        if match.group(2) and match.group(2) in known.people:
            found.append(Triple(match.group(2), "relation_to_user", match.group(1).lower(), False, 0.9))
    # Co-mentions only among the conversation's main subjects (named at least twice, at most six of
    # them): all pairs of every capitalised word would be quadratic noise (and slow to write).
    main = [name for name, count in (known.people + known.projects).most_common(6) if count >= 2]
    named = sorted({n for n in main if any(re.search(rf"\b{re.escape(p)}\b", text) for p in n.split())})
    for index, first in enumerate(named):
        for second in named[index + 1 :]:
            found.append(Triple(first, "mentioned_with", second, True, 0.5))
    return found


WINDOW_TURNS = 9  # conversations over LONG_CONVERSATION turns are read in windows of 8 to 10 turns
LONG_CONVERSATION = 50

LLM_PROMPT = (
    "Extract from these conversation turns, as JSON: "
    '{"people": [], "places": [], "projects": [], "items": [], "events": [], "times": [], '
    '"relations": [["subject", "predicate", "object"]]}. Names exactly as written; predicates in snake_case.'
)


def windows(texts: list[str]) -> list[list[str]]:
    if len(texts) <= LONG_CONVERSATION:
        return [texts]
    return [texts[start : start + WINDOW_TURNS] for start in range(0, len(texts), WINDOW_TURNS)]


def merge(into: Extraction, other: Extraction) -> Extraction:
    for name in ("people", "places", "projects", "items", "events", "times"):
        getattr(into, name).update(getattr(other, name))
    return into


def from_llm(answer: str) -> tuple[Extraction, list[Triple]]:
    """Read the LLM's JSON answer; raises ValueError when it is not the shape asked for."""
    import json

    data = json.loads(answer)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    found = Extraction()
    for key in ("people", "places", "projects", "items", "events", "times"):
        for name in data.get(key) or []:
            if isinstance(name, str) and name.strip():
                getattr(found, key)[name.strip()[:200]] += 1
    llm_triples = [
        Triple(str(s)[:200], str(p)[:100], str(o)[:500], True, 0.7)
        for item in data.get("relations") or []
        if isinstance(item, list) and len(item) == 3
        for s, p, o in [item]
        if all(isinstance(x, str) and x.strip() for x in item)
    ]
    return found, llm_triples
