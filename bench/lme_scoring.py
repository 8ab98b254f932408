"""Scoring of session rankings, LongMemEval's way and MemPalace's way (pure functions, tested).

- **official** (LongMemEval's own retrieval evaluation): questions whose id ends in `_abs` and those
  with no user turn marked `has_answer` are skipped; gold = the haystack sessions whose id contains
  "answer" and that hold a user turn with `has_answer` true. Session-level recall_all@k (every gold
  session in the top k), recall_any@k (at least one) and ndcg_any@k with binary relevance, DCG as
  LongMemEval computes it (rel_1 + sum over i >= 2 of rel_i / log2(i)) and the ideal DCG from all
  gold sessions.
- **MemPalace-style**: every question, gold = `answer_session_ids`, recall_any@k.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

KS = (1, 3, 5, 10)


def official_gold(question: dict[str, Any]) -> set[str] | None:
    """The gold sessions by LongMemEval's rules, or None when the question is not scored. A question
    written for this project (bench/data/longmemeval_hard_dev.json) names its `evidence_session_ids`:
    every session holding a fact the answer needs."""
    if str(question["question_id"]).endswith("_abs"):
        return None
    if question.get("evidence_session_ids"):
        return {str(sid) for sid in question["evidence_session_ids"]}
    gold = {
        str(sid)
        for sid, session in zip(question["haystack_session_ids"], question["haystack_sessions"], strict=True)
        if "answer" in str(sid) and any(t.get("role") == "user" and t.get("has_answer") for t in session)
    }
    return gold or None


def recall_any(ranked: list[str], gold: set[str], k: int) -> float:
    return float(any(sid in gold for sid in ranked[:k]))


def recall_all(ranked: list[str], gold: set[str], k: int) -> float:
    return float(gold <= set(ranked[:k]))


def _dcg(relevances: list[float], k: int) -> float:
    relevances = relevances[:k]
    if not relevances:
        return 0.0
    return relevances[0] + sum(rel / math.log2(i) for i, rel in enumerate(relevances[1:], start=2))


def ndcg(ranked: list[str], gold: set[str], k: int) -> float:
    ideal = _dcg([1.0] * len(gold), k)
    return _dcg([1.0 if sid in gold else 0.0 for sid in ranked], k) / ideal if ideal else 0.0


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarise(questions: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Both scorings, overall and per question type, for rows carrying `ranked_session_ids`."""
    by_id = {str(q["question_id"]): q for q in questions}
    official: dict[str, list[float]] = defaultdict(list)
    mempalace: dict[str, list[float]] = defaultdict(list)
    per_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        question = by_id[str(row["question_id"])]
        ranked = [str(s) for s in row["ranked_session_ids"]]
        kind = str(question.get("question_type", ""))
        gold = {str(s) for s in question.get("answer_session_ids") or []}
        for k in KS:
            mempalace[f"recall_any@{k}"].append(recall_any(ranked, gold, k))
        per_type[kind]["mempalace_recall_any@5"].append(recall_any(ranked, gold, 5))
        official_set = official_gold(question)
        if official_set is None:
            continue
        for k in KS:
            official[f"recall_all@{k}"].append(recall_all(ranked, official_set, k))
            official[f"recall_any@{k}"].append(recall_any(ranked, official_set, k))
            official[f"ndcg_any@{k}"].append(ndcg(ranked, official_set, k))
        per_type[kind]["official_recall_all@5"].append(recall_all(ranked, official_set, 5))
        per_type[kind]["official_ndcg_any@10"].append(ndcg(ranked, official_set, 10))
    return {
        "official": {"questions": len(official["recall_all@1"]), **{m: _mean(v) for m, v in official.items()}},
        "mempalace": {"questions": len(mempalace["recall_any@1"]), **{m: _mean(v) for m, v in mempalace.items()}},
        "per_type": {
            kind: {"questions": len(metrics["mempalace_recall_any@5"]), **{m: _mean(v) for m, v in metrics.items()}}
            for kind, metrics in sorted(per_type.items())
        },
    }


def report(summary: dict[str, Any]) -> str:
    official, mempalace = summary["official"], summary["mempalace"]
    lines = [
        f"{'k':>4}  {'official recall_all':>20} {'official recall_any':>20} {'official ndcg_any':>18}  "
        f"{'MemPalace recall_any':>21}",
    ]
    for k in KS:
        lines.append(
            f"{k:>4}  {_fmt(official.get(f'recall_all@{k}')):>20} {_fmt(official.get(f'recall_any@{k}')):>20} "
            f"{_fmt(official.get(f'ndcg_any@{k}')):>18}  {_fmt(mempalace.get(f'recall_any@{k}')):>21}"
        )
    lines.append(f"(official: {official['questions']} questions scored; MemPalace-style: {mempalace['questions']})")
    lines.append("per question type:")
    for kind, metrics in summary["per_type"].items():
        parts = ", ".join(f"{m} {_fmt(v)}" for m, v in metrics.items() if m != "questions")
        lines.append(f"  {kind} ({metrics['questions']}): {parts}")
    run = summary.get("run")
    if run:
        lines.append(
            f"run: {run['questions']} questions, {run['owners_mined']} haystacks mined, {run['wall_seconds']} s wall; "
            f"ingest {run['ingest_turns_per_second']} turns/s; recall p50 {run['recall_ms_p50']} ms, "
            f"p95 {run['recall_ms_p95']} ms"
        )
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
