"""What MCP adds to recall: the same query through POST /api/v1/recall and through the `recall` tool at /mcp.

    .venv/bin/python bench/mcp_latency.py [--queries 200] [--top-k 5] [--url http://127.0.0.1:8002] [--data FILE]

Run it with `make run` going (same checkout, same state folder). The first run files a few conversations of
the LongMemEval dev data for the bench owner (`bench-mcp`), mined in process; its agent gets a fresh key.
Then the two calls alternate, one at a time (REST, MCP, REST, MCP...) with the same query, so both see the
same caches and load; the MCP call is the JSON-RPC `tools/call` POST an MCP client sends after its
handshake (the handshake itself happens once per session and is not counted). Printed: the median of
each, and the median of the per-pair difference (MCP minus REST). Target (issue 16): <= 5 ms.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, cast

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
DATA = BASE_DIR.parent / "shared" / "data" / "longmemeval_s_dev50.json.gz"
OWNER = "bench-mcp"
SESSIONS = 20


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()


def seed(records: list[dict[str, Any]]) -> str:
    """The bench owner with SESSIONS mined conversations; returns a new key of its agent."""
    from accounts import services as account_services
    from accounts.models import MemorySettings
    from palace.models import Conversation
    from palace.services import intake, mining

    owner = account_services.user_ensure(username=OWNER)[0]
    MemorySettings.objects.filter(user=owner).update(auto_mine=False)  # mined here, no worker needed
    agent = account_services.agent_ensure(owner=owner, name="bench-agent")[0]
    sessions = [session for record in records for session in record["haystack_sessions"]][:SESSIONS]
    for index, session in enumerate(sessions):
        external_id = f"bench-{index}"
        if Conversation.objects.filter(owner=owner, external_id=external_id).exists():
            continue
        turns = [{"role": turn["role"], "content": turn["content"][:2000]} for turn in session]
        intake.conversation_create(
            owner=owner, agent=agent, external_id=external_id, complete=True, turns=cast(list[intake.TurnInput], turns)
        )
        mining.conversation_mine(conversation=Conversation.objects.get(owner=owner, external_id=external_id))
        print(f"\r  mined {index + 1}/{len(sessions)}", end="", flush=True)
    print()
    return account_services.api_key_issue(agent=agent, name="bench-mcp").raw_key


def post(url: str, key: str, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request) as response:
        answer = json.load(response)
    return (time.perf_counter() - started) * 1000, answer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DATA, help="the LongMemEval dev file (gzipped JSON)")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--url", default=f"http://127.0.0.1:{os.environ.get('MEMORY_PORT', '8002')}")
    args = parser.parse_args()
    setup_django()
    records = json.load(gzip.open(args.data))
    key = seed(records)
    questions = [record["question"] for record in records]

    rest_ms: list[float] = []
    mcp_ms: list[float] = []
    for index in range(args.queries + 10):
        query = {"query": questions[index % len(questions)], "top_k": args.top_k}
        rest, rest_answer = post(f"{args.url}/api/v1/recall", key, query)
        call = {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {"name": "recall", "arguments": query}}
        mcp, mcp_answer = post(f"{args.url}/mcp", key, call)
        result = mcp_answer["result"]["structuredContent"]
        assert not mcp_answer["result"].get("isError"), result
        assert [hit["drawer_id"] for hit in result["results"]] == [hit["drawer_id"] for hit in rest_answer["results"]]
        if index >= 10:  # the first ten warm the caches
            rest_ms.append(rest)
            mcp_ms.append(mcp)
    differences = [m - r for m, r in zip(mcp_ms, rest_ms, strict=True)]
    print(f"recall over REST: median {statistics.median(rest_ms):.2f} ms ({len(rest_ms)} queries)")
    print(f"recall over MCP:  median {statistics.median(mcp_ms):.2f} ms")
    print(
        f"added by MCP: {statistics.median(mcp_ms) - statistics.median(rest_ms):+.2f} ms between medians, "
        f"median per-pair difference {statistics.median(differences):+.2f} ms (target <= 5 ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
