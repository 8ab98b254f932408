"""Works the small model leaves out, found by how chat names a title: in quotes with an owner, an author or a
medium around it, or in title case before its author ("The Power of Habit by Charles Duhigg")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from palace.entity_cues import apposed_kind
from palace.entity_kinds import QUOTED, branded
from palace.entity_names import DATED, NOT_ENTITIES, clean
from palace.gazetteers import BRANDS_NEED_CAPITAL, is_brand, known_kind, opens_sentence, place_name
from palace.vocabulary import everyday_words

# Words a title may hold in lower case: "The Power of Habit", "Learn Videography from Scratch".
TITLE_SMALL_WORDS = frozenset("a an the of for and or in on to with at by from into over vs".split())
# What says a quoted title-case phrase is a work: its author ("by Naomi Alderman"), its medium after it
# (the "Crash Course" channel), or a medium or a way of taking it in before it (the course "…", reading "…").
WORK_AFTER_QUOTE = re.compile(
    r"[\"\u201d'\u2019]?,?\s+(?:by\s+[A-ZÀ-ÖØ-Þ]|(?:channel|podcast|series|course|class|book|novel|memoir|documentary|"
    r"docuseries|album|song|single|film|movie|show|audiobook|playlist|article|essay|poem|play|musical|episode|"
    r"video|game|workshop|webinar|newsletter)\b|(?:starring|directed\s+by|narrated\s+by)\s)"
)
WORK_BEFORE_QUOTE = re.compile(
    r"\b(?:book|novel|memoir|course|class|channel|podcast|series|show|documentary|film|movie|album|song|article|"
    r"essay|audiobook|game|titled|entitled|called|read|reading|finished|watched|watching|listened to|listening to|"
    r"(?:books|novels|films|movies|shows|series|albums|songs|podcasts)\s+(?:similar\s+to|like|such\s+as))"
    r"\s*[\"\u201c'\u2018]$",
    re.I,
)
# Words that open a sentence before a title rather than start it.
TITLE_OPENERS = frozenset(
    "Would Could Should Will Can Did Does Do Is Are Was Were Have Has Had I We You My Our Maybe Also So And But "
    "Then Now Just Recently Reading Finished Loved Try Read Isn't".split()
)
# "The Power of Habit by Charles Duhigg": a title in title case, unquoted, before its author's full name.
TITLE_BY_AUTHOR = re.compile(
    r"(?<![\w\"\u201c'\u2018])((?:The\s+|A\s+)?[A-ZÀ-ÖØ-Þ][\w'\u2019-]*(?:\s+(?:(?:of|the|and|a|an|in|on|to|for|from)\s+){0,2}"
    r"[A-ZÀ-ÖØ-Þ][\w'\u2019-]*){1,6})\s+by\s+[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:\s+[A-ZÀ-ÖØ-Þ]\.)?\s+[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+"
)


# A title the conversation presents as one, in bold or in quotes before its author or its year ("**The Night
# Circus** by Erin Morgenstern", "The Dark Knight" (2008)): a name, even when every word is an everyday one.
PRESENTED_TITLE = re.compile(
    r"(?:\*\*|[\"\u201c])([A-ZÀ-ÖØ-Þ][^*\"\u201d\n]{1,60}?)(?:\*\*|[\"\u201d])\s*(?:\(\d{4}\)|by\s+[A-ZÀ-ÖØ-Þ])"
)


def presented_titles(text: str) -> set[str]:
    """The titles `text` presents as works (PRESENTED_TITLE), lower case; not a product's name ("**"Google
    Analytics" by Jeffalytics**", a guide to it: the person who names it means the product)."""
    titles = (m.group(1).strip() for m in PRESENTED_TITLE.finditer(text))
    return {title.lower() for title in titles if title_case(title) and not product(title)}


def product(title: str) -> bool:
    """A brand, or a brand's product named with the brand first ("Google Analytics"); not a title that opens with
    a word a brand shares ("Sharp Objects")."""
    return is_brand(title) or (branded(title) and title.split()[0].lower() not in BRANDS_NEED_CAPITAL)


def works_named(
    text: str, presented: set[str], taken: Sequence[tuple[int, int]], named: set[str], introduced: dict[str, str]
) -> list[tuple[str, str]]:
    """(name, kind) of the works `text` names that NER left out (`titled_works`, `makers_works` with their makers,
    `presented_again`), and of the names an answer introduced (`introduced_names`) it names again, none of them
    twice: `named` holds what the turn named already, lower case."""
    found = [(work, "work") for work in titled_works(text, taken)]
    named = named | {work.lower() for work, _ in found}
    for maker, work in makers_works(text, taken):  # "Rembrandt's Night Watch": both of them
        if maker.lower() not in named:
            found.append((maker, "person"))
            named.add(maker.lower())
        found.append((work, "work"))
    found += [(work, "work") for work in presented_again(text, presented, taken) if work.lower() not in named]
    entries = presented_again(text, set(introduced), taken, single=True)  # "I'll try out TV Time", "Sortly"
    return found + [(name, introduced[name.lower()]) for name in entries if name.lower() not in named]


# A name an answer's list entry gives in bold and says what it is: "* **TV Time** (iOS, Android): A popular app".
BOLD_ENTRY = re.compile(r"^[ \t]*(?:[-*\u2022+][ \t]+|\d+[.)][ \t]*)?(\*\*)([A-ZÀ-ÖØ-Þ][^*\n]{1,50}?)\*\*", re.M)


def introduced_names(context: str, lower_words: set[str]) -> dict[str, str]:
    """Lower-case name -> kind of the names the list entries of `context` introduce in bold with what they are
    (BOLD_ENTRY, palace.entity_cues.apposed_kind); not a work in everyday words ("**Memory Lane Dinner**: An
    evening where …"), which is an idea's label."""
    found = {}
    for match in BOLD_ENTRY.finditer(context):
        name = match.group(2).strip()
        kind = apposed_kind(
            context[max(0, match.start(1) - 40) : match.end(1)], context[match.end(2) : match.end(2) + 80]
        )
        if " " not in name and name.lower() in lower_words:
            continue  # "**Journal**: a notebook app", and "journal" said in lower case too: a word, not a name
        if kind and title_case(name) and not (kind == "work" and everyday_words(name, lower_words)):
            found[name.lower()] = kind
    return found


def presented_again(
    text: str, presented: set[str], taken: Sequence[tuple[int, int]], *, single: bool = False
) -> list[str]:
    """The presented titles of two or more words (`presented`, lower case; or of one word, when `single`) that
    `text` names again, as written, in title case and mid-sentence: "I'm interested in The Power" after "**The
    Power** by Naomi Alderman"."""
    found, low = [], text.lower()
    for title in presented:
        at = low.find(title) if single or " " in title else -1
        while at != -1:
            end = at + len(title)
            bounded = (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum())
            free = not any(a <= at < b for a, b in taken)
            if bounded and free and title_case(text[at:end]) and not opens_sentence(text, at):
                found.append(text[at:end])
                break
            at = low.find(title, at + 1)
    return found


# A work in title case after a well-known maker's possessive: "Rembrandt's Night Watch", "Monet's Water Lilies".
MAKERS_WORK = re.compile(
    r"(?<![\w-])([A-ZÀ-ÖØ-Þ][\w-]*(?:\s[A-ZÀ-ÖØ-Þ][\w-]*){0,2})['\u2019]s\s+"
    r"((?:The\s+)?[A-ZÀ-ÖØ-Þ][\w'-]*(?:\s+(?:(?:of|the|and|in|on|at)\s+)?(?:(?:No|Op)\.\s?\d+|[A-ZÀ-ÖØ-Þ][\w'-]*)){0,4}"
    r"(?:(?:(?<=\bin [A-G])|(?<=[A-G]-flat)|(?<=[A-G]-sharp))\s+(?:major|minor)\b)?)"  # "… in E-flat major"
)


def makers_works(text: str, taken: Sequence[tuple[int, int]]) -> list[tuple[str, str]]:
    """(maker, work) of each work named after a well-known person's possessive (palace/known_names.txt), in title
    case: "saw Rembrandt's Night Watch"; not a known name of its own ("Einstein's Princeton") nor an everyday word."""
    works = []
    for match in MAKERS_WORK.finditer(text):
        maker, work = match.group(1), match.group(2)
        if any(a <= match.start(2) < b for a, b in taken) or known_kind(maker) != "person":
            continue
        if known_kind(work) in (None, "work") and not place_name(work) and work.lower() not in NOT_ENTITIES:
            works.append((maker, work))
    return works


def title_case(text: str) -> bool:
    words = text.replace(":", " ").split()
    return bool(words) and all(w[0].isupper() or w[0].isdigit() or w in TITLE_SMALL_WORDS for w in words)


def titled_works(text: str, taken: Sequence[tuple[int, int]]) -> list[str]:
    """Titles `text` names as works that NER left out: a quoted title-case phrase with an owner (Taylor
    Swift's "Anti-Hero"), an author ("'The Power' by Naomi Alderman") or a medium (the "Crash Course"
    channel, the course "Videography Masterclass: Learn …"), and an unquoted title before its author."""
    quotes = list(QUOTED.finditer(text))
    listed = listed_quotes(text, quotes)
    candidates: list[tuple[str, bool, bool, bool]] = []  # each title-case quote: a work, a plain name, free
    for number, quote in enumerate(quotes):
        start = quote.start(1) if quote.group(1) else quote.start(2)
        work = clean(quote.group(1) or quote.group(2), keep_article=True)
        words = work.split()
        if not title_case(work) or DATED.search(work):
            continue  # not "Liam 3/12", a name and a date for a onesie
        before = text[max(0, quote.start() - 40) : quote.start()]
        owned = re.search(r"[A-Za-z][\w.]*['\u2019]s?\s$", before)
        cued = number in listed or bool(
            WORK_AFTER_QUOTE.match(text, quote.end() - 1) or WORK_BEFORE_QUOTE.search(text[: quote.start() + 1])
        )
        plain = len(words) > 1 or words[0] not in NOT_ENTITIES
        free = not any(a <= start < b for a, b in taken)  # not already NER's, nor in a heading
        candidates.append((work, bool(owned or (cued and plain)), plain and not YEAR.search(work), free))
    # A turn that quotes two works quotes titles: "I'll start with "Freestyle Love Supreme" … "In the Heights" and
    # "Hamilton". And I've heard great things about "Hadestown" too".
    quoting_works = sum(is_work for _, is_work, _, _ in candidates) >= 2
    works = [work for work, is_work, plain, free in candidates if free and (is_work or (quoting_works and plain))]
    for match in TITLE_BY_AUTHOR.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if any(a <= match.start(1) < b for a, b in taken) or MARKDOWN_LIST_ITEM.match(text, line_start):
            continue
        words = match.group(1).split()
        while len(words) > 1 and words[0] in TITLE_OPENERS:  # "Would Thinking in Systems by …": a question's start
            words.pop(0)
        if len(words) > 1:
            works.append(clean(" ".join(words), keep_article=True))
    return works


YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
# Between two quoted titles of one list: "Fleabag" and "BoJack Horseman"; "Dune", "Emma" or "Persuasion".
LIST_JOINER = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")


def listed_quotes(text: str, quotes: Sequence[re.Match[str]]) -> set[int]:
    """The indexes of quotes in a list of two or more quoted title-case phrases: a person quotes names in
    a list when they are titles ("I'm intrigued by "Fleabag" and "BoJack Horseman""); not labels the person
    made up with a year in them ("Summer 2023 Dresses", "Winter 2022-2023 Sweaters": boards, folders)."""
    listed: set[int] = set()
    for number in range(1, len(quotes)):
        first, second = quotes[number - 1], quotes[number]
        if LIST_JOINER.fullmatch(text, first.end(), second.start()) and all(
            title_case(phrase := q.group(1) or q.group(2)) and not YEAR.search(phrase) for q in (first, second)
        ):
            listed.update((number - 1, number))
    return listed


MARKDOWN_LIST_ITEM = re.compile(r"\s*(?:\d+[.)]|[-*\u2022])\s")


# Something that carries words, just before a quote: the quote is the words on it, not a title ("a banner that
# says "Michael's Squad" or "Brother's Team"", the caption "Golden Hour Vibes"; not the hashtags for my "Go
# Green" campaign). Or a place in a document or an app the quote names: "a column for "Next Steps"", a folder
# called "Summer Reads", categories like "Beach," "Town," and "Food".
CARRIER_BEFORE = re.compile(
    r"\b(?:(?:banner|sign|card|cake|shirt|t-shirt|mug|poster|sticker|label|plaque|caption|slogan|motto|tagline|"
    r"inscription|engraving)s?(?:\s+(?:that|which)\s+(?:says|said|reads|read)|\s+(?:saying|reading|with)|:|,)?|"
    r"(?:column|field|tab|heading|header|folder|album|category|categories|sheet|section)s?\s+"
    r"(?:for|called|named|titled|labell?ed|like))(?:\s+like)?\s*$",
    re.I,
)


# A field set to a value: "Photo Style = "2020s editorial", Time of Day = "Nighttime"" (a prompt's or a table's
# columns): the field's name is a label and its value a setting, neither a name — unless the value is a known
# place or brand ("Location = "Shinjuku"").
FIELD_SET = re.compile(
    r"(?<![\w'\u2019-])([A-ZÀ-ÖØ-Þ][\w'\u2019-]*(?:\s+(?:[A-ZÀ-ÖØ-Þ][\w'\u2019-]*|of|the|and|to|in|for)){0,3})\s*=\s*"
    r"([\"\u201c][^\"\u201d\n]{1,60}[\"\u201d]|[^,;\n]{1,60})"
)


def field_spans(text: str) -> list[tuple[int, int]]:
    """The fields and the values of `text`'s "Field = value" settings (FIELD_SET)."""
    spans: list[tuple[int, int]] = []
    for match in FIELD_SET.finditer(text):
        spans.append(match.span(1))
        value = match.group(2).strip(' "\u201c\u201d,.')
        if not (place_name(value) or is_brand(value)):
            spans.append(match.span(2))
    return spans


TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M)


def table_spans(text: str) -> list[tuple[int, int]]:
    """The rows of `text`'s markdown tables: cells of settings and values ("| Neon-Lit Street | Futuristic |")."""
    return [match.span() for match in TABLE_ROW.finditer(text)]


def said_spans(text: str) -> list[tuple[int, int]]:
    """The quotes in `text` that are words written on something (and the quotes listed right after one)."""
    spans: list[tuple[int, int]] = []
    said_end: int | None = None  # where the quote before ended, when it was words said
    for quote in QUOTED.finditer(text):
        listed = said_end is not None and (
            LIST_JOINER.fullmatch(text, said_end, quote.start()) is not None
            or (text[said_end - 2] == "," and not text[said_end : quote.start()].strip())  # "Beach," "Town,"
        )
        said = listed or CARRIER_BEFORE.search(text, max(0, quote.start() - 40), quote.start()) is not None
        if said:
            spans.append((quote.start(), quote.end()))
        said_end = quote.end() if said else None
    return spans
