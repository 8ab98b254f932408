"""The palace-quality bench: its matching and scoring on a hand-made palace with known figures, and a whole
run of it (real intake and mining) on two tiny labelled sessions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.palace_scoring import (
    LabelIndex,
    SessionLabel,
    SessionPalace,
    WingRow,
    judge_wing,
    normalise,
    report,
    score,
    topic_matches,
    verdict,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SESSIONS: list[SessionLabel] = [
    {
        "session_id": "s1",
        "title": "Planning a Denver trip with Rachel",
        "entities": [
            {"name": "Rachel", "kind": "person", "aliases": [], "relation": "sister"},
            {"name": "Denver", "kind": "place", "aliases": []},
            {"name": "The Book of Kells", "kind": "work", "aliases": ["Book of Kells"]},
        ],
        "also_mentioned": [{"name": "Airbnb", "kind": "organisation", "aliases": []}],
        "topics": ["hiking trails", "trip budget"],
        "non_entities": ["Certainly", "However"],
    },
    {
        "session_id": "s2",
        "title": "Choosing a guitar amp",
        "entities": [{"name": "Fender Mustang", "kind": "organisation", "aliases": ["Mustang"]}],
        "also_mentioned": [],
        "topics": ["guitar amp shopping"],
        "non_entities": ["Nice", "FDA"],
    },
]


def test_names_compare_without_case_the_punctuation_or_a_possessive() -> None:
    assert normalise("The Book of Kells") == normalise("book of kells") == "book of kells"
    assert normalise("Rachel's") == normalise("Rachel\u2019s") == "rachel"
    assert normalise("Spencer, MA") == "spencer ma"
    assert normalise("@Sweatysquad!") == "sweatysquad"


def test_a_topic_matches_itself_or_a_whole_word_part_holding_a_content_word() -> None:
    assert topic_matches("Hiking Trails", "hiking trails")
    assert topic_matches("Hiking", "hiking trails")  # the wing is part of the topic
    assert topic_matches("Denver hiking trails guide", "hiking trails")  # the topic is part of the wing
    assert not topic_matches("Hik", "hiking trails")  # not on a word boundary
    assert not topic_matches("The", "the hiking trails")  # no content word
    assert not topic_matches("Trip Planner", "trip budget")


def test_a_wing_is_judged_by_its_name_its_aliases_and_the_labels_of_every_session() -> None:
    index = LabelIndex.of(SESSIONS)
    rachel = judge_wing(WingRow("Rachel", "person"), index)
    assert rachel.matched and rachel.kind_right and not rachel.junk
    # An alias matches; the kind is the labelled one (no kind list is assumed).
    kells = judge_wing(WingRow("Kells", "person", aliases=["the book of kells"]), index)
    assert kells.matched and kells.expected == {"work"} and not kells.kind_right
    # An also_mentioned entity of another session counts.
    assert judge_wing(WingRow("Airbnb", "organisation"), index).kind_right
    # Matched to a topic only: the wing should be a topic.
    assert judge_wing(WingRow("Guitar Amp", "topic"), index).expected == {"topic"}
    certainly = judge_wing(WingRow("Certainly", "person"), index)
    assert not certainly.matched and certainly.junk
    assert not judge_wing(WingRow("Keep", "person"), index).junk  # unmatched but not labelled junk


def test_scores_of_a_known_palace() -> None:
    wings = [
        WingRow("assistant", "agent"),  # left out of precision and kind accuracy
        WingRow("Rachel", "person"),
        WingRow("Denver", "person"),  # matched, wrong kind
        WingRow("Hiking", "topic"),  # matched to a topic
        WingRow("Certainly", "person"),  # junk
        WingRow("However", "person"),  # junk
        WingRow("Fender", "project", aliases=["mustang"]),  # matched through its alias, wrong kind
        WingRow("Bicep Curls", "person"),  # unmatched, not labelled junk
    ]
    palace = {
        # The work is found as a drawer tag; "Denver" as a wing.
        "s1": SessionPalace("2023-05-20 s1", ["Rachel", "assistant"], ["trip / denver"], {"Book of Kells", "may"}),
        "s2": SessionPalace("Choosing an amp", ["Fender"], [], set()),
    }
    summary = score(SESSIONS, wings, palace)
    assert summary["wings"]["agent"] == 1 and summary["wings"]["scored"] == 7
    assert summary["wings"]["precision"] == pytest.approx(round(4 / 7, 4))
    assert summary["wings"]["unmatched"] == ["Certainly", "However", "Bicep Curls"]
    assert summary["recall"]["recall"] == 1.0 and summary["recall"]["by_kind"]["work"]["found"] == 1
    assert summary["kind_accuracy"]["accuracy"] == 0.5
    assert summary["kind_accuracy"]["confusions"] == {"place -> person": 1, "organisation -> project": 1}
    assert summary["junk"] == {"count": 2, "wings": ["Certainly", "However"]}
    assert summary["room_titles"] == {"rooms": 2, "with_conversation_id": 1}
    assert summary["sessions"][0]["wings"] == ["Rachel (person)", "assistant (agent)"]
    assert summary["sessions"][1]["wings"] == ["Fender (project)~"]
    summary["targets_met"] = met = verdict(summary)
    assert met == {"precision": False, "recall": True, "kind_accuracy": False, "junk": False, "titles_with_id": False}
    assert "wing precision      0.571" in report(summary)


def test_a_tag_of_another_session_does_not_count_for_recall() -> None:
    palace = {"s2": SessionPalace("Amps", [], [], {"Rachel", "Denver", "Book of Kells", "Fender Mustang"})}
    summary = score(SESSIONS, [], palace)
    assert summary["recall"]["found"] == 1
    assert summary["sessions"][0]["missed"] == ["Rachel", "Denver", "The Book of Kells"]
    assert summary["wings"]["precision"] is None and verdict(summary)["precision"] is False


def test_recall_is_over_people_places_organisations_and_works_with_every_kind_beside_it() -> None:
    sessions: list[SessionLabel] = [
        {
            **SESSIONS[0],
            "entities": [
                *SESSIONS[0]["entities"],
                {"name": "Stoicism", "kind": "topic", "aliases": []},
                {"name": "Loom Notes", "kind": "project", "aliases": []},
            ],
        }
    ]
    palace = {"s1": SessionPalace("Trip", [], [], {"Rachel", "Denver", "Stoicism"})}
    summary = score(sessions, [], palace)
    assert summary["recall"]["entities"] == 3 and summary["recall"]["found"] == 2  # Kells missed
    assert summary["recall"]["all_kinds"] == {"entities": 5, "found": 3, "recall": 0.6}
    assert summary["recall"]["by_kind"]["topic"]["found"] == 1
    assert "recall, every labelled kind: 0.600 (3/5" in report({**summary, "targets_met": verdict(summary)})


def _turns(*texts: str) -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(texts)]


def test_a_whole_run_on_two_tiny_sessions(tmp_path: Path) -> None:
    data = tmp_path / "tiny.json"
    question = {
        "question_id": "q1",
        "haystack_session_ids": ["s1", "s2"],
        "haystack_dates": ["2023/05/20 (Sat) 09:00", "2023/05/21 (Sun) 10:00"],
        "haystack_sessions": [
            _turns("My sister Rachel and I are planning a trip to Denver.", "Certainly! Denver has great hikes."),
            _turns("Should I buy the Fender Mustang amp?", "Nice choice, the Fender Mustang is a good first amp."),
        ],
    }
    data.write_text(json.dumps([question]))
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"data_file": "tiny.json", "sessions": SESSIONS}))
    out = tmp_path / "out"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memory_site.settings"}
    assert env.get("DATABASE_URL"), "runs against the test servers' database"
    command = [sys.executable, str(BASE_DIR / "bench" / "palace_quality.py"), "--labels", str(labels)]
    done = subprocess.run(
        [*command, "--data", str(data), "--out", str(out), "--verbose"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["sessions"] == 2 and summary["run"]["turns"] == 4
    assert summary["room_titles"]["rooms"] == 2
    assert summary["recall"]["entities"] == 4
    assert [s["session_id"] for s in summary["sessions"]] == ["s1", "s2"]
    assert "wing precision" in done.stdout and "labelled: Choosing a guitar amp" in done.stdout
