"""The LongMemEval harness: its scoring on a hand-made file with known answers, and a whole run of it
(real ingest, mining and recall) on a tiny LongMemEval-format file."""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import lme_scoring

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def _session(text: str, has_answer: bool = False) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": text, "has_answer": has_answer},
        {"role": "assistant", "content": f"Noted: {text.lower()}", "extra_key": 1},
    ]


def _question(
    qid: str,
    question: str,
    sessions: dict[str, list[dict[str, Any]]],
    answers: list[str],
    kind: str = "single-session-user",
) -> dict[str, Any]:
    return {
        "question_id": qid,
        "question_type": kind,
        "question": question,
        "answer": "-",
        "question_date": "2023/05/30 (Tue) 10:00",
        "answer_session_ids": answers,
        "haystack_session_ids": list(sessions),
        "haystack_sessions": list(sessions.values()),
        "haystack_dates": [f"2023/05/{20 + i} (Sat) 09:{i:02d}" for i in range(len(sessions))],
    }


HAYSTACK = {
    "answer_s1": _session("I adopted a grey cat named Pixel from the shelter.", has_answer=True),
    "s2": _session("The quarterly budget review moved to Thursday."),
    "s3": _session("My running shoes wore out after 800 kilometres."),
}
QUESTIONS = [
    _question("q1", "What is the name of the cat I adopted?", HAYSTACK, ["answer_s1"]),
    # Same haystack: shares q1's owner. An _abs question is skipped by the official scoring only.
    _question("q2_abs", "What is the name of my parrot?", HAYSTACK, ["answer_s1"]),
    _question(
        "q3",
        "When did the budget review move and what wore out?",
        {
            "answer_a": _session("The budget review moved to Thursday.", True),
            "x": _session("Pasta for dinner."),
            "answer_b": _session("My running shoes wore out.", True),
            "answer_c": _session("Shoes are on sale."),
        },
        ["answer_a", "answer_b", "answer_c"],
        kind="multi-session",
    ),
]


def test_official_gold_follows_longmemevals_rules() -> None:
    assert lme_scoring.official_gold(QUESTIONS[0]) == {"answer_s1"}
    assert lme_scoring.official_gold(QUESTIONS[1]) is None  # _abs
    assert lme_scoring.official_gold(QUESTIONS[2]) == {"answer_a", "answer_b"}  # answer_c has no has_answer turn


def test_scores_of_known_rankings() -> None:
    rows = [
        {"question_id": "q1", "ranked_session_ids": ["s2", "answer_s1", "s3"]},
        {"question_id": "q2_abs", "ranked_session_ids": ["answer_s1", "s2", "s3"]},
        {"question_id": "q3", "ranked_session_ids": ["answer_a", "x", "answer_b", "answer_c"]},
    ]
    summary = lme_scoring.summarise(QUESTIONS, rows)
    official, mempalace = summary["official"], summary["mempalace"]
    assert official["questions"] == 2 and mempalace["questions"] == 3
    assert official["recall_any@1"] == 0.5 and official["recall_all@1"] == 0.0
    assert official["recall_all@3"] == 1.0
    # LongMemEval's DCG: rel_1 + sum_{i>=2} rel_i / log2(i); q1 has its one gold at rank 2 -> 1.0.
    q3_ndcg = (1 + 1 / math.log2(3)) / 2
    assert official["ndcg_any@3"] == pytest.approx(round((1.0 + q3_ndcg) / 2, 4))
    assert official["ndcg_any@1"] == pytest.approx(0.5)
    assert mempalace["recall_any@1"] == pytest.approx(round(2 / 3, 4)) and mempalace["recall_any@3"] == 1.0
    assert summary["per_type"]["multi-session"]["official_recall_all@5"] == 1.0


def test_a_whole_run_on_a_tiny_file(tmp_path: Path) -> None:
    data = tmp_path / "tiny.json.gz"
    # A haystack may hold the same session twice, on two dates.
    twice = _question("q4", "What wore out?", {"s3": HAYSTACK["s3"], "answer_s1": HAYSTACK["answer_s1"]}, ["s3"])
    twice["haystack_session_ids"].append("s3")
    twice["haystack_sessions"].append(HAYSTACK["s3"])
    twice["haystack_dates"].append("2023/05/28 (Sun) 10:00")
    with gzip.open(data, "wt") as handle:
        json.dump([*QUESTIONS, twice], handle)
    out = tmp_path / "out"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memory_site.settings"}
    assert env.get("DATABASE_URL"), "runs against the test servers' database"
    done = subprocess.run(
        [sys.executable, str(BASE_DIR / "bench" / "longmemeval.py"), "--data", str(data), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in rows] == ["q1", "q2_abs", "q3", "q4"]
    assert rows[3]["ranked_session_ids"] == ["s3", "answer_s1"]
    assert rows[0]["ranked_session_ids"][0] == "answer_s1"  # the cat question finds the cat session
    assert sorted(rows[0]["ranked_session_ids"]) == sorted(HAYSTACK)  # a full ranking
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["owners_mined"] == 3  # q1 and q2_abs share one ingested owner
    assert "official recall_all" in done.stdout and "MemPalace recall_any" in done.stdout
    # Every evidence session of these tiny haystacks is in the top 5: no miss to report.
    assert (out / "misses.jsonl").read_text() == ""
    assert (out / "misses.md").read_text().startswith("# Misses at 5: 0 question(s)")


def test_a_miss_names_where_the_evidence_ranked_and_what_took_the_places() -> None:
    sys.path.insert(0, str(BASE_DIR / "bench"))
    from longmemeval import miss_of

    ranked = ["s1", "s2", "s3", "s4", "s5", "ev", "s7"]
    best = {
        sid: {"hit": n, "score": 1 - n / 10, "signals": {"semantic": 0.5}, "text": sid}
        for n, sid in enumerate(ranked, 1)
    }
    row = {
        "question_id": "q",
        "question_type": "multi-session",
        "ranked_session_ids": ranked,
        "answer_session_ids": ["s2", "ev"],
    }
    miss = miss_of({"question": "How many?"}, row, best)
    assert miss is not None
    assert [(e["session"], e["rank"]) for e in miss["evidence"]] == [("s2", 2), ("ev", 6)]
    assert [t["evidence"] for t in miss["top5"]] == [False, True, False, False, False]
    row["answer_session_ids"] = ["s2"]
    assert miss_of({"question": "How many?"}, row, best) is None


def test_a_question_written_over_a_dev_haystack_takes_it_and_names_its_gold(tmp_path: Path) -> None:
    sys.path.insert(0, str(BASE_DIR / "bench"))
    from longmemeval import load

    haystacks = tmp_path / "dev.json"
    haystacks.write_text(json.dumps(QUESTIONS))
    hard = tmp_path / "hard.json"
    written = {"question_id": "h1", "question": "Which?", "haystack_of": QUESTIONS[0]["question_id"]}
    hard.write_text(json.dumps([{**written, "evidence_session_ids": ["s3", "answer_s1"]}]))
    (question,) = load(hard, haystacks)
    assert question["haystack_sessions"] == QUESTIONS[0]["haystack_sessions"]
    assert question["haystack_dates"] == QUESTIONS[0]["haystack_dates"]
    assert lme_scoring.official_gold(question) == {"s3", "answer_s1"}  # named, not read from has_answer
