"""The words around a mention that say what kind of thing a name is, whoever wrote them: "Vikkstar, a
UK-based YouTuber", "games like Halo", "Delsey is a French brand", "donating old clothes to Goodwill". Read
for every mention of an entity in a whole conversation (palace/entity_votes.py), where the majority of the
cues can overrule the small model's one-sentence guess."""

from __future__ import annotations

import re

from palace.entity_kinds import BAND_PLURAL_AFTER, STUDY_BEFORE, WORK_CUE, brand_owned
from palace.gazetteers import is_brand, personal_name, place_name
from palace.short_forms import ALIASES

# Words for a person in an apposition or before "named": "Vikkstar, a UK-based YouTuber", "a journalist named
# Sophia". Cue words (below) are how a text says what kind of thing a name is, whoever wrote it.
PERSON_NOUNS = (
    r"(?:friend|colleague|co-?worker|journalist|writer|author|novelist|poet|artist|painter|sculptor|photographer|"
    r"architect|singer|songwriter|rapper|musician|composer|actor|actress|director|filmmaker|comedian|youtuber|"
    r"streamer|influencer|blogger|podcaster|host|chef|designer|teacher|professor|tutor|coach|trainer|doctor|"
    r"dentist|therapist|nurse|scientist|researcher|historian|philosopher|economist|politician|king|queen|"
    r"prince|princess|player|athlete|gamer|entrepreneur|founder|guy|girl|man|woman|lady|boy|neighbou?r|boss|"
    r"manager|mentor|client|student|classmate|roommate|cousin|character|protagonist|heroine|hero|villain|"
    r"pet|dog|cat|puppy|kitten|parrot|hamster|rabbit|bunny|horse|pony)s?"
)
ORG_NOUNS = (
    r"(?:company|brand|startup|retailer|chain|restaurant|caf[eé]|bakery|shop|store|app|platform|website|service|"
    r"organi[sz]ation|non-?profit|charity|band|label|publisher|studio|venue|team|club|school|university|museum|"
    r"insurer|bank|airline|carrier|manufacturer|maker|firm|agency|magazine|newspaper|publication|news outlet|"
    r"marketplace|supermarket|pharmacy|winery|wineries|vineyard|distillery|brewery|hotel|resort|gym|bar|pub|bistro|"
    r"eatery|diner|pizzeria|trattoria|steakhouse)"
)
PLACE_NOUNS = (
    r"(?:city|cities|town|village|neighbou?rhood|district|island|region|country|countries|state|province|county|"
    r"suburb|destination|place)"
)
# What is sold under a brand: "thermostats like Nest", "sneakers such as Vans", "citation managers, including
# Mendeley".
PRODUCT_NOUNS = (
    r"(?:devices|gadgets|products|thermostats|speakers|headphones|earbuds|laptops|phones|smartphones|tablets|"
    r"cameras|bulbs|sneakers|shoes|boots|cars|watches|appliances|software|programs|websites|sites|tools|apps|"
    r"managers|editors|trackers|planners|plugins|extensions)"
)
# What a maker makes, named after its brand: "a Weber gas grill", "my Osprey backpack".
MADE_THINGS = (
    r"(?:grill|laptop|headphones|earbuds|tripod|backpack|sneakers|boots|shoes|loafers|sandals|jeans|jacket|kayak|"
    r"blender|vacuum|mattress|stroller|thermostat)"
)
# A device sold under a name, filed with its maker's brand: "the S Pen, an advanced stylus".
DEVICE_NOUNS = r"(?:stylus|tablet|smartphone|laptop|headset|smartwatch|e-reader|console)"
WORK_NOUNS = (
    r"(?:painting|sculpture|statue|mural|novel|book|books|trilogy|saga|movie|film|documentary|docuseries|"
    r"podcast|album|song|musical|opera|video game|game|franchise|comic|manga|anime|sitcom|episode|soundtrack|"
    r"coin|nickel|penny|dime|stamp|banknote|roller coaster|coaster|dark ride|thrill ride)"
)
# The describing words of an apposition are lower case (a possessive too: "one of the series' villains"), a
# hyphenated compound ("a UK-based YouTuber") or a nationality ("a French brand", "a Korean-American artist"):
# another capitalised word there starts another name ("Paris, the Paris Museum Pass"). A preposition ends them:
# "X is an excellent choice for photographers" is a choice, whoever it is for.
NOT_DESCRIBING = r"(?!(?:for|of|to|with|in|on|at|by|from|among|who|that|which)\s)"
DESCRIBING = (
    r"\s+(?:a|an|the|one of the)\s+"
    r"(?-i:(?:" + NOT_DESCRIBING + r"[a-zß-öø-ÿ][\w-]*(?:['\u2019]s?)?,?|[A-ZÀ-ÖØ-Þ]+-[a-zß-öø-ÿ]+|"
    r"(?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:an|ese|ish|ch|sh|i|ic)-?)+)\s+){0,4}?"
)
APPOSITION = r"^(?:,|\s+(?:is|was))" + DESCRIBING
# A list entry's description after its name, bold or not: "Sweetgreen (7-minute walk): A popular salad chain",
# "3. Fattoria di Fèlsina - a family-run winery", "**TransAmerica**: A simple, fast-paced train game" (the name
# opens the line; "… by Angie Thomas - A powerful novel" describes the title before "by").
ENTRY_APPOSITION = r"^[*_\"\u201d]*\s*(?:\([^()\n]{0,40}\))?\s*(?::|\s[-\u2013\u2014])" + DESCRIBING
ENTRY_START = re.compile(r"(?:^|\n)[ \t]*(?:[-*\u2022+][ \t]+|\d+[.)][ \t]*)?[*_\"\u201c]*$")
# The first word for a kind of thing in the apposition says what the name is ("Dixit: A creative game where
# players guess" is a game, whoever plays it), or the last of a compound of them ("a French film director"). "A
# comedy-drama series" is a show there; after a name, "the Fresh Foam series" is a maker's line of shoes.
KIND_NOUN = (
    rf"(?:(?P<person>{PERSON_NOUNS})|(?P<organisation>{ORG_NOUNS}|{DEVICE_NOUNS})|(?P<place>{PLACE_NOUNS})|"
    rf"(?P<work>{WORK_NOUNS}|series|miniseries|show))\b(?!['\u2019])"
)
APPOSED = re.compile(APPOSITION + KIND_NOUN, re.I)
ENTRY_APPOSED = re.compile(ENTRY_APPOSITION + KIND_NOUN, re.I)
NEXT_KIND_NOUN = re.compile(r"[ \t]+" + KIND_NOUN, re.I)


