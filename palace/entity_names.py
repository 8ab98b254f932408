"""Which surface forms are names, and how they are written: the filters that keep greetings, sentence
openers, headings, list labels and spelled-out terms out of the palace, and the cleaning and keys that
let "Dr. Patel", "Patel" and "patel" meet."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from palace.entity_kinds import CAMPUS, EVENT_SUFFIX
from palace.gazetteers import BRANDS, NATIONAL, is_variety, known_kind, personal_name
from palace.topics import generic_words
from palace.vocabulary import common_word, word_forms

# Words spaCy's small model labels as entities in chat text that never name one. Lower-case, whole
# entity text after cleaning. Kept short: the "lower-case elsewhere" and heading rules catch most junk.
NOT_ENTITIES = frozenset(
    """
    hi hello hey thanks thank yes no okay ok sure please certainly however nice great awesome cool wow oh
    ah hmm lol btw fyi ps dear congrats congratulations cheers bye goodbye regards sorry welcome
    rsvp rpg rpgs jrpg mmorpg r&b
    ai api apis sdk sdks faq diy tl;dr dr mr mrs ms prof sir madam i i'm i'd i've i'll pov
    mbps gbps kbps ghz mhz khz kwh mph kph rpm psi bpm mah dpi ppi fps
    usb usb-c usb-a hdmi dslr slr gps led leds lcd oled wifi wi-fi pdf pdfs url urls html css sql ram cpu gpu ssd hdd
    vpn hd 4k 3d 2d vr qr b2b b2c crm kpi kpis roi ceo cto cfo q&a tlc lms cms erp ui hr pos ats ev evs hvac
    sms mms
    usd eur gbp aud cad nzd jpy cny inr chf sgd hkd mxn brl zar krw sek nok dkk aed
    mp3 mp4 wav flac aac jpeg jpg png gif heic raw csv json xml
    bbq tv rv rvs suv suvs atv atvs
    rabbi pastor priest reverend imam cantor
    sikh sikhs hindu hindus muslim muslims jew jews buddhist buddhists jain jains catholics protestants mormons
    covid covid-19 instagram-worthy
    monday tuesday wednesday thursday friday saturday sunday
    january february march april may june july august september october november december
    christmas easter thanksgiving halloween hanukkah diwali ramadan valentine valentine's
    earth internet web the world
    also so and but then anyway actually recently yesterday today tonight tomorrow oh well now plus
    true false null none
    """.split()
) | {
    "the world",
    "mother nature",
    "happy hour",
    "black friday",
    "valentine's day",
    "mother's day",
    "father's day",
    "new year",
    "new year's",
    "new year's eve",
    "new year's day",
    "lunar new year",
    "chinese new year",
    "secret santa",
    "dean's list",
    "p.s",
    "p.p.s",
}
# The calendar's holidays (palace/holidays.txt): when, not what ("on Easter Sunday").
NOT_ENTITIES |= frozenset(
    line.strip()
    for line in Path(__file__).with_name("holidays.txt").read_text().splitlines()
    if line and line[0] != "#"
)

EMPHASIS_LETTERS = 7  # "UNESCO", "NASDAQ" are six letters; a word in capitals longer than that is shouted
# A stand-in for a name in an example ("XYZ University", "ABC Corp" is left: it is also a network).
LONGEST_WORD = 40
PLACEHOLDER = re.compile(r"\bXYZ\b|^(?:John|Jane) Doe$|^Lorem Ipsum$")  # sample names, not someone
TITLES = re.compile(r"^(?:dr|doctor|mr|mrs|ms|miss|prof|professor|sir|aunt|uncle|auntie|grandma|grandpa)\.?\s+", re.I)
# "the"/"a" go whatever their case; a capitalised possessive is part of a title ("Our Town").
ADMINISTRATIVE = re.compile(r"^(?:State|Province|County|Commonwealth|Prefecture|Region) of (?=[A-ZÀ-ÖØ-Þ])")
LEADING = re.compile(r"^(?:(?i:the|a|an)|my|our|your|his|her|their|another|this|that|these|those|every|each)\s+")
TRAILING = re.compile(r"(?:'s|\u2019s|'|\u2019)$")
TRAILING_POSSESSIVE = re.compile(r"(?:'s|\u2019s)$")
TRAILING_PARTICLE = re.compile(r"(?:\s+(?:at|in|on|of|and|or|the|for|with|to|from|by|a|an))+$")
# A job title is a role, not a name: "Senior Marketing Manager", "Data Analyst".
ROLE_TITLE = re.compile(
    r"^(?:(?:Senior|Junior|Lead|Chief|Head|Principal|Associate|Assistant|Staff|Executive|Deputy|Vice)\s+)*"
    r"(?:[A-Z][A-Za-z]+\s+){0,3}(?:Manager|Specialist|Director|Engineer|Analyst|Coordinator|Officer|Consultant|"
    r"Developer|Scientist|Strategist|Administrator|Intern|Designer|Representative|Supervisor|Judge|Magistrate|"
    r"Solicitor|Barrister|Attorney|Clerk|Sergeant|Constable)$"
)
MARKDOWN_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s|\*\*[^*\n]{1,80}\*\*:?\s*$|\d+\.\s+\*\*|[-*]\s+\*\*"
    # a short numbered or bulleted list item ("3. Skill Training."): a label, not a sentence
    r"|(?:\d+[.)]|[-*\u2022])\s+(?:\S+\s+){0,4}\S+\s*$)",
    re.M,
)


def without_symbols(text: str) -> str:
    """The text without emoji at either end ("Zoë Müller 🦄" -> "Zoë Müller"); a name's own signs stay
    ("Disney+", "C++")."""
    start, end = 0, len(text)
    while start < end and (text[start].isspace() or _emoji_part(text[start])):
        start += 1
    while end > start and (text[end - 1].isspace() or _emoji_part(text[end - 1])):
        end -= 1
    return text[start:end]


def _emoji_part(char: str) -> bool:
    # Other and modifier symbols (emoji, skin tones), joiners and variation selectors.
    return unicodedata.category(char) in ("So", "Sk", "Cf", "Co", "Cn") or char == "\ufe0f"


def clean(text: str, *, keep_article: bool = False) -> str:
    """Entity text as a wing name: no article/possessive pronoun before (a title keeps its "The", and its
    capital "A" or "An": "A Midsummer Night's Dream"), no possessive 's after."""
    text = " ".join(without_symbols(text).replace("\n", " ").split()).strip(" .,:;!?\"'“”()[]*_#-•·")
    text = re.sub(r"^(?i:the\s+)?['\u2018\"\u201c]", "", text)  # the 'Paws for a Cause' gala: the quote starts the name
    text = re.sub(r"^[a-z][.)]\s+", "", text)  # "… and movement b. Describe the size": a lettered list's marker
    text = re.split(r"[\"\u201d]\s+(?=[a-z])", text)[0]  # the "Golden Gear" award: the quote ends the name
    if not (keep_article and (text[:4].lower() == "the " or text.startswith(("A ", "An ")))):
        text = LEADING.sub("", text).strip(" .,:;!?\"'\u201c\u201d\u2018\u2019()[]*_#-")
    text = ADMINISTRATIVE.sub("", text)  # "the State of New South Wales": the place is New South Wales
    text = TRAILING_PARTICLE.sub("", text)  # "The Killers at": the small model ran on into the sentence
    text = MEDIUM_TAIL.sub("", text)  # "The Wheel of Time series": the title is the name
    text = UNCLOSED_BRACKET.sub("", text)  # "World Health Organization (WHO": its abbreviation, cut short
    text = OTHER_SCRIPT.sub("", text)  # "Vystar와 같은 다른 패턴의 네임도": the name ends where the Korean starts
    return TRAILING.sub("", text).strip()


