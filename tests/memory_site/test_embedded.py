"""The embedded servers are real: data survives a restart, and whoever starts one stops only that one."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from memory_site import embedded


@pytest.fixture
def state_dir() -> Iterator[Path]:
    # Under /tmp with a short name: pgserver opens every parent folder to its system user, and a short
    # path keeps the sockets inside the state folder.
    with tempfile.TemporaryDirectory(prefix="loci-emb-") as folder:
        path = Path(folder)
        try:
            yield path
        finally:
            embedded.stop_redis(path)
            embedded.stop_postgres(path)


def test_postgres_data_survives_a_restart(state_dir: Path) -> None:
    url = embedded.start_postgres(state_dir)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        connection.execute("CREATE TABLE notes (body text, embedding vector(3))")
        connection.execute("INSERT INTO notes VALUES ('kept across restarts', '[1,2,3]')")
    embedded.stop_postgres(state_dir)
    assert embedded.postgres_url(state_dir) is None

    url = embedded.start_postgres(state_dir)
    with psycopg.connect(url) as connection:
        rows = connection.execute("SELECT body, embedding::text FROM notes").fetchall()
    assert rows == [("kept across restarts", "[1,2,3]")]


def test_redis_data_survives_a_restart(state_dir: Path) -> None:
    client = redis.Redis.from_url(embedded.start_redis(state_dir))
    client.set("kept", "yes")
    client.close()
    embedded.stop_redis(state_dir)
    assert embedded.redis_url(state_dir) is None

    client = redis.Redis.from_url(embedded.start_redis(state_dir))
    assert client.get("kept") == b"yes"
    client.close()


def test_servers_already_running_are_left_running(state_dir: Path) -> None:
    with embedded.EmbeddedServers(state_dir, database_url=None, redis_url=None) as outer:
        assert outer.started == ["postgres", "redis"]
        with embedded.EmbeddedServers(state_dir, database_url=None, redis_url=None) as inner:
            assert inner.started == []
            assert inner.environ() == outer.environ()
        assert embedded.postgres_url(state_dir) is not None
        assert embedded.redis_url(state_dir) is not None
    assert embedded.postgres_url(state_dir) is None
    assert embedded.redis_url(state_dir) is None


def test_external_urls_start_nothing(state_dir: Path) -> None:
    given = {"database_url": "postgresql://db.example/loci", "redis_url": "redis://cache.example:6379/0"}
    with embedded.EmbeddedServers(state_dir, **given) as servers:
        assert servers.started == []
        assert servers.environ() == {"DATABASE_URL": given["database_url"], "REDIS_URL": given["redis_url"]}
    assert not (state_dir / "postgres").exists()
