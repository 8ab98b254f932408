"""What kind of thing a name is: spaCy's label mapped to a wing kind (person, place, organisation,
project, work), corrected by the name's own shape ("… Tavern" is a place, "… Festival" a work), the words
around a mention ("on X", "reading X", "in X") and the lists of palace/gazetteers.py. The cues read in a
whole conversation to settle a kind ("X, a UK-based YouTuber") are in palace/entity_cues.py.

In the name patterns here and in palace/entity_names.py, entity_titles.py and entities.py, a capital is
[A-ZÀ-ÖØ-Þ] and a small letter [a-zß-öø-ÿ]: Latin letters with their accents, so "Émile Zola" and "Zoë" are
names like any other."""

from __future__ import annotations

import re

from palace.gazetteers import (
    BRANDS,
    STATE_CODES,
    TOWN_IN_STATE,
    is_band,
    known_kind,
    personal_name,
    place_name,
)
from palace.name_shapes import (
    ACRONYM_AND_NOUNS,
    ACRONYM_LAST,
    CAPITALS,
    FOOD_VENUE,
    PART_OF_PLACE,
    PLACE_PREFIX,
    PLACE_SUFFIX,
    STREET_SUFFIX,
    TOWN_AND_CODE,
    VERSION,
    chemical_formula,
    dish_venue,
)

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

