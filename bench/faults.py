"""Faults with real processes (issue 19 §3), the scenarios that need the running service: PostgreSQL
restarted under load.

    .venv/bin/python bench/faults.py [--url http://127.0.0.1:8002] [--clients 8] [--down 5] [--out DIR]

With `make run` going on the embedded servers (the state folder LOCI_STATE_DIR, default .state), clients
keep calling the service — recall, appending turns, working memory, the palace list, /health — while the
embedded PostgreSQL is stopped (fast shutdown: sessions cut, as in a crash or a failover) for `--down`
seconds and started again. Every answer is recorded with its time and latency. Targets: during the
outage every answer is a 2xx (Redis-only paths such as working memory go on) or a 503 in the one envelope,
none takes longer than the database's connect timeout plus a margin (5 s + 1 s), nothing hangs; after
PostgreSQL is back every endpoint answers 2xx again within 5 s, without restarting the service; and every
turn acknowledged before, during and after is stored (each conversation is completed at the end, mined
by the running worker, and must hold one drawer per acknowledged turn). Writes DIR/summary.json
(default /tmp/faults) and exits 1 when a target is missed. CI runs it against an instance of its own
(tests/ops/test_postgres_restart.py).

The other faults are tests of the suite: Redis stopped (tests/ledger/test_redis_down.py) and frozen
(tests/ops/test_redis_frozen.py), a worker killed mid-mining (tests/palace/test_mining_crash.py), the
embedder failing (tests/episodic/test_backfill.py) and two beats (tests/ops/test_two_beats.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
SLOW_LIMIT_S = 6.0  # connect timeout (5 s) + margin
RECOVERY_LIMIT_S = 5.0


def postgres(state_dir: Path, action: str) -> None:
    """Stop (fast shutdown: sessions cut) or start the embedded PostgreSQL, as `make run` does."""
    from memory_site.embedded import start_postgres, stop_postgres

    (stop_postgres if action == "stop" else start_postgres)(state_dir)


class Client(threading.Thread):
    def __init__(self, url: str, key: str, index: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.http = httpx.Client(base_url=f"{url}/", headers={"Authorization": f"Bearer {key}"}, timeout=30)
        self.index, self.stop_event = index, stop
        self.answers: list[tuple[float, str, int, float, bool]] = []  # (time, op, status, seconds, envelope)
        self.turns: dict[str, int] = {}
        self.conversation = f"faults-{index}-{uuid.uuid4().hex[:6]}"

    def run(self) -> None:
        ops = ["recall", "append", "wm", "wings", "health"]
        n = 0
        while not self.stop_event.is_set():
            op = ops[n % len(ops)]
            n += 1
            start = time.perf_counter()
            try:
                response = self._call(op, n)
                status = response.status_code
                body = response.json()
                # /health answers in its own shape (components and their status), everything else in the envelope.
                envelope = status < 400 or "message" in body or (op == "health" and "components" in body)
                if op == "append" and status == 202:
                    self.turns[self.conversation] = int(response.json()["turns"])
            except (httpx.HTTPError, ValueError):
                status, envelope = 0, False
            self.answers.append((time.time(), op, status, time.perf_counter() - start, envelope))
            time.sleep(0.02)

    def _call(self, op: str, n: int) -> httpx.Response:
        if op == "recall":
            return self.http.post("api/v1/recall", json={"query": "what did I plan for the garden", "top_k": 5})
        if op == "append":
            turns = [{"role": "user", "content": f"Note {n} from client {self.index}: water the tomatoes."}]
            if self.conversation not in self.turns:
                return self.http.post(
                    "api/v1/conversations", json={"conversation_id": self.conversation, "turns": turns}
                )
            return self.http.post(f"api/v1/conversations/{self.conversation}/turns", json={"turns": turns})
        if op == "wm":
            return self.http.put(f"api/v1/working-memory/{self.conversation}", json={"fields": {"n": n}})
        if op == "wings":
            return self.http.get("api/v1/palace/wings")
        return self.http.get("health")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8002")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--down", type=float, default=5.0, help="seconds PostgreSQL stays stopped")
    parser.add_argument("--before", type=float, default=5.0)
    parser.add_argument("--after", type=float, default=10.0)
    parser.add_argument("--out", type=Path, default=Path("/tmp/faults"))
    args = parser.parse_args()
    state_dir = Path(os.environ.get("LOCI_STATE_DIR", BASE_DIR / ".state"))

    command = [sys.executable, "manage.py", "issue_api_key", "--user", "faults", "--agent", "faults"]
    key = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, check=True).stdout.split()[-1]
    stop = threading.Event()
    clients = [Client(args.url, key, i, stop) for i in range(args.clients)]
    for client in clients:
        client.start()
    print(f"faults: {args.clients} clients; PostgreSQL stops in {args.before:.0f} s for {args.down:.0f} s", flush=True)
    time.sleep(args.before)
    down_at = time.time()
    postgres(state_dir, "stop")
    print("  PostgreSQL stopped", flush=True)
    time.sleep(args.down)
    postgres(state_dir, "start")
    up_at = time.time()
    print(f"  PostgreSQL started again after {up_at - down_at:.1f} s", flush=True)
    time.sleep(args.after)
    stop.set()
    for client in clients:
        client.join()

    answers = [a for c in clients for a in c.answers]
    during = [a for a in answers if down_at <= a[0] <= up_at]
    after = [a for a in answers if a[0] > up_at]
    bad = [a for a in answers if not (200 <= a[2] < 300 or (a[2] == 503 and a[4]))]
    slow = [a for a in answers if a[3] > SLOW_LIMIT_S]
    failing_after = [a for a in after if not 200 <= a[2] < 300]
    recovered_in = max((a[0] - up_at for a in failing_after), default=0.0)
    lost = []
    with httpx.Client(base_url=f"{args.url}/api/v1/", headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
        for client in clients:
            for conversation, turns in client.turns.items():
                job = http.post(f"conversations/{conversation}/complete").json()["job_id"]
                deadline = time.monotonic() + 120
                while http.get(f"jobs/{job}").json()["status"] not in ("done", "failed"):
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.5)
                stored = http.get(f"conversations/{conversation}/drawers", params={"page_size": 1}).json().get("count")
                if stored != turns:
                    lost.append(f"{conversation}: {stored} drawers for {turns} acknowledged turns")
    summary = {
        "answers": len(answers),
        "during_outage": dict(Counter(f"{op} {status}" for _, op, status, _, _ in during)),
        "not_2xx_or_503_envelope": len(bad),
        "examples_bad": [a[1:4] for a in bad[:10]],
        "slowest_s": round(max((a[3] for a in answers), default=0.0), 2),
        "over_limit": len(slow),
        "recovered_within_s": round(recovered_in, 2),
        "unreadable_conversations": lost,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    ok = not bad and not slow and recovered_in <= RECOVERY_LIMIT_S and not lost
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
