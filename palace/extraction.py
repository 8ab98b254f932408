"""What mining reads out of a conversation: its named entities (people, places, organisations,
projects, works) with their kinds, aliases and relation to the user; a title; the items, events and
times of each turn (the AAAK tags); and the relations the knowledge graph records.

Offline by default (spaCy's packaged English NER on the user's turns, see palace/entities.py; patterns
for items, events and times); with an LLM configured, one call per window returns the same structure,
validated, and any failure falls back to the offline path. Tags follow the AAAK letters: p people,
l locations, e events and works, i items, organisations and projects, t times.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from memory_site.lib.text import content_words
from palace import entities as ner
from palace.entities import Entity
from palace.entity_names import NOT_ENTITIES
from palace.gazetteers import opens_sentence
from palace.short_forms import alias_regex

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
ITEM = re.compile(
    r"\b(?:my|a|an|the|new|bought|got|ordered)\s+(?:new\s+)?((?:[a-z]+\s+)?"
    r"(?:laptop|phone|camera|lens|bike|car|guitar|watch|battery|book|tent|drone|printer|monitor|"
    r"keyboard|headphones|speaker|board|efoil|kayak|couch|desk|jacket|shoes))\b",
    re.IGNORECASE,
)
# A project the user names as one ("the Heron project", "an app called Atlas"): NER has no label for it.
PROJECT = re.compile(
    r"\b(?:project|repo|startup)\s+(?:called\s+|named\s+)([A-Z][\w-]+)|\b([A-Z][\w-]+)\s+(?:project|repo)\b"
)
# A word made into an adjective ("AI-powered", "cloud-based", "kid-friendly"): what kind of project, not its name.
DESCRIBING_WORD = re.compile(r"-[a-z]+(?:ed|ing|based|friendly|free|proof|ready)$")
# An app the user uses, by name ("an app called Down Dog"): an organisation's product, whatever NER says.
APP = re.compile(r"\bapp\s+(?:called|named)\s+((?:[A-Z][\w'-]+)(?:\s+[A-Z][\w'-]+){0,2})")
# Where an owned thing's words end and the sentence goes on: "owns the board and I'm doing the electronics".
CLAUSE_WORD = re.compile(r"\b(?:and|or|but|so|because|while|when|which|that|who|since|until|if|to|for|with|I)\b")
OWNS = re.compile(
    r"\b([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\s+(?:owns|has bought|bought|has)\s+(?:a|an|the|his|her|their)\s+"
    r"((?:[A-Za-z0-9-]+\s){0,2}[A-Za-z0-9-]+)"
)
KINDS = ("person", "place", "organisation", "project", "work")
TAG_OF_KIND = {"person": "p", "place": "l", "organisation": "i", "project": "i", "work": "e"}
TAG_LIMIT = 8


@dataclass
class Extraction:
    """One conversation's extraction (or one window's, before `merge`)."""

    entities: list[Entity] = field(default_factory=list)
    items: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    times: Counter[str] = field(default_factory=Counter)
    title: str = ""  # the LLM's title for the conversation; offline titles are made when filing the room

    def of_kind(self, *kinds: str) -> list[Entity]:
        return [entity for entity in self.entities if entity.kind in kinds]

    def named(self, name: str) -> Entity | None:
        wanted = ner.key(name)
        return next((e for e in self.entities if wanted in {ner.key(a) for a in e.aliases}), None)


@dataclass(frozen=True)
class Triple:
    subject: str
    predicate: str
    object: str
    object_is_entity: bool
    confidence: float


def patterns(text: str, found: Extraction) -> None:
    """Count the items, events and times `text` names into `found`."""
    for match in TIME.finditer(text):
        found.times[match.group(1).lower()] += 1
    for match in EVENT.finditer(text):
        found.events[match.group(1).lower()] += 1
    for match in ITEM.finditer(text):
        found.items[match.group(1).lower().strip()] += 1


def _projects(texts: Sequence[str]) -> Counter[str]:
    """ "a project called Heron", "the Heron project"; not "My project is …", whose capital is the sentence's, nor
    "a fun DIY project" or "AI-powered project management tools", a kind of project."""
    names: Counter[str] = Counter()
    for text in texts:
        for match in PROJECT.finditer(text):
            name = match.group(1) or match.group(2)
            if name.lower() in NOT_ENTITIES or DESCRIBING_WORD.search(name):
                continue
            if match.group(1) or not opens_sentence(text, match.start(2)):
                names[name] += 1
    return names


def _apps(texts: Sequence[str]) -> Counter[str]:
    return Counter(match.group(1) for text in texts for match in APP.finditer(text))


def extract(turns: Sequence[tuple[str, str]]) -> Extraction:
    """The offline extraction of a conversation's (role, text) turns."""
    found = Extraction(entities=ner.conversation_entities(turns))
    user_texts = [text for role, text in turns if role == "user"]
    for name, count in _apps(user_texts).items():
        entity = found.named(name)
        if entity is None:
            found.entities.append(Entity(name=name, kind="organisation", mentions=count, aliases={name.lower()}))
        else:
            entity.kind = "organisation"
    # A one-word entity that is the start of an app's name ("Down" of "Down Dog") was NER's half of it.
    apps = {a.lower() for a in _apps(user_texts)}
    found.entities = [
        e
        for e in found.entities
        if not (" " not in e.name and any(app.startswith(e.name.lower() + " ") for app in apps))
    ]
    for name, count in _projects(user_texts).items():
        entity = found.named(name)
        if entity is None:
            found.entities.append(Entity(name=name, kind="project", mentions=count, aliases={name.lower()}))
        else:
            entity.kind = "project"  # "the Heron project": the user says what it is
    for _, text in turns:
        patterns(text, found)
    return found


