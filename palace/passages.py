"""Which sentences of a turn are embedded on their own as passages (palace.models.Passage).

A person's turn often carries the fact a later question needs as one sentence among others about
something else: "Can you suggest a display case for my jerseys? I got one signed at a charity auction
last month." The turn's single vector is about display cases. A question that gathers facts across
conversations ("which charity things have I done?") meets that sentence only when it has a vector of
its own. Measured on the dev haystacks with meaning alone (every evidence session in the top five):
0.68 with turn vectors, 0.77 with the user turns' sentences beside them.

Only user turns are split: what the person said about themselves is the evidence (an assistant's long
replies would multiply the vectors by ten for commentary). A turn of one sentence is its own passage
already, so it gets none; short fragments ("Thanks!") carry nothing a question asks about.
"""

from __future__ import annotations

from memory_site.lib.text import sentences

MIN_WORDS = 4  # "Sounds good, thanks!" is no fact
MAX_PASSAGES = 16  # a pasted document in a user turn: its first sixteen sentences, not hundreds of vectors
SPLIT_ROLES = frozenset({"user"})


def passages_of(role: str, content: str) -> list[str]:
    """The sentences of a turn to embed on their own, in order; [] when the turn is one sentence, is
    not the person's, or holds no sentence of MIN_WORDS words."""
    if role not in SPLIT_ROLES:
        return []
    found = [s for s in sentences(content) if len(s.split()) >= MIN_WORDS]
    return found[:MAX_PASSAGES] if len(found) > 1 else []
