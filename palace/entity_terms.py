"""Capitalised words that are terms, not names: an acronym the conversation spells out in lower case ("NLP"),
a trade's term given with its abbreviation ("Quality of Service (QoS)"), the words on an app's button, a pasted
document's defined terms ("Shortlisted Tenderers")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from palace.entity_kinds import shape_kind
from palace.entity_names import UI_ELEMENT_AFTER
from palace.gazetteers import GIVEN_NAMES, known_kind, place_name
from palace.vocabulary import everyday_words

# A user turn this long is a pasted document (a tender, a contract, a brief): its title-case phrases of the words it
# also writes in lower case are its defined terms and headings ("Shortlisted Tenderers"), not names.
DOCUMENT_CHARS = 2_000


def is_term(name: str, turns: Sequence[tuple[str, str]]) -> bool:
    """An acronym the conversation spells out in lower case is a term, not a name: "NLP" beside "natural
    language processing", "HIIT" beside "high-intensity interval training" (a "Food and Drug
    Administration" written with capitals stays an organisation)."""
    if not (name.isupper() and name.isalpha() and 2 <= len(name) <= 6):
        return False
    letters = name.lower()
    words = r"[\s-]+(?:(?:and|of|the|for)\s+)?".join(rf"{letter}[a-zß-öø-ÿ]*" for letter in letters)
    spelled = re.compile(rf"(?<![A-Za-z]){words}(?![A-Za-z])")
    return any(spelled.search(text) for _, text in turns)


def is_ui_label(name: str, context: str) -> bool:
    """Whether the conversation quotes the name as a part of an app ("use the "Not Interested" button"): the
    words on a button or a menu, not a name, wherever else they are said."""
    quoted = re.compile(rf"[\"\u201c']{re.escape(name)}[\"\u201d']")
    return any(UI_ELEMENT_AFTER.match(context[m.end() - 1 : m.end() + 40]) for m in quoted.finditer(context))


# A name in capitals followed by its own abbreviation in brackets: "Quality of Service (QoS)", "Keyword
# Difficulty (KD)", "Key Performance Indicators (KPIs)".
_SMALL_WORDS = frozenset("of the and for in on to a an".split())
# A word for a body, which a term of a trade does not hold before its "of": "World Health Organization (WHO)",
# "Department of Education (DOE)" are bodies, "Quality of Service (QoS)" is what a service gives.
BODY_WORD = re.compile(
    r"\b(?:Organi[sz]ation|Association|Agency|Administration|Institute|Foundation|Department|Bureau|Commission|"
    r"Council|Committee|Federation|Union|Society|University|College|Bank|Fund|Authority|Board|Corporation|Company|"
    r"Party|League|Alliance|Coalition|Ministry|Office|Court|Service)\b"
)


def is_spelled_out(name: str, context: str) -> bool:
    """Whether the conversation gives `name` its abbreviation in brackets."""
    initials = "".join(w[0] for w in name.split() if w.lower() not in _SMALL_WORDS).upper()
    if len(initials) < 2:
        return False
    for match in re.finditer(re.escape(name) + r"\s*\(\s*([A-Za-z]{2,8})\s*\)", context):
        if "".join(c for c in match.group(1) if c.isupper()) in (initials, initials + "S"):
            return True
    return False


def is_trade_term(name: str, context: str, lower_words: set[str]) -> bool:
    """A term of a trade, introduced the way a text introduces one: everyday words in capitals, then their
    abbreviation in brackets ("Quality of Service (QoS)"). A body's or a place's name so introduced stays a
    name: "World Health Organization (WHO)", "American Museum of Natural History (AMNH)"."""
    head = name.split(" of ")[0]  # what a term is "of" does not make it a body
    return (
        is_spelled_out(name, context)
        and everyday_words(name, lower_words)
        and shape_kind(head) is None
        and not BODY_WORD.search(head)
    )


def term_acronym(name: str, context: str, lower_words: set[str]) -> bool:
    """An acronym the conversation gives as the abbreviation of a trade's term: "IAM" after "Identity and Access
    Management (IAM)" is a subject, not a body ("WHO" after "World Health Organization (WHO)" stays one)."""
    if not (name.isupper() and name.isalpha() and 2 <= len(name) <= 6):
        return False
    spelled = re.compile(r"((?:[A-Z][\w-]*\s+(?:(?:and|of|the|for|&)\s+)?){2,6})\(\s*" + name + r"s?\s*\)")
    return any(
        "".join(w[0] for w in m.group(1).split() if w[0].isupper()) == name
        and is_trade_term(m.group(1).strip(), context, lower_words)
        for m in spelled.finditer(context)
    )


def document_vocabulary(vocabulary: set[str]) -> set[str]:
    """The words a pasted document's defined terms are made of: the conversation's lower-case words, their
    plurals and their doers ("tender" -> "Tenderers"). Not the everyday words of chat at large: a document's
    "Home Office" and "Immigration Rules" are names, and that list holds "europe" too."""
    doers = {f"{word}{end}" for word in vocabulary for end in ("s", "er", "ers", "r", "rs") if len(word) > 3}
    return vocabulary | doers


def defined_term(name: str, lower_words: set[str]) -> bool:
    """A document's term owned by one of its defined parties: "the Tenderer's Profile", "the Client's Project
    Team" — the owner is a word of the document, not a name."""
    owner = re.match(r"(\w+)['\u2019]s?\s", name)
    return owner is not None and owner.group(1).lower() in lower_words


# An idea an answer lists under a label of everyday words, told as what to do: "1. **Memory Lane Dinner**: Plan a
# family dinner where …". The person who picks it by that label ("I like the Memory Lane Dinner") names no one.
# Or told as an example said in the first person: "1. **Task Mastery**: "Today, I intend to master …"".
SUGGESTED = (
    r"^[ \t]*(?:\d+[.)]|[-*\u2022])[ \t]*\*\*{}:?\*\*[ \t]*[:\u2013-]?[ \t]*"
    r"(?:(?:{})\b|[\"\u201c](?:Today|Tonight|This week|I|I'm|I'll|I will|My|We)\b)"
)
# Verbs of making and arranging, not of going: "**Three Capes Scenic Drive**: Take a detour" is a road.
TO_DO = (
    "Plan|Create|Make|Host|Set up|Hold|Organi[sz]e|Arrange|Bring|Ask|Invite|Display|Share|Write|Put together|Cook|"
    "Bake|Prepare|Decorate|Collect|Gather|Design|Build|Encourage|Incorporate|Send|Record|Compile|Assemble|Hang|"
    "Print|Light|Plant|Release|Dedicate|Frame|Fill|Hide|Have|Play|Give|Pass|Put|Set|Let|Tape|Blindfold|Divide|Line "
    "up|Dress|Wrap|Stack|Toss|Draw|Sing|Dance|Pretend"
)


def is_suggestion(name: str, context: str, lower_words: set[str]) -> bool:
    """Whether `name` is only the label of an idea an answer lists (SUGGESTED), in everyday words but one, at
    most in a name of two words or more ("Memory Lane Dinner"), and no one's given name."""
    words = name.split()
    odd = sum(not everyday_words(word, lower_words) for word in words)
    if odd > (len(words) > 1) or any(w in GIVEN_NAMES for w in words):
        return False
    if not all(w.isalpha() for w in words) or shape_kind(name) is not None or known_kind(name) or place_name(name):
        return False
    return re.search(SUGGESTED.format(re.escape(name), TO_DO), context, re.M) is not None