# The last word of an organisation's name: "Kay Jewelers", "Acme Corp", "Numismatic Guaranty Corporation".
# Venues count as organisations, as people file them: a museum, a stadium, a zoo, a hotel or a café is an
# institution or a business with a name, where a park or a street is a place.
DENOMINATION = re.compile(
    r"^(?:The\s+)?(?:Roman\s+|Eastern\s+|Greek\s+|Russian\s+)?(?:Catholic|Anglican|Orthodox|Methodist|Baptist|"
    r"Lutheran|Presbyterian|Episcopal|Mormon|Evangelical|Pentecostal|Adventist|Coptic)\s+Church$|^(?:The\s+)?Church$"
)
ORG_SUFFIX = re.compile(
    r"\b(?:Museum|Gallery|Library|Hotel|Resort|Inn|Restaurant|Cafe|Café|Bar|Pub|Tavern|Bistro|Bakery|Center|"
    r"Centre|Mall|Market|Theatre|Theater|Stadium|Arena|Bowl|Zoo|Aquarium|Inc|LLC|Ltd|Corp|Corporation|Company|Co|Group|Bank|Foundation|Society|Association|Institute|"
    r"University|College|Academy|School|Club|Agency|Studios?|Records|Air|Airlines?|Airways|Motors|Labs?|Mobile|Wireless|"
    r"Services?|Partners|Jewell?ers|Bakery|Brewery|Brewing|Pharmacy|Clinic|Hospital|Council|Committee|"
    r"Federation|League|Union|Network|Press|Publishing|Media|Systems|Technologies|Solutions|Industries|"
    r"Collective|Guild|Fund|Trust|Church|Ministries|Department|Bureau|Commission|Authority|Administration)$"
)
EVENT_SUFFIX = re.compile(
    r"\b(?:Festival|Fest|Gala|Summit|Conference|Convention|Marathon|Fair|Expo|Awards|Ball|Games|Olympics|Cup|"
    r"Week|Challenge|Championships?|Tournament|Rally|Parade)$|(?<=[a-z])Fest$|(?:Oktober|Summer|Winter|Spring)fest$"
)
# What follows an event's name: "the TechX conference", "the "24-Hour Bike Ride" charity event".
EVENT_AFTER = re.compile(
    r"^[\"\u201d']?\s+(?:charity\s+)?(?:conference|convention|summit|expo|festival|fundraiser|gala|tournament|"
    r"championship|event|exhibition|exhibit|hackathon|retreat)\b",
    re.I,
)
# "the Loop and River North areas", "the Chianti Classico region": a name followed by a word for part of a city
# or a country.
AREA_AFTER = re.compile(
    r"^(?:\s+(?:and|or)\s+[A-ZÀ-ÖØ-Þ][\w'-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'-]*)*)?\s+(?:areas?|neighbou?rhoods?|districts?|quarters?|"
    r"regions?)\b"
)
# An acronym followed or preceded by these names a degree, a test or a kind of training, not an organisation.
FIELD_AFTER = re.compile(
    r"^\s+(?:degrees?|graduates?|students?|syllabus|syllabi|curriculum|programs?|exams?|tests?|prep|scores?|"
    r"workouts?|training|sessions?|classes|therapy)\b",
    re.I,
)
FIELD_BEFORE = re.compile(
    r"\b(?i:syllabus|curriculum|degree|studying|major(?:ing)?)\s+(?i:for|in|of)?\s*(?:[A-ZÀ-ÖØ-Þ]{2,6}\s*(?:,|and|or|&)\s*)*$"
)
# "a Master's degree, possibly in Business Administration", "majoring in Marine Biology": a field of study,
# whatever its words ("Administration") would make it.
STUDY_BEFORE = re.compile(
    r"\b(?:degrees?|master['\u2019]?s|bachelor['\u2019]?s|mba|majors?|majoring|minor(?:ing)?|ph\.?d\.?|doctorate|"
    r"diploma|specialization|specialisation|concentration)\b[^.!?\n]{0,20}\bin\s+$|"
    r"\b(?:studying|studied|study|studies)\s+$",  # "I'm studying International Business" (not "studying at …")
    re.I,
)
# "more Beatles songs", "playing Radiohead albums": whose songs, so a band or a singer, never a work.
BAND_PLURAL_AFTER = re.compile(r"^(?:'s|\u2019s|'|\u2019)?\s+(?:songs|albums|concerts|lyrics|discography)\b", re.I)
BAND_AFTER = re.compile(r"^\s+(?:songs?|albums?|concerts?|tour|lyrics|records?|tribute)\b", re.I)
# A course or a qualification people take by name: "the Google Data Analytics Certification", "Coursera's Deep
# Learning Specialization" — a work (as a book is), whoever gives it; not a golf or a race course (places). So is a
# document people use by name: "the PGCPS Language Arts Curriculum Framework", "the PAHRCA Toolkit".
COURSE_SUFFIX = re.compile(
    r"(?<!Golf )(?<!Race )\b(?:Certification|Specialization|Course|Bootcamp|Nanodegree)$|"
    r"(?<=\w )(?:Framework|Toolkit|Handbook|Workbook|Curriculum|Syllabus|Guidelines)$"
)
PROJECT_AFTER = re.compile(r"^[\"\u201d']?\s+(?:project|program|programme|initiative|campaign)\b", re.I)
PROJECT_SUFFIX = re.compile(r"\b(?:Project|Program|Programme|Initiative|Campaign)$")
# A wine estate's word first: "Fattoria di Fèlsina", "Podere Forte", "Castello di Ama", "Bodegas Muga" — a
# winery, a business with a name (as a museum or a hotel is), not the land it is on.
ESTATE_PREFIX = re.compile(r"^(?:Castello|Fattoria|Podere|Tenuta|Cantina|Cantine|Bodegas?|Quinta|Weingut|Domaine)\s")
# A body named "… of" its place or subject: "University of Edinburgh", "Bank of America", "Museum of Flight".
ORG_PREFIX = re.compile(
    r"^(?:University|College|Institute|Academy|Bank|Church|Department|Ministry|Council|Museum|Gallery|Library|School|"
    r"Chamber|Society|Association|Federation)"
    r"\s+of\s"
)
# A racing circuit or a ballpark is a venue, as a stadium is, though "Park" ends it: "New Jersey Motorsports Park".
TRACK_SUFFIX = re.compile(r"\b(?:Motorsports?\s+Park|Motor\s+Speedway|Speedway|Raceway|Ballpark)$")
# A venue named with its kind first: "Hotel Zelos", "Ristorante Il Latini" — a business, as "… Hotel" is.
VENUE_PREFIX = re.compile(
    r"^(?:Hotel|Hostel|Motel|Ristorante|Trattoria|Osteria|Pizzeria|Taverna|Brasserie|Caff[eè]|Café|Cafe|Bistro|Museo|"
    r"Musée|Teatro|Galleria|Gallerie)\s"
)
QUOTED = re.compile(r"[\"\u201c]([^\"\u201d\n]{2,80})[\"\u201d]|(?<!\w)['\u2018]([^'\u2019\n]{2,80})['\u2019](?!\w)")
WORK_CUE = re.compile(
    r"\b(?:read|reading|watch|watched|watching|finished|binge[d-]?watch(?:ed|ing)?|re-?watch(?:ed|ing)?|listening to|"
    r"(?:\d+\s+)?(?:episodes?|seasons?|chapters?|volumes?|issues?) of|"
    r"listen(?:ed)? to|play(?:ing|ed)?|"
    r"(?:book|novel|song|film|movie|show|album|podcast|article|essay|poem|course)\s+(?:titled|entitled|called)|"
    r"the (?:book|novel|show|series|movie|film|podcast|album|song|game|video game|play|musical|opera|"
    r"documentary|painting|sculpture|statue|mural|poem|trilogy|franchise|audiobook))\s+(?:[Tt]he\s+)?$",
    re.I,
)
PLACE_CUE = re.compile(r"\b(?:in|near|around|visit|visiting|visited|trip to)\s+$", re.I)
# "interested in X", "a job in X": "in" before an organisation that is not a place.
NOT_PLACE_CUE = re.compile(
    r"\b(?:interested|interest|invest(?:ed|ing)?|enrolled|involved|participat\w*|experienced?|skilled|certified|"
    r"degree|career|jobs?|work(?:ing)?|roles?|positions?|included|listed|featured|available|account)\s+in\s+$",
    re.I,
)
VENUE_CUE = re.compile(
    r"\b(?:at|on|using|use|used|via|through|shop at|shopping at|bought from|ordered from|went to|subscribed to|"
    r"download(?:ed)?|signed up for|courses? on|app)\s+$",
    re.I,
)
# What follows a name and says it is not a person: "Coursera's courses", "Sephora store".
THING_AFTER = re.compile(
    r"^(?:'s|\u2019s|'|\u2019)?\s+(?:app|website|site|store|stores|shop|platform|course|courses|account|brand|products?|"
    r"subscription|membership|card|model|series|rewards|loyalty|pharmacy|locations?|gift cards?|points|"
    r"trains?|bus|buses|shuttles?|ferry|ferries)\b",  # "the Keisei Skyliner train", "the Airport Limousine bus"
    re.I,
)
# What follows a scheme one joins: "your Beauty Insider account", "Prime membership" — the business's, not a title.
MEMBER_AFTER = re.compile(r"^\s+(?:account|membership|rewards|loyalty|points|card|subscription)\b", re.I)


