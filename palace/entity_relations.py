"""The people the user names by their relation to them: "my sister Rachel", "my best friend, Rachel", "Rachel, my
sister" (a pet too: "my dog Max")."""

from __future__ import annotations

import re

from palace.entity_names import NOT_ENTITIES, clean

RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|fiance|fiancee|fiancé|fiancée|son|daughter|"
    "friend|best friend|boss|colleague|coworker|co-worker|cousin|aunt|uncle|grandma|grandmother|grandpa|"
    "grandfather|girlfriend|boyfriend|neighbor|neighbour|manager|teacher|doctor|dentist|therapist|coach|trainer|"
    "mentor|landlord|vet|roommate|niece|nephew|"
    "sister-in-law|brother-in-law|mother-in-law|father-in-law|dog|cat|puppy|kitten"
)
# A name's word: a capital (Latin, accents included) then letters, apostrophes or hyphens ("Zoë", "Müller",
# "O'Neil", "Jean-Luc"); [a-zA-Z] alone cut "Zoë" to "Zo".
NAME_WORD = r"[A-Z\u00c0-\u00d6\u00d8-\u00de](?:[^\W\d_]|['\u2019-])+"
RELATIVE = re.compile(
    rf"\b(?i:my)\s+(?:(?i:older|younger|little|big|best|old|new|close)\s+)?({RELATIONS})(?:,\s*|\s+)"
    r"(?:(?i:named|called)\s+)?((?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?" + NAME_WORD + r"(?:\s+" + NAME_WORD + r")?)"
)
# "Rachel, my sister" / "Rachel (my sister)"; not "Since my cousin …": the comma or the bracket says it
RELATIVE_AFTER = re.compile(rf"\b({NAME_WORD})(?:,\s*|\s+\()(?i:my)\s+({RELATIONS})\b")


def relations_to_user(text: str) -> list[tuple[str, str]]:
    """("Rachel", "sister") for "my sister Rachel", "my best friend, Rachel", "Rachel, my sister"."""
    out = [(m.group(2), m.group(1).lower()) for m in RELATIVE.finditer(text)]
    out += [(m.group(1), m.group(2).lower()) for m in RELATIVE_AFTER.finditer(text)]
    return [(clean(name), rel) for name, rel in out if clean(name).lower() not in NOT_ENTITIES]
