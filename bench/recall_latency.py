"""Recall latency through HTTP: one owner's 100k drawers among up to 1M drawers of other owners.

    .venv/bin/python bench/recall_latency.py [--owner-drawers 100000] [--other-drawers 1000000]
                                             [--other-owners 10] [--queries 200] [--top-k 5]

Run it with `make run` going (same checkout, same state folder). The first run seeds the bench owners
(`bench-recall-*`): 3,000 real chat turns of the LongMemEval dev data (user and assistant, cut to 600
characters) are embedded with the default model, and every drawer is one of them, verbatim, with a
little noise on its vector (so the vectors cluster like real ones), dated over two years; each user
drawer gets the passages mining would write (its sentences, palace/passages.py), noised alike. Rows go
in with binary COPY, with the HNSW and full-text indexes dropped and rebuilt once after the load
(build times are printed). Later runs add only what is missing, so `--other-drawers 0` first and
`--other-drawers 1000000` next measures both sizes.

Then --queries distinct queries (the opening words of user turns, a new draw each run; with
--repeat the 50 questions in turn, answered from the query-embedding cache after the first round) go one
at a time through POST /api/v1/recall (embedding the query included) and p50/p95/p99 are printed, with
the median and p95 time of each stage the service reports (embed, semantic = HNSW probe, keyword =
full-text search, pending = turns not filed yet, fetch = signals of the candidates, fusion, load,
render) and the rest (HTTP, authentication, serialisation).
Targets (issue 17): p95 <= 50 ms at 100k drawers for the owner; <= 80 ms at 1M rows in the table.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import time
import urllib.request
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"
BASE_TEXTS = 3000
START = datetime(2023, 1, 1, tzinfo=UTC)

INDEXES = {
    "drawer_embedding_hnsw": "CREATE INDEX IF NOT EXISTS drawer_embedding_hnsw ON palace_drawer "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)",
    "drawer_search_gin": "CREATE INDEX IF NOT EXISTS drawer_search_gin ON palace_drawer USING gin (search_vector)",
    "passage_embedding_hnsw": "CREATE INDEX IF NOT EXISTS passage_embedding_hnsw ON palace_passage "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)",
}


def distinct_queries(records: list[dict[str, Any]], count: int, *, repeat: bool, seed: int = 0) -> list[str]:
    """The opening words of user turns (a question an agent would ask about them) in an order drawn from
    `seed`, each once: an agent rarely asks the same thing twice, and a query the service was asked
    before (in this run or an earlier one: the cache lives as long as the web process) would be answered
    from its query-embedding cache. With --repeat, the 50 questions in turn instead (the cache's best
    case)."""
    questions = [r["question"] for r in records]
    if repeat:
        return [questions[i % len(questions)] for i in range(count)]
    openings = []
    for record in records:
        for session in record["haystack_sessions"]:
            for turn in session:
                words = turn["content"].split()
                if turn["role"] == "user" and len(words) >= 6:
                    openings.append(" ".join(words[:14]))
    openings = list(dict.fromkeys(openings))
    random.Random(seed).shuffle(openings)
    return openings[:count]


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()


def _home(owner: Any) -> tuple[Any, Any, Any]:
    """One conversation, room and closet per bench owner hold its drawers."""
    from palace.models import Closet, Conversation, Room
    from palace.services.filing import wing_ensure

    conversation, _ = Conversation.objects.get_or_create(
        owner=owner, external_id="bench", defaults={"started_at": START, "complete": True}
    )
    wing = wing_ensure(owner_id=owner.pk, name="Bench", kind="topic")
    room, _ = Room.objects.get_or_create(
        owner=owner,
        conversation=conversation,
        defaults={"wing": wing, "number": 1, "title": "bench", "started_at": START, "ended_at": START},
    )
    closet, _ = Closet.objects.get_or_create(
        owner=owner, room=room, position=0, defaults={"topic": "bench", "slug": "bench"}
    )
    return conversation, room, closet


def seed(owner_name: str, count: int, texts: list[str], vectors: Any, seed_value: int) -> int:
    """Bring the owner to `count` drawers; returns how many were added."""
    import numpy as np
    from django.db import connection
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    from accounts import services as account_services
    from palace.models import Drawer

    owner, _ = account_services.user_ensure(username=owner_name)
    have = Drawer.objects.filter(owner=owner).count()
    if have >= count:
        return 0
    conversation, room, closet = _home(owner)
    rng = np.random.default_rng(seed_value)
    connection.ensure_connection()
    raw = connection.connection
    register_vector(raw)
    columns = [
        "owner_id",
        "room_id",
        "closet_id",
        "conversation_id",
        "turn_index",
        "number",
        "role",
        "content",
        "occurred_at",
        "aaak",
        "tags",
        "search_text",
        "embedding",
        "embedding_model",
        "stated_preference",
        "pinned",
        "never_recall",
        "created_at",
    ]
    types = [
        "integer",
        "bigint",
        "bigint",
        "uuid",
        "integer",
        "integer",
        "text",
        "text",
        "timestamptz",
        "text",
        "jsonb",
        "text",
        "vector",
        "text",
        "boolean",
        "boolean",
        "boolean",
        "timestamptz",
    ]
    now = datetime.now(UTC)
    started = time.perf_counter()
    with (
        raw.cursor() as cursor,
        cursor.copy(f"COPY palace_drawer ({', '.join(columns)}) FROM STDIN WITH (FORMAT BINARY)") as copy,
    ):
        copy.set_types(types)
        for index in range(have, count):
            base = index % len(texts)
            vector = vectors[base] + rng.normal(0, 0.04, vectors.shape[1]).astype(np.float32)
            vector /= np.linalg.norm(vector)
            role = "user" if base % 2 == 0 else "assistant"
            when = START + timedelta(minutes=(index * 7) % (2 * 365 * 24 * 60))
            copy.write_row(
                [
                    owner.pk,
                    room.pk,
                    closet.pk,
                    conversation.pk,
                    index,
                    index + 1,
                    role,
                    texts[base],
                    when,
                    f"§ W-001/R-01/D-{index + 1:03d}",
                    Jsonb({}),
                    texts[base],
                    vector,
                    "bench",
                    False,
                    False,
                    False,
                    now,
                ]
            )
            if (index + 1) % 10000 == 0:
                rate = (index + 1 - have) / (time.perf_counter() - started)
                print(f"\r  {owner_name}: {index + 1}/{count} ({rate:.0f} rows/s)", end="", flush=True)
    raw.commit()
    print(f"\r  {owner_name}: {count}/{count}" + " " * 20)
    return count - have


def seed_passages(owner_name: str, texts: list[str], embedder: Any, seed_value: int) -> int:
    """Give the owner's user drawers that have none the passages mining would have written (the sentences
    of their text, palace/passages.py), each vector with the same little noise as the drawers'."""
    import numpy as np
    from django.db import connection
    from pgvector.psycopg import register_vector

    from palace.models import Drawer, Passage
    from palace.passages import passages_of

    bare = Drawer.objects.filter(owner__username=owner_name, role="user").exclude(
        pk__in=Passage.objects.filter(owner__username=owner_name).values("drawer_id")
    )
    rows = list(bare.values_list("pk", "owner_id", "turn_index"))
    if not rows:
        return 0
    split = {base: passages_of("user", text) for base, text in enumerate(texts)}
    unique = sorted({p for parts in split.values() for p in parts})
    vectors = dict(zip(unique, np.array(embedder.embed_documents(unique).vectors, dtype=np.float32), strict=True))
    rng = np.random.default_rng(seed_value + 1000)
    connection.ensure_connection()
    raw = connection.connection
    register_vector(raw)
    now, written = datetime.now(UTC), 0
    columns = "owner_id, drawer_id, position, text, embedding, embedding_model, created_at"
    with (
        raw.cursor() as cursor,
        cursor.copy(f"COPY palace_passage ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy,
    ):
        copy.set_types(["integer", "bigint", "smallint", "text", "vector", "text", "timestamptz"])
        for drawer_id, owner_id, turn_index in rows:
            for position, text in enumerate(split[turn_index % len(texts)]):
                vector = vectors[text] + rng.normal(0, 0.04, len(vectors[text])).astype(np.float32)
                copy.write_row([owner_id, drawer_id, position, text, vector / np.linalg.norm(vector), "bench", now])
                written += 1
    raw.commit()
    print(f"  {owner_name}: {written} passages for {len(rows)} user drawers")
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--owner-drawers", type=int, default=100_000)
    parser.add_argument("--other-drawers", type=int, default=1_000_000, help="in all, across --other-owners")
    parser.add_argument("--other-owners", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--repeat", action="store_true", help="cycle the 50 questions (query cache hits)")
    parser.add_argument("--seed", type=int, help="the draw of queries (default: a new one each run)")
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('MEMORY_PORT', '8002')}")
    args = parser.parse_args()
    setup_django()
    import numpy as np
    from django.db import connection
    from django.db.models import F

    from accounts import services as account_services
    from memory_site.lib.embeddings import LocalMiniLMEmbedder
    from palace.models import Drawer
    from palace.passages import passages_of

    records = json.load(gzip.open(DATA))
    texts = [t["content"][:600] for r in records for s in r["haystack_sessions"] for t in s][:BASE_TEXTS]
    draw = args.seed if args.seed is not None else random.randrange(1_000_000)
    questions = distinct_queries(records, args.queries + 10, repeat=args.repeat, seed=draw)
    print(f"queries drawn with --seed {draw}" if not args.repeat else "the 50 questions in turn (--repeat)")
    owners = [("bench-recall-main", args.owner_drawers)] + [
        (f"bench-recall-other-{i}", args.other_drawers // max(args.other_owners, 1)) for i in range(args.other_owners)
    ]
    missing = sum(
        max(0, count - Drawer.objects.filter(owner__username=name).count()) for name, count in owners if count
    )
    # User drawers still owed passages: those whose text gives some (a one-sentence turn gives none, and
    # counting it had re-seeded and rebuilt every index on every run, so each run measured cold indexes).
    with_passages = [base for base, text in enumerate(texts) if passages_of("user", text)]
    bare_users = (
        Drawer.objects.filter(owner__username__startswith="bench-recall-", role="user", passages=None)
        .annotate(base=F("turn_index") % len(texts))
        .filter(base__in=with_passages)
    )
    if missing or bare_users.exists():
        print(f"embedding {len(texts)} base texts with the default model…", flush=True)
        embedder = LocalMiniLMEmbedder()
        vectors = []
        for start in range(0, len(texts), 200):
            vectors += embedder.embed_documents(texts[start : start + 200]).vectors
            print(f"\r  {min(start + 200, len(texts))}/{len(texts)}", end="", flush=True)
        print()
        base_vectors = np.array(vectors, dtype=np.float32)
        with connection.cursor() as cursor:
            for name in INDEXES:
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
        for position, (name, count) in enumerate(owners):
            if count:
                seed(name, count, texts, base_vectors, position)
                seed_passages(name, texts, embedder, position)
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '4GB'")
            cursor.execute("SET max_parallel_maintenance_workers = 2")
            for name, statement in INDEXES.items():
                print(f"building {name}…", flush=True)
                started = time.perf_counter()
                cursor.execute(statement)
                print(f"  built in {time.perf_counter() - started:.0f}s", flush=True)
            cursor.execute("ANALYZE palace_drawer")
            cursor.execute("ANALYZE palace_passage")
    main_owner = account_services.user_ensure(username=owners[0][0])[0]
    agent = account_services.agent_ensure(owner=main_owner, name="bench-agent")[0]
    key = account_services.api_key_issue(agent=agent, name="bench").raw_key
    print(
        f"{Drawer.objects.filter(owner=main_owner).count()} drawers for the recalling owner, "
        f"{Drawer.objects.count()} in the table"
    )

    latencies: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    empty = 0
    for index in range(args.queries + 10):
        body = json.dumps({"query": questions[index], "top_k": args.top_k}).encode()
        request = urllib.request.Request(
            f"{args.url}/api/v1/recall",
            data=body,
            method="POST",
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request) as response:
            answer = json.load(response)
        elapsed = (time.perf_counter() - started) * 1000
        if index >= 10:  # the first ten warm the caches
            latencies.append(elapsed)
            empty += not answer["results"]
            for stage, ms in answer["timings_ms"].items():
                stages[stage].append(ms)
            stages["rest (HTTP, auth, serialisation)"].append(elapsed - sum(answer["timings_ms"].values()))
    latencies.sort()
    print(
        f"recall over the API: p50 {statistics.median(latencies):.1f} ms, "
        f"p95 {latencies[int(0.95 * len(latencies))]:.1f} ms, "
        f"p99 {latencies[int(0.99 * len(latencies))]:.1f} ms over {len(latencies)} queries ({empty} with no result)"
    )
    rows = Drawer.objects.count()
    target = 50 if rows < 500_000 else 80
    print(f"target: p95 <= {target} ms with {rows} drawers in the table (<= 50 ms at 100k, <= 80 ms at 1M)")
    print("median per stage: " + ", ".join(f"{stage} {statistics.median(ms):.1f} ms" for stage, ms in stages.items()))
    print(
        "p95 per stage:    "
        + ", ".join(f"{stage} {sorted(ms)[int(0.95 * len(ms))]:.1f} ms" for stage, ms in stages.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