SENTENCE_AFTER_COLON = re.compile(r":\s+(?:This|That|These|Those|It|Its|The|A|An|Here|There|They|We|You|I)$")
MEDIUM_TAIL = re.compile(r"(?<=\S)\s+(?:series|trilogy|saga|franchise|books|novels)$")
UNCLOSED_BRACKET = re.compile(r"\s*\([^()]*$")
OTHER_SCRIPT = re.compile(r"(?<=[A-Za-z])\s*[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af].*$")


def split_conjunction(name: str, text: str) -> list[str]:
    """ "Instagram and Facebook" -> both, when each part is a brand or is named on its own elsewhere in
    `text` (the conversation); "Turks and Caicos Islands", "Barnes & Noble" stay whole."""
    if CAMPUS.match(name):  # "University of California, Berkeley": one school, named with its campus
        return [name]
    if ";" in name:  # "[Author]: Zhesi Shen;Jinshan Wu": a list, whatever else joins its names
        return [piece for part in name.split(";") for piece in split_conjunction(part.strip(), text) if piece]
    parts = [  # "&" joins one name ("Wits & Wagers", "Barnes & Noble"), unless both sides are brands
        piece
        for part in re.split(r"\s+(?:and|And|or)\s+|,\s*", name)
        for piece in (part.split(" & ") if all(p.lower() in BRANDS for p in part.split(" & ")) else [part])
    ]
    if len(parts) == 2 and parts[0] in COMPASS_WORDS and len(parts[1].split()) == 2:
        region, whole = parts[1].split()
        if region in COMPASS_WORDS:  # "Central and South America": two regions sharing the noun
            return [f"{parts[0]} {whole}", parts[1]]
    if len(parts) > 1 and all(p.lower() in BRANDS or text.count(p) > text.count(name) for p in parts):
        return parts
    if "," in name and re.search(re.escape(name) + r",? (?:and|or) [A-ZÀ-ÖØ-Þ]", text):
        return parts  # "such as Bitcoin, Ethereum and Tether": the small model's span holds the list's first items
    return [name]


