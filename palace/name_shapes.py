"""Shapes of a name that say what kind of thing it is, whatever the words around it: a product's model number
("Brydge 10.2"), a name in capitals ("CUNY"), a restaurant's word ("… Grille", "Kimchi House"), an acronym before
nouns ("SEO tips"), a chemical formula ("Na2S2O3"), a town and its state's code ("Houston TX"), a place's word ("Navy
Pier", "Lake Tahoe", "Upper Manhattan"). Used by palace/entity_kinds.py."""

from __future__ import annotations

import re

from palace.gazetteers import DISH_WORDS

VERSION = re.compile(r"\b\d+\.\d+\b")  # a product's model: "Specialized Tactic 3.0"
CAPITALS = re.compile(r"[A-Z][A-Z0-9&.'-]+")  # "CUNY", "NGK": a body's or a brand's, rarely a person's
# A restaurant's, a café's or a shop's last word: "The Ship Rock Grille".
FOOD_VENUE = re.compile(
    r"\b(?:Grill|Grille|Diner|Eatery|Steakhouse|Pizzeria|Brasserie|Trattoria|Cantina|Taqueria|Deli|Creamery|"
    r"Roasters|Roastery|Cafe|Café|Bistro|Bakery|Brewery|Tavern|Restaurant|Shack|BBQ|Barbecue|Smokehouse|Pub|"
    r"Taproom|Winery|Distillery|Patisserie|Grocery|Groceries|Supermarket)$"
)
# A dish, then a word for where it is served: "Kimchi House", "Noodle Palace", "Tandoori Nights" are restaurants.
DISH_VENUE = re.compile(r"^(\w+)\s+(?:House|Kitchen|Palace|Hut|Express|Garden|Corner|Bar|Joint|Spot|Nights?|King)$")


def dish_venue(name: str) -> bool:
    return bool((match := DISH_VENUE.match(name)) and match.group(1).lower() in DISH_WORDS)


ACRONYM_AND_NOUNS = re.compile(r"[A-Z]{2,}(?:\s+[a-z]{3,})+")  # "BBQ party", "SEO tips": a subject
# The elements' symbols that turn up in formulas people write.
ELEMENTS = (
    "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr "
    "Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Nd Sm Eu Gd Pt Au Hg Tl Pb Bi Po At Rn Ra U Pu"
).split()
FORMULA = re.compile(r"(?:(?:" + "|".join(sorted(ELEMENTS, key=len, reverse=True)) + r")\d*){2,}")


def chemical_formula(name: str) -> bool:
    """ "Na2S2O3", "HCl", "CO2": two or more elements' symbols, with a count or a two-letter symbol among them
    (not "NBC", three one-letter symbols that spell an acronym)."""
    return bool(FORMULA.fullmatch(name)) and bool(re.search(r"\d|[A-Z][a-z]", name))


# A town and its state's postal code, as one name: "Houston TX".
TOWN_AND_CODE = re.compile(r"([A-Z][a-z]+(?: [A-Z][a-z]+)?),? ([A-Z]{2})")
# An acronym last, after a word in small letters: not a person's roman numeral ("Henry VIII") nor a suffix.
ACRONYM_LAST = re.compile(r"(?<=[a-z] )(?!(?:[IVX]+|MD|PhD|DDS|RN|Jr|Sr)$)[A-Z]{2,}$")


PLACE_SUFFIX = re.compile(
    r"\b(?:Park|Lake|River|Mountains?|Mount|Beach|Island|Islands|Airport|Station|Bridge|Street|St|Avenue|Ave|"
    r"Road|Square|Riverwalk|Trail|Canyon|Valley|Bay|Falls|Waterfalls?|Gardens?|Forum|Campground|Castle|Pagoda|Shrine|"
    r"Monastery|Mosque|Synagogue|Glacier|Volcano|Caves?|Peak|Grove|Row|"
    r"Palace|Cathedral|Basilica|Chapel|Temple|Memorial|Monument|Towers?|Skydeck|Meadow|Circle|Loop|Baths|"
    r"Coast|District|Quarter|Neighborhood|Neighbourhood|Town|Village|Heights|"
    r"Harbou?r|Pier|Boardwalk|Promenade|Plaza|Gorge|Dunes|Creek|Pond|Reservoir|Inlet|Marsh|Springs|Lagoon|Bayou|Cove|"
    r"Hills|Ridge|Plateau|Wetlands?|Rapids|Strait|Highway|Parkway|Freeway|Expressway|Turnpike|Byway|City\s+Hall|"
    r"North|South|East|West)$"
)
# A street's last word that is also a product's or a phrase's ("Google Drive", "Memory Lane"): a place only when
# no brand, and no person, owns the name ("Oakbrook Drive", "Sunset Boulevard"; not "Lois Lane").
STREET_SUFFIX = re.compile(r"(?<=\w )(?<!Memory )(?:Drive|Boulevard|Blvd|Lane)$")
PLACE_PREFIX = re.compile(
    r"^(?:Mount|Mt\.?|Lake|Port|Fort|Cape|Isle|Glacier|County|Gulf of|Bay of|Pier|Route|Highway|Interstate)\s|"
    r"^(?:Zona|Barrio|Colonia|Calle|Avenida|Playa|Praia|Piazza|Rue)\s+[A-ZÀ-ÖØ-Þ]|"  # "Zona Norte", "Rue Cler"
    r"^(?:I|US|SR)-\d+(?:\s[NSEW])?$"  # a numbered road: "I-80", "I-80 W", "US-101"
)
# A part of a place: "Upper Manhattan", "Northern Italy", "Greater London" (with a known place after it).
PART_OF_PLACE = re.compile(
    r"^(?:Upper|Lower|Downtown|Midtown|Uptown|Northern|Southern|Eastern|Western|Central|Greater|Inner|Outer|"
    r"North|South|East|West|Northeast|Northwest|Southeast|Southwest|Coastal|Rural)\s+(.+)$"
)
