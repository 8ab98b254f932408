"""How long `make run` takes until /health reports every component up, and whether Ctrl-C leaves
no process behind. Run from the checkout:

    .venv/bin/python bench/startup.py [--runs 3] [--port 8012]

Prints each run's seconds to "all up" and to "all stopped", then the medians. Uses the checkout's own
state folder unless LOCI_STATE_DIR is set (a first run includes initdb and the migrations).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
SERVICE_PROCESSES = (
    "postgres",
    "redis-server",
    "celery -A memory_site",
    "gunicorn memory_site",
    "memory_site.launcher",
)


def _health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=3) as response:
            return dict(json.load(response))
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def _leftovers() -> list[str]:
    """Every process of the kinds `make run` starts (on a machine that runs no other PostgreSQL/Redis)."""
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout.splitlines()
    # An exited daemon shows as <defunct> until init reaps it, a moment later: it runs nothing.
    return [line for line in ps if any(name in line for name in SERVICE_PROCESSES) and "<defunct>" not in line]


def one_run(port: int, timeout: float) -> tuple[float, float, list[str]]:
    env = {**os.environ, "MEMORY_PORT": str(port)}
    started = time.monotonic()
    process = subprocess.Popen(
        ["make", "run"], cwd=BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    up_after = float("nan")
    while time.monotonic() - started < timeout:
        report = _health(port)
        if report and report.get("status") == "ok":
            up_after = time.monotonic() - started
            break
        time.sleep(0.25)
    stop_started = time.monotonic()
    process.send_signal(signal.SIGINT)
    # make forwards nothing on SIGINT outside a terminal; the launcher is what a terminal's Ctrl-C reaches.
    subprocess.run(["pkill", "-INT", "-f", "memory_site.launcher run"], check=False)
    process.wait(timeout=60)
    time.sleep(0.5)
    return up_after, time.monotonic() - stop_started, _leftovers()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--port", type=int, default=8012)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    ups, downs = [], []
    for index in range(args.runs):
        up, down, leftovers = one_run(args.port, args.timeout)
        ups.append(up)
        downs.append(down)
        print(
            f"run {index + 1}/{args.runs}: all up after {up:.1f}s, all stopped {down:.1f}s after SIGINT, "
            f"leftover processes: {len(leftovers)}",
            flush=True,
        )
        for line in leftovers:
            print(f"    {line}")
    print(f"median: up {statistics.median(ups):.1f}s, stop {statistics.median(downs):.1f}s over {args.runs} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