def apposed_kind(before: str, after: str) -> str | None:
    """The kind the apposition after a name gives it: "X, a UK-based YouTuber", "X is a French film director";
    at a list entry's start, "X: A creative game"."""
    match = APPOSED.search(after) or (ENTRY_APPOSED.search(after) if ENTRY_START.search(before) else None)
    if match is None:
        return None
    kind, end = match.lastgroup, match.end()
    while (head := NEXT_KIND_NOUN.match(after, end)) is not None:  # "a film director": its last noun
        kind, end = head.lastgroup, head.end()
    if after.startswith(("'s", "\u2019s"), end):
        return None  # "Michael Angelakos, the band's lead vocalist": whose, not what, he is
    return kind


CUE_AFTER: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^\s*\((?:b\.\s*|c\.\s*)?\d{3,4}\s*[-\u2013]\s*(?:c\.\s*)?\d{2,4}\)"), "person"),  # (1532-1625)
    # "Sarah and I", not "… to Miami and I'm flexible": "I'm" opens a clause of its own
    (
        re.compile(r"^(?:\s+and\s+(?:I(?!['\u2019]m)|me)\b|,?\s+who\b|\s+(?:said|says|told|asked|suggested|texted)\b)"),
        "person",
    ),
    (re.compile(r"^,?\s+et\s+al\b"), "person"),  # "Papyan et al., 2020": a paper's first author
    # "X by Author", "X (2017) - by …"
    (
        re.compile(r"^[\"\u201d'*]*\s*(?:\(\d{4}\)\s*)?[-\u2013\u2014:]?\s*by\s+(?:[A-ZÀ-ÖØ-Þ]|the\s+[A-ZÀ-ÖØ-Þ])"),
        "work",
    ),
    (re.compile(r"^\s+" + WORK_NOUNS + r"\b"), "work"),  # "the new Call of Duty game", "the Cloud Gate sculpture"
    # "Spinoza believed …", "Spinoza's philosophy": what only a person does or has
    (
        re.compile(
            r"^(?:\s+(?:believed|argued|rejected|wrote|thought|lived|died|was born|were alive)\b|"
            r"(?:'s|\u2019s)\s+(?:philosophy|theology|teachings|writings|poetry|novels|paintings|life)\b)"
        ),
        "person",
    ),
    # "the Goodwill store", "Macy's website", "your Beauty Insider account", "the Keisei Skyliner train": the
    # shop's, the app's, a scheme's or a line's — a business
    (
        re.compile(
            r"^(?:'s|\u2019s)?\s+(?:app|website|stores?|locations|outlets?|customer service|account|membership|"
            r"trains?|bus|buses|shuttles?|ferry|ferries)\b"
        ),
        "organisation",
    ),
    # "Mendeley's Word plugin", "Notion's auto-suggest feature": a piece of software's parts
    (
        re.compile(
            r"^(?:'s|\u2019s)\s+(?:[\w-]+\s+)?(?:plugins?|plug-ins?|extensions?|features?|importer|integrations?|"
            r"interface|subscriptions?|settings)\b",
            re.I,
        ),
        "organisation",
    ),
    (re.compile(r"^\s+(?:period|era|movement|cuisine|culture|traditions)\b"), "topic"),  # "the Renaissance period"
    # "the Otomi people", "Sakura trees", "a Clarias species": a people, a plant's or an animal's kind
    (
        re.compile(
            r"^\s+(?:people|peoples|tribes?|trees?|flowers?|blossoms?|plants?|species|genus|breeds?|cultivars?)\b"
        ),
        "topic",
    ),
    # "the Chianti Classico region", "the Loop area", "the Sierra Nevada mountains": a part of a country or a city
    (
        re.compile(
            r"^\s+(?:(?:wine\s+)?regions?|areas?|neighbou?rhoods?|districts?|mountains|mountain\s+range|peninsula|"
            r"archipelago|coastline)\b"
        ),
        "place",
    ),
)
# The names before this one in a list: "stores like Wegmans or Publix", "games such as Halo, Portal and Hades".
# Case-sensitive inside patterns that are not: a list of names, not any words.
LISTED = r"(?-i:(?:[A-ZÀ-ÖØ-Þ][\w'&.-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'&.-]*){0,3},?\s+(?:(?:or|and)\s+)?){0,4})"
CUE_BEFORE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:games|shows|series|books|novels|movies|films|songs|albums|podcasts)\s*,?\s+"
            r"(?:like|such as|including|similar to)\s+" + LISTED + r"$",
            re.I,
        ),
        "work",
    ),
    (
        re.compile(
            r"\b" + ORG_NOUNS + r"s?\s*,?\s+(?:like|such as|including|called|named)\s+(?:the\s+)?" + LISTED + r"$", re.I
        ),
        "organisation",
    ),
    (
        re.compile(r"\b" + PRODUCT_NOUNS + r"\s*,?\s+(?:like|such as|including)\s+(?:the\s+)?" + LISTED + r"$", re.I),
        "organisation",  # "smart thermostats like Nest or Ecobee": things sold under a brand
    ),
    (
        re.compile(r"\b(?:models|" + PRODUCT_NOUNS + r")\s+(?:from|made by)\s+(?:the\s+)?" + LISTED + r"$", re.I),
        "organisation",  # "the newer models from Korg and Roland": their makers
    ),
    (re.compile(r"\b" + PERSON_NOUNS + r"\s*,?\s+(?:like|such as|including)\s+" + LISTED + r"$", re.I), "person"),
    (
        re.compile(
            r"\b(?:" + PLACE_NOUNS + r"s?|temples|shrines|landmarks|national parks|beaches|islands|lakes|mountains|"
            r"trails|monuments)\s*,?\s+(?:like|such as|including)\s+" + LISTED + r"$",
            re.I,
        ),
        "place",  # "temples and shrines, including Fushimi Inari"
    ),
    (
        re.compile(r"\b(?:my|our|his|her|their)\s+(?:[\w-]+\s+){0,2}" + ORG_NOUNS + r",\s+(?:the\s+)?$", re.I),
        "organisation",
    ),
    (re.compile(r"\b" + PERSON_NOUNS + r"\s+(?:named|called)\s+$", re.I), "person"),
    (re.compile(r"\bthe\s+(?:character|protagonist|heroine|hero|villain|narrator)\s+$", re.I), "person"),
    (
        re.compile(
            r"(?:[\"\u201d*]\s*|\b(?:written|painted|directed|composed|sung|illustrated|narrated|created|sculpted|"
            r"photographed|hosted|founded)\s+)by\s+$"
        ),
        "person",
    ),
    (
        re.compile(
            r"\b(?:(?:mention(?:ed|ing)?|suggest(?:ed|ing)?|talk(?:ed|ing)?|spoke|speak(?:ing)?|explain(?:ed|ing)?|"
            r"introduc(?:e|ed|ing))\s+to|ask(?:ed|ing)?|told|tell(?:ing)?|met|meet(?:ing)?|invit(?:e|ed|ing)|"
            r"thank(?:ed|ing)?)\s+$",
            re.I,
        ),
        "person",
    ),
    # "had coffee with Priyanka", "caught up with Tom": someone met, not a firm
    (
        re.compile(
            r"\b(?:coffee|lunch|dinner|drinks|breakfast|brunch|a date|hung out|hanging out|hang out|catch(?:ing)? up|"
            r"caught up|chatted|chatting|married to|engaged to|in love with|broke up)\s+with\s+$",
            re.I,
        ),
        "person",
    ),
    # "moving to Zürich", "grew up in Leeds": somewhere one goes or lives
    (
        re.compile(
            r"\b(?:mov(?:e|ed|ing)|relocat(?:e|ed|ing)|fl(?:y|ew|ying)|travel(?:l?ed|l?ing)?|(?:road )?trip|vacation|"
            r"honeymoon|backpacking|emigrat(?:e|ed|ing))\s+to\s+$|\b(?:live|lives|lived|living|grew up|born|"
            r"based|raised|settled)\s+in\s+$",
            re.I,
        ),
        "place",
    ),
    # "the town of Jalpan de Serra", "the island of Kauai"
    (re.compile(r"\bthe\s+(?:town|city|village|island|province|region|port|municipality)\s+of\s+$", re.I), "place"),
    # "the big win against the Jets", "a game versus the Lakers": a team played
    (
        re.compile(
            r"\b(?:win|won|wins|victory|loss|lost|game|games|match|matchup|rivalry|beat|beating|defeated)\s+"
            r"(?:against|over|vs\.?|versus|to)\s+the\s+$",
            re.I,
        ),
        "organisation",
    ),
    (re.compile(r"\b" + MADE_THINGS + r"\s+from\s+$", re.I), "organisation"),  # "new boots from Clarks"
    # "donating old clothes to Goodwill": given to a charity or a shop that takes them
    (re.compile(r"\bdonat(?:e|ed|es|ing)\s+(?:[\w'-]+\s+){0,6}?to\s+(?:the\s+)?$", re.I), "organisation"),
    (WORK_CUE, "work"),
)