# A plural after "The", where a person's name would be: a band or a group ("The Eagles", "The Temptations").
GROUP = re.compile(r"The\s[A-ZÀ-ÖØ-Þ][\w'-]*(?:\s[A-ZÀ-ÖØ-Þ][\w'-]*)*s$")


def is_group(name: str) -> bool:
    """A band or a group, by its name's shape: "The Eagles", "Anderson .Paak & The Free Nationals"."""
    return bool(GROUP.match(name)) or " & " in name


# " by " after a title's last word or its closing quote: what follows is its author.
AUTHOR_BEFORE = re.compile(r"(?:\b[A-ZÀ-ÖØ-Þ][\w'\u2019-]*|\d+)[\"\u201d'\u2019]?\s+by\s+$")
PERSONAL_NAME = re.compile(
    r"^[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:\s+[A-ZÀ-ÖØ-Þ]\.)?(?:\s+[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:-[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?){1,2}$"
)


def kind_in_context(name: str, label: str, before: str, quoted: bool, after: str = "") -> str | None:
    """The kind of one mention, from spaCy's label corrected by the name and the words around it:
    a quoted title or "reading X" makes a work, "in X" a place, "on X" / "X's app" an organisation; a
    brand list beats the small model; "The Beatles" is a band, not a person."""
    kind = kind_of(name, label)
    if kind is None or not name.strip():
        return None
    if known_kind(name):
        return known_kind(name)
    if kind in ("person", "place") and re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]*){2,}", name):
        return "organisation"  # "MapMyRun": three words run together are an app's or a brand's name
    if kind == "person" and is_group(name):
        return "organisation"  # "The Eagles", "Anderson .Paak & The Free Nationals": a group, not one person
    if place_name(name) and (label != "PERSON" or not personal_name(name)):
        return "place"  # "the Maldives" read as ORG, "Central America" as LOC or ORG
    if name in STATE_CODES and re.search(r"[A-ZÀ-ÖØ-Þ][\w.'-]*,\s?$", before):
        return "place"  # "Gruver, TX": a state's postal code after its town
    if re.fullmatch(r"[A-Z]{2}\s+\d{5}(?:-\d{4})?", name):
        return None  # "NY 12205": a state's code and a postal code
    if TOWN_IN_STATE.match(name + after):
        return "place"  # "Fonda, NY 12068": a town, before its state
    if kind in ("organisation", "person") and AUTHOR_BEFORE.search(before) and PERSONAL_NAME.match(name):
        return "person"  # "Thinking in Systems by Donella Meadows": a title's author
    if name.isupper() and (FIELD_AFTER.search(after) or FIELD_BEFORE.search(before)):
        return "topic"  # "BAMS graduates", "the syllabus for MBBS", "HIIT workouts": a field, not a body
    if STUDY_BEFORE.search(before) and kind != "place":
        return "topic"
    if AREA_AFTER.search(after) and kind in ("organisation", "person"):
        return "place"  # "the Loop and River North areas"
    if name.lower() in BRANDS or (branded(name) and not PLACE_SUFFIX.search(name)):
        return "organisation"  # a brand or one of its products: "Fitbit Charge 3", "Adobe Creative Cloud"
    if EVENT_AFTER.search(after) and kind != "place" and not (ORG_PREFIX.match(name) or ORG_SUFFIX.search(name)):
        return "work"  # "the TechX conference", the "24-Hour Bike Ride" charity event (not "a Chicago event",
        # nor "the Chamber of Commerce event": a body's own event names the body)
    if PROJECT_AFTER.search(after):
        return "project"
    if not quoted and BAND_PLURAL_AFTER.search(after) and kind in ("person", "organisation", "work"):
        return "organisation" if kind != "person" or name.endswith("s") else "person"
    if kind == "work" and not quoted and MEMBER_AFTER.search(after):
        return "organisation"  # "my Beauty Insider account": a shop's scheme, not a title
    if (quoted or kind == "work") and brand_owned(before):
        return "organisation"  # Behr's "Soft Chamois": a brand's product line, not a title
    if quoted or (WORK_CUE.search(before) and not after.startswith(("'s", "\u2019s", "' ", "\u2019 "))):
        return "work"  # not "read George Orwell's 1984", "watch the Bruins' game": the work is what the name owns
    if kind == "person":
        if PLACE_CUE.search(before) and not after.startswith(("'s", "\u2019s")):  # "in George Orwell's novel"
            return "place"
        home = after.startswith(("'s", "\u2019s")) and personal_name(name)  # "dinner at Sarah's": her home
        if (VENUE_CUE.search(before) or THING_AFTER.search(after)) and not home:
            return "organisation"
        if name.endswith("s") and (name.startswith("The ") or BAND_AFTER.search(after)):
            return "organisation"  # "The Smiths", "more Beatles songs": a band
    if (
        kind == "organisation"
        and label == "ORG"
        and PLACE_CUE.search(before)
        and not NOT_PLACE_CUE.search(before)
        and not ORG_SUFFIX.search(name)
        and not ESTATE_PREFIX.match(name)
    ):
        return "place"  # "in Odaiba": the small model's ORG for a district it does not know
    return kind


