"""What recall reads in the words themselves, beside the signals: whether a query is about the person
("what have I …"), the "my …" phrases that find the person saying them, and turns that say nothing (a bare
greeting or thanks)."""

from __future__ import annotations

import re

# A question about the person ("what have I …", "my sister") is answered by what they said.
FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|me|my|mine|myself)\b", re.I)
# "my sister", "my workout routine": what the person owns or relates to, in their own words.
_MY_PHRASE = re.compile(r"\bmy ((?:[a-z]+ ){0,2}[a-z]{3,})\b", re.I)
# A turn that is only a greeting, thanks or assent ("hi", "Thanks!", "ok, sounds good"): nothing to recall.
PHATIC = re.compile(
    r"\W*(?:(?:hi|hello|hey|heya|hiya|yo|thanks|thank|you|thx|ty|ok|okay|k|sure|yes|yeah|yep|no|nope|bye|goodbye|"
    r"great|cool|nice|good|morning|evening|afternoon|night|there|cheers|alright|awesome|perfect|got|it|sounds|"
    r"that|lol|wow|oh|ah|hmm|please|welcome|much|so|very|all|again)\W*){1,6}",
    re.I,
)


def own_words(query: str) -> re.Pattern[str] | None:
    """The query's "my …" phrases (up to three words, the last a noun-like word), as a pattern that
    finds the person saying them: "my sister" in "a gift for my sister's birthday"."""
    phrases: set[str] = set()
    for match in _MY_PHRASE.finditer(query):
        words = match.group(1).lower().split()
        phrases.update(" ".join(words[:n]) for n in range(1, len(words) + 1) if len(words[n - 1]) >= 3)
    if not phrases:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"\bmy (?:{alternatives})\b", re.I)
