"""How an entity's kind is settled once the whole conversation is read: the words around every mention
vote ("X, a UK-based YouTuber"), names said in one list are things of one kind, and a product named with its
brand is found by the brand's name too."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from palace.entity_aliases import Entity
from palace.entity_cues import cue_kind, headed_lists
from palace.entity_kinds import is_group, shape_kind
from palace.entity_names import NOT_ENTITIES, TRAILING, is_plausible
from palace.gazetteers import BRANDS, known_kind, personal_name, place_name
from palace.name_shapes import STREET_SUFFIX
from palace.short_forms import alias_regex
from palace.vocabulary import everyday_words

# A model's word: a number or a code in it ("64GB", "P-45", "EOS"), or a capital inside it ("BeFree").
MODEL_WORD = re.compile(r"\d|[a-z][A-Z]|^[A-Z]{2,}$")


def brands_of_products(entities: Sequence[Entity]) -> None:
    """A product named with its brand ("Dell XPS", "Instagram Stories", "Adidas Ultraboosts", "Manfrotto BeFree",
    "SanDisk Extreme Pro 64GB") is also found by the brand's name, unless the brand is an entity of its own: a
    listed brand, or a first word before a model's word."""
    known = {alias for entity in entities for alias in entity.aliases}
    for entity in entities:
        words = entity.name.split()
        if entity.kind != "organisation" or len(words) < 2 or words[0].lower() in known:
            continue
        if words[0].lower() in BRANDS or (len(words[0]) > 2 and any(MODEL_WORD.search(w) for w in words[1:])):
            entity.aliases.add(words[0].lower())


def products_of_makers(entities: Sequence[Entity]) -> None:
    """A name that starts with a maker's name the conversation knows as an organisation is its product, not a
    person ("Rolleiflex TLR" beside "Rolleiflex"), nor a street ("Shadow Drive" beside "Shadow", the cloud PC)."""
    makers = {
        TRAILING.sub("", alias)
        for entity in entities
        if entity.kind == "organisation" and " " not in entity.name
        for alias in entity.aliases
    }
    for entity in entities:
        words = entity.name.split()
        if entity.relation is not None or len(words) < 2 or words[0].lower() not in makers:
            continue
        if entity.kind == "person" or (entity.kind == "place" and STREET_SUFFIX.search(entity.name)):
            entity.kind = "organisation"


CUE_MENTIONS = 200  # mentions read per entity: a regex each, enough for any conversation's vote


def kinds_from_cues(entities: Sequence[Entity], texts: Sequence[str]) -> None:
    """Let the words around every mention vote on an entity's kind, in all turns: the small model's label
    is a guess from one sentence, where "Vikkstar, a UK-based YouTuber", "The Fifth Season by N.K. Jemisin"
    or "a journalist named Sophia" say it. Only a majority of cues overrules it; a kind fixed by the name's
    own words (palace.entity_kinds.shape_kind) or by a relation to the user ("my sister …") stays."""
    whole = "\n".join(texts)
    for entity in entities:
        if entity.relation is not None or shape_kind(entity.name) is not None:
            continue
        aliases = sorted((a for a in entity.aliases if len(a) > 2), key=len, reverse=True)
        if not aliases:
            continue
        pattern = re.compile(r"(?<![\w-])(?:" + "|".join(map(alias_regex, aliases)) + r")(?![\w-])", re.I)
        votes: Counter[str] = Counter()
        for n, match in enumerate(pattern.finditer(whole)):
            if n == CUE_MENTIONS:
                break
            before, after = whole[max(0, match.start() - 60) : match.start()], whole[match.end() : match.end() + 60]
            kind = cue_kind(before, after, match.group(0))
            if kind == "person" and is_group(entity.name):
                kind = "organisation"  # ""Hotel California" by The Eagles": the band
            if kind is not None:
                votes[kind] += 1
        if votes:
            best, count = votes.most_common(1)[0]
            if best != entity.kind and count > votes[entity.kind] and not no_one(entity, best):
                entity.kind = best


# Between two names of one list: a comma, "and", "or", each perhaps after a year or a note in brackets
# ("Shazam! (2019), Us and A Quiet Place").
LIST_GAP = re.compile(r"^\s*(?:\([^()\n]{1,30}\)\s*)?(?:,\s*(?:(?:and|or|&)\s+)?|(?:and|or|&)\s+)(?:the\s+)?$", re.I)
LIST_NAMES = 3  # names in a list before its majority says what the others are