# "got Whiskers a new scratching post", "bought Mia some books": the one a thing is got for.
RECIPIENT_BEFORE = re.compile(
    r"\b(?:got|get|gets|getting|bought|buy|buying|gave|give|giving|sent|send|sending|made|make|making)\s+$", re.I
)
RECIPIENT_AFTER = re.compile(r"^\s+(?:a|an|some|another|new|her|his|their)\s+(?!few\b|lot\b|bit\b)")


def inside_longer_title(before: str) -> bool:
    """Whether the mention is inside a longer title in bold or quotes, opened with other words (not only an
    article) before it on its line."""
    line = before.rsplit("\n", 1)[-1]
    for opened, closing in (("**", "**"), ('"', '"'), ("\u201c", "\u201d")):
        if opened == closing:
            still_open = line.count(opened) % 2 == 1
        else:
            still_open = line.count(opened) > line.count(closing)
        if still_open:
            inside = line[line.rfind(opened) + len(opened) :]
            return inside.endswith(" ") and inside.split() not in ([], ["The"], ["A"])  # not "The Fifth …"
    return False


# "Hey Gabby, …", "Dear Ms. Lee:": whom a message greets is someone (a voice assistant is a brand: "Hey Siri").
GREETING_BEFORE = re.compile(r"(?:^|[\n\"\u201c(]|[.!?]\s)\s*(?:Hey|Hi|Hello|Hiya|Dear)\s+$")
GREETING_AFTER = re.compile(r"^\s*[,!:]")