# The owner before a quoted name: Benjamin Moore's "Sand Dune", Farrow & Ball's "Elephant's Breath".
OWNER_BEFORE = re.compile(
    r"([A-ZÀ-ÖØ-Þ][\w.-]*(?:\s+(?:&\s+)?[A-ZÀ-ÖØ-Þ][\w.-]*){0,3})(?:'s|\u2019s|'|\u2019)\s*[\"\u201c]?$"
)


def brand_owned(before: str) -> bool:
    """Whether the words before a quoted name are a brand's possessive (a paint's colour, a maker's model)."""
    owner = OWNER_BEFORE.search(before)
    if owner is None or is_band(owner.group(1)):  # a band's "Tusk" is an album
        return False
    return owner.group(1).lower() in BRANDS or known_kind(owner.group(1)) == "organisation"


CASE_NAME = re.compile(r"^[A-ZÀ-ÖØ-Þ][\w.'-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w.'-]*)*\s+(?:v\.?|vs\.)\s+[A-ZÀ-ÖØ-Þ]")


def branded(name: str) -> bool:
    """A product named with its maker first: "Fitbit Charge 3", "Adobe Creative Cloud"."""
    words = name.split()
    if len(words) < 2 or COURSE_SUFFIX.search(name):
        return False  # "HubSpot Content Marketing Certification" is a course, whoever gives it
    # A known body's first word before a body's or an event's word names another body or an event: "UEFA
    # Champions League", "Google Developers Conference".
    known = known_kind(words[0]) == "organisation" and not (ORG_SUFFIX.search(name) or EVENT_SUFFIX.search(name))
    return words[0].lower() in BRANDS or known