def kinds_from_lists(entities: Sequence[Entity], texts: Sequence[str]) -> None:
    """Names said in one list are things of one kind: "I've watched Captain Marvel, Shazam! and Crazy Rich
    Asians" lists films, so the one the small model read as a person is a film too. Each list of at least
    LIST_NAMES known names where two thirds share a kind votes that kind for the rest, and a list's heading
    ("Some popular shoegaze bands include:") votes its kind for each entry; a kind fixed by the name's own
    words, a gazetteer or a relation to the user stays."""
    of_alias = {alias: entity for entity in entities for alias in entity.aliases if len(alias) > 2}
    votes: dict[int, Counter[str]] = defaultdict(Counter)
    for text in texts:  # "Some popular shoegaze bands include:" over "1. My Bloody Valentine", "2. Slowdive"
        for kind, names in headed_lists(text):
            for name in names:  # not a known place: "Books:" over "**Vietnam: A Postal History**", cut at its colon
                if (entity := of_alias.get(name.lower())) is not None and not place_name(name):
                    votes[id(entity)][kind] += 1  # agreeing with the kind it has, it holds it against the rest
    if len({id(e) for e in of_alias.values()}) >= LIST_NAMES:
        inline_lists(of_alias, texts, votes)
    for entity in entities:
        if (
            votes.get(id(entity))
            and entity.relation is None
            and not shape_kind(entity.name)
            and not known_kind(entity.name)
            and not no_one(entity, votes[id(entity)].most_common(1)[0][0])
        ):
            entity.kind = votes[id(entity)].most_common(1)[0][0]


def inline_lists(of_alias: dict[str, Entity], texts: Sequence[str], votes: dict[int, Counter[str]]) -> None:
    """Vote the kind two thirds of the names of one sentence's list share for the others."""
    pattern = re.compile(
        r"(?<![\w-])(?:" + "|".join(map(alias_regex, sorted(of_alias, key=len, reverse=True))) + r")(?![\w-])", re.I
    )
    for text in texts:
        runs: list[tuple[str | None, list[Entity]]] = []  # the kind the words before a list say, its names
        last_end = None
        for match in pattern.finditer(text):
            said = match.group(0).lower()
            entity = of_alias.get(said) or of_alias.get(said.replace(".", ""))  # "the U.S." is "the us"
            if entity is None:
                continue
            if last_end is not None and LIST_GAP.match(text[last_end : match.start()]):
                if all(other is not entity for other in runs[-1][1]):
                    runs[-1][1].append(entity)
            else:
                runs.append((cue_kind(text[max(0, match.start() - 60) : match.start()], ""), [entity]))
            last_end = match.end()
        for cue, run in runs:
            best, count = Counter(e.kind for e in run).most_common(1)[0]
            if cue is not None and len(run) >= 2:
                best, count = cue, len(run)  # "I watched A, B and C": the verb says it of every one
            if len(run) >= LIST_NAMES or cue is not None:
                if 3 * count >= 2 * len(run):
                    for entity in run:
                        if entity.kind != best:
                            votes[id(entity)][best] += 1


def no_one(entity: Entity, kind: str) -> bool:
    """A known country, state or city is no person, whatever the words around it say ("Wyoming said goodbye");
    it may still be a team or a government ("Liverpool's match"), so other votes stand."""
    return kind == "person" and place_name(entity.name) and not personal_name(entity.name)


# A list of names in a user's sentence: "Yellowstone, Yosemite, and the Grand Canyon", "Arctic Monkeys, The
# Strokes and The Black Keys" — two to five names of up to four capitalised words, joined by commas, "and", "or".
_ITEM = r"(?:[Tt]he )?[A-ZÀ-ÖØ-Þ][\w'&-]*(?: [A-ZÀ-ÖØ-Þ][\w'&-]*){0,3}"
NAME_LIST = re.compile(rf"(?<![\w'])({_ITEM}(?:, ?{_ITEM}){{1,4}},? (?:and|or|&) {_ITEM})(?![\w'])")
LIST_SPLIT = re.compile(r"\s*,\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+")


def names_from_lists(entities: Sequence[Entity], texts: Sequence[str], lower_words: set[str]) -> list[Entity]:
    """Names the small model skipped in a list of names it found: in "trips to Yellowstone, Yosemite, and the
    Grand Canyon" two places are found and Yosemite is a third. A list of at least three names, two thirds of
    them found and of one kind, makes each other name of plausible shape an entity of that kind."""
    of_alias = {alias: entity for entity in entities for alias in entity.aliases}
    found: dict[str, Entity] = {}
    for text in texts:
        for match in NAME_LIST.finditer(text):
            items = [re.sub(r"^[Tt]he\s+", "", item).strip() for item in LIST_SPLIT.split(match.group(1))]
            known = [of_alias.get(item.lower()) for item in items]
            kinds = Counter(e.kind for e in known if e is not None)
            if len(items) < LIST_NAMES or not kinds:
                continue
            kind, count = kinds.most_common(1)[0]
            if 3 * count < 2 * len(items):
                continue
            for item, entity in zip(items, known, strict=True):
                # "Exclude Shikhar Dhawan, …": a known name with words before it is that name, already found
                named = entity is not None or any(item.lower().endswith(f" {alias}") for alias in of_alias)
                new = not named and item.lower() not in found and plausible_listed(item, lower_words)
                if new:
                    found[item.lower()] = Entity(name=item, kind=kind, mentions=1, aliases={item.lower()})
    return list(found.values())


def plausible_listed(name: str, lower_words: set[str]) -> bool:
    """Whether a name in a list is one: of a name's shape, and not only everyday words."""
    words = name.split()
    if words[0].lower() in NOT_ENTITIES or not is_plausible(name, "ORG", lower_words):
        return False
    return not everyday_words(name, lower_words)  # "Paris, Rome, and Home": a word of everyday English is no name