# A capitalised word joined to the mention on its line (not "The" or a sentence's first word): it is part of a
# longer name.
PART_OF_NAME_BEFORE = re.compile(
    r"(?<![.!?:\n]\s)(?<!^)\b(?!(?:The|A|An)\s)[A-ZÀ-ÖØ-Þ][\w'&.-]*[ \t]$|\b[A-ZÀ-ÖØ-Þ][\w'&.-]*\s+(?:of|for|de)\s$"
)
PART_OF_NAME_AFTER = re.compile(r"^\s[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]")
# "your HIIT game", "my Harry Potter books": a possessive before "game" or "books" is a figure of speech or a
# copy, and says nothing of the name.
OWNED = re.compile(r"\b(?:your|my|his|her|their|our)\s+$", re.I)

# "Phoebe Bridgers, and I absolutely love her music", "Jay-Z founded his record label": a gendered pronoun
# later in the mention's own sentence, with no other name or person between, speaks of a person. Not after
# "at", "from", "to" …: "lunch at The Apple Pan and ask her" speaks of someone else at a place. A whole word, with
# a character after it: where the window of words ends, "he" may be the start of "help".
GENDERED_PRONOUN = re.compile(r"\b(?:he|she|him|his|her|hers|himself|herself)(?=\W)")
PRONOUN_REACH = re.compile(r"^[^.!?;:\n]*")
OTHER_NAME = re.compile(r"\b(?!I\b)[A-ZÀ-ÖØ-Þ]")
SOMEONE = re.compile(
    r"\b(?:" + PERSON_NOUNS + r"|mom|mum|dad|sister|brother|wife|husband|partner|son|daughter|kids?|family|aunt|uncle|"
    r"grand\w+|niece|nephew|girlfriend|boyfriend|baby)\b",
    re.I,
)
# Not after "at", "from" … (a place), nor after "the": a person is not named with an article ("the Bruins … him").
PLACE_PREPOSITION = re.compile(r"\b(?:(?:at|from|to|in|into|on|near|with|via|through)\s+(?:the\s+)?|the\s+)$", re.I)


