"""Soak (issue 19 §4): many agents of several owners use the service at once for a long while, then every
write the service acknowledged is read back.

    .venv/bin/python bench/soak.py [--url http://127.0.0.1:8002] [--agents 50] [--owners 5] [--seconds 600]
                                   [--keys FILE] [--think S] [--out DIR] [--no-rss]

Each agent is a thread with its own API key and keep-alive connection, looping over a realistic mix with a
little think time: append turns to its open conversation (completed, so mined, every few appends, then a
new one), recall, context, working memory (merge and read), the ledger (mark and check), typed memories
(create, and delete one of its own now and then). Every acknowledged write goes into a log. At the end
every open conversation is completed, the mining jobs are awaited, and each logged write is checked:
a conversation has as many drawers as the turns acknowledged, each working-memory field and ledger item
holds its last acknowledged value, each typed memory is readable and each deleted one answers 404.

Reported: requests and errors by operation (a 5xx is a server error; anything else unexpected too),
acknowledged writes and how many were not readable (target 0), recall latency p95 per tenth of the run (no
upward drift: last tenth against the first), and the resident memory of the web and worker processes
(found by their command lines, sampled every 5 s; `--no-rss` for a server on another machine) at the
start and the end. Keys: `--keys FILE` (a JSON list of {"key", "owner"}), else minted for users
`soak-0`..`soak-{owners-1}` with manage.py and the API (run it beside `make run` on one machine).
Load benches raise the per-key rate limit (API_THROTTLE_RATE) as an operator would; the default
12000/min is far above this mix. Writes DIR/summary.json (default /tmp/soak); exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

BASE_DIR = Path(__file__).resolve().parent.parent
MIX = [
    ("append", 25),
    ("recall", 15),
    ("context", 5),
    ("wm_put", 15),
    ("wm_get", 10),
    ("ledger_mark", 8),
    ("ledger_check", 7),
    ("memory_create", 10),
    ("memory_delete", 5),
]
APPENDS_PER_CONVERSATION = 4
WORDS = (
    "trip Denver sister Rachel kayak battery garden recipe budget museum novel marathon piano invoice "
    "vaccine apartment lease laptop camera coffee hiking deadline report meeting dentist"
).split()
SLICES = 10


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."


@dataclass
class Log:
    """What one agent was told was stored, and what it saw."""

    turns: dict[str, int] = field(default_factory=dict)  # conversation -> turns acknowledged
    jobs: list[str] = field(default_factory=list)
    wm: dict[tuple[str, str], Any] = field(default_factory=dict)  # (conversation, field) -> last value
    ledger: dict[tuple[str, str], str] = field(default_factory=dict)
    memories: set[str] = field(default_factory=set)
    deleted: set[str] = field(default_factory=set)
    ops: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)  # "op status"
    recall_stages: list[tuple[float, dict[str, float]]] = field(default_factory=list)  # (s, stage -> ms)
    latency_ms: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))  # op -> (s, ms)


class Agent(threading.Thread):
    def __init__(self, url: str, key: str, index: int, started: float, until: float, think: float = 0.03) -> None:
        super().__init__(daemon=True)
        self.http = httpx.Client(base_url=f"{url}/api/v1/", headers={"Authorization": f"Bearer {key}"}, timeout=60)
        self.rng = random.Random(index)
        self.tag = f"soak{index}-{uuid.uuid4().hex[:6]}"
        self.started, self.until = started, until
        self.think = think
        self.log = Log()
        self.conversation: str | None = None
        self.appends = 0
        self.n = 0

    def call(self, op: str, method: str, path: str, expect: tuple[int, ...], **kwargs: Any) -> Any:
        self.log.ops[op] += 1
        start = time.perf_counter()
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            self.log.errors[f"{op} {type(exc).__name__}"] += 1
            return None
        self.log.latency_ms[op].append((time.monotonic() - self.started, (time.perf_counter() - start) * 1000))
        if response.status_code not in expect:
            self.log.errors[f"{op} {response.status_code}"] += 1
            return None
        return response.json() if response.content else {}

    def run(self) -> None:
        ops, weights = zip(*MIX, strict=True)
        while time.monotonic() < self.until:
            getattr(self, self.rng.choices(ops, weights)[0])()
            time.sleep(self.rng.uniform(self.think / 3, self.think * 5 / 3))

    # --- the mix --------------------------------------------------------------------------------------

    def append(self) -> None:
        turns = [{"role": "user", "content": sentence(self.rng)}, {"role": "assistant", "content": "Noted."}]
        if self.conversation is None:
            self.conversation = f"{self.tag}-c{self.n}"
            self.n += 1
            body = self.call(
                "append", "POST", "conversations", (202,), json={"conversation_id": self.conversation, "turns": turns}
            )
        else:
            body = self.call(
                "append", "POST", f"conversations/{self.conversation}/turns", (202,), json={"turns": turns}
            )
        if body is not None:
            self.log.turns[self.conversation] = int(body["turns"])
            self.appends += 1
        if self.appends >= APPENDS_PER_CONVERSATION:
            self.complete()

    def complete(self) -> None:
        if self.conversation is None:
            return
        body = self.call("complete", "POST", f"conversations/{self.conversation}/complete", (202,))
        if body is not None:
            self.log.jobs.append(body["job_id"])
            self.conversation, self.appends = None, 0

    def recall(self) -> None:
        body = self.call("recall", "POST", "recall", (200,), json={"query": sentence(self.rng), "top_k": 5})
        if body is not None:  # the service's own time in recall, by stage: what recall costs, without the queue
            self.log.recall_stages.append((time.monotonic() - self.started, body.get("timings_ms") or {}))

    def context(self) -> None:
        self.call("context", "POST", "context", (200,), json={"query": sentence(self.rng)})

    def wm_put(self) -> None:
        conversation, name, value = f"{self.tag}-wm", f"f{self.rng.randint(0, 9)}", self.rng.randint(0, 10**6)
        if (
            self.call("wm_put", "PUT", f"working-memory/{conversation}", (200,), json={"fields": {name: value}})
            is not None
        ):
            self.log.wm[(conversation, name)] = value

    def wm_get(self) -> None:
        self.call("wm_get", "GET", f"working-memory/{self.tag}-wm", (200,))

    def ledger_mark(self) -> None:
        item, value = f"skill-{self.rng.randint(0, 20)}", f"v{self.rng.randint(0, 99)}"
        body = self.call(
            "ledger_mark", "POST", f"ledger/{self.tag}-wm/mark", (200,), json={"item": item, "value": value}
        )
        if body is not None:
            self.log.ledger.setdefault((f"{self.tag}-wm", item), value)  # marking again keeps the first value

    def ledger_check(self) -> None:
        self.call(
            "ledger_check",
            "POST",
            f"ledger/{self.tag}-wm/check",
            (200,),
            json={"item": f"skill-{self.rng.randint(0, 20)}"},
        )

    def memory_create(self) -> None:
        body = self.call(
            "memory_create", "POST", "memories/typed/semantic", (201,), json={"content": sentence(self.rng)}
        )
        if body is not None:
            self.log.memories.add(body["id"])

    def memory_delete(self) -> None:
        alive = sorted(self.log.memories - self.log.deleted)
        if not alive:
            return self.memory_create()
        victim = self.rng.choice(alive)
        if self.call("memory_delete", "DELETE", f"memories/{victim}", (200, 204)) is not None:
            self.log.deleted.add(victim)
        return None

    # --- afterwards -----------------------------------------------------------------------------------

    def verify(self, deadline: float) -> tuple[int, list[str]]:
        """(writes checked, what was lost) once the agent has stopped; jobs not done by `deadline` (one for
        the whole run, on time.monotonic()) count as lost."""
        lost: list[str] = []
        for job in self.log.jobs:
            while True:
                status = (self.http.get(f"jobs/{job}").json() or {}).get("status")
                if status in ("done", "failed") or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            if status != "done":
                lost.append(f"job {job} {status}")
        for conversation, turns in self.log.turns.items():
            count = self.http.get(f"conversations/{conversation}/drawers", params={"page_size": 1}).json().get("count")
            if count != turns:
                lost.append(f"conversation {conversation}: {count} drawers for {turns} turns")
        for (conversation, name), value in self.log.wm.items():
            got = self.http.get(f"working-memory/{conversation}").json().get(name)
            if got != value:
                lost.append(f"working memory {conversation}.{name}: {got!r} != {value!r}")
        for (conversation, item), _ in self.log.ledger.items():
            if not self.http.post(f"ledger/{conversation}/check", json={"item": item}).json().get("injected"):
                lost.append(f"ledger {conversation} {item}")
        for memory in self.log.memories:
            status = self.http.get(f"memories/{memory}").status_code
            if status != (404 if memory in self.log.deleted else 200):
                lost.append(f"memory {memory}: {status}")
        checked = len(self.log.jobs) + len(self.log.turns) + len(self.log.wm) + len(self.log.ledger)
        return checked + len(self.log.memories), lost


def mint_keys(url: str, owners: int, agents: int) -> list[dict[str, str]]:
    keys: list[dict[str, str]] = []
    for owner in range(owners):
        command = [sys.executable, "manage.py", "issue_api_key", "--user", f"soak-{owner}", "--agent", f"soak-{owner}"]
        first = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, check=True).stdout.split()[-1]
        keys.append({"key": first, "owner": f"soak-{owner}"})
    while len(keys) < agents:
        first_of = keys[len(keys) % owners]
        minted = httpx.post(
            f"{url}/api/v1/keys", json={"name": "soak"}, headers={"Authorization": f"Bearer {first_of['key']}"}
        ).json()
        keys.append({"key": minted["key"], "owner": first_of["owner"]})
    return keys[:agents]


def rss_by_role() -> dict[str, int]:
    """Resident kB of the web (gunicorn) and worker (celery) processes, summed per role."""
    out: dict[str, int] = defaultdict(int)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        role = (
            "web"
            if "gunicorn" in command and "memory_site" in command
            else "worker"
            if "celery" in command and " worker" in command
            else None
        )
        if role:
            out[role] += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    return dict(out)


def p95(values: list[float]) -> float | None:
    return round(statistics.quantiles(values, n=20)[18], 1) if len(values) >= 5 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8002")
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--owners", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--keys", type=Path)
    parser.add_argument(
        "--think",
        type=float,
        default=0.03,
        help="mean seconds an agent waits between calls (default 0.03: the machine saturated; an agent waiting "
        "on its LLM between memory calls waits seconds)",
    )
    parser.add_argument("--out", type=Path, default=Path("/tmp/soak"))
    parser.add_argument("--no-rss", action="store_true")
    parser.add_argument("--job-wait", type=float, default=300, help="seconds to wait for the mining backlog")
    args = parser.parse_args()

    keys = json.loads(args.keys.read_text()) if args.keys else mint_keys(args.url, args.owners, args.agents)
    started = time.monotonic()
    until = started + args.seconds
    agents = [Agent(args.url, k["key"], i, started, until, args.think) for i, k in enumerate(keys[: args.agents])]
    rss: list[tuple[float, dict[str, int]]] = []
    print(
        f"soak: {len(agents)} agents of {len({k['owner'] for k in keys})} owners for {args.seconds:.0f} s", flush=True
    )
    for agent in agents:
        agent.start()
    next_report = started
    while any(agent.is_alive() for agent in agents):
        if not args.no_rss:
            rss.append((time.monotonic() - started, rss_by_role()))
        if time.monotonic() >= next_report:
            done = sum(sum(a.log.ops.values()) for a in agents)
            failed = sum(sum(a.log.errors.values()) for a in agents)
            print(f"  {time.monotonic() - started:6.0f} s  {done} requests, {failed} errors", flush=True)
            next_report += max(5.0, args.seconds / 20)
        time.sleep(min(5.0, max(0.5, args.seconds / 60)))

    print("verifying every acknowledged write ...", flush=True)
    checked, lost = 0, []
    for agent in agents:
        agent.complete()
    deadline = time.monotonic() + args.job_wait
    for agent in agents:
        n, missing = agent.verify(deadline)
        checked += n
        lost += missing
    ops: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for agent in agents:
        ops.update(agent.log.ops)
        errors.update(agent.log.errors)
    width = args.seconds / SLICES

    def by_tenth(op: str) -> list[float | None]:
        latencies = [point for a in agents for point in a.log.latency_ms[op]]
        return [p95([ms for at, ms in latencies if i * width <= at < (i + 1) * width]) for i in range(SLICES)]

    by_slice = by_tenth("recall")
    drift = round(by_slice[-1] / by_slice[0], 2) if by_slice[0] and by_slice[-1] else None
    # A Redis-only read beside it: when it drifts as recall does, the machine is saturated (queueing), not recall
    control = by_tenth("wm_get")
    stages = [point for a in agents for point in a.log.recall_stages]
    in_service = [
        p95([sum(t.values()) for at, t in stages if i * width <= at < (i + 1) * width]) for i in range(SLICES)
    ]
    server_errors = sum(n for key, n in errors.items() if key.split()[-1].startswith("5"))
    summary = {
        "agents": len(agents),
        "owners": len({k["owner"] for k in keys[: args.agents]}),
        "seconds": args.seconds,
        "think_s": args.think,
        "requests": sum(ops.values()),
        "requests_by_op": dict(ops),
        "errors": dict(errors),
        "server_errors": server_errors,
        "writes_checked": checked,
        "writes_lost": len(lost),
        "lost": lost[:50],
        "recall_p95_ms_by_tenth": by_slice,
        "recall_p95_drift": drift,
        "wm_get_p95_ms_by_tenth": control,
        "recall_in_service_p95_ms_by_tenth": in_service,
        "recall_stage_median_ms_first_last_tenth": {
            stage: [
                round(statistics.median([t.get(stage, 0.0) for at, t in stages if lo <= at < hi] or [0.0]), 1)
                for lo, hi in ((0, width), (args.seconds - width, args.seconds + 1e9))
            ]
            for stage in sorted({stage for _, t in stages for stage in t})
        },
        "rss_kb_start": rss[0][1] if rss else None,
        "rss_kb_end": rss[-1][1] if rss else None,
        "rss_kb_max": {role: max(s.get(role, 0) for _, s in rss) for role in (rss[0][1] if rss else {})},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"{summary['requests']} requests, {sum(errors.values())} errors ({server_errors} server errors)")
    print(f"acknowledged writes checked: {checked}, not readable: {len(lost)} (target 0)")
    for item in lost[:10]:
        print(f"  lost: {item}")
    print(f"recall p95 ms by tenth of the run: {by_slice} (last/first {drift})")
    print(f"working-memory read p95 ms by tenth (the machine's queueing, for comparison): {control}")
    print(f"recall's own time in the service (its timings_ms), p95 by tenth: {in_service}")
    print(f"recall stages, median ms in the first and last tenth: {summary['recall_stage_median_ms_first_last_tenth']}")
    if rss:
        print(
            "resident kB, start -> end (max): "
            + ", ".join(
                f"{role} {rss[0][1].get(role, 0)} -> {rss[-1][1].get(role, 0)} ({summary['rss_kb_max'][role]})"
                for role in rss[0][1]
            )
        )
    print(f"(written to {args.out / 'summary.json'})")
    return 0 if server_errors == 0 and not lost and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
