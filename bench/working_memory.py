"""Load on working memory and the ledger, against the running service (`make run` in another terminal).

    .venv/bin/python bench/working_memory.py [--clients 16] [--seconds 30] [--runs 3] [--url http://127.0.0.1:8002]

Each client holds one keep-alive connection and loops over a mix: 40% GET working memory, 30% PUT
(merge two fields), 20% ledger check, 10% ledger mark, on a handful of conversations. The client is a
minimal asyncio HTTP/1.1 client so that the load generator itself costs little CPU on this 2-core
machine (it shares the cores with the server, so figures are conservative). Prints progress every 5 s,
then requests/s and p50/p95/p99 latency overall and per operation. Before each run of the service, the
same clients and mix run against bench/bare_wsgi.py (the smallest WSGI app) under the web process's
gunicorn settings, and the service's requests/s are printed as a share of the bare app's. Targets
(issue 17): >= 30% of the bare app in the same run, with p99 <= 20 ms at 16 clients.

Each client gets its own API key (the rate limit is per key): minted through the API with the key from
--key / LOCI_BENCH_KEY, else with one minted by manage.py for the user "bench".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
MIX = [("wm_get", 40), ("wm_put", 30), ("ledger_check", 20), ("ledger_mark", 10)]


def mint_keys(url: str, first: str | None, count: int) -> list[str]:
    """One key per client, as separate agents' keys would be (the rate limit is per key)."""
    if first is None:
        command = [sys.executable, "manage.py", "issue_api_key", "--user", "bench", "--agent", "bench-agent"]
        output = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, check=True).stdout
        first = output.strip().splitlines()[-1]
    keys = [first]
    for _ in range(count - 1):
        request = urllib.request.Request(
            f"{url}/api/v1/keys",
            data=b'{"name": "bench"}',
            method="POST",
            headers={"Authorization": f"Bearer {first}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            keys.append(json.load(response)["key"])
    return keys


def request_bytes(host: str, key: str, op: str, conversation: str, n: int) -> bytes:
    if op == "wm_get":
        method, path, body = "GET", f"/api/v1/working-memory/{conversation}", b""
    elif op == "wm_put":
        method, path = "PUT", f"/api/v1/working-memory/{conversation}"
        body = json.dumps({"fields": {"step": n, "note": f"observation {n}"}}).encode()
    else:
        method = "POST"
        path = f"/api/v1/ledger/{conversation}/{'check' if op == 'ledger_check' else 'mark'}"
        body = json.dumps({"item": f"skill-{n % 20}"}).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\nConnection: keep-alive\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


async def read_response(reader: asyncio.StreamReader) -> int:
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length:
        await reader.readexactly(length)
    return status


async def client(index: int, args: argparse.Namespace, keys: list[str], deadline: float, results: dict) -> None:
    key = keys[index % len(keys)]
    url = urlsplit(args.url)
    rng = random.Random(index)
    ops = [op for op, weight in MIX for _ in range(weight)]
    reader, writer = await asyncio.open_connection(url.hostname, url.port or 80)
    n = 0
    while time.monotonic() < deadline:
        op = rng.choice(ops)
        conversation = f"bench-{index % 8}"
        started = time.perf_counter()
        writer.write(request_bytes(url.netloc, key, op, conversation, n))
        status = await read_response(reader)
        results[op].append(time.perf_counter() - started)
        if status >= 400:
            results["errors"].append(status)
        n += 1
    writer.close()


async def progress(deadline: float, results: dict) -> None:
    started = time.monotonic()
    while time.monotonic() < deadline:
        await asyncio.sleep(5)
        done = sum(len(v) for k, v in results.items() if k != "errors")
        print(f"  {time.monotonic() - started:4.0f}s  {done} requests, {len(results['errors'])} errors", flush=True)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def measure(args: argparse.Namespace, keys: list[str]) -> tuple[float, float]:
    """One run; prints its figures and returns (requests/s, p99 ms)."""
    results: dict[str, list] = defaultdict(list)
    # Warm up (connections, persistent DB connections in every worker) before measuring.
    warm = time.monotonic() + 2
    await asyncio.gather(*(client(i, args, keys, warm, defaultdict(list)) for i in range(args.clients)))
    deadline = time.monotonic() + args.seconds
    started = time.monotonic()
    reporter = asyncio.create_task(progress(deadline, results))
    await asyncio.gather(*(client(i, args, keys, deadline, results) for i in range(args.clients)))
    elapsed = time.monotonic() - started
    reporter.cancel()
    latencies = [v for k, values in results.items() if k != "errors" for v in values]
    rate, p99 = len(latencies) / elapsed, pct(latencies, 0.99)
    errors = Counter(results["errors"])
    print(
        f"{len(latencies)} requests in {elapsed:.1f}s with {args.clients} clients: {rate:,.0f} req/s, "
        f"{len(results['errors'])} errors {dict(errors) if errors else ''}"
    )
    print(
        f"latency ms: p50 {pct(latencies, 0.50):.2f}  p95 {pct(latencies, 0.95):.2f}  p99 {p99:.2f}  "
        f"mean {statistics.fmean(latencies) * 1000:.2f}"
    )
    for op, _ in MIX:
        values = results[op]
        print(
            f"  {op:13s} {len(values):7d}  p50 {pct(values, 0.5):6.2f}  p95 {pct(values, 0.95):6.2f}  "
            f"p99 {pct(values, 0.99):6.2f}"
        )
    return rate, p99


def start_bare(port: int) -> subprocess.Popen[bytes]:
    """bench/bare_wsgi.py under the web process's settings in memory_site/launcher.py."""
    from memory_site.config import load_config

    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "bench.bare_wsgi:app",
        *("--bind", f"127.0.0.1:{port}"),
        *("--workers", str(load_config().web_concurrency)),
        *("--threads", "4"),
        "--no-control-socket",
    ]
    process = subprocess.Popen(command, cwd=BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read()
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the bare WSGI app did not start")


async def main_async(args: argparse.Namespace, keys: list[str]) -> None:
    runs, bare_runs = [], []
    for index in range(args.runs):
        if args.bare_port:
            print(f"\nrun {index + 1}/{args.runs}: the bare WSGI app", flush=True)
            bare_runs.append(await measure(argparse.Namespace(**{**vars(args), "url": args.bare_url}), keys))
        print(f"\nrun {index + 1}/{args.runs}: the service", flush=True)
        runs.append(await measure(args, keys))
    rate, p99 = statistics.median(r for r, _ in runs), statistics.median(p for _, p in runs)
    print(f"\nservice, median of {args.runs} runs: {rate:,.0f} req/s, p99 {p99:.2f} ms (target p99 <= 20 ms)")
    if bare_runs:
        bare = statistics.median(r for r, _ in bare_runs)
        print(
            f"bare WSGI app, same settings, median of {args.runs} runs: {bare:,.0f} req/s, "
            f"p99 {statistics.median(p for _, p in bare_runs):.2f} ms"
        )
        print(f"the service at {100 * rate / bare:.0f}% of the bare app (target >= 30%)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('MEMORY_PORT', '8002')}")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--runs", type=int, default=3, help="runs of --seconds each; medians are printed")
    parser.add_argument("--key", default=os.environ.get("LOCI_BENCH_KEY"))
    parser.add_argument("--bare-port", type=int, default=8097, help="where the bare WSGI app listens; 0: no bare app")
    args = parser.parse_args()
    args.bare_url = f"http://127.0.0.1:{args.bare_port}"
    keys = mint_keys(args.url, args.key, args.clients)
    print(f"{args.clients} clients, {args.runs} runs of {args.seconds:.0f}s against {args.url}", flush=True)
    bare = start_bare(args.bare_port) if args.bare_port else None
    try:
        asyncio.run(main_async(args, keys))
    finally:
        if bare is not None:
            bare.terminate()
            bare.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