# "Sebastian Vettel is the youngest Formula One champion, having won his first title": a person named in full
# earlier in the sentence is the pronoun's likelier subject.
SENTENCE_SO_FAR = re.compile(r"[^.!?;:\n]*$")
FULL_NAME_BEFORE = re.compile(r"\b[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+\s[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'-]+")


def pronoun_person(before: str, after: str, name: str) -> bool:
    """Whether a gendered pronoun after the mention, in its sentence, speaks of it (GENDERED_PRONOUN)."""
    if PLACE_PREPOSITION.search(before) or name.lower().startswith("the ") or is_brand(name) or place_name(name):
        return False
    so_far = SENTENCE_SO_FAR.search(before)
    if so_far and any(personal_name(m.group(0)) for m in FULL_NAME_BEFORE.finditer(so_far.group(0))):
        return False
    sentence = PRONOUN_REACH.match(after)
    pronoun = GENDERED_PRONOUN.search(sentence.group(0)) if sentence else None
    if pronoun is None:
        return False
    between = after[: pronoun.start()]
    return not OTHER_NAME.search(between) and not SOMEONE.search(between)


# A way of working, named after its maker or its letters and followed by what it is: "the MoSCoW method", "the
# Feynman technique", "a Gantt chart", "Agile methodology", "a Kanban board" (not "my Pinterest board": a
# brand's board is the brand's).
METHOD_AFTER = re.compile(
    r"^\s+(?:method|methods|methodology|technique|principle|matrix|chart|charts|diagram|diagrams|board|boards|framework)\b"
)
# A brand before what it makes: "a Weber gas grill", "my Osprey hiking backpack", each of a pair ("a Gitzo or
# Really Right Stuff tripod").
MADE_AFTER = re.compile(
    r"^(?:\s+(?:or|and|&)(?:\s+[A-ZÀ-ÖØ-Þ][\w'&.-]*){1,3})?(?:\s+[a-z-]+){0,2}\s+" + MADE_THINGS + r"\b"
)
# A team's game: "that Vikings game", "the Lakers game" (one plural word; "the Halo game" is a video game).
TEAM_GAME = re.compile(r"^\s+game\b")
TEAM_NAME = re.compile(r"^[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+s$")


