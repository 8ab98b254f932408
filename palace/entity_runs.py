"""Names the small model misses in chat text, found by their shape: runs of capitalised words after a
determiner ("the Kawai ES110", "at Yoga Bliss"), where the user went or shopped ("went to Buy Buy Baby"),
initials and a surname ("J. Cole"), one word that is used or downloaded ("using Citymapper"), CamelCase words
and brand words before what a brand sells ("the Duolingo app")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from palace.entity_cues import MADE_THINGS
from palace.entity_kinds import EVENT_SUFFIX
from palace.entity_names import INSTITUTION, NOT_ENTITIES, TRAILING
from palace.gazetteers import GIVEN_NAMES, known_kind
from palace.topics import generic_words
from palace.vocabulary import common_word, word_forms

# A capitalised word, a model number ("ES110", "DS-1", "P-45", "2.0", "10,000") or an issue number ("#1").
_CAP_WORD = r"(?:[A-ZÀ-ÖØ-Þ][\w\u2019'+&-]*|[A-ZÀ-ÖØ-Þ]*\d[\w-]*(?:,\d{3})*(?:\.\d+)?|#\d+)"
# A run of them after a determiner or preposition, so never at a sentence start: names the small model
# misses in chat ("the Kawai ES110", "a Boss DS-1", "at Yoga Bliss", "the Billy Bookcase").
CAPITALISED_RUN = re.compile(
    rf"\b(?:the|a|an|my|at|from|on|with|by|called|named|titled|entitled|into|about|and|or|like|as|including)\s+"
    rf"({_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{0,4}})"
)
# Where the user went or shopped: a name there may be all common words ("went to Buy Buy Baby", "shopped at
# Bed Bath & Beyond"), which the common-words rule would otherwise drop.
VISITED = re.compile(
    r"\b(?:went|go|going|gone|been|headed|stopped by|shop(?:ped|ping)?\s+at|bought\s+(?:\w+\s+)?(?:at|from)|"
    r"ordered\s+(?:\w+\s+)?from)\s+(?:to\s+)?(?:the\s+)?$"
)
VISITED_RUN = re.compile(rf"(?<=\s)({_CAP_WORD}(?:[ \t]+{_CAP_WORD}){{1,4}})")
# A chain's name before "by" and its brand: "Courtyard by Marriott Isla Verde Beach Resort", "Hampton Inn by
# Hilton". Joined only when the run after "by" ends in a venue word, so "the Mona Lisa by Leonardo" stays apart.
BRANDED_VENUE = re.compile(r"\b(?:the|a|at)\s+([A-ZÀ-ÖØ-Þ][\w'-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'-]*)?\s+by\s+)$")
VENUE_END = re.compile(r"\b(?:Hotel|Resort|Inn|Suites|Lodge|Hostel|Motel|Spa)$")
MODEL_NUMBER = re.compile(r"^(?=[A-Z0-9-]*\d)[A-ZÀ-ÖØ-Þ]*-?\d[\w-]*$")


# A place named by its number: "Pier 39", "Route 66", "Highway 1", "Terminal 2" (not "Chapter 2").
NUMBERED_PLACE = re.compile(r"^(?:Pier|Route|Highway|Interstate|Terminal|Gate|Studio|Area|Platform)\s+\d+$")


# A street after its house number: "1033 Fifth Street", "20 Park Street" (the street is the place).
STREET_ADDRESS = re.compile(
    r"\b\d{1,5}\s+((?:[A-Z][\w'-]*\s+){1,3}(?:Street|Avenue|Road|Boulevard|Lane|Drive|Way|Place|Court|Parkway|"
    r"Highway|Terrace|Square|Plaza))\b"
)


def capitalised_runs(text: str, lower_words: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, text) of each run of two or more capitalised words, or a name with a model number,
    that is not just common words in title case ("the Main Event" when "main" and "event" are written
    in lower case elsewhere)."""
    runs = []
    visits = [m for m in VISITED_RUN.finditer(text) if VISITED.search(text, max(0, m.start() - 50), m.start())]
    found = [(m, False) for m in CAPITALISED_RUN.finditer(text)] + [(m, True) for m in visits]
    for match, visited in found:
        name = TRAILING.sub("", match.group(1)).rstrip("-")
        start = match.start(1)
        brand = BRANDED_VENUE.search(text[max(0, start - 60) : start])
        if brand and VENUE_END.search(name):  # "the Courtyard by Marriott … Resort"
            name, start = brand.group(1) + name, start - len(brand.group(1))
        owner = re.match(r"^.*?[\w.]+(?:'s|\u2019s|s'|s\u2019)\s+", name)
        if owner:  # "NEA's Our Town Program", "Kayla Itsines' HIIT": the name is what the possessive owns
            owned = name[owner.end() :].split()
            business = re.search(r"\b(?:a|an)\s+$", text[max(0, start - 4) : start])  # "a Portillo's Hot Dogs"
            if business or all(w.isalpha() and common_word(w, lower_words) for w in owned):
                continue  # "a Portillo's Hot Dogs": the owner's name and common words, not another name
            if re.sub(r"['\u2019]s?\s+$", "", name[: owner.end()]) not in GIVEN_NAMES:
                start += owner.end()  # "Anthony's Fish Grotto" keeps its founder's name: a restaurant's
                name = name[owner.end() :]
        if street := STREET_ADDRESS.search(name):  # "Planning and Development 1033 Fifth Street": the street
            start, name = start + street.start(1), street.group(1)
        words = name.split()
        if len(words) > 1 and re.fullmatch(r"(?:19|20)\d\d", words[0]):  # "my 2015 Ford Mustang GT": a model year
            start += name.index(words[1], len(words[0]))
            words = words[1:]
        while words and words[-1] == "I":  # "from Google I met …": the pronoun after a name
            words.pop()
        name = " ".join(words)
        if not words:
            continue
        if words[0] == "The" and len(words) > 1:  # "games like The Witcher 3": a title keeps its article
            pass
        elif words[0].lower() in NOT_ENTITIES or not words[0][0].isupper():
            continue
        has_model = any(MODEL_NUMBER.match(w) for w in words[1:]) or bool(MODEL_NUMBER.match(words[0]))
        if (
            has_model
            and all(w.isdigit() or common_word(w, lower_words) for w in words)
            and not NUMBERED_PLACE.match(name)
        ):
            has_model = False  # "Remove Item 6", "Chapter 2": a label and its number, not a model
        # "TechX", "YogaGlo"; not "RnD", an abbreviation with one lower-case letter
        camel = (
            len(words) == 1
            and re.search(r"[a-zß-öø-ÿ][A-ZÀ-ÖØ-Þ]", words[0]) is not None
            and re.search(r"[a-zß-öø-ÿ]{2}", words[0])
        )
        compound = len(words) == 1 and HYPHENATED_NAME.match(words[0]) is not None  # "a Spider-Man poster"
        if len(words) < 2 and not (has_model or camel or compound):
            continue
        alpha = word_forms(words)
        # Common words, unless three or more end on a place, venue or event word ("the Red Rock State Park").
        institution = len(alpha) >= 3 and (INSTITUTION.search(name) or EVENT_SUFFIX.search(name))
        if not (has_model or compound or visited or institution) and (
            not alpha or all(common_word(w, lower_words) for w in alpha)
        ):
            continue
        runs.append((start, start + len(name), name))
    for match in INITIALLED_RUN.finditer(text):  # "Kendrick Lamar and J. Cole": the small model misses initials
        if not common_word(match.group(1).split()[-1].rstrip("."), lower_words):
            runs.append((match.start(1), match.end(1), match.group(1)))
    for match in KIN_NAMED.finditer(text):  # "her twin girls, Emily and Sophia", "her baby girl Ava"
        for group in (1, 2):
            word = match.group(group)
            if (
                word
                and (word in GIVEN_NAMES or not common_word(word, lower_words))
                and word.lower() not in NOT_ENTITIES
            ):
                runs.append((match.start(group), match.end(group), word))
    # "using Citymapper", "iBird Pro", "a trip to Yosemite"
    for match in [*USED_NAME.finditer(text), *SMALL_I_NAME.finditer(text), *TRIP_NAME.finditer(text)]:
        word = match.group(1).split()[0]
        common = common_word(word, lower_words) or (word.lower() in generic_words() and not known_kind(word))
        if not (common or word.lower() in NOT_ENTITIES):
            runs.append((match.start(1), match.end(1), match.group(1)))
    return runs


