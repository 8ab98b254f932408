"""Mining throughput through the real worker (run it with `make run` going).

    .venv/bin/python bench/mining.py [--conversations 40]

Posts --conversations LongMemEval-S sessions (from ../shared/data, as a fresh bench user's
conversations, marked complete so they are mined at once), waits for every job through
GET /api/v1/jobs/{id}, and prints drawers/s and conversations/s end to end, the time split between
extraction, embedding and writes (summed over jobs, from their counts), and the embedder's own time on
the same texts in this process for comparison. Target (issue 6): >= 40 drawers/s fully embedded with the
default embedder and no LLM; mining adds <= 15% to the embedder's own time.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=40)
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('MEMORY_PORT', '8002')}")
    parser.add_argument("--skip-embedder", action="store_true", help="do not time the embedder alone")
    args = parser.parse_args()
    records = json.load(gzip.open(DATA))
    sessions = [s for r in records for s in r["haystack_sessions"]][: args.conversations]
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
    jobs = []
    for index, session in enumerate(sessions):
        body = {
            "conversation_id": f"lme-{index}",
            "complete": True,
            "turns": [{"role": t["role"], "content": t["content"]} for t in session],
        }
        jobs.append(call(args.url, key, "POST", "/api/v1/conversations", body)["job_id"])
    pending = set(jobs)
    totals: dict[str, int] = {}
    while pending:
        for job_id in list(pending):
            job = call(args.url, key, "GET", f"/api/v1/jobs/{job_id}")
            if job["status"] in ("done", "failed"):
                pending.discard(job_id)
                for name, value in job["counts"].items():
                    totals[name] = totals.get(name, 0) + int(value)
        done = len(jobs) - len(pending)
        print(f"\r  {done}/{len(jobs)} jobs done, {totals.get('drawers', 0)} drawers   ", end="", flush=True)
        time.sleep(0.5)
    elapsed = time.perf_counter() - started
    # Read the final counts again: a job can show done a moment before the run that did its work
    # writes its counts (a second run that found the work done marks it first).
    totals = {}
    for job_id in jobs:
        for name, value in call(args.url, key, "GET", f"/api/v1/jobs/{job_id}")["counts"].items():
            totals[name] = totals.get(name, 0) + int(value)
    print(
        f"\nend to end: {totals.get('drawers', 0) / elapsed:.1f} drawers/s, {len(jobs) / elapsed:.2f} conversations/s "
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
    if not args.skip_embedder:
        from memory_site.lib.embeddings import LocalMiniLMEmbedder

        texts = [t["content"] for s in sessions for t in s]
        embedder = LocalMiniLMEmbedder()
        clock = time.perf_counter()
        embedder.embed_documents(texts)
        alone = time.perf_counter() - clock
        print(
            f"the embedder alone on the same {len(texts)} texts: {alone:.1f}s ({len(texts) / alone:.1f}/s); "
            f"mining end to end took {100 * (elapsed / alone - 1):+.0f}% more"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