def cue_kind(before: str, after: str, name: str = "") -> str | None:
    """The kind the words around one mention say, or None: "(1532-1625)", "and I", "a journalist named X",
    "X, a UK-based YouTuber" -> person; "X by Author", "the X sculpture" -> work; "the X period" -> topic;
    "X, a café" -> organisation. Read in every turn of a conversation, the assistant's included: it names
    what the user only mentions."""
    marked = before.endswith(("*", "\u201c", '"'))  # a title in bold or quotes: a pronoun after is its author's
    raw_after = after
    before, after = before.rstrip('*\u201c"'), after.lstrip("*")
    if GREETING_BEFORE.search(before) and GREETING_AFTER.match(after) and not is_brand(name):
        return "person"  # before the checks below: "Hey" is no part of the name, nor of a title
    if raw_after.startswith(("**", '"', "\u201d")) and inside_longer_title(before):
        return None  # "**National Geographic Kids: Ancient Egypt** by …": the words around are the title's
    if PART_OF_NAME_BEFORE.search(before) or PART_OF_NAME_AFTER.match(after):
        return None  # "Cafe Puerto Rico": the words around belong to another name
    if BAND_PLURAL_AFTER.match(after):
        return None  # "playing Beatles songs": a band's or a singer's, which the words do not tell
    if TEAM_NAME.match(name) and TEAM_GAME.match(after):
        return "organisation"
    if METHOD_AFTER.match(after) and not personal_name(name) and not is_brand(name):
        return "topic"  # "the MoSCoW method" (not "the Marie Kondo method": she is still a person)
    if MADE_AFTER.match(after) and not place_name(name):
        return "organisation"  # "my Osprey hiking backpack": a maker before what it makes ("Hawaii sandals" no)
    apposed = apposed_kind(before, after)
    if apposed and not (apposed == "work" and OWNED.search(before)):
        return apposed
    if brand_owned(before) and not personal_name(name):
        return "organisation"  # Behr's "Soft Chamois": a brand's colour, a maker's model
    if STUDY_BEFORE.search(before) and not personal_name(name) and not place_name(name):
        return "topic"  # "I'm studying International Business and I …": a subject, whatever follows
    for pattern, kind in CUE_AFTER:
        if pattern.search(after) and not (kind == "work" and OWNED.search(before)):
            return kind
    if RECIPIENT_BEFORE.search(before) and RECIPIENT_AFTER.match(after):
        return "person"  # "got Whiskers a new scratching post": someone things are got for (a pet is a person)
    possessive = after.startswith(
        ("'s", "\u2019s", "' ", "\u2019 ")
    )  # "read George Orwell's 1984", "watch the Bruins' game"
    # "playing the US map expansion": a known place before a noun says which one, it is not what is played
    place = place_name(name) or name.lower() in ALIASES  # "US", "NYC": a known place's short form
    modifier = possessive or (place and re.match(r"\s+[a-z]", after) is not None)
    for pattern, kind in CUE_BEFORE:
        if pattern.search(before) and not (kind == "work" and modifier):
            return kind
    if not marked and pronoun_person(before, after, name):
        return "person"
    return None