# A name with initials before the surname: "J. Cole", "J.R.R. Tolkien", "N. K. Jemisin" — a person.
INITIALLED = re.compile(r"^(?:[A-ZÀ-ÖØ-Þ]\.\s?){1,3}[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:[- ][A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)?$")
# A result or a condition named after someone: "Fermat's Last Theorem", "Occam's Razor", "Murphy's Law".
EPONYM_TAIL = (
    r"(?:'s|\u2019s)\s(?:[A-ZÀ-ÖØ-Þ][a-z]+\s){0,2}(?:Theorem|Laws?|Principle|Paradox|Conjecture|Hypothesis|Lemma|"
    r"Equation|Constant|Razor|Wager|Syndrome|Disease|Effect|Rule|Theory)"
)
# A war of history or a way of doing things, which a person files as a subject: "World War II", "the Cold War",
# "the Pomodoro Technique", "the Montessori Method", "the Mediterranean Diet", "the Eisenhower Matrix" (not a
# novel's "The Poppy War", nor the film "The Matrix"), "the Civil Rights Movement", "the Dewey Decimal System"
# ("… Systems" is a company; a revolution is an event or a subject as the labels take it, and is left to spaCy),
# "the Ming Dynasty", "the Victorian Era".
WAR_SUFFIX = (
    r"\b(?:World|Civil|Cold|Vietnam|Korean|Gulf|Iraq|Crimean|Boer|Trojan|Napoleonic|Punic|Peloponnesian|"
    r"Revolutionary|Hundred Years['\u2019]?|Thirty Years['\u2019]?)\s+War(?:\s+(?:I{1,3}|\d))?$"
)
WAY_SUFFIX = r"\b(?:Method|Technique|Diet|(?<!The )Matrix|(?<=\w )(?:Movement|System|Dynasty|Era))$"
# A condition: "Generalized Anxiety Disorder", "Hepatitis A" (not "Saturday Night Fever", a film).
CONDITION = r"(?<=\w )(?:Disorder|Syndrome)$|^Hepatitis [A-E]$"
SUBJECT_SUFFIX = re.compile(f"{WAR_SUFFIX}|{WAY_SUFFIX}|{CONDITION}")
# A way of doing things is a subject even where the small model reads a title ("the Eisenhower Matrix"); a war
# it reads as a title may be a novel's ("The Poppy War").
WAY_OF_DOING = re.compile(WAY_SUFFIX)
A_HISTORY = re.compile(r"(?!The\b)[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+\s+(?:History|Studies)")  # "World History", "Gender Studies"
EPONYM = re.compile(r"^[A-ZÀ-ÖØ-Þ][\w-]*(?:\s[A-ZÀ-ÖØ-Þ][\w-]*)?" + EPONYM_TAIL + "$")