COMPASS_WORDS = frozenset(
    "North South East West Central Northern Southern Eastern Western Upper Lower Inner Outer".split()
)


def key(name: str) -> str:
    """What two surface forms of one entity share: no title, lower case, no dots."""
    return TITLES.sub("", name).lower().replace(".", "").strip()


def heading_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of markdown headings and bold list labels, where capitals prove nothing."""
    spans = []
    for match in MARKDOWN_HEADING.finditer(text):
        start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())  # after the blank lines before
        end = text.find("\n", start)
        spans.append((start, len(text) if end == -1 else end))
    spans += [match.span(1) for match in OPTION_TITLE.finditer(text)]
    return spans


# A verb that opens an instruction: "2. Define Binary Semaphore.", "Explain Virtual Memory": not part of a name.
IMPERATIVE = re.compile(
    r"^(?:Define|Explain|Describe|Discuss|List|Compare|Contrast|Write|Summari[sz]e|Outline|Identify|Calculate|"
    r"Analy[sz]e|Evaluate|Illustrate|Differentiate|Distinguish|Justify|Elaborate|Mention|Enumerate|State|Give|"
    r"Provide|Create|Design|Implement|Generate|Rewrite|Translate|Convert|Draft|Suggest|Recommend|Imagine|"
    r"Exclude|Include|Remove|Replace|Drop|Swap|Pick|Choose|Select|Consider|Edit|Revise|Proofread|Rank|Sort|Offer|"
    r"Ensure|Avoid|Use|Keep|Make|Add|Find|Check|Refer|Assume|Determine|Estimate|Show|Prove|Derive|Sketch|Plot)"
    r"(?:\s+|$)"
)
LINE_OR_SENTENCE_START = re.compile(r"(?:^|\n|[.!?:]\s)\s*(?:[-*\u2022]\s+|\d+[.)]\s+|[\"\u201c'(*]+)?$")


def without_imperative(text: str, start: int, name: str) -> tuple[int, str]:
    """(start, name) with an instruction's opening verb left out of a name that starts a sentence."""
    verb = IMPERATIVE.match(name)
    if verb and LINE_OR_SENTENCE_START.search(text[max(0, start - 8) : start]):
        return start + verb.end(), name[verb.end() :]
    return start, name


