"""The process list `make run` starts — web, a mining worker on its own queue, a worker for the other
queues, beat — run against servers given as if external (DATABASE_URL and REDIS_URL: the suite's own
PostgreSQL, in a database of its own, and another Redis database), each queue consumed by its worker."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from celery import Celery

from memory_site import queues
from memory_site.config import BASE_DIR
from memory_site.settings import celery_url

REDIS_DB = 7  # the suite's Redis database is 0: the queues here are apart from the test worker's


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _redis_url() -> str:
    url = os.environ["REDIS_URL"]
    if url.startswith("unix://"):
        return f"{url.split('?')[0]}?db={REDIS_DB}"
    return urlunsplit(urlsplit(url)._replace(path=f"/{REDIS_DB}"))


@pytest.fixture
def external_database() -> Iterator[str]:
    name = f"loci_topology_{uuid.uuid4().hex[:8]}"
    source = urlsplit(os.environ["DATABASE_URL"])
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(source._replace(path=f"/{name}"))
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _get(url: str, key: str | None = None) -> dict[str, object]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        return dict(json.load(response))


def _wait_until_healthy(base: str, launcher: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert launcher.poll() is None, f"make run stopped:\n{log.read_text()[-3000:]}"
        try:
            if _get(f"{base}/health")["status"] == "ok":
                return
        except OSError:
            pass
        time.sleep(1)
    pytest.fail(f"not healthy within 240 s:\n{log.read_text()[-3000:]}")


def test_web_two_workers_on_named_queues_and_beat_against_external_servers(
    external_database: str, tmp_path: Path
) -> None:
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": external_database,
        "REDIS_URL": _redis_url(),
        "MEMORY_PORT": str(port),
        "LOCI_STATE_DIR": str(tmp_path / "state"),
    }
    log = tmp_path / "run.log"
    command = [sys.executable, "-m", "memory_site.launcher", "run"]
    with log.open("wb") as output:
        # Its own process group, as in a terminal: Ctrl-C reaches the launcher and every child at once.
        launcher = subprocess.Popen(
            command, env=env, cwd=BASE_DIR, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    base = f"http://127.0.0.1:{port}"
    broker = Celery(broker=celery_url(env["REDIS_URL"]), backend=celery_url(env["REDIS_URL"]))
    broker.conf.task_routes = queues.ROUTES
    try:
        _wait_until_healthy(base, launcher, log)
        consumed: dict[str, set[str]] = {}
        deadline = time.monotonic() + 60  # /health is up with the first worker; the second may trail it
        while len(consumed) < 2 and time.monotonic() < deadline:
            consumed = {
                host.split("@")[0]: {q["name"] for q in found}
                for host, found in (broker.control.inspect(timeout=2).active_queues() or {}).items()
            }
        assert consumed == {
            "mining": {queues.MINING},
            "worker": {queues.DEFAULT, queues.MAINTENANCE, queues.WEBHOOKS},
        }

        # A conversation posted over HTTP is mined through the mining queue.
        minted = subprocess.run(
            [sys.executable, "manage.py", "issue_api_key", "--user", "topology", "--agent", "agent"],
            env=env,
            cwd=BASE_DIR,
            capture_output=True,
            text=True,
            check=True,
        )
        key = minted.stdout.strip().splitlines()[-1]
        body = {"conversation_id": "c1", "complete": True, "turns": [{"role": "user", "content": "Hello Rachel."}]}
        request = urllib.request.Request(
            f"{base}/api/v1/conversations",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            job_id = json.load(response)["job_id"]
        deadline = time.monotonic() + 120
        while (job := _get(f"{base}/api/v1/jobs/{job_id}", key))["status"] not in ("done", "failed"):
            assert time.monotonic() < deadline, f"mining job still {job['status']}:\n{log.read_text()[-3000:]}"
            time.sleep(0.5)
        assert job["status"] == "done" and job["counts"]["drawers"] == 1  # type: ignore[index]

        # A maintenance job is routed to the maintenance queue, which the other worker runs.
        result = broker.send_task("episodic.expired_cleanup")
        assert result.get(timeout=60) is not None
    finally:
        os.killpg(launcher.pid, signal.SIGINT)  # Ctrl-C
        try:
            launcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            launcher.kill()
            launcher.wait()
    assert launcher.returncode == 0, log.read_text()[-3000:]
    # Each child stopped by itself on the Ctrl-C: none had to be killed (under `make run`, a SIGTERM sent in the
    # middle of its own shutdown had kept celery beat from exiting until the grace ran out).
    assert "did not stop" not in log.read_text() and "SIGKILL" not in log.read_text(), log.read_text()[-3000:]
    # Every process it started stopped with it: no worker answers, nothing listens on the port.
    assert broker.control.ping(timeout=1) == []
    broker.close()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
