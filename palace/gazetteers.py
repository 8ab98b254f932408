"""The lists behind the offline extractor, general knowledge and never a conversation or a label: brands and
platforms (any case, the common-word ones capitalised only), countries and cities written in lower case
(places.txt), well-known publications, brands, chains, games, series and landmarks with the kind people give
them (known_names.txt), given names (given_names.txt) and kinds of things that name no one thing
(varieties.txt); `gazetteer_mentions` finds what they name in a turn."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Set
from pathlib import Path
from typing import Any

from palace.topics import generic_words

# Brands and platforms people name in chat that the small model mislabels (PERSON, GPE, WORK_OF_ART).
BRANDS = frozenset(
    """youtube instagram facebook tiktok twitter reddit pinterest linkedin snapchat whatsapp telegram discord
    netflix hulu spotify audible kindle amazon apple google microsoft uber lyft airbnb etsy ebay craigslist
    walmart target costco ikea zara uniqlo nike adidas starbucks lightroom photoshop canva excel zoom slack
    notion trello duolingo strava fitbit peloton goodreads chatgpt openai iphone ipad android playstation xbox
    nintendo coursera edx udemy skillshare masterclass wikipedia quora medium substack patreon twitch vimeo
    doordash grubhub instacart expedia booking.com tripadvisor yelp zillow venmo paypal shopify wordpress
    github gitlab dropbox evernote todoist asana jira figma pytorch tensorflow sephora ulta nordstrom
    wayfair lululemon rei rolex omega seiko casio garmin timex cartier tiffany pandora swarovski gucci prada
    chanel dior hermes burberry coach fendi versace balenciaga levi's gap h&m patagonia columbia
    reebok puma asics converse vans skechers brooks hoka saucony crocs birkenstock timberland ugg samsung
    sony lg panasonic philips bose sonos jbl canon nikon fujifilm gopro dell lenovo asus acer logitech
    dyson roomba keurig nespresso vitamix kitchenaid toyota honda ford tesla subaru mazda nissan
    hyundai kia volkswagen bmw audi mercedes volvo jeep chevrolet lego hasbro mattel disney marvel pixar
    hbo peacock paramount crunchyroll pandora soundcloud tidal deezer bandcamp shazam headspace calm
    myfitnesspal noom weightwatchers ww nutrisystem hellofresh blueapron chewy petco petsmart homedepot
    lowes bestbuy macy's kohl's sears tjmaxx marshalls aldi kroger safeway wholefoods traderjoe's
    mcdonald's chipotle subway dunkin siri cortana bixby fender gibson ibanez epiphone gretsch rickenbacker
    squier""".split()
) | {
    "facebook marketplace",
    "google maps",
    "apple music",
    "amazon prime",
    "khan academy",
    "new balance",
    "home depot",
    "best buy",
    "whole foods",
    "trader joe's",
    "under armour",
    "the north face",
    "old navy",
    "banana republic",
    "bath & body works",
    "american eagle",
    "urban outfitters",
    "kay jewelers",
    "weight watchers",
    "planet fitness",
    "apple tv+",
    "disney+",
    "prime video",
    "youtube music",
    "instant pot",  # written "instant pot" in chat; "instant" alone is a word ("instant coffee")
}
_LISTED_BRANDS = [
    name.strip()
    for line in (Path(__file__).with_name("brands.txt")).read_text().splitlines()
    if line.strip() and not line.startswith("#")
    for name in (line.split("|") if "|" in line else line.split())
]
BRANDS |= {name.removeprefix("^") for name in _LISTED_BRANDS}  # palace/brands.txt: more makers, shops and apps
# Countries and well-known cities written in lower case in chat (palace/places.txt says which).
PLACES = frozenset(
    name.strip()
    for line in (Path(__file__).with_name("places.txt")).read_text().splitlines()
    if line.strip() and not line.startswith("#")
    for name in (line.split("|") if "|" in line else line.split())
)


# The postal codes of the United States' states and territories and Canada's provinces.
STATE_CODES = frozenset(
    """AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK
    OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AB BC MB NB NL NS NT NU ON PE QC SK YT""".split()
)
US_STATES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|Illinois|"
    "Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|"
    "Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|"
    "Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|"
    "West Virginia|Wisconsin|Wyoming"
).split("|")
# A town before its state, in an address: "Fonda, NY 12068", "Albany, NY", "Clovis, California".
TOWN_IN_STATE = re.compile(
    r"(?<![\w-])([A-Z][a-z]+(?: [A-Z][a-z]+)?),[ \t]?(?:(?:"
    + "|".join(sorted(STATE_CODES))
    + r")(?:[ \t]+\d{5}(?:-\d{4})?\b|[ \t]*$)|(?:"
    + "|".join(sorted(US_STATES))
    + r")\b)",
    re.M,
)


def place_name(name: str) -> bool:
    """A country, a state or province, a region of the world or a well-known city (palace/places.txt)."""
    return re.sub(r"^the\s+", "", name.lower()) in PLACES


def one_of(names: Iterable[str]) -> str:
    """A regex for any of `names`, the longest that fits first, built as a trie of their letters: an
    alternation of a thousand names tries each of them at every place in a text, a trie one letter at a time."""
    trie: dict[str, Any] = {}
    for name in names:
        node = trie
        for char in name:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


PLACE = re.compile(r"(?<![\w@#/.-])(" + one_of(PLACES) + r")(?![\w/-])", re.I)


def _known_names() -> dict[str, tuple[str, str]]:
    known: dict[str, tuple[str, str]] = {}
    for line in (Path(__file__).with_name("known_names.txt")).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, name = (part.strip() for part in line.split(":", 1))
            for form in {name, unaccented(name)}:  # "Ólafur Arnalds" is also written "Olafur Arnalds"
                known.setdefault(re.sub(r"^the\s+", "", form.lower()), (kind, form))
    return known


def unaccented(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


# Publications, broadcasters, leagues and franchises whose kind the small model cannot tell (known_names.txt).
# A band is filed as an organisation; what it owns is a work, not a product ("Fleetwood Mac's "Tusk""). A person
# known by one name ("byname": Rembrandt, Mozart) is a person when found, never found by the list alone: "the
# Rembrandt lighting" of a portrait is a way of lighting it.
_KNOWN = _known_names()
BANDS = frozenset(low for low, (kind, _) in _KNOWN.items() if kind == "band")
BYNAMES = frozenset(low for low, (kind, _) in _KNOWN.items() if kind == "byname")
_FILED_AS = {"band": "organisation", "byname": "person"}
KNOWN_NAMES = {low: (_FILED_AS.get(kind, kind), name) for low, (kind, name) in _KNOWN.items()}
KNOWN_KINDS = {low: kind for low, (kind, _) in KNOWN_NAMES.items()}
# The ones of two or more words, as written ("The Economist", "Star Wars"): found in a user's turn when NER
# skips them ("The New Yorker and The Economist"), capitals and all, so "the nation" is not "The Nation".
KNOWN = re.compile(r"(?<![\w-])(" + one_of(name for _, name in KNOWN_NAMES.values() if " " in name) + r")(?![\w-])")
# A band named mid-sentence with a lower-case article ("my parents love the Beatles"): the name after it.
BAND_AFTER_THE = re.compile(
    r"(?<![\w-])the ("
    + one_of(name[4:] for kind, name in _KNOWN.values() if kind == "band" and name.startswith("The "))
    + r")(?![\w-])"
)
# The well-known names of one word, as written ("Lakers", "Fleabag"): the small model misses some of them, and
# one that is also an everyday word ("Friends", "Fortune") is left to it.
KNOWN_ONE = re.compile(
    r"(?<![\w@#/.-])("
    + one_of(
        name
        for kind, name in KNOWN_NAMES.values()
        if " " not in name and kind != "topic" and name.lower() not in BYNAMES
    )
    + r")(?![\w/-])"
)


def _subjects() -> dict[str, str]:
    """palace/subjects.txt, lower case to as listed: faiths, schools of thought, movements, eras and wars,
    methods, languages of the past, theories and charters: what a person files a conversation under."""
    lines = (Path(__file__).with_name("subjects.txt")).read_text(encoding="utf-8").splitlines()
    return {line.strip().lower(): line.strip() for line in lines if line.strip() and not line.startswith("#")}


# Subjects are found in any case after their first letter ("the Qing Dynasty", "the Qing dynasty"), and only
# written with that capital: "Machine Learning" and "Agile" are named, "agile" is a word.
SUBJECTS = _subjects()
SUBJECT = re.compile(r"(?<![\w-])(" + one_of(SUBJECTS) + r")(?![\w-])", re.I)
for _low, _name in SUBJECTS.items():  # a subject is a topic unless the other lists know the name otherwise
    _key = re.sub(r"^the\s+", "", _low)
    KNOWN_KINDS.setdefault(_key, KNOWN_NAMES.setdefault(_key, ("topic", _name))[0])


# Kinds of a thing (varieties.txt): "Riesling", "Yukon Gold", "Golden Retriever" are what, not who or where.
VARIETIES = frozenset(
    line.strip().lower()
    for line in (Path(__file__).with_name("varieties.txt")).read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
)


# A bird or an aquarium fish named by its family's word, last: "Pileated Woodpecker", "Black-capped Chickadees",
# "Neon Tetras" — a species, what and not who ("Jack Sparrow" is a person; a team is in known_names.txt).
SPECIES = re.compile(
    r"^[A-Z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?\s+(?:Cardinal|Jay|(?:Oriole|Chickadee|Titmouse|Titmice|Woodpecker|"
    r"Warbler|Sparrow|Wren|Hummingbird|Bluebird|Heron|Thrush|Nuthatch|Grosbeak|Tanager|Kingfisher|Egret|Flycatcher|"
    r"Vireo|Junco|Kinglet|Towhee|Blackbird|Robin|Finch|Turnstone|Sandpiper|Plover|Cormorant|Ibis|Stork|Starling|"
    r"Mockingbird|Catbird|Loon|Grebe|Dove|Magpie|Pipit|Bunting|Goldfinch|Kestrel|Merganser|Wigeon|Pheasant|Grouse|Cichlid|"
    r"Tetra|Gourami|Rasbora|Danio)(?:e?s)?)$"  # teams: plural
)


def is_variety(name: str) -> bool:
    low = name.lower()
    if low in VARIETIES or (low.endswith("s") and low[:-1] in VARIETIES):
        return True
    return bool(SPECIES.match(name)) and not personal_name(name) and known_kind(name) is None


# Given names (given_names.txt): "Anish Kapoor", "Emma" are people, whatever label the small model gives them.
GIVEN_NAMES = frozenset(
    line.strip()
    for line in (Path(__file__).with_name("given_names.txt")).read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
)


def personal_name(name: str) -> bool:
    """One to three capitalised words, the first a given name: "Anish Kapoor", "Maria", "Li Wei Chen"."""
    words = name.split()
    return (
        0 < len(words) <= 3
        and words[0] in GIVEN_NAMES
        and all(w[0].isupper() and w.replace("-", "").replace("'", "").isalpha() for w in words)
    )


def is_band(name: str) -> bool:
    """A well-known band or group (known_names.txt, "band"), with or without its "The"."""
    return re.sub(r"^the\s+", "", name.lower()) in BANDS


def is_brand(name: str) -> bool:
    """A brand or a name the general-knowledge list knows ("Logitech", "Pinterest")."""
    return name.lower() in BRANDS or known_kind(name) is not None


# "French Art Deco", "Italian Baroque": a style or a school with the country it is of.
NATIONAL = r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:an|ese|ish|ch)"  # "French", "Korean", "Japanese", "Hawaiian"
NATIONALITY = re.compile(rf"^{NATIONAL}\s+(?=\S)")


def known_kind(name: str) -> str | None:
    known = KNOWN_NAMES.get(re.sub(r"^the\s+", "", name.lower()))
    if known is None and NATIONALITY.match(name):  # "French Art Deco": a known style, of a country
        style = NATIONALITY.sub("", name)
        known = KNOWN_NAMES.get(style.lower())
        return "topic" if known is not None and known[0] == "topic" and style == known[1] else None
    if known is None or (known[0] == "topic" and name != known[1] and (known[1].isupper() or name.islower())):
        return None  # a subject's abbreviation is itself only as written: "SAT" the test, not "Sat" the day
    return known[0]


# Names of brands and platforms that NER misses when a user writes them in chat ("on craigslist", "Linkedin
# And Instagram"): matched as whole words, any case, in the user's turns.
BRAND_FORMS = {
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
    "instant pot": "Instant Pot",
}
BRAND = re.compile(r"(?<![\w@#/.])(" + one_of(BRANDS) + r")(?![\w/]|['\u2019][A-Za-zÀ-ÿ])", re.I)  # not "dell'Arte"
# Words common in chat that are also brand names: only a capitalised mention counts.
BRANDS_NEED_CAPITAL = frozenset(
    """target apple zoom notion medium slack excel kindle audible calm coach gap omega pandora tidal peacock
    paramount subway puma converse vans crocs brooks chewy sears ford jeep columbia discord telegram twitch
    ww tiffany dove""".split()
) | {name[1:] for name in _LISTED_BRANDS if name.startswith("^")}


# A capitalised word (not a small word written in title case) right after a brand's: the brand's word is part
# of another name ("the Target Audience", "Coach Carter"; "Linkedin And Instagram" are two brands).
PART_OF_LONGER_NAME = re.compile(
    r"[ \t]+(?!(?:And|Or|The|To|For|Of|In|On|At|By|With|From|Is|Are|Was|But)\b)[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]"
)


def known_over(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
    """(start, end, name, kind) of each well-known name of two or more words that NER's `spans` cut up or
    cut short: "Spider-Man: Into" and "Spider-Verse" for "Spider-Man: Into the Spider-Verse", "Taylor" for
    "Taylor Swift". A span that holds the known name whole stays NER's ("The Office Depot store")."""
    out = []
    for match in [*KNOWN.finditer(text), *subjects_in(text)]:
        start, end = match.span(1)
        overlapping = [(a, b) for a, b in spans if a < end and start < b]
        if overlapping and not any(a <= start and end <= b and (a, b) != (start, end) for a, b in overlapping):
            out.append((start, end, match.group(1), KNOWN_KINDS[re.sub(r"^the\s+", "", match.group(1).lower())]))
    return out