def count_mentions(found: Extraction, turns: Sequence[tuple[str, str]]) -> Extraction:
    """Set each entity's `mentions` to how often the whole conversation (both sides) names it by any
    alias: what the conversation is about is what both keep coming back to, and the NER only reads the
    user's side."""
    for entity in found.entities:
        aliases = sorted((alias for alias in entity.aliases if len(alias) > 1), key=len, reverse=True)
        if not aliases:
            continue
        # One pattern, longest alias first: "Dr. Patel" is one mention, not one of "Dr. Patel" and one of "Patel".
        pattern = re.compile(rf"(?<!\w)(?:{'|'.join(map(alias_regex, aliases))})(?!\w)", re.I)
        counted = 0
        for index, (_, text) in enumerate(turns):
            found_here = [m.start() for m in pattern.finditer(text)]
            if found_here and entity.first is None:
                entity.first = (index, min(found_here))  # where the conversation first names it
            counted += len(found_here)
        entity.mentions = max(counted, entity.mentions)
    return found


def tags_for(text: str, found: Extraction) -> dict[str, list[str]]:
    """The AAAK tags of one turn: the conversation's entities it names (by any alias, whole words),
    and its own items, events and times."""
    tags: dict[str, list[str]] = {}
    for letter, names in ner.tags_for_turn(text, found.entities).items():
        tags.setdefault(letter, []).extend(names)
    own = Extraction()
    patterns(text, own)
    for letter, counter in (("e", own.events), ("i", own.items), ("t", own.times)):
        tags.setdefault(letter, []).extend(name for name, _ in counter.most_common(TAG_LIMIT))
    return {letter: _unique(names)[:TAG_LIMIT] for letter, names in tags.items() if names}


def _unique(names: list[str]) -> list[str]:
    """First spelling wins: "Efoil" (the entity) over "efoil" (the item pattern's lower case)."""
    return list({name.lower(): name for name in reversed(names)}.values())[::-1]


def triples(text: str, found: Extraction) -> list[Triple]:
    """Relations the offline path sees in one turn, between real entities only: ownership ("Derek owns
    the board"), relatives of the user ("my sister Anna"), and the conversation's main entities named
    together (co-mention, low confidence)."""
    result: list[Triple] = []
    people = found.of_kind("person")
    for match in OWNS.finditer(text):
        owner = next((p for p in people if ner.key(match.group(1)) in {ner.key(a) for a in p.aliases}), None)
        if owner is not None:
            thing = CLAUSE_WORD.split(match.group(2))[0].strip().lower()  # "the board and I'm …": the board
            if thing:
                result.append(Triple(owner.name, "owns", thing, True, 0.8))
    for person in people:
        if person.relation and _names(text, person):
            result.append(Triple(person.name, "relation_to_user", person.relation, False, 0.9))
    # Only among the main subjects (named at least twice, at most six): pairs of every name would be
    # quadratic noise.
    main = [e for e in sorted(found.entities, key=lambda e: -e.mentions)[:6] if e.mentions >= 2]
    named = sorted(e.name for e in main if _names(text, e))
    for index, first in enumerate(named):
        for second in named[index + 1 :]:
            result.append(Triple(first, "mentioned_with", second, True, 0.5))
    return result


