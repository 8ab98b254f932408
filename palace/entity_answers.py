"""Names the other side of a conversation gives: what the assistant names again and again that the person
only alludes to (`recurring_names`), and a second reading of the assistant's sentences for a "person" the small
model may have misread in a short user sentence (`second_opinion`). A few short NER calls per conversation, not
a pass over the assistant's text."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from palace.entity_aliases import Entity
from palace.entity_kinds import kind_in_context, kind_of
from palace.entity_names import TRAILING_POSSESSIVE, clean, heading_spans, is_plausible, key, not_a_name_here
from palace.entity_titles import field_spans, presented_titles, table_spans
from palace.gazetteers import GIVEN_NAMES, is_brand, known_kind, personal_name
from palace.short_forms import alias_regex
from palace.topics import generic_words
from palace.vocabulary import common_word

SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


# Two or more capitalised words, joined by a few lower-case particles ("Center for the Neural Basis of
# Cognition", "Duc de Berry"), not at the start of a sentence or a line.
NAME_RUN = re.compile(
    r"(?:(?<=[a-z0-9,;(] )|(?<=[a-zß-öø-ÿ] [\"\u201c]))"
    r"[A-ZÀ-ÖØ-Þ][\w\u2019'+-]*(?:\s+(?:(?:of|the|for|de|du|la|von|van)\s+)?[A-ZÀ-ÖØ-Þ][\w\u2019'+-]*)+"
)
RECURRING_NAMES = 6  # names checked per conversation: a handful of short NER calls
NAME_PARTICLES = {"of", "the", "for", "de", "du", "la", "von", "van"}


def recurring_names(
    entities: Sequence[Entity], other_texts: Sequence[str], nlp: Any, lower_words: set[str]
) -> list[Entity]:
    """What the conversation is about that only the assistant names, again and again ("New York City" in
    every answer about a trip, the product a pitch is written for): multi-word capitalised names that
    recur mid-sentence in the assistant's turns, confirmed by NER on one sentence each. The top
    RECURRING_NAMES only, so the assistant's text costs a regex, not a model pass; a name said once (a
    list of ten books) stays out."""
    # "Trader Joe's" is known as "trader joe" too: a name's possessive is cut below ("a Trader Joe's fan")
    known = {
        key(form)
        for entity in entities
        for alias in entity.aliases
        for form in (alias, TRAILING_POSSESSIVE.sub("", alias))
    }
    presented = presented_titles("\n".join(other_texts))
    counts: Counter[str] = Counter()
    sentence_of: dict[str, str] = {}
    for text in other_texts:
        skip = heading_spans(text) + field_spans(text) + table_spans(text)  # "Photo Style = …", "| Rooftop |"
        offset = 0
        for sentence in SENTENCE_END.split(text):
            offset = text.find(sentence, offset)  # where the sentence starts: a heading is skipped where it is
            for match in NAME_RUN.finditer(sentence):
                name = TRAILING_POSSESSIVE.sub("", match.group(0))
                words = [w for w in name.split() if w not in NAME_PARTICLES]
                bare = key(clean(name))  # "The Dark Knight" is known as "dark knight"
                if any(k == bare or k.endswith(f" {bare}") or k.startswith(f"{bare} of ") for k in known) or (
                    all(common_word(w, lower_words) for w in words if w.isalpha()) and name.lower() not in presented
                ):  # known, or the tail of a known name ("Marriott … Resort" of "Courtyard by Marriott … Resort") or
                    continue  # its head before "of" ("Catholic Knights" of "Catholic Knights of the Southern Cross")
                if any(a <= offset + match.start() < b for a, b in skip) or not_a_name_here(
                    name, sentence[match.end() : match.end() + 60]
                ):
                    continue
                if sentence.startswith(":", match.end()) and sentence[: match.start()].endswith(", "):
                    continue  # "…, Camera Angle: High Angle, Room Type: …": a field's label, in a row of them
                counts[name] += 1
                sentence_of.setdefault(name, sentence[:400])
    wanted = [name for name, n in counts.most_common(RECURRING_NAMES) if n >= 2]
    found: list[Entity] = []
    for name, doc in zip(wanted, nlp.pipe([sentence_of[n] for n in wanted], batch_size=16), strict=True):
        whole = doc.text
        for ent in doc.ents:
            if key(clean(ent.text)) != key(clean(name)):  # "The Dark Knight": the article is not the name
                continue
            before = whole[max(0, ent.start_char - 40) : ent.start_char]
            kind = kind_in_context(name, ent.label_, before, False, whole[ent.end_char : ent.end_char + 30])
            if kind is not None and name.lower() in presented:
                kind = "work"  # "The Two Fridas" (1939): a painting, whatever the small model read
            if kind is not None and (is_plausible(name, ent.label_, lower_words) or name.lower() in presented):
                found.append(Entity(name=name, kind=kind, mentions=counts[name], aliases={name.lower()}))
            break
    return found


# "**The Last Romantics** by Tara Conklin" in a list's label, then "Conklin's writing is lyrical", "Like Reid,
# Conklin …": the person the answers go on about, named in full only where capitals prove nothing.
FULL_NAME = re.compile(r"(?<![\w'-])([A-Z][a-z]+) ((?:Mc|Mac|O')?[A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?![\w-])")
SURNAME_MENTIONS = 2  # said alone at least this often
PRECEDING_NAME = re.compile(r"[A-ZÀ-ÖØ-Þ][\w'.-]*\s$")


def surnames_in_full(entities: Sequence[Entity], other_texts: Sequence[str], lower_words: set[str]) -> list[Entity]:
    """People the answers name in full once (a given name and a surname) and then by surname alone, again and
    again; a surname that is an everyday word or a word of a known name is left alone."""
    text = "\n".join(other_texts)
    known = {word for entity in entities for alias in entity.aliases for word in alias.split()}
    named: dict[str, set[str]] = defaultdict(set)
    for match in FULL_NAME.finditer(text):
        given, surname = match.groups()
        everyday = common_word(surname, lower_words) or surname.lower() in generic_words()  # "Luther Pass"
        if given in GIVEN_NAMES and not everyday:
            named[surname].add(match.group(0))
    in_full(entities, named)
    full = {surname: min(names) for surname, names in named.items() if surname.lower() not in known}
    found = []
    for surname, name in full.items():
        alone = sum(  # not after another capitalised word: "Tara Conklin" itself, "Mount Conklin"
            1
            for match in re.finditer(rf"(?<![\w'-]){surname}(?![\w-])", text)
            if not PRECEDING_NAME.search(text, max(0, match.start() - 40), match.start())
        )
        if alone >= SURNAME_MENTIONS:
            found.append(Entity(name=name, kind="person", mentions=alone, aliases={name.lower(), surname.lower()}))
    return found


def in_full(entities: Sequence[Entity], named: dict[str, set[str]]) -> None:
    """A person the person calls by surname ("Do you know if Vettel has won more?") takes the full name the
    answers give ("Sebastian Vettel"), and is someone whatever the small model read, unless the name is a
    brand's or a known place's or the answers give two people of that surname."""
    for entity in entities:
        names = named.get(entity.name)
        if (
            names is None
            or len(names) > 1
            or entity.relation is not None
            or entity.kind not in ("person", "organisation")
            or known_kind(entity.name) is not None
            or is_brand(entity.name)
        ):
            continue
        entity.name, entity.kind = next(iter(names)), "person"
        entity.aliases.add(entity.name.lower())


SECOND_OPINION_SENTENCES = 3


def second_opinion(entities: Sequence[Entity], other_texts: Sequence[str], nlp: Any) -> None:
    """The small model often reads a brand in a user's short sentence as a person ("I got it at
    Sephora"). For each such "person" that is no one's relative, read up to SECOND_OPINION_SENTENCES
    sentences of the other side that name it and let their labels vote: a handful of sentences per
    conversation, not a pass over the assistant's text (which would cost a fifth of mining's time)."""
    people = [
        e
        for e in entities
        if e.kind == "person"
        and e.relation is None
        and known_kind(e.name) is None
        and not (" " in e.name and personal_name(e.name))  # "Brad Traversy's channel" names him, not a firm
    ]
    sentences: list[str] = []
    owners: list[Entity] = []
    for entity in people:
        pattern = re.compile(
            "|".join(rf"(?<!\w){alias_regex(alias)}(?!\w)" for alias in sorted(entity.aliases) if len(alias) > 2),
            re.I,
        )
        found = [
            sentence[:400]
            for text in other_texts
            for sentence in SENTENCE_END.split(text)
            if pattern.pattern and pattern.search(sentence)
        ][:SECOND_OPINION_SENTENCES]
        sentences += found
        owners += [entity] * len(found)
    votes: dict[int, Counter[str]] = defaultdict(Counter)
    for entity, doc in zip(owners, nlp.pipe(sentences, batch_size=64), strict=True):
        names = {key(alias) for alias in entity.aliases}
        for ent in doc.ents:
            kind = kind_of(clean(ent.text), ent.label_)
            if kind is not None and key(clean(ent.text)) in names:
                votes[id(entity)][kind] += 1
    for entity in people:
        tally = votes[id(entity)]
        if tally:
            best, count = tally.most_common(1)[0]
            if best != "person" and count > tally["person"]:
                entity.kind = best
