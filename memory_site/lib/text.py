"""Text helpers without a model: sentence splitting, keywords and an extractive summary."""

from __future__ import annotations

import re
from collections import Counter

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during
    each few for from further get got had hadn't has hasn't have haven't having he he'd he'll he's her here
    here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself
    just let's like me more most much mustn't my myself no nor not now of off on once only or other ought our
    ours ourselves out over own please same shan't she she'd she'll she's should shouldn't so some such than
    that that's the their theirs them themselves then there there's these they they'd they'll they're they've
    this those through to too under until up us very was wasn't we we'd we'll we're we've were weren't what
    what's when when's where where's which while who who's whom why why's will with won't would wouldn't yes
    yeah you you'd you'll you're you've your yours yourself yourselves ok okay thanks thank hi hello hey sure
    want need know think really maybe well one two also going go make made see way thing things lot
    actually just still even already anyway""".split()
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# A word: a letter (any script's, accented ones included: "Hélène", "Müller"), then letters, digits, ' + -.
_TOKEN = re.compile(r"[^\W\d_](?:[^\W_]|['+-])*")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 2]


def content_words(text: str) -> list[str]:
    return [w for w in (t.lower().strip("'-") for t in _TOKEN.findall(text)) if len(w) > 2 and w not in STOPWORDS]


def keywords(text: str, limit: int = 8) -> list[str]:
    """The most frequent content words, ties broken by first appearance."""
    words = content_words(text)
    first = {w: i for i, w in reversed(list(enumerate(words)))}
    counts = Counter(words)
    return sorted(counts, key=lambda w: (-counts[w], first[w]))[:limit]


def extractive_summary(text: str, max_sentences: int = 3, max_chars: int = 500) -> str:
    """The sentences that carry the text's most frequent content words, in their original order."""
    parts = sentences(text)
    if not parts:
        return text.strip()[:max_chars]
    frequency = Counter(content_words(text))
    scored = []
    for index, sentence in enumerate(parts):
        words = content_words(sentence)
        score = sum(frequency[w] for w in words) / (len(words) ** 0.5) if words else 0.0
        scored.append((score, index, sentence))
    chosen = sorted(sorted(scored, key=lambda item: (-item[0], item[1]))[:max_sentences], key=lambda item: item[1])
    summary = " ".join(sentence for _, _, sentence in chosen)
    return summary if len(summary) <= max_chars else summary[: max_chars - 1].rstrip() + "…"