# Works a heading lists by their medium; not the stamps or coins of a collection ("their 1950s postage stamps:"
# over the countries that issued them).
WORK_MEDIA = (
    r"(?:painting|sculpture|novel|book|movie|film|documentar(?:y|ie)|podcast|album|song|musical|opera|game|"
    r"comic|sitcom)"
)
# A list under a line that says what it lists: "Some popular shoegaze bands include:" then "1. My Bloody
# Valentine", "2. Slowdive" — bands, whatever the small model reads in a user's "I've heard of My Bloody Valentine".
HEAD_KIND = (
    rf"(?:(?P<person>{PERSON_NOUNS})|(?P<organisation>{ORG_NOUNS}(?:e?s)?|companies|breweries|wineries)|"
    rf"(?P<place>{PLACE_NOUNS}s?)|(?P<work>(?:{WORK_MEDIA}|series|show)s?))"
)
# The kind word is the heading's last, in the plural, perhaps with a few words after it ("bands include:", "books
# you might enjoy:", "cities worth visiting:"); "online stores for cat supplies:" lists stores, not cats.
HEADED_LIST = re.compile(
    rf"(?im)^[^\n]*?\b{HEAD_KIND}(?<=s)(?:\s+(?:include|are|to\s+\w+(?:\s+\w+)?|you\s+\w+(?:\s+\w+)?|"
    r"worth\s+\w+|that\s+\w+(?:\s+\w+)?))?\s*\**:[ \t]*\n(?:[ \t]*\n)*"
    r"(?P<entries>(?:[ \t]*(?:[-*\u2022+]|\d+[.)])[ \t]+[^\n]*(?:\n[ \t]*)*)+)"
)
AFTER_PREPOSITION = re.compile(r"\b(?:for|with|of|to|in|about|from|by|among|between)\s+(?:\S+\s+){0,4}$")
# An entry's name: the line after its marker, up to a colon, a dash, a bracket or "by".
LIST_ENTRY = re.compile(
    r"^[ \t]*(?:[-*\u2022+]|\d+[.)])[ \t]+[*_\"\u201c]*([^\n]*?)[*_\"\u201d]*"
    r"(?:$|\s*(?::|\s[-\u2013\u2014]\s|\s\(|\s+by\s))",
    re.M,
)


def headed_lists(text: str) -> list[tuple[str, list[str]]]:
    """(kind, names) of each list whose heading names the kind of its entries."""
    found = []
    for match in HEADED_LIST.finditer(text):
        kind = next(group for group in ("person", "organisation", "place", "work") if match.group(group))
        if AFTER_PREPOSITION.search(text, match.start(), match.start(kind)):
            continue  # "Games that might not be as suitable for 5-6 players include:" lists games, not players
        found.append((kind, [entry.group(1).strip() for entry in LIST_ENTRY.finditer(match.group("entries"))]))
    return found
