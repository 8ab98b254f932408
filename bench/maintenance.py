"""Consolidation and dedup on 100k entries of one owner: wall time and peak memory.

    .venv/bin/python bench/maintenance.py [--entries 100000] [--duplicate-every 20]
                                          [--short-term 100000] [--promotable-share 0.1]

It runs on its own embedded servers in LOCI_STATE_DIR (default .state/maintenance; with DATABASE_URL
set it uses that database, and only ever touches its own `bench-maintenance` owner, recreated each run).

Data: 3,000 real chat turns of the LongMemEval dev data are embedded with the default model. The owner
gets --entries long-term context entries in one context, each a turn verbatim with noise on its vector
(cosine about 0.8 to its turn, so no two are duplicates), except every --duplicate-every-th entry,
which is a near-copy of the entry before it (cosine about 0.99): those are what dedup must merge. And
--short-term short-term entries, of which --promotable-share were read 3 times (consolidation
promotes them: each is embedded), 30% expired after one read (consolidation deletes them) and the rest
are live. Rows go in with binary COPY; the HNSW index is rebuilt after the load (time printed).

Each job then runs as `manage.py run_maintenance JOB` in its own process, as beat's worker would: the
wall time and the peak resident memory of that process (the database server's memory is not in it)
are printed, with what the job did. Target (issue 8): dedup <= 60 s for 100k entries on this machine.

Then 1% new entries are added (half of them near-copies of random old entries) and dedup runs twice
more: incrementally (only what changed since the last run probes, against everything) and with --full.
Target (issue 17): the incremental run takes seconds.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"
BASE_TEXTS = 3000
OWNER = "bench-maintenance"
HNSW = (
    "CREATE INDEX IF NOT EXISTS context_entry_embedding_hnsw ON episodic_contextentry "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
)


def texts_and_vectors(count: int) -> tuple[list[str], Any]:
    import numpy as np

    from episodic import providers

    questions = json.loads(gzip.decompress(DATA.read_bytes()))
    texts: list[str] = []
    seen: set[str] = set()
    turns = (turn for q in questions for session in q["haystack_sessions"] for turn in session)
    for turn in turns:
        text = turn["content"].strip()[:600]
        if len(text) > 40 and text not in seen:
            seen.add(text)
            texts.append(text)
            if len(texts) >= count:
                break
    embedder = providers.get_embedder()
    vectors: list[list[float]] = []
    started = time.perf_counter()
    for start in range(0, len(texts), 64):
        vectors += embedder.embed_documents(texts[start : start + 64]).vectors
        print(f"\r  embedded {min(start + 64, len(texts))}/{len(texts)} base texts", end="", flush=True)
    print(f" ({time.perf_counter() - started:.0f} s)")
    return texts, np.asarray(vectors, dtype=np.float32)


def _noisy(rng: Any, vector: Any, noise: float) -> Any:
    import numpy as np

    out = vector + rng.normal(0, noise, vector.shape[0]).astype(np.float32)
    return out / np.linalg.norm(out)


def seed(entries: int, duplicate_every: int, short_term: int, promotable: float, texts: list[str], vectors: Any) -> int:
    """Recreate the bench owner with its rows; returns the number of planted duplicates."""
    import numpy as np
    from django.db import connection
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    from accounts import services as account_services
    from episodic.models import ContextEntry, ShortTermMemory
    from episodic.services.contexts import context_create

    from django.contrib.auth.models import User  # isort: skip

    User.objects.filter(username=OWNER).delete()
    owner, _ = account_services.user_ensure(username=OWNER)
    agent = account_services.agent_create(owner=owner, name="bench-agent")
    context = context_create(agent=agent, name="bench-kb", scope="account")
    rng = np.random.default_rng(8)
    now = datetime.now(UTC)
    connection.ensure_connection()
    raw = connection.connection
    register_vector(raw)
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS context_entry_embedding_hnsw")
    raw.commit()
    columns = [
        "id",
        "owner_id",
        "context_id",
        "agent_id",
        "key",
        "entry_type",
        "source_type",
        "memory_type",
        "content",
        "metadata",
        "importance",
        "confidence",
        "version",
        "is_current",
        "source_ref",
        "access_count",
        "embedding",
        "embedding_model",
        "created_at",
        "updated_at",
    ]
    types = [
        "uuid",
        "integer",
        "uuid",
        "uuid",
        "text",
        "text",
        "text",
        "text",
        "text",
        "jsonb",
        "double precision",
        "double precision",
        "integer",
        "boolean",
        "text",
        "integer",
        "vector",
        "text",
        "timestamptz",
        "timestamptz",
    ]
    duplicates = 0
    started = time.perf_counter()
    previous = None
    with (
        raw.cursor() as cursor,
        cursor.copy(
            f"COPY {ContextEntry._meta.db_table} ({', '.join(columns)}) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy,
    ):
        copy.set_types(types)
        for index in range(entries):
            base = index % len(texts)
            if previous is not None and duplicate_every and index % duplicate_every == 0:
                vector, text = _noisy(rng, previous[0], 0.004), previous[1]
                duplicates += 1
            else:
                vector, text = _noisy(rng, vectors[base], 0.04), texts[base]
            previous = (vector, text)
            created = now - timedelta(minutes=entries - index)
            copy.write_row(
                [
                    uuid.uuid4(),
                    owner.pk,
                    context.pk,
                    agent.pk,
                    "",
                    "fact",
                    "agent",
                    "factual",
                    text,
                    Jsonb({"n": index}),
                    float(rng.uniform(0.2, 0.9)),
                    1.0,
                    1,
                    True,
                    "",
                    0,
                    vector,
                    "bench",
                    created,
                    created,
                ]
            )
            if (index + 1) % 10000 == 0:
                print(f"\r  context entries {index + 1}/{entries}", end="", flush=True)
    raw.commit()
    print(f"\r  context entries {entries}/{entries} ({time.perf_counter() - started:.0f} s)")
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(HNSW)
        cursor.execute(f"ANALYZE {ContextEntry._meta.db_table}")
    raw.commit()
    print(f"  HNSW index built in {time.perf_counter() - started:.0f} s")

    columns = [
        "id",
        "owner_id",
        "agent_id",
        "session_id",
        "key",
        "value",
        "memory_type",
        "ttl_seconds",
        "expires_at",
        "access_count",
        "created_at",
        "updated_at",
    ]
    types = [
        "uuid",
        "integer",
        "uuid",
        "text",
        "text",
        "jsonb",
        "text",
        "integer",
        "timestamptz",
        "integer",
        "timestamptz",
        "timestamptz",
    ]
    promote_every = max(1, round(1 / promotable)) if promotable > 0 else 0
    with (
        raw.cursor() as cursor,
        cursor.copy(
            f"COPY {ShortTermMemory._meta.db_table} ({', '.join(columns)}) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy,
    ):
        copy.set_types(types)
        for index in range(short_term):
            promoted = promote_every and index % promote_every == 0
            expired = not promoted and index % 10 < 3
            expires = now - timedelta(minutes=5) if expired else now + timedelta(hours=1)
            reads = 3 if promoted else 1
            copy.write_row(
                [
                    uuid.uuid4(),
                    owner.pk,
                    agent.pk,
                    f"session-{index // 50}",
                    f"key-{index}",
                    Jsonb(texts[index % len(texts)]),
                    "observation",
                    3600,
                    expires,
                    reads,
                    now,
                    now,
                ]
            )
    raw.commit()
    print(f"  short-term entries {short_term}")
    return duplicates


def add_changes(count: int, vectors: Any) -> int:
    """`count` new entries, as a day's writes: half near-duplicates of random old entries, half new facts.
    Returns the near-duplicates planted."""
    import numpy as np

    from episodic.models import ContextEntry

    rng = np.random.default_rng(17)
    old = list(
        ContextEntry.objects.filter(owner__username=OWNER, deprecated_at__isnull=True)
        .order_by("?")
        .values("context_id", "agent_id", "owner_id", "content", "embedding")[: count // 2]
    )
    rows = []
    for index in range(count):
        twin = old[index] if index < len(old) else None
        source = twin or old[index % len(old)]
        if twin is not None:
            vector = _noisy(rng, np.array(twin["embedding"]), 0.004)
        else:
            vector = _noisy(rng, vectors[index % len(vectors)], 0.3)
        rows.append(
            ContextEntry(
                owner_id=source["owner_id"],
                context_id=source["context_id"],
                agent_id=source["agent_id"],
                content=f"{source['content']} (again)" if twin else f"new fact {index}",
                entry_type="fact",
                source_type="agent",
                memory_type="factual",
                embedding=vector,
                embedding_model="bench",
            )
        )
    ContextEntry.objects.bulk_create(rows, batch_size=500)
    return len(old)


def run_job(job: str, env: dict[str, str], *extra: str) -> dict[str, Any]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "run_maintenance", job, *extra],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)  # this child's own rusage: its peak RSS, in kB
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"run_maintenance {job} failed:\n{output}")
    line = output.strip().splitlines()[-1]
    peak_mb = usage.ru_maxrss / 1024
    print(f"  {job}: {wall:.1f} s wall, peak RSS {peak_mb:.0f} MB\n    {line}")
    return {"job": job, "wall_seconds": round(wall, 2), "peak_rss_mb": round(peak_mb), "report": line}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--duplicate-every", type=int, default=20)
    parser.add_argument("--short-term", type=int, default=100_000)
    parser.add_argument("--promotable-share", type=float, default=0.1)
    parser.add_argument("--base-texts", type=int, default=BASE_TEXTS)
    parser.add_argument("--no-consolidation", action="store_true", help="measure dedup only")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()

    state_dir = Path(os.environ.get("LOCI_STATE_DIR") or BASE_DIR / ".state" / "maintenance").resolve()
    os.environ["LOCI_STATE_DIR"] = str(state_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    servers = None
    if not os.environ.get("DATABASE_URL"):
        from memory_site.embedded import EmbeddedServers

        servers = EmbeddedServers(state_dir, database_url=None, redis_url=os.environ.get("REDIS_URL"))
        servers.__enter__()
        os.environ.update(servers.environ())
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        print(f"seeding {args.entries} context entries and {args.short_term} short-term entries (owner {OWNER})")
        texts, vectors = texts_and_vectors(args.base_texts)
        planted = seed(args.entries, args.duplicate_every, args.short_term, args.promotable_share, texts, vectors)
        print(f"  planted duplicates: {planted}")
        from django.db import connection

        connection.close()  # the jobs run in their own processes
        env = {**os.environ}
        figures = [run_job("dedup", env)]
        rerun = run_job("dedup", env)
        print(f"  a second dedup run (the survivors of the first changed; nothing else): {rerun['wall_seconds']} s")
        changes = max(1, args.entries // 100)
        planted_new = add_changes(changes, vectors)
        connection.close()
        print(f"added {changes} entries (1%), {planted_new} of them near-duplicates of old ones")
        incremental = run_job("dedup", env)
        full = run_job("dedup", env, "--full")
        print(
            f"  dedup after 1% new: incremental {incremental['wall_seconds']} s, full {full['wall_seconds']} s "
            "(target: seconds for the incremental run)"
        )
        if not args.no_consolidation:
            figures.append(run_job("consolidation", env))
        if args.out:
            args.out.write_text(
                json.dumps(
                    {
                        "args": vars(args) | {"out": str(args.out)},
                        "planted": planted,
                        "jobs": figures,
                        "dedup_again": rerun,
                        "dedup_incremental_after_1pct": incremental,
                        "dedup_full_after_1pct": full,
                    },
                    indent=2,
                )
            )
        return 0
    finally:
        if servers is not None:
            servers.stop()


if __name__ == "__main__":
    raise SystemExit(main())