def subjects_in(text: str, lower_words: Set[str] = frozenset()) -> list[re.Match[str]]:
    """The listed subjects `text` names as names (palace/subjects.txt says how), none of them a word of a
    longer name ("the Renaissance Hotel", "Harvard Data Science Review")."""
    found = []
    for match in SUBJECT.finditer(text):
        written, listed = match.group(1), SUBJECTS[match.group(1).lower()]
        if opens_sentence(text, match.start()):  # capitalised anyway: only a name written as the list has it
            named = (
                " " in listed
                and written == listed
                and all(w[0].isupper() for w in listed.split() if w not in SMALL_WORDS)
            )
        else:
            named = written[0].isupper() and (" " in listed or written.lower() not in lower_words)
        if named and not PART_OF_LONGER_NAME.match(text, match.end()) and not name_before(text, match.start()):
            found.append(match)
    return found


def opens_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:\n"


def name_before(text: str, at: int) -> bool:
    """The word before `at` is capitalised, neither a small word nor a sentence's first: at "Data Science" in
    "the Harvard Data Science Review" the subject is a word of a longer name."""
    word = re.search(r"(\S+)[ \t]$", text[max(0, at - 40) : at])
    if word is None or not word.group(1)[0].isupper() or word.group(1) in SMALL_CAPITALISED:
        return False
    if word.group(1)[-1] in '.!?:;,)"\u201d':  # "… we use Agile. Modernism …": a sentence ended before it
        return False
    before = text[: at - len(word.group(0))].rstrip(" \t")
    return bool(before) and before[-1] not in '.!?:\n*#-"\u201c('


