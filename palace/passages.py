"""Which sentences of a turn are embedded on their own as passages (palace.models.Passage).

A person's turn often carries the fact a later question needs as one sentence among others about
something else: "Can you suggest a display case for my jerseys? I got one signed at a charity auction
last month." The turn's single vector is about display cases. A question that gathers facts across
conversations ("which charity things have I done?") meets that sentence only when it has a vector of
its own. Measured on the dev haystacks with meaning alone (every evidence session in the top five):
0.68 with turn vectors, 0.77 with the user turns' sentences beside them.

Only user turns are split: what the person said about themselves is the evidence (an assistant's long
replies would multiply the vectors by ten for commentary). A turn of one sentence is its own passage
already, so it gets none; short fragments ("Thanks!") carry nothing a question asks about. A sentence that
joins two statements ("I recently started taking classes and I'm refinishing an old dresser") also gives
each of them as a passage: the hard dev cases' ndcg@10 rose on all six sets, two more questions complete
(bench/README.md, longmemeval).
"""

from __future__ import annotations

import re

from memory_site.lib.text import sentences

MIN_WORDS = 4  # "Sounds good, thanks!" is no fact
MAX_PASSAGES = 16  # a pasted document in a user turn: its first sixteen sentences, not hundreds of vectors
SPLIT_ROLES = frozenset({"user"})
# Where a sentence joins two statements: ", and I …", "… but my …", "; …", ", I …", "because", "while". A clause
# said in passing is a fact of its own: "I recently started taking classes and I'm refinishing an old dresser"
# is 0.26 from "what classes am I taking?" as a sentence, 0.57 as the clause "I recently started taking classes".
CLAUSE = re.compile(
    r",\s+(?:and|but|so)\s+|\s+(?:and|but|so)\s+(?=I\b|I'|we\b|my\b)|;\s+|,\s+(?=I\b|I'|we\b)|\s+because\s+|"
    r"\s+while\s+"
)


def passages_of(role: str, content: str) -> list[str]:
    """The sentences of a turn to embed on their own, in order (when it has more than one), then the clauses
    of any sentence that joins two statements; [] for a turn that is not the person's, or holds no sentence
    or clause of MIN_WORDS words."""
    if role not in SPLIT_ROLES:
        return []
    found = [s for s in sentences(content) if len(s.split()) >= MIN_WORDS][:MAX_PASSAGES]
    found = found if len(found) > 1 else []
    for sentence in sentences(content)[:MAX_PASSAGES]:
        parts = [part.strip() for part in CLAUSE.split(sentence) if len(part.split()) >= MIN_WORDS]
        if len(parts) > 1:  # two statements ("By the way, I bought …" is one)
            found += parts
    return found
