"""`manage.py check --deploy` passes with the settings of a deployment behind TLS (issue 19 §5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]


def _check(**env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    # The browser tests' conftest sets DJANGO_ALLOW_ASYNC_UNSAFE for the suite's process; no deployment has it.
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    full_env = {**inherited, "DJANGO_DEBUG": "false", **env}
    return subprocess.run(command, cwd=BASE_DIR, env=full_env, capture_output=True, text=True, timeout=120)


def test_check_deploy_passes_behind_tls() -> None:
    done = _check(DJANGO_HTTPS="true")
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_deploy_names_what_plain_http_lacks() -> None:
    done = _check(DJANGO_HTTPS="false")
    assert done.returncode != 0 and "SESSION_COOKIE_SECURE" in done.stdout + done.stderr