SMALL_WORDS = frozenset("a an and as by de del der for in of on the to und v. vs. with".split())
SMALL_CAPITALISED = frozenset("The And Or Of In On At For To With From About I My Our".split())


def gazetteer_mentions(
    text: str, taken: list[tuple[int, int]], lower_words: Set[str] = frozenset()
) -> list[tuple[str, str]]:
    """(name, kind) of what the lists find in a user's turn outside the `taken` ranges (NER's mentions,
    headings): brands in any case ("on craigslist"), lower-case countries and cities ("moving to nepal"),
    well-known titles written in full mid-sentence ("and The Economist"), a well-known one-word name that
    is no word of the conversation's ("the Lakers vs Clippers game") and named subjects ("Stoicism")."""
    found: list[tuple[str, str]] = []
    free = lambda at: not any(a <= at < b for a, b in taken)  # noqa: E731
    for match in BRAND.finditer(text):
        raw = match.group(1)
        if PART_OF_LONGER_NAME.match(text, match.end()):
            continue  # "the Target Audience", "Coach Carter": a brand's word in another name
        if free(match.start()) and not (raw.lower() in BRANDS_NEED_CAPITAL and not raw[0].isupper()):
            found.append((BRAND_FORMS.get(raw.lower(), raw if not raw.islower() else raw.capitalize()), "organisation"))
    for match in PLACE.finditer(text):  # NER needs the capital, a person may not type it
        if match.group(1).islower() and free(match.start()):
            found.append((match.group(1).capitalize(), "place"))
    for match in KNOWN.finditer(text):
        if free(match.start()) and not opens_sentence(text, match.start()):
            found.append((match.group(1), KNOWN_KINDS[re.sub(r"^the\s+", "", match.group(1).lower())]))
    for match in TOWN_IN_STATE.finditer(text):  # "Clovis, California", an address's line; "Albany, NY 12205"
        line_start, line_end = text.rfind("\n", 0, match.start()) + 1, text.find("\n", match.end())
        rest = text[match.end() : line_end if line_end >= 0 else len(text)]
        own_line = not text[line_start : match.start()].strip(" \t*-") and not rest.strip()
        if free(match.start()) and (own_line or re.search(r"\d{5}", match.group(0))):
            found.append((match.group(1), "place"))
    for match in BAND_AFTER_THE.finditer(text):
        low = match.group(1).lower()
        if free(match.start(1)) and low not in lower_words and low not in generic_words():
            found.append((f"The {match.group(1)}", "organisation"))
    for match in KNOWN_ONE.finditer(text):
        at, low = match.start(), match.group(1).lower()
        if low in lower_words or low in generic_words() or not free(at) or opens_sentence(text, at):
            continue
        if not PART_OF_LONGER_NAME.match(text, match.end()) and not name_before(text, at):
            found.append((match.group(1), KNOWN_KINDS[low]))
    for match in subjects_in(text, lower_words):
        if free(match.start()) and KNOWN_KINDS.get(match.group(1).lower()) == "topic":
            found.append((match.group(1), "topic"))
    return found


