"""Throughput and latency of the default embedder on realistic chat turns (LongMemEval dev data).

    .venv/bin/python bench/embedder.py [--turns 1000] [--batch 32] [--queries 200]

Prints documents/s embedding --turns turns (user and assistant, in data order) in batches of --batch,
the peak RSS, and the median / p95 latency of single-query embeddings (the questions of the data set).
Target (issue 5): query embedding <= 15 ms median.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import statistics
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    from memory_site.lib.embeddings import LocalMiniLMEmbedder

    records = json.load(gzip.open(args.data))
    turns = [t["content"] for r in records for s in r["haystack_sessions"] for t in s][: args.turns]
    questions = [r["question"] for r in records]
    started = time.perf_counter()
    embedder = LocalMiniLMEmbedder(threads=args.threads, batch_size=args.batch)
    print(
        f"model loaded in {time.perf_counter() - started:.2f}s; {len(turns)} turns, "
        f"mean {statistics.fmean(len(t) for t in turns):.0f} characters"
    )

    started = time.perf_counter()
    for start in range(0, len(turns), args.batch * 4):
        embedder.embed_documents(turns[start : start + args.batch * 4])
        done = min(start + args.batch * 4, len(turns))
        print(f"\r  {done}/{len(turns)} turns", end="", flush=True)
    elapsed = time.perf_counter() - started
    print(f"\ndocuments: {len(turns) / elapsed:.1f} turns/s (batch {args.batch}, {args.threads} threads)")

    latencies = []
    for index in range(args.queries):
        question = questions[index % len(questions)]
        started = time.perf_counter()
        embedder.embed_query(question)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    print(
        f"query: median {statistics.median(latencies):.2f} ms, p95 {latencies[int(0.95 * len(latencies))]:.2f} ms "
        f"over {args.queries} queries"
    )
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
