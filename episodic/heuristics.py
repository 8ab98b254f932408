"""Should a conversation become an episode? Rules as data: each rule is a set of patterns over the
user's turns, a weight (the importance it implies) and what it decides. Tests exercise each rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Decision = Literal["keep", "skip"]


@dataclass(frozen=True)
class Rule:
    name: str
    decision: Decision
    weight: float
    episode_type: str
    patterns: tuple[str, ...]
    always: bool = False  # an "always keep" rule wins over every skip rule
    compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def matches(self, text: str) -> bool:
        return any(p.search(text) for p in self.compiled)


KEEP_RULES: tuple[Rule, ...] = (
    Rule(
        "correction",
        "keep",
        0.9,
        "correction",
        always=True,
        patterns=(
            r"\bactually\b",
            r"\bthat'?s (not|wrong|incorrect)\b",
            r"\bno,? (it|that|i|you)\b",
            r"\bi meant\b",
            r"\bcorrection\b",
            r"\bnot what i (said|asked|meant)\b",
            r"\byou('re| are) wrong\b",
            r"\bi said\b",
        ),
    ),
    Rule(
        "preference",
        "keep",
        0.8,
        "preference",
        always=True,
        patterns=(
            r"\bi (really )?(prefer|like|love|hate|dislike|enjoy|can'?t stand)\b",
            r"\bmy favou?rite\b",
            r"\bi (always|never|usually)\b",
            r"\bplease (always|never|don'?t)\b",
            r"\bi'?d rather\b",
            r"\bi'?m (allergic|vegetarian|vegan)\b",
            r"\bcall me\b",
        ),
    ),
    Rule(
        "task_completion",
        "keep",
        0.6,
        "task",
        patterns=(
            r"\b(done|completed|finished|deployed|fixed|resolved|shipped|merged|booked|sent|submitted)\b",
            r"\b(it|that) worked\b",
            r"\bworks now\b",
        ),
    ),
    Rule(
        "decision",
        "keep",
        0.6,
        "decision",
        patterns=(
            r"\b(we|i)('ll| will) go with\b",
            r"\b(we|i) decided\b",
            r"\blet'?s (use|go with|do)\b",
            r"\bthe plan is\b",
        ),
    ),
)

GREETING = Rule(
    "greeting",
    "skip",
    0.05,
    "conversation",
    patterns=(
        r"^\s*(hi|hello|hey|yo|thanks|thank you|thx|ok|okay|cool|great|bye|goodbye|good (morning|afternoon|"
        r"evening|night)|see you|cheers)[\s!.,?]*(there|again|so much|a lot)?[\s!.,?]*$",
    ),
)
LOOKUP = Rule(
    "one_turn_lookup",
    "skip",
    0.15,
    "conversation",
    patterns=(r"^\s*(what|who|when|where|which|how (much|many|old|far|long)|is|are|does|do|can)\b[^\n]{0,120}\?\s*$",),
)

KEEP_THRESHOLD = 0.3


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str
    importance: float
    episode_type: str
    matched: list[str]


def decide(turns: list[dict[str, str]]) -> Verdict:
    """Corrections and stated preferences are always kept, task completions and decisions kept,
    trivial exchanges (greetings, a single one-turn lookup) skipped; anything else is kept when its
    importance (grown by substance: user turns and length) reaches KEEP_THRESHOLD."""
    user_texts = [t.get("content", "") for t in turns if t.get("role") == "user"]
    matched = [rule for rule in KEEP_RULES if any(rule.matches(text) for text in user_texts)]
    substance = min(0.3, 0.05 * len(user_texts) + sum(len(t) for t in user_texts) / 4000)
    if matched:
        best = max(matched, key=lambda r: r.weight)
        importance = min(1.0, best.weight + 0.05 * (len(matched) - 1) + substance / 3)
        reason = "always kept: " if best.always else "kept: "
        return Verdict(
            "keep",
            reason + ", ".join(r.name for r in matched),
            round(importance, 3),
            best.episode_type,
            [r.name for r in matched],
        )
    if not user_texts or all(GREETING.matches(text) for text in user_texts):
        return Verdict("skip", "trivial: greetings only", GREETING.weight, "conversation", [GREETING.name])
    if len(user_texts) == 1 and LOOKUP.matches(user_texts[0]):
        return Verdict("skip", "trivial: a one-turn lookup", LOOKUP.weight, "conversation", [LOOKUP.name])
    importance = round(0.2 + substance, 3)
    if importance < KEEP_THRESHOLD:
        return Verdict("skip", f"low importance ({importance} < {KEEP_THRESHOLD})", importance, "conversation", [])
    return Verdict("keep", f"kept: importance {importance}", importance, "conversation", [])
