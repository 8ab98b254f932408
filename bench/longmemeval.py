"""LongMemEval retrieval through Loci's own pipeline: ingest, mine, recall, score.

    .venv/bin/python bench/longmemeval.py --data FILE [--limit N] [--only-ids ID ...] --out DIR [--reuse]

For each question (a LongMemEval-format JSON file, plain or .gz): a fresh owner `lme-<fingerprint>`
gets every haystack session as a complete conversation dated from `haystack_dates`, mined by the
product's own services (the mining job's `conversations_mine`, default embedder, no LLM, in batches
like the worker's); then `palace.recall.recall` runs with the question, `question_date` as reference
time, and the ranked drawers become a ranked list of session ids (first appearance wins; sessions
recall did not reach follow, newest first). Questions with an identical haystack (same session ids and
contents) share one owner. `--reuse` keeps owners mined by an earlier run in the same state folder.

Without DATABASE_URL it starts the embedded PostgreSQL and Redis in LOCI_STATE_DIR (default
`.state/longmemeval`), so it never touches the memory of `make run`'s users. With DATABASE_URL it
only creates and deletes users named `lme-…`.

Writes DIR/results.jsonl (question_id, question_type, ranked_session_ids, gold, timings),
DIR/misses.md and DIR/misses.jsonl (each question whose evidence is not all in the top 5 sessions: where
each evidence session ranked, with its best drawer's signals, and what took the five places) and
DIR/summary.json, and prints both scorings (bench/lme_scoring.py): LongMemEval's official session-level
retrieval metrics and the MemPalace-style recall_any@k. Targets (issue 7, dev file, no LLM):
official recall_all@5 >= 0.95, MemPalace-style recall_any@5 >= 0.99, ndcg_any@10 >= 0.90, all 50 dev
questions in under 20 minutes.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench import lme_scoring  # noqa: E402

RANKING_TOP_K = 50  # results asked of recall for the ranking (the API's maximum)
MINE_BATCH = 8  # conversations mined together, as one worker job does


DEV_DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"
HAYSTACK_FIELDS = ("haystack_session_ids", "haystack_dates", "haystack_sessions")


def load(path: Path, haystacks: Path = DEV_DATA) -> list[dict[str, Any]]:
    """A LongMemEval-format file. A question with `haystack_of` (bench/data/longmemeval_hard_dev.json:
    new questions over the dev questions' haystacks) takes that question's haystack from `haystacks`."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list):
        raise SystemExit(f"{path}: expected a JSON list of LongMemEval questions")
    if any("haystack_of" in q for q in data):
        by_id = {q["question_id"]: q for q in load(haystacks)}
        data = [
            {**q, **{f: by_id[q["haystack_of"]][f] for f in HAYSTACK_FIELDS}} if "haystack_of" in q else q for q in data
        ]
    return data


def parse_date(value: str) -> datetime:
    """LongMemEval dates: '2023/05/20 (Sat) 00:43' (also accepts ISO 8601)."""
    text = value.strip()
    try:
        return datetime.strptime(text.split(" (")[0] + " " + text.rsplit(" ", 1)[-1], "%Y/%m/%d %H:%M").replace(
            tzinfo=UTC
        )
    except ValueError:
        parsed = datetime.fromisoformat(text)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def fingerprint(question: dict[str, Any]) -> str:
    digest = hashlib.sha256()
    for sid, session in zip(question["haystack_session_ids"], question["haystack_sessions"], strict=True):
        digest.update(json.dumps([sid, [[t.get("role"), t.get("content")] for t in session]]).encode())
    for date in question.get("haystack_dates") or []:
        digest.update(date.encode())
    return digest.hexdigest()[:20]


def _servers(state_dir: Path) -> Any:
    from memory_site.embedded import EmbeddedServers

    if os.environ.get("DATABASE_URL"):
        return None
    servers = EmbeddedServers(state_dir, database_url=None, redis_url=os.environ.get("REDIS_URL"))
    servers.__enter__()
    os.environ.update(servers.environ())
    return servers


def ingest(question: dict[str, Any], owner_name: str, reuse: bool) -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.db import connection

    from accounts.models import MemorySettings
    from accounts.services import user_ensure
    from palace.keywords import forget_common_lexemes
    from palace.models import Conversation, Drawer, Turn
    from palace.services import intake, mining
    from palace.services.passages import passages_embed

    sessions = list(zip(question["haystack_session_ids"], question["haystack_sessions"], strict=True))
    dates = question.get("haystack_dates") or [None] * len(sessions)
    total_turns = sum(1 for _, s in sessions for t in s if str(t.get("content") or "").strip())
    # A haystack may hold the same session twice (on two dates): each copy is a conversation of its
    # own, and rankings name it by its session id.
    external_ids: list[str] = []
    session_of: dict[str, str] = {}
    for sid, _ in sessions:
        external = str(sid)[:240]
        copies = sum(1 for e in external_ids if session_of[e] == str(sid))
        if copies:
            external = f"{external}~{copies + 1}"
        external_ids.append(external)
        session_of[external] = str(sid)
    existing = User.objects.filter(username=owner_name).first()
    if existing is not None:
        if reuse and Drawer.objects.filter(owner=existing).count() == total_turns:
            forget_common_lexemes()
            return {"owner": existing, "reused": True, "turns": total_turns, "seconds": 0.0, "sessions": session_of}
        existing.delete()
    started = time.perf_counter()
    owner, _ = user_ensure(username=owner_name)
    # Mined below by the same service the worker runs (no broker round trip in a benchmark).
    MemorySettings.objects.filter(user=owner).update(auto_mine=False)
    for (_, session), date, external in zip(sessions, dates, external_ids, strict=True):
        when = parse_date(date) if date else None
        turns: list[intake.TurnInput] = [
            {
                "role": t["role"] if t.get("role") in ("user", "assistant", "system", "tool") else "user",
                "content": str(t["content"]),
                "timestamp": when,
            }
            for t in session
            if str(t.get("content") or "").strip()
        ]
        intake.conversation_create(
            owner=owner, agent=None, external_id=external, turns=turns, complete=True, started_at=when
        )
    conversations = list(Conversation.objects.filter(owner=owner).order_by("started_at", "pk"))
    for start in range(0, len(conversations), MINE_BATCH):
        batch = conversations[start : start + MINE_BATCH]
        mining.conversations_mine(conversations=batch)
        passages_embed(conversation_ids=[c.pk for c in batch])  # the worker's follow-up job, here
        done = min(start + MINE_BATCH, len(conversations))
        print(f"\r    mined {done}/{len(conversations)} sessions", end="", file=sys.stderr, flush=True)
    print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    # What autovacuum does after a bulk load, done at once so every run reads the same statistics
    # (recall judges which query words are informative by them).
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE palace_drawer")
    forget_common_lexemes()
    seconds = time.perf_counter() - started
    assert Turn.objects.filter(conversation__owner=owner).count() == total_turns
    return {"owner": owner, "reused": False, "turns": total_turns, "seconds": seconds, "sessions": session_of}


def rank_sessions(
    owner: Any, question: dict[str, Any], session_of: dict[str, str], best: dict[str, dict[str, Any]] | None = None
) -> tuple[list[str], dict[str, float]]:
    """The sessions in recall's order; `best`, when given, receives each reached session's best hit
    (its place, score, signals and opening words) for the miss report."""
    from palace.models import Conversation
    from palace.recall import recall

    reference = parse_date(question["question_date"]) if question.get("question_date") else None
    started = time.perf_counter()
    result = recall(owner=owner, query=question["question"], top_k=RANKING_TOP_K, reference_time=reference)
    elapsed = (time.perf_counter() - started) * 1000
    ranked: list[str] = []
    for hit in result.hits:
        for drawer in (hit.drawer, hit.partner):
            if drawer is None:
                continue
            sid = session_of[drawer.conversation.external_id]
            if sid not in ranked:
                ranked.append(sid)
                if best is not None:
                    best[sid] = {
                        "hit": result.hits.index(hit) + 1,
                        "score": hit.score,
                        "signals": hit.signals,
                        "text": f"{drawer.role}: {drawer.content[:120]}",
                    }
    newest_first = (
        Conversation.objects.filter(owner=owner).order_by("-started_at").values_list("external_id", flat=True)
    )
    for sid in (session_of[e] for e in newest_first):
        if sid not in ranked:
            ranked.append(sid)
    return ranked, {"recall_ms": round(elapsed, 2), **{f"{k}_ms": v for k, v in result.timings.items()}}


def miss_of(question: dict[str, Any], row: dict[str, Any], best: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """For a question whose evidence is not all in the top 5 sessions: where each evidence session
    ranked (None: recall did not reach it) and what took the five places."""
    evidence = set(row["answer_session_ids"])
    top = row["ranked_session_ids"][:5]
    if not evidence or evidence <= set(top):
        return None
    ranked = row["ranked_session_ids"]
    return {
        "question_id": row["question_id"],
        "question_type": row["question_type"],
        "question": question["question"],
        "question_date": question.get("question_date", ""),
        "evidence": [
            {"session": sid, "rank": ranked.index(sid) + 1 if sid in best else None, **best.get(sid, {})}
            for sid in sorted(evidence, key=lambda sid: ranked.index(sid))
        ],
        "top5": [{"session": sid, "evidence": sid in evidence, **best.get(sid, {})} for sid in top],
    }


def write_misses(out: Path, misses: list[dict[str, Any]]) -> None:
    """DIR/misses.jsonl and a readable DIR/misses.md: argue each recall change from these."""
    with open(out / "misses.jsonl", "w", encoding="utf-8") as handle:
        for miss in misses:
            handle.write(json.dumps(miss) + "\n")

    def line(entry: dict[str, Any]) -> str:
        signals = ", ".join(f"{k} {v:.2f}" for k, v in entry.get("signals", {}).items() if v)
        where = f"hit {entry['hit']}, score {entry['score']:.3f} ({signals})" if "hit" in entry else "not reached"
        return f"{entry['session']}: {where} — {entry.get('text', '')!r}"

    parts = [f"# Misses at 5: {len(misses)} question(s) with evidence outside the top 5 sessions\n"]
    for miss in misses:
        parts.append(f"## {miss['question_id']} ({miss['question_type']}, asked {miss['question_date']})\n")
        parts.append(f"> {miss['question']}\n")
        parts.append("Evidence sessions:\n")
        parts += [f"- rank {e['rank'] or '—'}: {line(e)}" for e in miss["evidence"]]
        parts.append("\nThe top 5:\n")
        parts += [f"{i}. {'EVIDENCE ' if t['evidence'] else ''}{line(t)}" for i, t in enumerate(miss["top5"], 1)]
        parts.append("")
    (out / "misses.md").write_text("\n".join(parts) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--haystacks", type=Path, default=DEV_DATA, help="where `haystack_of` questions find theirs")
    parser.add_argument("--only-ids", nargs="+", default=None)
    parser.add_argument("--reuse", action="store_true", help="keep owners an earlier run mined (same haystack)")
    args = parser.parse_args()

    questions = load(args.data, args.haystacks)
    if args.only_ids:
        wanted = set(args.only_ids)
        questions = [q for q in questions if q["question_id"] in wanted]
    if args.limit:
        questions = questions[: args.limit]
    state_dir = Path(os.environ.get("LOCI_STATE_DIR") or BASE_DIR / ".state" / "longmemeval").resolve()
    os.environ["LOCI_STATE_DIR"] = str(state_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    os.environ.setdefault("LLM_MODEL", "")  # no LLM: the offline pipeline is what is measured
    servers = _servers(state_dir)
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        return run(questions, args.out, args.reuse)
    finally:
        if servers is not None:
            servers.stop()


def run(questions: list[dict[str, Any]], out: Path, reuse: bool) -> int:
    from episodic import providers

    out.mkdir(parents=True, exist_ok=True)
    providers.get_embedder()  # load the model before timing anything
    owners: dict[str, Any] = {}
    rows = []
    misses: list[dict[str, Any]] = []
    mined_turns = 0
    mining_seconds = 0.0
    started = time.perf_counter()
    with open(out / "results.jsonl", "w", encoding="utf-8") as results:
        for number, question in enumerate(questions, start=1):
            print_id = question["question_id"]
            key = fingerprint(question)
            if key not in owners:
                owners[key] = ingest(question, f"lme-{key}", reuse)
                if not owners[key]["reused"]:
                    mined_turns += owners[key]["turns"]
                    mining_seconds += owners[key]["seconds"]
            owner = owners[key]["owner"]
            best: dict[str, dict[str, Any]] = {}
            ranked, timings = rank_sessions(owner, question, owners[key]["sessions"], best)
            row = {
                "question_id": question["question_id"],
                "question_type": question.get("question_type", ""),
                "ranked_session_ids": ranked,
                "answer_session_ids": question.get("answer_session_ids", []),
                "official_gold": sorted(lme_scoring.official_gold(question) or []),
                "ingest_seconds": round(owners[key]["seconds"], 2),
                "turns": owners[key]["turns"],
                **timings,
            }
            rows.append(row)
            results.write(json.dumps(row) + "\n")
            results.flush()
            miss = miss_of(question, row, best)
            if miss is not None:
                misses.append(miss)
            hit = lme_scoring.recall_any(ranked, set(row["answer_session_ids"]), 5)
            print(
                f"[{number}/{len(questions)}] {print_id} {row['question_type']}: "
                f"{'hit' if hit else 'MISS'}@5, ingest {row['ingest_seconds']:.0f}s "
                f"({row['turns']} turns), recall {timings['recall_ms']:.0f} ms",
                flush=True,
            )
    elapsed = time.perf_counter() - started
    summary = lme_scoring.summarise(questions, rows)
    latencies = sorted(r["recall_ms"] for r in rows)
    summary["run"] = {
        "questions": len(rows),
        "owners_mined": sum(1 for o in owners.values() if not o["reused"]),
        "wall_seconds": round(elapsed, 1),
        "ingest_turns_per_second": round(mined_turns / mining_seconds, 1) if mining_seconds else None,
        "recall_ms_p50": round(statistics.median(latencies), 1) if latencies else None,
        "recall_ms_p95": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 1)
        if latencies
        else None,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    write_misses(out, misses)
    print(lme_scoring.report(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
