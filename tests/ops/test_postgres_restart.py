"""PostgreSQL restarted under load (issue 19 §3), with real processes: the service as `make run` starts it,
on embedded servers of its own (a fresh state folder), and `bench/faults.py` calling it while its
PostgreSQL is stopped and started again. During the outage every answer is a 2xx or a 503 in the
envelope and none hangs; afterwards every endpoint answers again without a restart, and every turn
acknowledged before, during and after is mined into a drawer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from memory_site.config import BASE_DIR
from tests.ops.test_topology import _free_port, _wait_until_healthy


def test_postgres_restarted_under_load_fails_cleanly_and_recovers_by_itself(tmp_path: Path) -> None:
    port = _free_port()
    # No DATABASE_URL / REDIS_URL: this instance starts embedded servers of its own, like `make run`.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env |= {"MEMORY_PORT": str(port), "LOCI_STATE_DIR": str(tmp_path / "state"), "WEB_CONCURRENCY": "2"}
    log = tmp_path / "run.log"
    with log.open("wb") as output:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "memory_site.launcher", "run"],
            env=env,
            cwd=BASE_DIR,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(base, launcher, log)
        command = [
            *(sys.executable, "bench/faults.py", "--url", base, "--clients", "6"),
            *("--before", "3", "--down", "4", "--after", "8", "--out", str(tmp_path / "faults")),
        ]
        done = subprocess.run(command, env=env, cwd=BASE_DIR, capture_output=True, text=True, timeout=400)
    finally:
        launcher.send_signal(signal.SIGINT)
        try:
            launcher.wait(timeout=60)
        except subprocess.TimeoutExpired:
            launcher.kill()
            launcher.wait()
    summary = json.loads((tmp_path / "faults" / "summary.json").read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:] + log.read_text()[-2000:]
    during = summary["during_outage"]
    # The outage was real (database paths answered 503) and Redis-only paths went on serving.
    assert any(k.endswith(" 503") for k in during) and any(k.startswith("wm 2") for k in during)
    assert summary["not_2xx_or_503_envelope"] == 0 and summary["over_limit"] == 0
    assert summary["recovered_within_s"] <= 5 and summary["unreadable_conversations"] == []