# Words that end or start a dish's name: "Pasta Primavera", "Caesar Salad", "Chicken Tikka Masala" are
# recipes, not wings (restaurants keep their names through the brand list or a place word).
DISH_WORDS = frozenset(
    """pasta salad soup stew curry risotto lasagna pizza tacos taco burrito burger sandwich wrap bowl cake pie
    tart cookies cookie muffins bread pancakes waffles omelette omelet frittata quiche casserole chili
    noodles ramen stir-fry smoothie latte chicken beef pork salmon shrimp tofu masala tikka alfredo
    carbonara bolognese marinara pesto primavera parmigiana scampi teriyaki tea teas coffee espresso cappuccino
    macchiato mocha lemonade juice cocktail skewers kebab kebabs kabobs brisket nachos dumplings sushi fries
    cupcakes brownies cobbler crumble pudding guacamole hummus bruschetta spritz spritzer crostini sangria mojito
    martini negroni mimosa tapenade canapes ceviche paella empanadas gratin souffle tartare focaccia galette
    fizz punch mule margarita daiquiri colada julep toddy kimchi bulgogi bibimbap japchae pho cheesecake tiramisu
    gelato sorbet mousse parfait flan scones biscotti gumbo jambalaya enchiladas quesadilla fajitas gnocchi ravioli
    spaghetti linguine fettuccine penne pilaf biryani korma vindaloo vanilla caramel hazelnut tandoori""".split()
)
# Words that start a dish's name only: "Pad Thai", "Pad Krapow" (Thai stir-fries), "Banh Mi".
DISH_FIRST_WORDS = frozenset(("pad", "banh"))
# Words that end one only: "Korean BBQ Sauce", "Ranch Dressing" (not "Dressing Room").
DISH_LAST_WORDS = frozenset(("sauce", "sauces", "dressing", "marinade", "glaze", "sprouts"))