# "the Natural History Museum", "the City Council": common words, but an institution's name all the same.
INSTITUTION = re.compile(
    r"\b(?:Museum|Gallery|Library|University|College|School|Hospital|Council|Society|Institute|Zoo|Theatre|"
    r"Theater|Cathedral|Park)$|^(?:Museum|Gallery|Library|University|College|School|Institute|Academy|Bank|"
    r"Church|Department|Ministry|Council) of "
)
# A part of a document and its number: "Chapter 1", "Item 6", "Step 3".
NUMBERED_LABEL = re.compile(
    r"^(?:Chapter|Section|Part|Step|Item|Page|Figure|Table|Verse|Lesson|Module|Unit|Week|Day|Level|Episode|"
    r"Season|Round|Phase|Stage|Article|Clause|Schedule|Appendix|Annex|Exhibit|Question|Task|Point|Option|Tip|Idea|"
    r"Example|Scenario|Choice|Suggestion|Strategy)\s+\d"
)
# The name an answer gives one of its options ("Option 2: Laid-Back Cool", "Idea 3: Jungle Adventure"), which the
# person then picks by it: a label of the answer's, not a name. Not after "Day 1:", where places follow.
OPTION_TITLE = re.compile(
    r"\b(?:Option|Idea|Tip|Choice|Suggestion|Scenario|Example|Strategy)\s+\d+[a-z]?\s*[:.)\u2013-]\s*"
    r"((?:[A-ZÀ-ÖØ-Þ][\w'&-]*\s?)+)"
)
# An academic degree, as people write it with its dots ("a Ph.D. in education", "my M.Sc"), or an MBA: what
# someone studies for, not a name ("MA" and "MD" alone are states, and stay).
DEGREE = re.compile(
    r"^(?:Ph\.\s?D|M\.B\.A|MBA|M\.\s?Sc|B\.\s?Sc|M\.A|B\.A|M\.D|J\.D|Ed\.D|LL\.M|M\.F\.A|M\.Ed|B\.Ed)\.?$|"
    r"^(?:Bachelor|Master|Associate)(?:['\u2019]?s)?$|^Doctorate$"  # "a Bachelor in Business": a degree
)
# A letter's salutation to a role: "Dear Hiring Manager", "Dear Search Committee" (not "Dear Maria").
SALUTATION = re.compile(r"^Dear\s")
# A date is not a name: "Date 16 February 2023", "March 15th".
DATED = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b.*\d|"
    r"\d.*\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|"
    r"\b(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])(?:/\d{2,4})?\b|"  # "Liam 3/12" on a onesie: a name and a date
    r"^(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?\s+\d{1,4}$"  # "Sep 22" in a pasted table
)


ABBREVIATION = re.compile(r"(?=.*[a-zß-öø-ÿ])(?=.{3}$)[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]?[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]?")


# Languages, said alone ("I'm learning Telugu"): a skill or a subject the labels never file as a wing. Not in
# NOT_ENTITIES, whose words also stop a name ("French Laundry" keeps its first word).
LANGUAGES = frozenset(
    """english spanish french german italian portuguese russian chinese mandarin cantonese japanese korean arabic
    hindi urdu bengali punjabi telugu tamil marathi gujarati kannada malayalam swahili turkish persian farsi
    hebrew greek latin dutch swedish norwegian danish finnish polish czech hungarian romanian ukrainian
    vietnamese indonesian tagalog esperanto""".split()
)

# A region's adjective, said alone ("Latin American literature"): a style or a people, not a place or a body.
REGION_ADJECTIVES = frozenset(
    f"{side} {people}"
    for side in ("latin", "north", "south", "central", "east", "west", "southeast", "eastern", "western", "native")
    for people in ("american", "asian", "african", "european")
) | {"middle eastern", "african american", "asian american"}

# A country's cooking: "Korean BBQ", "Hawaiian-style BBQ", "Italian Cuisine" — what, not a restaurant's name.
CUISINE = re.compile(rf"^(?:{NATIONAL}|Thai|Greek)(?:-[Ss]tyle)?\s+(?:BBQ|Barbecue|Cuisine|Food|Cooking)$")
MONEY = re.compile(r"[A-Z]{0,3}[$€£¥][\d,.]+[KkMm]?")