# Initials and a surname mid-sentence: "J. Cole", "J.K. Rowling", "F. Scott Fitzgerald's" (not "U.S. Army",
# whose last word is common).
INITIALLED_RUN = re.compile(
    r"(?<=[a-z,;] )((?:[A-ZÀ-ÖØ-Þ]\.\s?){1,3}[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]{2,}(?:\s[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]{2,})?)"
    r"(?=['\u2019]s\b|(?![\w'\u2019-]))"
)
# One capitalised word that is used, downloaded or switched to: an app, a service or a language ("I've been
# using Citymapper", "using Python for it"), which the small model often leaves out when it is one word.
USED_NAME = re.compile(
    r"\b(?:using|use|used|uses|downloaded|installed|switched to|signed up for|subscribed to)\s+"
    r"([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)*)(?![\w'\u2019-])(?!\s+[A-ZÀ-ÖØ-Þ0-9])"
)
# Names after the word for who they are, to anyone: "her twin girls, Emily and Sophia", "baby Ava", "our
# neighbour Tom" (the user's own "my sister Rachel" is read as a relation too).
KIN_WORDS = (
    r"(?:girls?|boys?|baby|babies|twins?|daughters?|sons?|kids|children|niece|nephew|cousin|friend|colleague|"
    r"co-?worker|neighbou?r|sister|brother|wife|husband|partner|boyfriend|girlfriend|mom|dad|aunt|uncle|grandma|"
    r"grandpa|granddaughter|grandson|puppy|kitten)"
)
KIN_NAMED = re.compile(
    r"\b" + KIN_WORDS + r",?\s+([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?:,?\s+and\s+([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+))?(?![\w'\u2019-])"
)
KIN_BEFORE = re.compile(r"\b" + KIN_WORDS + r",?\s+(?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+,?\s+and\s+)?$")
# One capitalised word where a trip went: "a weekend trip to Yosemite", "our honeymoon in Maui".
TRIP_NAME = re.compile(
    r"\b(?:trip|trips|vacation|getaway|honeymoon|holiday|weekend|backpacking|hike|hiking|camping)\s+(?:to|in|at)\s+"
    r"([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?![\w'\u2019-])(?!\s+[A-ZÀ-ÖØ-Þ0-9])"
)
# A product named with a small "i" or "e" first: "iBird Pro", "eReader" (iPhone and eBay are known brands).
SMALL_I_NAME = re.compile(
    r"(?<![\w-])([ie][A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]{2,}(?:\s(?:Pro|Plus|Max|Mini|Air|Lite|\d+))?)(?![\w-])"
)


