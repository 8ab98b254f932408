"""The small model's entity spans in one turn, mended where it cuts names short or in two: a brand and its
model joined ("Honda Civic"), a span grown to the capitalised run around it ("at Yoga Bliss"), to a model's number
("Apollo 13"), an initial ("T Natarajan"), a possessive place ("Regent's Park") or a university's campus."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from palace.entity_kinds import EPONYM_TAIL
from palace.entity_names import NOT_ENTITIES
from palace.gazetteers import is_brand, known_kind
from palace.possessives import POSSESSIVE_PLACE

_JOINABLE = {"ORG", "PRODUCT", "PERSON", "WORK_OF_ART", "FAC"}


def ner_spans(
    doc: Any, runs: Sequence[tuple[int, int, str]] = (), written: str | None = None
) -> list[tuple[int, int, str, str]]:
    """The doc's entity spans as (start, end, text, label), with a brand and its model joined: spaCy's
    small model reads "Honda Civic" as ORG "Honda" + PRODUCT "Civic", and "Adidas Superstar" likewise.
    A span inside a longer capitalised run grows to the run ("at Yoga Bliss": NER sees "Bliss"). `written`: the
    turn as written, when the model read a copy of the same length (typographic apostrophes made plain)."""
    spans: list[tuple[int, int, str, str]] = []
    # Read once: spaCy rebuilds the text (and the entities) from every token on each access, which made a
    # 100,000-character turn take minutes (entities x tokens).
    text_of_doc = doc.text if written is None else written
    for ent in list(doc.ents):
        # "Yamaha" read as a people; not "Rembrandt lighting", a known person's name for a way of lighting
        brand = is_brand(ent.text) and known_kind(ent.text) != "person"
        label = "ORG" if ent.label_ == "NORP" and brand else ent.label_
        run = next((r for r in runs if r[0] <= ent.start_char and ent.end_char <= r[1]), None)
        if run is not None and label in _JOINABLE and (run[0], run[1]) != (ent.start_char, ent.end_char):
            if spans and spans[-1][0] == run[0]:
                continue
            spans.append((run[0], run[1], run[2], "PRODUCT" if label == "PRODUCT" else "ORG"))
            continue
        if spans and spans[-1][3] == "ORG" and label in ("ORG", "GPE", "LOC", "FAC"):
            start, end, text, _ = spans[-1]
            if OF_BETWEEN.fullmatch(text_of_doc, end, ent.start_char):
                # "the Catholic Knights of the Southern Cross": one body, which the small model cuts at "of"
                spans[-1] = (start, ent.end_char, text_of_doc[start : ent.end_char], "ORG")
                continue
        if spans and label in _JOINABLE and spans[-1][3] in ("ORG", "PRODUCT"):
            start, end, text, _ = spans[-1]
            if ent.start_char == end + 1 and text_of_doc[end] == " " and not text.endswith(("'", "\u2019")):
                # "Honda Civic"; not "Kayla Itsines' HIIT", an owner in the plural possessive and what is hers
                spans[-1] = (start, ent.end_char, f"{text} {ent.text}", "PRODUCT")
                continue
        start = _grown_left(text_of_doc, ent.start_char) if label in _JOINABLE else ent.start_char
        if label == "PERSON" and (initial := INITIAL_BEFORE.search(text_of_doc, max(0, start - 4), start)):
            start = initial.start()  # "T Natarajan": the initial is the name's
        if spans and start < spans[-1][1]:
            start = ent.start_char
        spans.append((start, ent.end_char, text_of_doc[start : ent.end_char], label))
    grown: list[tuple[int, int, str, str]] = []
    for start, end, _, label in spans:
        if start and text_of_doc[start - 1] == "#":
            continue  # "#FitnessJourney": a hashtag, not a name
        if "\n" in text_of_doc[start:end]:
            continue  # "Labour Shortages\n3", "Hawthorn Berry\nLongjack": lines of a list, not one name
        if particle := PARTICLE_NAME.match(text_of_doc, end):  # "Cortina d'Ampezzo": NER's GPE + PERSON
            end = particle.end()
        if label in _JOINABLE or label == "PRODUCT":
            grown_end = name_end(text_of_doc, end)
            if label == "PERSON" and SPELLED_NUMBER.fullmatch(text_of_doc, end, grown_end):
                label = "ORG"  # "Formula One", "Capital One": no one's name ends in a number
            end = grown_end
        elif place := POSSESSIVE_PLACE.match(text_of_doc, end):  # "Regent's Park" read as LOC "Regent"
            end, label = place.end(), "FAC"  # its last word says what it is: "St. Mary's Church" is a parish
        elif label == "GPE" and (service := PUBLIC_BODY_AFTER.match(text_of_doc, end)):
            end, label = service.end(), "ORG"  # "Broward County Transit", read as GPE "Broward County"
        if eponym := EPONYM_AFTER.match(text_of_doc, end):  # "Fermat's Last Theorem", read as ORG "Fermat"
            end = eponym.end()
        if label in _JOINABLE and (case := CASE_TAIL.match(text_of_doc, end)):
            end = case.end()  # "Obergefell v. Hodges", read as ORG "Obergefell": the case, not one party
        if grown and label == "GPE" and CAMPUS_OF.search(text_of_doc, grown[-1][0], start):
            # "the University of California, Berkeley", "California State University, Long Beach": NER's ORG
            # and GPE, one school with its campus
            start, label = grown.pop()[0], "ORG"
        grown.append((start, end, text_of_doc[start:end], label))
    return grown


# A place's public service after its name: "Broward County Transit", "Seattle Public Library".
PUBLIC_BODY_AFTER = re.compile(
    r"[\x20\t](?:Transit(?: Authority)?|Public Schools|Public Library|Police Department|Fire Department|Sheriff's "
    r"Office|Parks and Recreation|Water District|Health Department|School District|City Council|County Council)\b"
)
CAMPUS_OF = re.compile(r"\b(?:University of [A-Z][\w ]*|State University),\s*$")


CASE_TAIL = re.compile(r" vs?\. [A-ZÀ-ÖØ-Þ][\w'-]*(?: (?:of )?[A-ZÀ-ÖØ-Þ][\w'-]*)*")
OF_BETWEEN = re.compile(r" of (?:the )?")
SPELLED_NUMBER = re.compile(r"\s(?:One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten)")
# A person's initial the small model leaves out: "T Natarajan", "(K Rahul" (not "I" or "A", which are words).
INITIAL_BEFORE = re.compile(r"(?:^|(?<=[\s(\"\u201c]))[B-HJ-Z]\.?[ ]$")
# Capitalised words just before a span, mid-sentence: "watched Captain Marvel" (NER sees "Marvel"), "Crazy
# Rich Asians" ("Rich Asians").
LEFT_OF_SPAN = re.compile(r"(?<=[a-zß-öø-ÿ,] )((?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+ ){1,2})$")


def _grown_left(text: str, start: int) -> int:
    """Where a name the small model starts too late begins: the capitalised words right before it, unless
    one of them is a word that is no name ("I", a weekday, "Thanks")."""
    match = LEFT_OF_SPAN.search(text, max(0, start - 40), start)
    if match is None or any(word.lower() in NOT_ENTITIES for word in match.group(1).split()):
        return start
    return match.start(1)


# What continues a name past where the small model ends it: a hyphen and a capital ("Ali-A", "Jay-Z"), or a
# number that is part of a title or a model ("Ready Player One", "Mustang Mach 1 model", "Apollo 13.", "the
# Hidrate Spark 2.0." and "the Anker PowerCore 10,000," whole; a version after a name is part of it, "the Hidrate
# Spark 2.0 data"), or a model code ("the Intel Core i5-1135G7,", "my Yamaha P-125.").
NAME_TAIL = re.compile(
    r"[\x20\t](?:\d{1,2}\.\d{1,2}|\d{1,3}(?:,\d{3})+)(?![\d%])(?!\s+(?:times|days|weeks|months|years|hours|minutes|miles|km|percent|stars)\b)|"
    r"(?<=\s[ON])['\u2019]\s[A-ZÀ-ÖØ-Þ][\w]*|(?<=\s[ON]['\u2019])\s[A-ZÀ-ÖØ-Þ][\w]*|-[A-Z0-9][\w]*|[\x20\t][a-z]\d[\w-]*|[\x20\t][A-Z]{1,4}-?\d{1,5}[A-Za-z]{0,3}|[\x20\t](?:One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten)(?![\w'\u2019-])|[\x20\t](?:\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?(?![.,\d]\d)[A-Za-zß-öø-ÿ]?)"
    r"(?=[,.!?;:)\u201d\"']|$|\s+(?:model|kit|edition|version|game|car|build|replica|movie|film|book|novel|series|"
    r"running|shoes|sneakers|boots|bag|backpack|camera|lens|headphones|tripod|guitar|bike|laptop|phone|watch|drone|"
    r"and|or|but|with|for|from|that|which|is|was|already)\b)"
)


PARTICLE_NAME = re.compile(r"[\x20\t](?:[dl]|[dnsa]ell|dall)['\u2019][A-ZÀ-ÖØ-Þ][\w-]*")  # "Côte d'Azur", "Val d'Isère"
EPONYM_AFTER = re.compile(EPONYM_TAIL + r"\b")  # what an eponym adds to its person's name


def name_end(text: str, end: int) -> int:
    match = NAME_TAIL.match(text, end) or POSSESSIVE_PLACE.match(text, end)
    return match.end() if match else end