def is_plausible(text: str, label: str, lower_words: set[str]) -> bool:
    text = text.strip("\u2022\u00b7\u2013\u2014")
    low = text.lower()
    if len(text) < 2 or low in NOT_ENTITIES or low in LANGUAGES or low in REGION_ADJECTIVES:
        return False
    if not re.search(r"[A-Za-z]", text):
        return False
    if not any(ch.isupper() for ch in text):  # spaCy tags lower-case chat words ("pilates") now and then
        return False
    if ABBREVIATION.fullmatch(text):  # "RnD", "PhD", "BSc": an abbreviation, not a name
        return False
    if " " not in text and IMPERATIVE.match(f"{text} "):  # "b. Describe the size": an instruction's verb
        return False
    if is_variety(text) or CUISINE.match(text) or PLACEHOLDER.search(text) or ROLE_TITLE.match(text):
        return False  # "Riesling", "Korean BBQ"; "XYZ University"
    if STYLED.search(text) or OUTLINE_HEAD.match(text):
        return False  # "Spa-Inspired Retreat"; an outline's "I. Introduction", "VI"
    # A common word in capitals is emphasis ("THE END", "NOTE", "UNCOMMON"), not an acronym: one the word lists
    # know, one of four letters or more the conversation writes in lower case ("The first one is FREE"), or a word
    # longer than acronyms run.
    shouting = text.isupper() and text.isalpha() and not known_kind(text) and low not in BRANDS
    everyday = (len(text) >= 3 and low in generic_words()) or (len(text) >= 4 and low in lower_words)
    if shouting and (everyday or len(text) >= EMPHASIS_LETTERS):
        return False
    if DATED.search(text) or NUMBERED_LABEL.match(text) or DEGREE.match(text) or SENTENCE_AFTER_COLON.search(text):
        return False  # … or "The Cola Island: This secluded paradise …", a list entry's label and its prose
    if " " not in text and low.endswith("ing") and len(low) > 6 and {low[:-3], low[:-3] + "e"} & lower_words:
        return False  # "Roofing and Gutters": a trade or a pastime whose verb the conversation writes ("roof")
    if SALUTATION.match(text) and not personal_name(text.split(None, 1)[1]):
        return False
    words = text.split()
    if len([w for w in words if w not in ("by", "of", "de", "the")]) > 6 or text.endswith(("?", "!")):
        return False
    if max(len(w) for w in words) > LONGEST_WORD:  # a token, a key or a URL, not a name
        return False
    if ("/" in text and re.search(r"\d", text)) or MONEY.fullmatch(text):  # "SCCC/PROG/SE23/01", "S$190,000"
        return False  # a reference number or a sum, not a name
    # "Siege Tanks", "Sweet Potatoes": a person's name does not end in a common plural noun
    if label == "PERSON" and len(words) > 1 and words[-1].endswith("s") and common_word(words[-1], lower_words):
        return False
    # One capitalised word that the conversation also writes in lower case: a common noun or interjection.
    # Kept for PERSON/GPE when it is not a common word elsewhere ("Rachel", "Denver").
    if len(words) == 1 and (low in lower_words or f"{low}s" in lower_words) and not text.isupper():
        return False  # "Carrot" on an answer's option, where the conversation says "carrots"
    # Every word a common lower-case word: "Key Metrics", "Social Media" (headings, title case).
    alpha = word_forms(words)
    if (
        len(words) > 1
        and all(common_word(w, lower_words) for w in alpha)
        and label not in ("GPE", "LOC", "FAC")
        and not INSTITUTION.search(text)
        # "Digital Marketing Summit", "Cultural Heritage Center": an event's, a centre's name ("Command Center" is not)
        and not (len(words) >= 3 and (EVENT_SUFFIX.search(text) or text.endswith(("Center", "Centre"))))
    ):
        return False
    return True


def is_people_plural(name: str, text: str) -> bool:
    """ "Vikings" beside "Viking mythology", "Romans" beside "Roman roads": a people, said as a plural,
    whose singular is an adjective in the same conversation."""
    if " " in name or not name.endswith("s") or len(name) < 5:
        return False
    singular = name[:-1]  # followed by a noun it qualifies, not a word of the sentence ("the Crusade to be …")
    return re.search(rf"(?<![\w-]){re.escape(singular)}\s+(?!{FUNCTION_WORDS}\b)[a-zß-öø-ÿ]", text) is not None


FUNCTION_WORDS = "(?:to|of|in|on|at|by|for|from|with|and|or|but|as|is|was|were|be|had|has|that|which|who|it|its)"


def initials(name: str) -> str:
    return "".join(w[0] for w in re.findall(r"[A-Za-z]+", name) if w[0].isupper()).lower()


# What follows a capitalised word and makes it a style of something, not a name: "Hatha or Yin yoga",
# "Earl Grey tea", "Vinyasa flow", the "Ghost Pepper" wings. spaCy's small model reads such a word as a person.
STYLE_OF = re.compile(
    r"^[\"\u201d'\u2019]?(?:(?:,|\s+or|\s+and|\s*/)\s*[A-ZÀ-ÖØ-Þ][\w-]*)*\s+(?:yoga|flow|poses?|styles?|stitch|knot|braid|breed|tea|blend|"
    r"roast|cuisine|dance|dancing|meditation|breathing|technique|sauce|dressing|cheese|wines?|grapes?|blends|"
    r"spritzers?|cocktails?|recipes?|dish(?:es)?|drinks?|beers?|liquor|smoothies?|salads?|soups?|dumplings|noodles|"
    r"stew|pudding|cakes?|cookies|bread|pastr(?:y|ies)|desserts?|curry|rice|seasoning|spices?|wings|fries|tacos|"
    r"burgers?|pizzas?|sandwich(?:es)?|ramen|sushi|rolls?|chowder|cheesesteaks?|bagels?|chili|peppers?|flavou?rs?|"
    r"sprouts|mustard|chard|mythology|folklore)\b"
)
# A quoted or named thing followed by a word for a part of an app, a layout or a party's theme: "the "Quick Add"
# feature", "the Today view", "in Table format", "the Jungle Adventure theme".
UI_ELEMENT_AFTER = re.compile(
    r"^[\"\u201d']?\s+(?:feature|button|view|tab|menu|option|mode|function|setting|settings|screen|icon|toggle|"
    r"filter|shortcut|template|widget|command|field|panel|toolbar|sidebar|dashboard|wizard|tool|format|layout|"
    r"theme|category|categories|genre)s?\b",
    re.I,
)
# A name followed by a version and another capitalised word is the start of a longer name: "Java SE 11
# Developer" (a certification), "Office 365 Business".
VERSION_FRAGMENT = re.compile(r"^\s+v?\d[\w.]*\s+[A-ZÀ-ÖØ-Þ]")
# "Narcos: Mexico", "Star Wars: The Last Jedi": a title and its subtitle, said mid-sentence.
_TITLE_WORD = r"(?:[A-ZÀ-ÖØ-Þ][\w'\u2019-]*|\d+)"
SUBTITLE = re.compile(
    rf":\s+({_TITLE_WORD}(?:\s+(?:(?:of|the|and|a|an|in|on|to|from|for|at|with)\s+){{0,2}}{_TITLE_WORD}){{0,7}})"
)


