from __future__ import annotations

import pytest

from episodic.heuristics import GREETING, KEEP_RULES, LOOKUP, decide


def user(*texts: str) -> list[dict[str, str]]:
    turns = []
    for text in texts:
        turns += [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]
    return turns


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Actually, my sister is called Anna, not Anne.", "correction"),
        ("No, I meant the Tuesday meeting.", "correction"),
        ("That's wrong, the deadline is Friday.", "correction"),
        ("I prefer window seats on long flights.", "preference"),
        ("Please never book me on red-eye flights.", "preference"),
        ("My favourite cuisine is Ethiopian.", "preference"),
        ("Great, the fix is deployed and it worked.", "task_completion"),
        ("We decided to go with Postgres for the queue.", "decision"),
    ],
)
def test_each_keep_rule_keeps(text: str, rule: str) -> None:
    verdict = decide(user(text))
    assert verdict.decision == "keep"
    assert rule in verdict.matched
    assert verdict.importance >= next(r.weight for r in KEEP_RULES if r.name == rule)


def test_corrections_and_preferences_are_kept_even_inside_a_trivial_exchange() -> None:
    verdict = decide(user("hi", "Actually I said Tuesday"))
    assert verdict.decision == "keep" and verdict.reason.startswith("always kept")
    assert decide(user("What time is it? I prefer 24-hour clocks.")).decision == "keep"


@pytest.mark.parametrize("texts", [("hi",), ("Hello there!", "thanks", "bye"), ("ok",), ("Good morning",)])
def test_greetings_are_skipped(texts: tuple[str, ...]) -> None:
    verdict = decide(user(*texts))
    assert (verdict.decision, verdict.matched) == ("skip", [GREETING.name])


def test_a_one_turn_lookup_is_skipped_but_two_lookups_are_not_trivial() -> None:
    verdict = decide(user("What is the capital of France?"))
    assert (verdict.decision, verdict.matched) == ("skip", [LOOKUP.name])
    assert (
        decide(user("What is the capital of France?", "And how far is it from Lyon by train, roughly?")).decision
        == "keep"
    )


def test_importance_grows_with_substance_and_decides_the_rest() -> None:
    short = decide(user("Let me think about the garden layout, tomatoes near the fence maybe"))
    medium = decide(user(*(["We are planning the garden: tomatoes by the south fence, herbs by the door."] * 2)))
    long = decide(user(*(["We are planning the garden: tomatoes by the south fence, herbs by the door."] * 4)))
    assert short.decision == "skip" and short.reason.startswith("low importance")
    assert medium.decision == long.decision == "keep"
    assert long.importance > medium.importance > short.importance


def test_an_empty_or_assistant_only_transcript_is_skipped() -> None:
    assert decide([{"role": "assistant", "content": "Hello, how can I help?"}]).decision == "skip"
