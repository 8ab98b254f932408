"""Episode search latency over 100k episodes of one owner among several owners, through the API.

    .venv/bin/python bench/episodes.py [--episodes 100000] [--others 3] [--other-episodes 10000] [--queries 200]

Run it with `make run` going (same checkout, same state folder). The first run seeds the bench owners
(`bench-episodes-*`): 500 real chat turns of the LongMemEval dev data are embedded with the default
model, and every episode is one of them with a little noise on its vector (so the vectors cluster like
real ones) and a variant tag in its text. The HNSW index is rebuilt once after the bulk load. Later runs
reuse the data. Then --queries searches (the data set's questions) go one at a time through
POST /api/v1/episodes/search, and p50/p95 latency is printed — it includes embedding the query.
Target (issue 5): p95 <= 50 ms.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
import urllib.request
from datetime import timedelta
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()


def seed(owner_name: str, count: int, base_texts: list[str], base_vectors: list[list[float]], seed_value: int) -> None:
    import numpy as np
    from django.utils import timezone

    from accounts import services as account_services
    from episodic.models import Episode

    owner, _ = account_services.user_ensure(username=owner_name)
    agent, _ = account_services.agent_ensure(owner=owner, name="bench-agent")
    have = Episode.objects.filter(owner=owner).count()
    if have >= count:
        print(f"  {owner_name}: {have} episodes already")
        return
    rng = np.random.default_rng(seed_value)
    vectors = np.array(base_vectors, dtype=np.float32)
    now = timezone.now()
    batch: list[Episode] = []
    for index in range(have, count):
        base = index % len(base_texts)
        vector = vectors[base] + np.asarray(rng.normal(0, 0.04, vectors.shape[1]), dtype=np.float32)
        vector /= np.linalg.norm(vector)
        summary = f"{base_texts[base]} (variant {index})"
        batch.append(
            Episode(
                owner=owner,
                agent=agent,
                conversation_id=f"bench-{index}",
                summary=summary,
                keywords=[],
                topic="",
                occurred_at=now - timedelta(minutes=index),
                expires_at=now + timedelta(days=3650),
                search_text=summary,
                embedding=vector.tolist(),
                embedding_model="bench",
            )
        )
        if len(batch) == 2000:
            Episode.objects.bulk_create(batch)
            batch.clear()
            print(f"\r  {owner_name}: {index + 1}/{count}", end="", flush=True)
    Episode.objects.bulk_create(batch)
    print(f"\r  {owner_name}: {count}/{count}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--others", type=int, default=3)
    parser.add_argument("--other-episodes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('MEMORY_PORT', '8002')}")
    args = parser.parse_args()
    setup_django()
    from django.db import connection

    from accounts import services as account_services
    from episodic.models import Episode
    from memory_site.lib.embeddings import LocalMiniLMEmbedder

    records = json.load(gzip.open(DATA))
    texts = [t["content"][:400] for r in records for s in r["haystack_sessions"] for t in s if t["role"] == "user"][
        :500
    ]
    questions = [r["question"] for r in records]
    owners = ["bench-episodes-main"] + [f"bench-episodes-other-{i}" for i in range(args.others)]
    needed = args.episodes + args.others * args.other_episodes
    if Episode.objects.filter(owner__username__startswith="bench-episodes-").count() < needed:
        print(f"embedding {len(texts)} base texts with the default model…", flush=True)
        vectors = LocalMiniLMEmbedder().embed_documents(texts).vectors
        with connection.cursor() as cursor:
            cursor.execute("DROP INDEX IF EXISTS episode_embedding_hnsw")
        for position, owner in enumerate(owners):
            seed(owner, args.episodes if position == 0 else args.other_episodes, texts, vectors, position)
        print("rebuilding the HNSW index…", flush=True)
        started = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '1GB'")
            cursor.execute(
                "CREATE INDEX IF NOT EXISTS episode_embedding_hnsw ON episodic_episode "
                "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
            )
            cursor.execute("ANALYZE episodic_episode")
        print(f"  built in {time.perf_counter() - started:.0f}s")
    total = Episode.objects.count()
    main_owner = account_services.user_ensure(username=owners[0])[0]
    agent = account_services.agent_ensure(owner=main_owner, name="bench-agent")[0]
    key = account_services.api_key_issue(agent=agent, name="bench").raw_key
    print(f"{Episode.objects.filter(owner=main_owner).count()} episodes for the searching owner, {total} in all")

    latencies = []
    empty = 0
    for index in range(args.queries + 10):
        body = json.dumps({"query": questions[index % len(questions)], "limit": 10}).encode()
        request = urllib.request.Request(
            f"{args.url}/api/v1/episodes/search",
            data=body,
            method="POST",
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request) as response:
            results = json.load(response)["results"]
        if index >= 10:  # the first ten warm the caches
            latencies.append((time.perf_counter() - started) * 1000)
            empty += not results
    latencies.sort()
    print(
        f"search over the API: p50 {statistics.median(latencies):.1f} ms, "
        f"p95 {latencies[int(0.95 * len(latencies))]:.1f} ms, "
        f"p99 {latencies[int(0.99 * len(latencies))]:.1f} ms over {len(latencies)} queries ({empty} with no result)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