def kind_of(name: str, label: str) -> str | None:
    """The wing kind of one mention: spaCy's label, corrected by the name's own shape — a place word at
    the end makes a place ("Yellowstone National Park"), a venue or company word an organisation ("Billy
    Goat Tavern", "Field Museum", "Kay Jewelers"), a model number a product ("Yamaha P-45")."""
    kind = KIND_OF_LABEL.get(label)
    if kind is None:
        return None
    if CASE_NAME.search(name):
        return "work"  # "Brown v. Board of Education": a court case
    if (
        EPONYM.match(name)
        or (SUBJECT_SUFFIX.search(name) and label != "WORK_OF_ART")
        or WAY_OF_DOING.search(name)
        or A_HISTORY.fullmatch(name)
    ):
        return "topic"
    if INITIALLED.match(name):
        return "person"
    if ACRONYM_AND_NOUNS.fullmatch(name) or chemical_formula(name):
        return "topic"  # "BBQ party", "SEO tips", "Na2S2O3": a subject, whatever the small model read
    if name.endswith("ism") and " " not in name:  # Judaism, Buddhism: a topic, not an organisation
        return "topic"
    if EVENT_SUFFIX.search(name) and label not in ("GPE", "LOC"):
        return "work"
    if COURSE_SUFFIX.search(name) and label not in ("GPE", "LOC", "FAC"):
        return "work"
    if (
        DENOMINATION.match(name)
        or CAMPUS.match(name)
        or FOOD_VENUE.search(name)
        or dish_venue(name)
        or TRACK_SUFFIX.search(name)
        or ESTATE_PREFIX.match(name)
        or ORG_PREFIX.match(name)
        or VENUE_PREFIX.match(name)
    ):
        # "the Catholic Church"; "The Ship Rock Grille", "Podere Forte", "… State University, Long Beach"
        return "organisation"
    if place_shaped(name) and label in (
        "ORG",
        "PERSON",
        "FAC",
        "GPE",
        "LOC",
        "PRODUCT",
    ):
        return "place"
    if PROJECT_SUFFIX.search(name) and label not in ("GPE", "LOC", "FAC"):
        return "project"
    if ORG_SUFFIX.search(name) and kind in ("person", "place", "work") and label not in ("GPE", "LOC"):
        return "organisation"
    if (re.search(r"\d", name) and kind in ("place", "person")) or (kind == "work" and VERSION.search(name)):
        return "organisation"  # "Brydge 10.2", "Specialized Tactic 3.0": a product's model, not a title
    if kind == "person" and CAPITALS.fullmatch(name):
        return "organisation"  # "CUNY", "NGK": a name in capitals is a body's or a brand's, rarely a person's
    if kind == "person" and (town := TOWN_AND_CODE.fullmatch(name)) and town.group(2) in STATE_CODES:
        return "place"  # "Houston TX": a town and its state's postal code
    if kind == "person" and ACRONYM_LAST.search(name):
        return "organisation"  # "Git LFS": a tool's or a body's name ends in an acronym, a person's does not
    if PERSON_TITLE.match(name):
        return "person"  # "Infanta Isabella Clara Eugenia", "Queen Victoria": no suffix above made it a place
    if personal_name(name) and not known_kind(name) and label in ("PERSON", "GPE", "LOC", "FAC"):
        return "person"  # "Anish Kapoor" read as a place
    return kind