def _names(text: str, entity: Entity) -> bool:
    return any(re.search(rf"(?<!\w){alias_regex(alias)}(?!\w)", text, re.I) for alias in entity.aliases)


# --- topics within a conversation (closets) ------------------------------------------------------------


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


# --- the LLM path -----------------------------------------------------------------------------------------

WINDOW_TURNS = 9  # conversations over LONG_CONVERSATION turns are read in windows of 8 to 10 turns
LONG_CONVERSATION = 50

LLM_PROMPT = (
    "You file a person's conversation with an assistant into their memory. Answer with JSON only: "
    '{"title": "3-8 words a person would title this conversation", '
    '"entities": [{"name": "most complete form", "kind": "person|place|organisation|project|work", '
    '"aliases": ["other forms used"], "relation": "sister|friend|boss|... (people the user relates to, else null)"}], '
    '"relations": [["subject", "predicate_in_snake_case", "object"]]}. '
    "Entities are real named people, places, organisations or brands, the user's projects, and works (books, "
    "shows, podcasts, events) the user talks about; never greetings, sentence openers, headings, weekdays, "
    "nationalities or generic nouns. Names exactly as written."
)


def windows(turns: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    if len(turns) <= LONG_CONVERSATION:
        return [turns]
    return [turns[start : start + WINDOW_TURNS] for start in range(0, len(turns), WINDOW_TURNS)]


def window_text(window: Sequence[tuple[str, str]]) -> str:
    return "\n".join(f"{role}: {text}" for role, text in window)[:12000]


_LEGACY_KEYS = {"people": "person", "places": "place", "projects": "project", "organisations": "organisation"}


def from_llm(answer: str) -> tuple[Extraction, list[Triple]]:
    """Read the LLM's JSON answer; raises ValueError when it is not the shape asked for. Names are
    kept only when they are strings; kinds outside KINDS are refused (the entity is dropped)."""
    data = json.loads(answer)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    found = Extraction(title=str(data.get("title") or "").strip()[:200])
    raw = [item for item in data.get("entities") or [] if isinstance(item, dict)]
    # The shape of earlier prompts ({"people": [...], "places": [...]}) is read too.
    raw += [{"name": n, "kind": kind} for key, kind in _LEGACY_KEYS.items() for n in data.get(key) or []]
    for item in raw:
        name, kind = item.get("name"), item.get("kind")
        if not isinstance(name, str) or not name.strip() or kind not in KINDS:
            continue
        aliases = {a.strip().lower() for a in item.get("aliases") or [] if isinstance(a, str) and a.strip()}
        relation = item.get("relation")
        found.entities.append(
            Entity(
                name=name.strip()[:200],
                kind=kind,
                mentions=1,
                aliases=aliases | {name.strip().lower()},
                relation=relation.strip().lower()[:50] if isinstance(relation, str) and relation.strip() else None,
            )
        )
    llm_triples = [
        Triple(s.strip()[:200], p.strip()[:100], o.strip()[:500], True, 0.7)
        for item in data.get("relations") or []
        if isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) and x.strip() for x in item)
        for s, p, o in [item]
    ]
    return found, llm_triples


def merge(into: Extraction, other: Extraction) -> Extraction:
    """Add a window's extraction to the conversation's: the same entity (by any alias) adds up."""
    for entity in other.entities:
        known = next((e for e in into.entities if e.aliases & entity.aliases), None)
        if known is None:
            into.entities.append(entity)
            continue
        known.mentions += entity.mentions
        known.aliases |= entity.aliases
        known.relation = known.relation or entity.relation
        if len(entity.name.split()) > len(known.name.split()):
            known.name = entity.name  # the most complete form names the entity
    for name in ("items", "events", "times"):
        getattr(into, name).update(getattr(other, name))
    into.title = into.title or other.title
    return into