# "Tteokbokki-inspired rice cakes", "Korean-style": a word made into an adjective names a style, not a thing
# (after the name, or inside the small model's span: "a Beni Ourain-inspired rug").
_ADJECTIVE_ENDINGS = r"-(?:inspired|style|styled|themed|flavou?red|based|like|esque|infused|shaped|type)"
ADJECTIVE_SUFFIX = re.compile(rf"^{_ADJECTIVE_ENDINGS}\b", re.I)
ADJECTIVE_TAIL = re.compile(rf"{_ADJECTIVE_ENDINGS}$", re.I)
# An outline's roman numeral, alone or before its heading: "VI", "I. Introduction".
OUTLINE_HEAD = re.compile(r"[IVX]{2,4}$|[IVX]{1,4}\.\s")
# "a Spa-Inspired Retreat", "a Boho-Themed Party": a style made into a title, not a name.
STYLED = re.compile(r"\w-(?:inspired|themed|style|styled|esque)\s", re.I)
# "a Pulitzer Prize-winning author", "an Oscar-nominated film": the prize is the name.
PRIZE_TAIL = re.compile(r"-(?:winning|nominated)$", re.I)
# "from New York to Boston 3 times": a count after a name is not part of it.
COUNTED = re.compile(
    r"^\s+(?:times|days|weeks|months|years|hours|minutes|nights|people|guests|miles|km|kilometres|kilometers)\b", re.I
)
TRAILING_NUMBER = re.compile(r"\s+\d+$")


def without_count(name: str, after: str) -> str:
    """The name without a number that counts what follows it ("Boston 3 times" -> "Boston")."""
    return TRAILING_NUMBER.sub("", name) if COUNTED.match(after) else name


def not_a_name_here(name: str, after: str) -> bool:
    """Whether the words after a mention make it a style, a part of an app or a fragment of a longer name
    (a brand stays a brand: "Lipton tea")."""
    style = STYLE_OF.match(after) and name.lower() not in BRANDS
    # "Map out the user flow": an everyday word, capitalised, then a verb's particle and what it acts on
    verb = PARTICLE_AFTER.match(after) and name.lower() in generic_words() and not personal_name(name)
    # "the Back Care section" of an app; not "the New York Times section", a paper's
    section = SECTION_AFTER.match(after) and name.lower() not in BRANDS and known_kind(name) is None
    part = UI_ELEMENT_AFTER.match(after) or VERSION_FRAGMENT.match(after) or ADJECTIVE_SUFFIX.match(after)
    return bool(style or verb or section or part)


SECTION_AFTER = re.compile(r"^[\"\u201d']?\s+(?:section|category|categories)\b", re.I)
PARTICLE_AFTER = re.compile(r"^\s+(?:out|up|down|off|through|back)\s+(?:the|a|an|your|my|our|their|how|what|all)\b")


def subtitle(text: str, start: int, end: int) -> int | None:
    """The end of "<title>: <Subtitle>" when the mention at text[start:end] is a title's first half, said
    mid-sentence (not a "Label: value" line, whose first word starts the line)."""
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip() or text[start - 2 : start] in (". ", "! ", "? "):
        return None
    match = SUBTITLE.match(text, end)
    return match.end(1) if match else None
