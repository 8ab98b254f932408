"""Speed of the person's /memory pages, forgetting a conversation and export (issue 15, "Speed").

    LOCI_STATE_DIR=… MEMORY_PORT=… .venv/bin/python bench/browser.py [--conversations 2000] [--turns 50]
        [--wings 200] [--other-drawers 900000] [--other-owners 9] [--requests 200] [--out /tmp/browser]

Run it with `make run` going (same checkout, same state folder; raise API_THROTTLE_RATE, e.g.
1000000/min). The first run seeds the person `bench-browser`: --conversations complete conversations of
--turns real LongMemEval turns each (Turn rows too), one room each spread over --wings wings (each room
also linked to a second wing), four closets per room and one drawer per turn, the vectors jittered copies
of the default model's embeddings of 3,000 real turns (as bench/recall_latency.py does); other owners
get --other-drawers drawers with recall_latency's own seeding (one room each). Rows go in with binary
COPY and bulk inserts, a hundred conversations per transaction, with the drawer HNSW and full-text
indexes dropped and rebuilt once around the load. Later runs add only what is missing.

Then, logged in as the person with a Django session, --requests GETs per page kind (the palace root, a
wing, a room, a closet, a drawer, a search), varied ids, pages and queries, are timed from a client on
the same machine (so "server-side" includes the loopback HTTP round trip; the client shares the 2 cores);
a 500-turn conversation is posted through the API, mined by the worker, and its DELETE timed (receipt
included); and GET /api/v1/export is streamed while the gunicorn workers' resident memory is sampled.
Prints p50/p95/p99 per page kind, the forget time, export drawers/s and RSS; writes OUT/summary.json.
Targets (issue 15): pages p95 <= 150 ms with 100k drawers for the person among 1M in the table; forget
<= 2 s; export >= 5,000 drawers/s with flat memory.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import psutil
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.recall_latency import BASE_TEXTS, DATA, INDEXES, START, seed, setup_django

PERSON = "bench-browser"
PASSWORD = "bench-browser-password"
PREFIX = "bench-browser-"
BATCH = 100  # conversations per transaction
CLOSETS = 4
ADJECTIVES = ["Garden", "Kitchen", "Travel", "Office", "Music", "Family", "Health", "Money", "Reading", "Weekend"]
NOUNS = (
    "plans notes ideas projects trips recipes budget books friends habits "
    "goals repairs classes games photos events tools pets shopping letters"
).split()
DRAWER_COLUMNS = {
    "owner_id": "integer",
    "room_id": "bigint",
    "closet_id": "bigint",
    "conversation_id": "uuid",
    "turn_index": "integer",
    "number": "integer",
    "role": "text",
    "content": "text",
    "occurred_at": "timestamptz",
    "aaak": "text",
    "tags": "jsonb",
    "search_text": "text",
    "embedding": "vector",
    "embedding_model": "text",
    "stated_preference": "boolean",
    "pinned": "boolean",
    "never_recall": "boolean",
    "created_at": "timestamptz",
}


def _wings(owner: Any, count: int) -> list[Any]:
    from palace.models import Wing
    from palace.services.filing import next_numbers

    wings = list(Wing.objects.filter(owner=owner).order_by("number"))
    if len(wings) >= count:
        return wings[:count]
    names = {wing.name for wing in wings}
    fresh = [f"{a} {n}" for n in NOUNS for a in ADJECTIVES if f"{a} {n}" not in names][: count - len(wings)]
    kinds = ["topic", "person", "project", "place", "organisation", "work"]
    numbers = next_numbers(owner.pk, "wing", len(fresh))
    Wing.objects.bulk_create(
        Wing(
            owner=owner, number=number, kind=kinds[number % len(kinds)], name=name, slug=name.lower().replace(" ", "-")
        )
        for number, name in zip(numbers, fresh, strict=True)
    )
    return list(Wing.objects.filter(owner=owner).order_by("number"))[:count]


def _seed_batch(owner: Any, first: int, last: int, args: argparse.Namespace, wings: list[Any], base: Any) -> None:
    """Conversations first..last-1 of the person, with their turns, rooms, closets and drawers."""
    import numpy as np
    from django.db import connection, transaction
    from pgvector.psycopg import register_vector
    from psycopg.types.json import Jsonb

    from palace.models import Closet, Conversation, Room, Turn
    from palace.services.filing import next_numbers

    texts, vectors = base
    rng = np.random.default_rng(first)
    with transaction.atomic():
        conversations = Conversation.objects.bulk_create(
            Conversation(
                owner=owner,
                external_id=f"{PREFIX}{index:05d}",
                title="",
                started_at=START + timedelta(hours=8 * index),
                complete=True,
                turn_count=args.turns,
            )
            for index in range(first, last)
        )
        text_of = {
            (c.pk, t): (first + n) * args.turns + t for n, c in enumerate(conversations) for t in range(args.turns)
        }
        Turn.objects.bulk_create(
            Turn(
                conversation=c,
                index=t,
                role="user" if t % 2 == 0 else "assistant",
                content=texts[text_of[c.pk, t] % len(texts)],
                timestamp=c.started_at + timedelta(minutes=t),
            )
            for c in conversations
            for t in range(args.turns)
        )
        room_numbers = next_numbers(owner.pk, "room", len(conversations))
        rooms = Room.objects.bulk_create(
            Room(
                owner=owner,
                wing=wings[(first + n) % len(wings)],
                conversation=c,
                number=room_numbers[n],
                title=texts[text_of[c.pk, 0] % len(texts)][:60],
                started_at=c.started_at,
                ended_at=c.started_at + timedelta(minutes=args.turns),
            )
            for n, c in enumerate(conversations)
        )
        Room.linked_wings.through.objects.bulk_create(
            Room.linked_wings.through(room_id=room.pk, wing_id=wings[(first + n + 7) % len(wings)].pk)
            for n, room in enumerate(rooms)
        )
        per_closet = -(-args.turns // CLOSETS)
        closets = Closet.objects.bulk_create(
            Closet(
                owner=owner,
                room=room,
                position=p,
                topic=" ".join(texts[text_of[c.pk, p * per_closet] % len(texts)].split()[:4])[:200],
                slug=f"topic-{p}",
            )
            for c, room in zip(conversations, rooms, strict=True)
            for p in range(CLOSETS)
        )
        closet_of = {(closet.room_id, closet.position): closet.pk for closet in closets}
        drawer_numbers = next_numbers(owner.pk, "drawer", len(conversations) * args.turns)
        now = START + timedelta(days=800)
        connection.ensure_connection()
        register_vector(connection.connection)
        statement = f"COPY palace_drawer ({', '.join(DRAWER_COLUMNS)}) FROM STDIN WITH (FORMAT BINARY)"
        with connection.connection.cursor() as cursor, cursor.copy(statement) as copy:
            copy.set_types(list(DRAWER_COLUMNS.values()))
            position = 0
            for n, (c, room) in enumerate(zip(conversations, rooms, strict=True)):
                wing = wings[(first + n) % len(wings)]
                for t in range(args.turns):
                    text = text_of[c.pk, t] % len(texts)
                    vector = vectors[text] + rng.normal(0, 0.04, vectors.shape[1]).astype(np.float32)
                    vector /= np.linalg.norm(vector)
                    number = drawer_numbers[position]
                    position += 1
                    copy.write_row(
                        [
                            owner.pk,
                            room.pk,
                            closet_of[room.pk, t // per_closet],
                            c.pk,
                            t,
                            number,
                            "user" if t % 2 == 0 else "assistant",
                            texts[text],
                            c.started_at + timedelta(minutes=t),
                            f"§ W-{wing.number:03d}/R-{room.number:02d}/D-{number:03d}",
                            Jsonb({}),
                            texts[text],
                            vector,
                            "bench",
                            False,
                            False,
                            False,
                            now,
                        ]
                    )


def seed_all(args: argparse.Namespace) -> Any:
    import numpy as np
    from django.db import connection

    from accounts import services as account_services
    from memory_site.lib.embeddings import LocalMiniLMEmbedder
    from palace.models import Conversation, Drawer

    records = json.load(gzip.open(args.data))
    texts = [t["content"][:600] for r in records for s in r["haystack_sessions"] for t in s][:BASE_TEXTS]
    owner, _ = account_services.user_ensure(username=PERSON, password=PASSWORD)
    owner.set_password(PASSWORD)
    owner.save(update_fields=["password"])
    have = Conversation.objects.filter(owner=owner, external_id__startswith=PREFIX).count()
    others = [(f"{PREFIX}other-{i}", args.other_drawers // max(args.other_owners, 1)) for i in range(args.other_owners)]
    missing_others = sum(max(0, n - Drawer.objects.filter(owner__username=name).count()) for name, n in others)
    if have < args.conversations or missing_others:
        print(f"embedding {len(texts)} base texts with the default model…", flush=True)
        embedder = LocalMiniLMEmbedder()
        vectors: list[Any] = []
        for start in range(0, len(texts), 200):
            vectors += embedder.embed_documents(texts[start : start + 200]).vectors
            print(f"\r  {min(start + 200, len(texts))}/{len(texts)}", end="", flush=True)
        print()
        base = (texts, np.array(vectors, dtype=np.float32))
        with connection.cursor() as cursor:
            for name in INDEXES:
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
        wings = _wings(owner, args.wings)
        started = time.perf_counter()
        for first in range(have, args.conversations, BATCH):
            last = min(first + BATCH, args.conversations)
            _seed_batch(owner, first, last, args, wings, base)
            rate = (last - have) * args.turns / (time.perf_counter() - started)
            print(f"\r  {PERSON}: {last}/{args.conversations} conversations ({rate:.0f} drawers/s)", end="", flush=True)
        print()
        for position, (name, count) in enumerate(others):
            seed(name, count, texts, base[1], 100 + position)
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '4GB'")
            cursor.execute("SET max_parallel_maintenance_workers = 2")
            for name, statement in INDEXES.items():
                print(f"building {name}…", flush=True)
                started = time.perf_counter()
                cursor.execute(statement)
                print(f"  built in {time.perf_counter() - started:.0f}s", flush=True)
            for table in ("palace_drawer", "palace_room", "palace_closet", "palace_turn", "palace_conversation"):
                cursor.execute(f"ANALYZE {table}")
    return owner, texts, [r["question"] for r in records]


def login(url: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{url}/accounts/login/").raise_for_status()
    answer = session.post(
        f"{url}/accounts/login/",
        data={"username": PERSON, "password": PASSWORD, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        allow_redirects=False,
    )
    assert answer.status_code == 302 and "sessionid" in session.cookies, f"login failed: {answer.status_code}"
    return session


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)  # noqa: E731
    return {"p50": round(statistics.median(ordered), 1), "p95": pick(0.95), "p99": pick(0.99), "n": len(ordered)}


def time_pages(session: requests.Session, url: str, paths: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    figures = {}
    for kind, kind_paths in paths.items():
        for path in kind_paths[:10]:  # warm the caches
            session.get(url + path)
        times = []
        for number, path in enumerate(kind_paths):
            started = time.perf_counter()
            answer = session.get(url + path)
            times.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, f"{path}: {answer.status_code}"
            if (number + 1) % 50 == 0:
                print(f"\r  {kind}: {number + 1}/{len(kind_paths)}", end="", flush=True)
        figures[kind] = percentiles(times)
        shown = "  ".join(f"{name} {figures[kind][name]:6.1f} ms" for name in ("p50", "p95", "p99"))
        print(f"\r  {kind:7} {shown}", flush=True)
    return figures


def page_paths(owner: Any, texts: list[str], questions: list[str], count: int) -> dict[str, list[str]]:
    from urllib.parse import quote

    from palace.models import Closet, Drawer, Room, Wing

    def sample(model: Any) -> list[int]:
        return list(model.objects.filter(owner=owner).order_by("?").values_list("pk", flat=True)[:count])

    rng = random.Random(15)
    queries = questions + [" ".join(rng.choice(texts).split()[:8]) for _ in range(count)]
    wings = sample(Wing)
    return {
        "root": [f"/memory?page={1 + i % 20}&wings={1 + i % 4}" for i in range(count)],
        "wing": [f"/memory/wings/{wings[i % len(wings)]}?page={1 + i % 3}" for i in range(count)],
        "room": [f"/memory/rooms/{pk}" for pk in sample(Room)],
        "closet": [f"/memory/closets/{pk}" for pk in sample(Closet)],
        "drawer": [f"/memory/drawers/{pk}" for pk in sample(Drawer)],
        "search": [f"/memory/search?q={quote(q)}" for q in queries[:count]],
    }


def forget_conversation(url: str, key: str, texts: list[str], turns: int) -> dict[str, Any]:
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {key}"
    external_id = f"bench-forget-{int(time.time())}"
    body: dict[str, Any] = {
        "conversation_id": external_id,
        "complete": True,
        "turns": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": texts[i % len(texts)]} for i in range(turns)
        ],
    }
    answer = api.post(f"{url}/api/v1/conversations", json=body)
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["job_id"]
    started = time.perf_counter()
    while True:
        job = api.get(f"{url}/api/v1/jobs/{job_id}").json()
        print(f"\r  mining {turns} turns: {job['status']} ({time.perf_counter() - started:.0f}s)", end="", flush=True)
        if job["status"] in ("done", "failed"):
            break
        time.sleep(1)
    print()
    assert job["status"] == "done", job
    started = time.perf_counter()
    answer = api.delete(f"{url}/api/v1/conversations/{external_id}")
    seconds = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    receipt = answer.json()["receipt"]
    print(f"  forget: {seconds:.2f} s, receipt {receipt['id']} counts {receipt['counts']}")
    return {"turns": turns, "mined": job["counts"], "seconds": round(seconds, 3), "counts": receipt["counts"]}


def web_workers(port: int) -> list[psutil.Process]:
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if (
            "gunicorn" in line
            and f":{port}" in line
            and process.parent()
            and "gunicorn" not in " ".join(process.parent().cmdline())
        ):
            return process.children()
    raise SystemExit(f"no gunicorn listening on :{port}")


def export(url: str, key: str, port: int) -> dict[str, Any]:
    workers = web_workers(port)

    def rss() -> dict[int, float]:
        return {w.pid: round(w.memory_info().rss / 2**20, 1) for w in workers}

    before, peak, done = rss(), rss(), threading.Event()

    def sample() -> None:
        while not done.is_set():
            for pid, mb in rss().items():
                peak[pid] = max(peak[pid], mb)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    drawers, size, tail, shown = 0, 0, b"", 0
    started = time.perf_counter()
    with requests.get(f"{url}/api/v1/export", headers={"Authorization": f"Bearer {key}"}, stream=True) as answer:
        answer.raise_for_status()
        for chunk in answer.raw.stream(1 << 16, decode_content=True):
            size += len(chunk)
            block = tail + chunk
            drawers += block.count(b'\n{"type":"drawer"')
            tail = block[-20:]
            if drawers >= shown + 10000:
                shown = drawers
                print(f"\r  export: {drawers} drawers", end="", flush=True)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    after = rss()
    rss_mb = {str(pid): {"before": before[pid], "peak": peak[pid], "after": after[pid]} for pid in before}
    figures: dict[str, Any] = {
        "drawers": drawers,
        "seconds": round(seconds, 2),
        "drawers_per_s": round(drawers / seconds),
        "megabytes": round(size / 2**20, 1),
        "rss_mb": rss_mb,
    }
    print(
        f"\r  export: {drawers} drawers in {seconds:.1f} s = {drawers / seconds:.0f} drawers/s, {size / 2**20:.0f} MB"
    )
    for pid, mb in rss_mb.items():
        print(f"  web worker {pid} RSS: before {mb['before']} MB, peak {mb['peak']} MB, after {mb['after']} MB")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--wings", type=int, default=200)
    parser.add_argument("--other-drawers", type=int, default=900_000, help="in all, across --other-owners")
    parser.add_argument("--other-owners", type=int, default=9)
    parser.add_argument("--requests", type=int, default=200, help="per page kind")
    parser.add_argument("--forget-turns", type=int, default=500)
    parser.add_argument("--skip", nargs="*", default=[], choices=["pages", "forget", "export"])
    parser.add_argument("--data", type=Path, default=DATA, help="LongMemEval data (the workspace's shared/data/)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/browser"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("MEMORY_PORT", "8002")))
    args = parser.parse_args()
    url = f"http://127.0.0.1:{args.port}"
    setup_django()
    from accounts import services as account_services
    from palace.models import Drawer

    owner, texts, questions = seed_all(args)
    sizes = {"person_drawers": Drawer.objects.filter(owner=owner).count(), "table_drawers": Drawer.objects.count()}
    print(f"{sizes['person_drawers']} drawers for the person, {sizes['table_drawers']} in the table", flush=True)
    summary: dict[str, Any] = {"sizes": sizes, "timing": "client on the same machine, loopback HTTP"}
    agent = account_services.agent_ensure(owner=owner, name="bench-agent")[0]
    key = account_services.api_key_issue(agent=agent, name="bench").raw_key
    if "pages" not in args.skip:
        print(f"timing {args.requests} GETs per page kind…", flush=True)
        summary["pages_ms"] = time_pages(login(url), url, page_paths(owner, texts, questions, args.requests))
    if "forget" not in args.skip:
        print(f"forgetting a {args.forget_turns}-turn conversation…", flush=True)
        summary["forget"] = forget_conversation(url, key, texts, args.forget_turns)
    if "export" not in args.skip:
        print("exporting…", flush=True)
        summary["export"] = export(url, key, args.port)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {args.out / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
