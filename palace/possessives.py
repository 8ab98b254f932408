"""Names in the possessive: a place named for someone ("Regent's Park"), and a shop or a brand named so
("Trader Joe's", "Sweet Baby Ray's sauce") as against someone's home ("dinner at Sarah's")."""

from __future__ import annotations

import re

from palace.entity_names import TRAILING_POSSESSIVE, clean
from palace.gazetteers import BRANDS, known_kind, personal_name

# A place named for someone, in the possessive: "Regent's Park", "St Paul's Cathedral" (NER stops at "Regent").
POSSESSIVE_PLACE = re.compile(
    r"(?:'s|\u2019s)?['\u2019]?s?\s(?:Park|Cathedral|Church|Chapel|Abbey|Square|Gardens?|Hospital|College|Wood|"
    r"Island|Bay|Hill|Lane|Street|Road|Market|Palace|Bridge|Inn|Tavern|Pub|Wharf|Pier|Point|Cove|Landing|Beach)\b"
)
# What follows a shop named in the possessive with nothing it owns: "at Trader Joe's.", "to Macy's for a coat".
ELLIPTICAL_AFTER = re.compile(
    r"^\s*(?:[.,;:!?)]|$|(?:for|and|or|to|in|on|at|with|yesterday|today|tonight|last|this|but|because|so|since|"
    r"when|instead|again|too|earlier|later|every|once|twice)\b)"
)


def shop_named_in_possessive(text_of: str, after: str) -> str | None:
    """ "Trader Joe's", "Macy's": a name in the possessive that owns nothing is a shop or a restaurant,
    unless it is one given name ("going to Sarah's" is her home, and Sarah is the wing). The name with its
    "'s" (without it for a brand known so: "Logitech's products" are Logitech's), or None. `after`: the text
    after the span (spaCy leaves the "'s" out of it now and then)."""
    possessive = TRAILING_POSSESSIVE.search(text_of) or re.match(r"['\u2019]s\b", after)
    if not possessive:
        return None
    rest = after[2:] if not TRAILING_POSSESSIVE.search(text_of) else after
    bare = clean(text_of)
    if bare and known_kind(bare + "'s") == "organisation":
        return bare + "'s"  # "my new Levi's jeans", "a coat from Macy's": a brand known by that name
    if bare.lower() in BRANDS:
        return bare  # "Logitech's products", "at Best Buy's": the brand's own, and the brand is Logitech
    sold = PRODUCT_AFTER.match(rest)  # "Sweet Baby Ray's sauce", "Ben & Jerry's ice cream": a brand's name
    if not bare or not (ELLIPTICAL_AFTER.match(rest) or sold) or (" " not in bare and personal_name(bare)):
        return None
    return bare + possessive.group(0)


PRODUCT_AFTER = re.compile(
    r"^\s+(?:[a-z-]+\s+){0,2}(?:sauces?|products?|ice cream|coffee|chips|cookies|snacks|seasoning|rub|dressing|"
    r"cereal|brand|stores?|app|website|frozen)\b"
)
