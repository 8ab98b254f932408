"""Mining throughput through the real worker (run it with `make run` going).

    .venv/bin/python bench/mining.py [--conversations 40]

Posts --conversations LongMemEval-S sessions (from ../shared/data, as a fresh bench user's
conversations, marked complete so they are mined at once), waits for every job through
GET /api/v1/jobs/{id}, and prints drawers/s and conversations/s end to end, the time split between
extraction, embedding and writes (summed over jobs, from their counts), and the embedder's own time on
the same texts in this process for comparison (the turns alone, then the turns with the passages mining
also embeds, palace/passages.py), and the ratio of the two. Target (issue 17): mining end to end at >= 90%
of the embedder's own throughput on the same texts.

Searchable at once: then the same sessions are posted again as a second backlog, and while the worker
mines it, --probes times (a second apart) the bench posts one more conversation (left open, so it does
not join the backlog) holding a user turn of a session outside the bench set, and polls
POST /api/v1/recall with the turn's first words until the turn is among the results; it prints each time
from the POST's answer to the first recall that finds it, then the median and the worst. Target (issue
17): <= 1 s even behind a backlog.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"


def call(url: str, key: str, method: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"{url}{path}",
        data=data,
        method=method,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return dict(json.load(response))


def probe(url: str, key: str, number: int, text: str) -> float:
    """Seconds from a POST's answer to the first recall that finds its turn."""
    body = {"conversation_id": f"probe-{number}", "turns": [{"role": "user", "content": text}]}
    call(url, key, "POST", "/api/v1/conversations", body)
    posted = time.perf_counter()
    query = " ".join(text.split()[:12])
    while True:
        found = call(url, key, "POST", "/api/v1/recall", {"query": query, "top_k": 5})["results"]
        if any(hit["content"] == text for hit in found):
            return time.perf_counter() - posted
        if time.perf_counter() - posted > 120:
            return float("inf")
        time.sleep(0.05)


def post_all(url: str, key: str, sessions: list[list[dict]], prefix: str) -> list[str]:
    jobs = []
    for index, session in enumerate(sessions):
        body = {
            "conversation_id": f"{prefix}-{index}",
            "complete": True,
            "turns": [{"role": t["role"], "content": t["content"]} for t in session],
        }
        jobs.append(call(url, key, "POST", "/api/v1/conversations", body)["job_id"])
    return jobs


def wait_for(url: str, key: str, jobs: list[str]) -> None:
    pending = set(jobs)
    while pending:
        for job_id in list(pending):
            if call(url, key, "GET", f"/api/v1/jobs/{job_id}")["status"] in ("done", "failed"):
                pending.discard(job_id)
        print(f"\r  {len(jobs) - len(pending)}/{len(jobs)} jobs done   ", end="", flush=True)
        time.sleep(0.5)
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=40)
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('MEMORY_PORT', '8002')}")
    parser.add_argument("--skip-embedder", action="store_true", help="do not time the embedder alone")
    parser.add_argument("--probes", type=int, default=5, help="searchable-at-once probes during the backlog")
    args = parser.parse_args()
    records = json.load(gzip.open(DATA))
    every = [s for r in records for s in r["haystack_sessions"]]
    sessions = every[: args.conversations]
    probe_texts = [
        t["content"] for s in every[args.conversations :] for t in s if t["role"] == "user" and len(t["content"]) > 80
    ][::7][: args.probes]
    user = f"bench-mining-{uuid.uuid4().hex[:6]}"
    command = [sys.executable, "manage.py", "issue_api_key", "--user", user, "--agent", "bench-agent"]
    key = (
        subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    turns = sum(len(s) for s in sessions)
    print(f"{len(sessions)} conversations, {turns} turns, as {user}", flush=True)

    started = time.perf_counter()
    jobs = post_all(args.url, key, sessions, "lme")
    wait_for(args.url, key, jobs)
    elapsed = time.perf_counter() - started
    # Read the final counts again: a job can show done a moment before the run that did its work
    # writes its counts (a second run that found the work done marks it first).
    totals: dict[str, int] = {}
    for job_id in jobs:
        for name, value in call(args.url, key, "GET", f"/api/v1/jobs/{job_id}")["counts"].items():
            totals[name] = totals.get(name, 0) + int(value)
    print(
        f"end to end: {totals.get('drawers', 0) / elapsed:.1f} drawers/s, {len(jobs) / elapsed:.2f} conversations/s "
        f"({elapsed:.1f}s; {totals.get('embedded', 0)} of {totals.get('drawers', 0)} embedded)"
    )
    work = sum(totals.get(k, 0) for k in ("ms_extract", "ms_embed", "ms_write")) or 1
    print(
        "time in jobs: "
        + ", ".join(
            f"{k[3:]} {totals.get(k, 0) / 1000:.1f}s ({100 * totals.get(k, 0) / work:.0f}%)"
            for k in ("ms_extract", "ms_embed", "ms_write")
        )
    )
    found_after = []
    if probe_texts:
        # A second backlog of the same sessions, and the probes while the worker mines it (apart from the
        # throughput run above: the probes' recalls take CPU from the miner).
        backlog = post_all(args.url, key, sessions, "backlog")
        print(f"backlog of {len(backlog)} conversations posted; probing", flush=True)
        for number, text in enumerate(probe_texts):
            found_after.append(probe(args.url, key, number, text))
            print(f"  probe {number + 1}: found by recall {found_after[-1]:.2f}s after its POST", flush=True)
            time.sleep(1)
        wait_for(args.url, key, backlog)
    if found_after:
        found_after.sort()
        print(
            f"searchable at once, behind the backlog: median {found_after[len(found_after) // 2]:.2f}s, "
            f"worst {found_after[-1]:.2f}s over {len(found_after)} probes (target <= 1 s)"
        )
    if not args.skip_embedder:
        from memory_site.lib.embeddings import LocalMiniLMEmbedder
        from palace.passages import passages_of

        turn_texts = [t["content"] for s in sessions for t in s]
        # What mining embeds: every turn, and each user turn's sentences as passages (palace/passages.py).
        passages = [p for s in sessions for t in s for p in passages_of(t["role"], t["content"])]
        embedder = LocalMiniLMEmbedder()
        clock = time.perf_counter()
        embedder.embed_documents(turn_texts)
        turns_alone = time.perf_counter() - clock
        clock = time.perf_counter()
        embedder.embed_documents(turn_texts + passages)
        alone = time.perf_counter() - clock
        mined = totals.get("drawers", 0) / elapsed
        share = 100 * mined / (len(turn_texts) / alone)
        print(
            f"the embedder alone on the same {len(turn_texts)} turns: {turns_alone:.1f}s "
            f"({len(turn_texts) / turns_alone:.1f}/s); "
            f"with their {len(passages)} passages, as mining embeds them: {alone:.1f}s "
            f"({len(turn_texts) / alone:.1f} drawers/s); mining end to end at {share:.0f}% "
            f"of it (target >= 90%)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
