"""The soak bench in CI (issue 19 §4, the short version): 10 agents of three owners for a minute against the
live test server and a real worker, then every acknowledged write is read back. SOAK_SECONDS shortens or
lengthens it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.factories import make_persona, make_user

pytestmark = pytest.mark.django_db(transaction=True)
BASE_DIR = Path(__file__).resolve().parent.parent.parent


def test_a_short_soak_loses_nothing_and_has_no_server_errors(
    live_server: Any, celery_worker: str, tmp_path: Path
) -> None:
    owners = [make_user("soak") for _ in range(3)]
    keys = [{"key": make_persona(user=owners[i % 3]).key, "owner": owners[i % 3].username} for i in range(10)]
    (tmp_path / "keys.json").write_text(json.dumps(keys))
    seconds = os.environ.get("SOAK_SECONDS", "60")
    command = [
        *(sys.executable, "bench/soak.py", "--url", live_server.url, "--keys", str(tmp_path / "keys.json")),
        *("--agents", "10", "--seconds", seconds, "--out", str(tmp_path), "--no-rss", "--job-wait", "120"),
    ]
    done = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=float(seconds) + 400)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert summary["server_errors"] == 0 and summary["writes_lost"] == 0 and not summary["errors"]
    assert summary["writes_checked"] > 50 and set(summary["requests_by_op"]) >= {"append", "recall", "wm_put"}