# "Autumn Harvest Quinoa Bowl", "Poke Bowl": a bowl of food, where "Hollywood Bowl" is a venue.
FOOD_BOWL = re.compile(
    r"\b(?:quinoa|rice|grain|poke|acai|açaí|buddha|burrito|smoothie|noodle|ramen|salad|protein|veggie|vegetable|"
    r"taco|sushi|bibimbap|chicken|tofu|salmon|tuna|teriyaki|breakfast|power|harvest)\s+bowls?$",
    re.I,
)


def is_dish(name: str) -> bool:
    """A dish, a drink or a yoga pose ("Caesar Salad", "Lavender Tea", "Gomukhasana"): a thing done or
    eaten, not a wing."""
    words = name.lower().split()
    if words and words[-1].endswith("asana") and len(words[-1]) > 6:  # Sanskrit pose names: "Trikonasana"
        return True
    last = re.sub(r"(?<=ch)es$|(?<=[^s])s$", "", words[-1]) if words else ""  # "Turkey Sandwiches"
    # "Kimchi Pad Thai": a dish's first word may follow another dish word
    dish = (
        words[0] in DISH_WORDS
        or any(w in DISH_FIRST_WORDS for w in words[:-1])
        or words[-1] in DISH_WORDS
        or last in DISH_WORDS
        or words[-1] in DISH_LAST_WORDS
    )
    if len(words) == 1:  # "Bruschetta" on a menu; not "Curry", "Punch" or "Tea", which name other things too
        return len(name) >= 6 and words[0] in DISH_WORDS and not personal_name(name) and name.lower() not in BRANDS
    return dish and name.lower() not in BRANDS
