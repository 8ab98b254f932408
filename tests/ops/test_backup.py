"""Backup and restore (issue 19 §6): a populated instance is backed up with `manage.py backup`, restored
with `manage.py restore` into a fresh, empty database and an empty Redis database, and every owner's
export from the restored instance equals the original's byte for byte (embeddings included); working
memory comes back with its TTL."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.conf import settings
from django.db import connection

from ledger import redis_store
from ledger import services as ledger_services
from tests.conftest import Personas
from tests.fixtures.celery_worker import _test_database_url
from tests.palace.test_export_import import remembered  # noqa: F401 - the populated owner

pytestmark = pytest.mark.django_db(transaction=True)
BASE_DIR = Path(__file__).resolve().parents[2]


def _manage(*args: str, database_url: str, redis_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    command = [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=300)


def _other_redis_db(url: str, db: int) -> str:
    """The same Redis server, another database: `?db=N` for a socket, `/N` for TCP."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = "&".join(p for p in parts.query.split("&") if p and not p.startswith("db="))
        return f"unix://{parts.path}?" + f"{query}&db={db}".lstrip("&")
    return urlunsplit(parts._replace(path=f"/{db}"))


def _export(owner_name: str, database_url: str, redis_url: str, out: Path) -> list[str]:
    done = _manage(
        "export_memory",
        "--user",
        owner_name,
        "--with-embeddings",
        "--out",
        str(out),
        database_url=database_url,
        redis_url=redis_url,
    )
    assert done.returncode == 0, done.stderr
    return out.read_text().splitlines()


def test_a_backup_restored_into_a_fresh_instance_exports_the_same_memory(
    remembered: Personas,  # noqa: F811
    tmp_path: Path,
) -> None:
    owners = [remembered.owner.user, remembered.outsider.user]
    ledger_services.working_memory_merge(owner_id=owners[0].pk, conversation_id="c1", fields={"step": "stake"})
    source_db, source_redis = _test_database_url(), settings.REDIS_URL
    before = {
        owner.username: _export(owner.username, source_db, source_redis, tmp_path / f"{owner.username}.jsonl")
        for owner in owners
    }
    assert any(line.startswith('{"type":"drawer"') for line in before[owners[0].username])

    done = _manage("backup", "--out", str(tmp_path / "backup"), database_url=source_db, redis_url=source_redis)
    assert done.returncode == 0, done.stderr
    assert "postgres:" in done.stderr and "redis:" in done.stderr  # progress was shown

    name = f"loci_restore_{uuid.uuid4().hex[:8]}"
    restored_db = urlunsplit(urlsplit(source_db)._replace(path=f"/{name}"))
    restored_redis = _other_redis_db(source_redis, 7)
    fresh = redis.Redis.from_url(restored_redis)
    fresh.flushdb()
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {name}")
    try:
        done = _manage("restore", str(tmp_path / "backup"), database_url=restored_db, redis_url=restored_redis)
        assert done.returncode == 0, done.stderr
        again = _manage("restore", str(tmp_path / "backup"), database_url=restored_db, redis_url=restored_redis)
        assert again.returncode != 0 and "empty" in again.stderr  # never over data by accident
        for owner in owners:
            after = _export(owner.username, restored_db, restored_redis, tmp_path / f"{owner.username}-restored.jsonl")
            assert after[1:] == before[owner.username][1:]  # the header holds the export's own time
        key = redis_store.working_memory_key(owners[0].pk, "c1")
        assert fresh.hget(key, "step") == b'"stake"' and fresh.ttl(key) > 0
    finally:
        fresh.flushdb()
        with connection.cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
