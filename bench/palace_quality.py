"""Palace quality (issue 14): are the wings, rooms and closets mined from real sessions the ones a person
would file them under? Measured against hand labels.

    .venv/bin/python bench/palace_quality.py [--labels FILE] [--data FILE] [--out DIR] [--verbose]

`--labels` (default bench/data/palace_labels.json) holds labelled sessions: a title, the entities
(name, kind, aliases), entities only the assistant names (also_mentioned), topics and capitalised words
that are not entities (non_entities); its `data_file` names the LongMemEval file (`--data`, default
that name under the workspace's shared/data/) whose questions' haystacks hold the sessions' turns.

A fresh owner `palace-quality` with one agent gets every labelled session as a complete conversation
(dated from `haystack_dates`, no title: the extractor has to title the room) through the intake service,
mined by the mining job's own `conversations_mine` in batches like the worker's (default embedder; no LLM
unless LLM_MODEL is set), timed: mining throughput in turns/s. Then the owner's wings, rooms, closets and
drawer tags are read back and scored (bench/palace_scoring.py says how): wing precision, entity recall,
kind accuracy, junk wings and room titles holding the conversation id. It prints each room title beside
the labelled one (`--verbose`: a detail block per session instead, with the room's wings, the entities
found and missed, and a sample of closet topics) and a one-screen summary against the targets.

Without DATABASE_URL it starts the embedded PostgreSQL and Redis in LOCI_STATE_DIR (default
`.state/palace_quality`), so it never touches the memory of `make run`'s users; with DATABASE_URL it only
deletes and creates the user `palace-quality`. Writes DIR/summary.json (default /tmp/palace_quality).
Targets (issue 14, offline): precision >= 0.90, recall >= 0.85, kind accuracy >= 0.90, junk 0, titles with
the id 0, and mining throughput at most 10% below the figure before (bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

from bench.longmemeval import load, parse_date  # noqa: E402
from bench.palace_scoring import (  # noqa: E402
    TARGETS,
    SessionLabel,
    SessionPalace,
    WingRow,
    details,
    report,
    score,
    titles,
    verdict,
)

LABELS = BASE_DIR / "bench" / "data" / "palace_labels.json"
OWNER = "palace-quality"
AGENT = "palace-quality-agent"
MINE_BATCH = 8  # conversations mined together, as one worker job does


def session_turns(data: list[dict[str, Any]], wanted: list[str]) -> dict[str, tuple[list[dict[str, Any]], str | None]]:
    """Each wanted session's turns and date, from the first question whose haystack holds it."""
    found: dict[str, tuple[list[dict[str, Any]], str | None]] = {}
    wanted_ids = set(wanted)
    for question in data:
        dates = question.get("haystack_dates") or [None] * len(question["haystack_session_ids"])
        for sid, turns, date in zip(
            question["haystack_session_ids"], question["haystack_sessions"], dates, strict=True
        ):
            if str(sid) in wanted_ids and str(sid) not in found:
                found[str(sid)] = (turns, date)
    missing = [sid for sid in wanted if sid not in found]
    if missing:
        raise SystemExit(f"sessions not in the data file: {', '.join(missing)}")
    return found


def _role(turn: dict[str, Any]) -> str:
    return str(turn["role"]) if turn.get("role") in ("user", "assistant", "system", "tool") else "user"


@dataclass
class Mined:
    owner: Any
    turns: int
    seconds: float
    stage_ms: Counter[str]  # the mining counts' own split (ms_extract, ms_embed, ms_write), summed