# One word of capitalised parts joined by a hyphen: "Spider-Man", "Coca-Cola" (not "Tteokbokki-inspired").
HYPHENATED_NAME = re.compile(r"^[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:-[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)+$")
# A CamelCase word mid-sentence, whatever precedes it: "check out TrailLink", "I use YogaGlo".
CAMEL_WORD = re.compile(r"(?<=[a-z,;:] )[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+[A-ZÀ-ÖØ-Þ][A-Za-z]*[a-zß-öø-ÿ](?![\w-])")


# One capitalised word mid-sentence before what a brand sells: "coupons for Olay skin care products", "a
# Patagonia store", "the Duolingo app".
BRAND_WORD = re.compile(
    r"(?<=[a-z,] )[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ][\w&'-]*"
    r"(?=(?:\s+[a-z-]+){0,2}\s+(?:products|brand|stores?|app|website|coupons?|"
    r"gift cards?|subscription|membership|outlet|catalog(?:ue)?|" + MADE_THINGS + r")\b)"
)

# The word before is capitalised: the brand word ends a longer name ("the Really Right Stuff tripod" is not "Stuff").
PREVIOUS_CAPITALISED = re.compile(r"(?<![\w'-])[A-ZÀ-ÖØ-Þ][\w&'-]*\s$")


def camel_words(text: str) -> list[tuple[int, int, str]]:
    """CamelCase words mid-sentence and single brand words before what the brand sells."""
    brands = [
        m for m in BRAND_WORD.finditer(text) if not PREVIOUS_CAPITALISED.search(text, max(0, m.start() - 40), m.start())
    ]
    return [(m.start(), m.end(), m.group(0)) for m in [*CAMEL_WORD.finditer(text), *brands]]


# A paper cited by its first author: "(Graf et al. 2021)", "proposed by Khosla et al." — a person's surname.
CITED_AUTHOR = re.compile(r"(?<![\w'-])([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'-]+(?:\s[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'-]+)?)(?=,?\s+et\s+al\b)")


def cited_authors(text: str, taken: Sequence[tuple[int, int]]) -> list[str]:
    return [
        match.group(1)
        for match in CITED_AUTHOR.finditer(text)
        if not any(a < match.end(1) and match.start(1) < b for a, b in taken)
    ]


# Names said with what is around them: a parish's dedication, an office held, a paper's "et al.".
DEDICATED = re.compile(r"\bOur Lady of (?:the )?[A-ZÀ-ÖØ-Þ][\w'-]+(?: [A-ZÀ-ÖØ-Þ][\w'-]+){0,3}")
OFFICE = re.compile(
    r"(?:Judge|Justice|Senator|Sen\.|Governor|Gov\.|Mayor|President|Vice President|Congressman|Congresswoman|"
    r"Rep\.|Chancellor|Secretary|Ambassador|Sheriff|Pastor|Reverend|Rev\.|Prime Minister|Minister|Premier)\s+"
)
PERSON_AFTER_OFFICE = re.compile(r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'-]+(?:\s[A-Z]\.)?(?:\s[A-ZÀ-ÖØ-Þ][\w'-]+)+")
ET_AL = re.compile(r",?\s+et\s+al\.?$")
