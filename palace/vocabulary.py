"""The conversation's everyday vocabulary: the words it writes in lower case (`lowercase_vocabulary`), which make a
capitalised "Nice" or "Lemon" a common word rather than a name (`common_word`, `everyday_words`). Used by the entity
extraction of palace/entities.py and its helpers."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from palace.topics import generic_words


def lowercase_vocabulary(texts: Iterable[str], hasty: Iterable[bool] | None = None) -> set[str]:
    """Words written in lower case somewhere in the conversation: a capitalised "Nice" or "Lemon" that
    also appears as "nice"/"lemon" is a common word, not a name. A text written all in lower case
    ("generally, vilnius old town is a must") proves nothing about capitals and is left out, and so does an
    address ("www.olay.com", "@yogaglo")."""
    texts = list(texts)
    flags = list(hasty) if hasty is not None else [False] * len(texts)
    kept = [(ADDRESS.sub(" ", t), fast) for t, fast in zip(texts, flags, strict=True) if not all_lower_case(t)]
    lower: Counter[str] = Counter()
    careful: set[str] = set()
    for text, fast in kept:
        words = re.findall(r"(?<![A-Za-z])[a-zß-öø-ÿ][a-z'-]+", text)
        lower.update(words)
        if not fast:
            careful.update(words)
    # A name the hasty writer (the person, `hasty`) puts in lower case ("the university of plymouth") that the rest
    # of the conversation writes capitalised, mid-sentence, three times as often (and three times at least) is
    # still a name; a word a careful writer puts in lower case ("acacia honey") is an everyday one.
    capitalised = Counter(w.lower() for t, _ in kept for w in MID_SENTENCE_CAPITAL.findall(t) if w.lower() in lower)
    return {w for w, n in lower.items() if w in careful or capitalised[w] < max(3, 3 * n)}


MID_SENTENCE_CAPITAL = re.compile(r"(?<![\w'-])[a-zß-öø-ÿ][\w'-]*[,;]? ([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ'-]+)(?![\w-])")
ADDRESS = re.compile(r"\S*(?:[a-z0-9]\.(?:com|org|net|io|co|edu|gov|app|ai|tv|uk|de|fr|ca|au)\b|://|@)\S*", re.I)


# Where a sentence, a line or a list item starts.
SENTENCE_START = re.compile(r"(?:^\s*(?:[-*\u2022]\s+|\d+[.)]\s+)?|[.!?]\s+)([A-Za-z])", re.M)
LOWER_I = re.compile(r"(?<![\w'-])i(?:'m|'ve|'d|'ll)?(?![\w'-])")


def all_lower_case(text: str) -> bool:
    """Most of its sentences (lines, list items) start with a lower-case letter, or "i" is the pronoun:
    someone (or something) who does not capitalise."""
    starts = SENTENCE_START.findall(text)
    lower_starts = len(starts) >= 2 and sum(ch.islower() for ch in starts) > len(starts) / 2
    return lower_starts or len(LOWER_I.findall(text)) >= 2


def word_forms(words: Sequence[str]) -> list[str]:
    """The words that are words, a possessive's owner included: "Kim's Convenience" -> Kim, Convenience (a
    name in the possessive is still a name, not a common word)."""
    bare = (re.sub(r"['\u2019]s?$", "", w) for w in words)
    return [w for w in bare if w.isalpha()]


def everyday_words(name: str, lower_words: set[str]) -> bool:
    """Whether every word of `name` is one of everyday English: the conversation writes it in lower case, or
    the shipped background list has it ("Paris, Rome, and Home"; "Quality of Service")."""
    common = generic_words()
    return all(common_word(word, lower_words) or word.lower() in common for word in word_forms(name.split()))


def common_word(word: str, lower_words: set[str]) -> bool:
    low = word.lower()
    plurals = (f"{low}s", f"{low}es", f"{low[:-1]}ies" if low.endswith("y") else low)  # "potatoes", "berries"
    return low in lower_words or low.rstrip("s") in lower_words or any(p in lower_words for p in plurals)