def mine(sessions: dict[str, tuple[list[dict[str, Any]], str | None]]) -> Mined:
    """A fresh owner with the sessions as complete conversations, mined."""
    from django.contrib.auth.models import User

    from accounts.models import MemorySettings
    from accounts.services import agent_ensure, user_ensure
    from palace.models import Conversation
    from palace.services import intake, mining

    User.objects.filter(username=OWNER).delete()
    owner, _ = user_ensure(username=OWNER)
    # Mined below by the service the worker runs (no broker round trip in a benchmark).
    MemorySettings.objects.filter(user=owner).update(auto_mine=False)
    agent, _ = agent_ensure(owner=owner, name=AGENT)
    total = 0
    for sid, (session, date) in sessions.items():
        when = parse_date(date) if date else None
        turns: list[intake.TurnInput] = [
            {"role": _role(t), "content": str(t["content"]), "timestamp": when}
            for t in session
            if str(t.get("content") or "").strip()
        ]
        total += len(turns)
        intake.conversation_create(
            owner=owner, agent=agent, external_id=sid, turns=turns, complete=True, started_at=when
        )
    conversations = list(Conversation.objects.filter(owner=owner).order_by("started_at", "pk"))
    seconds = 0.0
    stage_ms: Counter[str] = Counter()
    for start in range(0, len(conversations), MINE_BATCH):
        clock = time.perf_counter()
        counts = mining.conversations_mine(conversations=conversations[start : start + MINE_BATCH])
        seconds += time.perf_counter() - clock
        for conversation_counts in counts.values():
            stage_ms.update({k: v for k, v in conversation_counts.items() if k.startswith("ms_")})
        done = min(start + MINE_BATCH, len(conversations))
        print(f"\r    mined {done}/{len(conversations)} sessions, {seconds:.1f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return Mined(owner, total, seconds, stage_ms)


def read_palace(owner: Any) -> tuple[list[WingRow], dict[str, SessionPalace]]:
    from palace.models import Closet, Drawer, Room, Wing

    wings = [WingRow(w.name, w.kind, list(w.aliases)) for w in Wing.objects.filter(owner=owner).order_by("number")]
    palace: dict[str, SessionPalace] = {}
    rooms = Room.objects.filter(owner=owner, conversation__isnull=False).select_related("conversation", "wing")
    for room in rooms.prefetch_related("linked_wings"):
        assert room.conversation is not None
        linked = [w.name for w in room.linked_wings.all()]
        palace[room.conversation.external_id] = SessionPalace(room_title=room.title, wings=[room.wing.name, *linked])
    closets = Closet.objects.filter(owner=owner).order_by("room__number", "position")
    for sid, topic in closets.values_list("room__conversation__external_id", "topic"):
        palace.setdefault(sid, SessionPalace()).closets.append(topic)
    for sid, tags in Drawer.objects.filter(owner=owner).values_list("conversation__external_id", "tags"):
        palace.setdefault(sid, SessionPalace()).tags.update(str(v) for values in (tags or {}).values() for v in values)
    return wings, palace


def default_data(labels: dict[str, Any]) -> Path:
    """The labels' data file in the workspace's shared/data/ (the checkout's parent, or a worktree's)."""
    name = str(labels.get("data_file") or "")
    for folder in BASE_DIR.parents:
        if (folder / "shared" / "data" / name).is_file():
            return folder / "shared" / "data" / name
    raise SystemExit(f"no shared/data/{name} above {BASE_DIR}: give --data")


def _servers(state_dir: Path) -> Any:
    from memory_site.embedded import EmbeddedServers

    if os.environ.get("DATABASE_URL"):
        return None
    servers = EmbeddedServers(state_dir, database_url=None, redis_url=os.environ.get("REDIS_URL"))
    servers.__enter__()
    os.environ.update(servers.environ())
    return servers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--data", type=Path, help="LongMemEval file with the sessions (default: the labels' one)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/palace_quality"))
    parser.add_argument("--verbose", action="store_true", help="a detail block per session")
    args = parser.parse_args()

    labels = json.loads(args.labels.read_text(encoding="utf-8"))
    sessions: list[SessionLabel] = labels["sessions"]
    turns = session_turns(load(args.data or default_data(labels)), [s["session_id"] for s in sessions])
    state_dir = Path(os.environ.get("LOCI_STATE_DIR") or BASE_DIR / ".state" / "palace_quality").resolve()
    os.environ["LOCI_STATE_DIR"] = str(state_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    os.environ.setdefault("LLM_MODEL", "")  # no LLM unless asked for: the offline palace is the target
    servers = _servers(state_dir)
    try:
        import django

        django.setup()
        from django.core.management import call_command

        from episodic import providers

        call_command("migrate", verbosity=0)
        providers.get_embedder()  # load the model before timing anything
        print(f"mining {len(sessions)} labelled sessions as {OWNER}", file=sys.stderr, flush=True)
        mined = mine({s["session_id"]: turns[s["session_id"]] for s in sessions})
        wings, palace = read_palace(mined.owner)
    finally:
        if servers is not None:
            servers.stop()
    summary = score(sessions, wings, palace)
    summary["targets"] = TARGETS
    summary["targets_met"] = verdict(summary)
    summary["run"] = {
        "labels": str(args.labels),
        "sessions": len(sessions),
        "turns": mined.turns,
        "mining_seconds": round(mined.seconds, 1),
        "turns_per_second": round(mined.turns / mined.seconds, 1) if mined.seconds else None,
        "stage_seconds": {k.removeprefix("ms_"): round(v / 1000, 1) for k, v in sorted(mined.stage_ms.items())},
        "llm": os.environ.get("LLM_MODEL") or None,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    print(details(summary) if args.verbose else titles(summary))
    print()
    print(report(summary))
    print(f"(written to {args.out / 'summary.json'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