def place_shaped(name: str) -> bool:
    """A place word ends or starts the name ("Navy Pier", "Lake Tahoe"); a given name and a compass point,
    a Grove or a Row is a person's name ("Claire North", "Kanye West", "Andy Grove"); a street's word ends a
    place's name when no brand owns it ("Oakbrook Drive", not "Google Drive")."""
    if PLACE_PREFIX.match(name):
        return True
    if (part := PART_OF_PLACE.match(name)) and (place_name(part.group(1)) or known_kind(part.group(1)) == "place"):
        return True  # "Upper Manhattan", "Northern Italy": a part of a known place
    if STREET_SUFFIX.search(name):
        return not (branded(name) or known_kind(name) or personal_name(name))
    suffix = PLACE_SUFFIX.search(name)
    return suffix is not None and not (suffix.group(0) in SURNAME_LIKE and personal_name(name))


COMPASS = frozenset(("North", "South", "East", "West"))
SURNAME_LIKE = COMPASS | {"Grove", "Row"}  # "Andy Grove" is a person, "Mariposa Grove" a place


# A title that makes a person of the name it starts ("Infanta Isabella"), where the small model reads ORG.
PERSON_TITLE = re.compile(
    r"^(?:King|Queen|Prince|Princess|Infanta|Infante|Emperor|Empress|Tsar|Czar|Sultan|Pharaoh|Duke|Duchess|"
    r"Count|Countess|Baron|Baroness|Pope|Saint|Sir|Dame|Lady|Lord|Uncle|Aunt|Auntie|Grandma|Grandpa|Coach|"
    r"Captain|President|Senator|Governor|Chancellor|Rabbi|Father|Sister|Brother)\s+[A-ZÀ-ÖØ-Þ]"
)


# A school named with its campus after a comma: "University of California, Berkeley".
CAMPUS = re.compile(r"^[^,]*\b(?:University|College|Institute)\b[^,]*, [A-ZÀ-ÖØ-Þ][\w.-]*(?: [A-ZÀ-ÖØ-Þ][\w.-]*)?$")


def shape_kind(name: str) -> str | None:
    """The kind a name's own words fix, whatever the words around it say: a gazetteer entry, a brand, or
    a place / event / project / venue word ("Navy Pier", "Digital Marketing Summit", "Field Museum")."""
    low = name.lower()
    if known_kind(name):
        return known_kind(name)
    if low in BRANDS or branded(name):
        return "organisation"
    if EPONYM.match(name) or SUBJECT_SUFFIX.search(name):
        return "topic"
    if INITIALLED.match(name):
        return "person"
    if EVENT_SUFFIX.search(name) or COURSE_SUFFIX.search(name):
        return "work"
    if DENOMINATION.match(name) or ESTATE_PREFIX.match(name) or ORG_PREFIX.match(name):
        return "organisation"  # "the Catholic Church": a body, not a building; "Podere Forte": a winery
    if CAMPUS.match(name):  # "California State University, Long Beach": a school, whatever its campus is called
        return "organisation"
    if dish_venue(name) or TRACK_SUFFIX.search(name):  # "Noodle Palace": served there; a race track: a venue
        return "organisation"
    if place_shaped(name):
        return "place"
    if PROJECT_SUFFIX.search(name):
        return "project"
    if ORG_SUFFIX.search(name) or FOOD_VENUE.search(name) or VENUE_PREFIX.match(name):
        return "organisation"  # "The Ship Rock Grille", whoever one asks there for a table
    return None


def titled(name: str, quoted: bool, before: str, after: str) -> bool:
    """A quoted title of common words that the context says is an event or a work: the "24-Hour Bike Ride"
    charity event, reading "Paws for a Cause" (where a quoted "Simple and Sincere" is just a phrase)."""
    small = {"a", "an", "the", "of", "for", "and", "or", "in", "on", "to", "with", "at", "by"}
    words = name.split()
    title_case = len(words) > 1 and all(w[0].isupper() or w[0].isdigit() or w in small for w in words)
    return quoted and title_case and bool(EVENT_AFTER.search(after) or WORK_CUE.search(before))
