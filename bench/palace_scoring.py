"""Scoring of a mined palace against hand labels, for bench/palace_quality.py (pure functions, tested).

Names compare case-insensitively, without "the", punctuation or a possessive 's (`normalise`):

- wing precision: share of wings (agent wings left out, counted apart) whose name or an alias is a
  labelled entity or also_mentioned entity of any session, or matches a labelled topic (`topic_matches`:
  equal, or one a whole-word part of the other, the part holding a content word);
- entity recall: share of labelled people, places, organisations and works (`RECALL_KINDS`, the issue's
  definition; not also_mentioned) found as any wing's name or alias, or as a tag on a drawer of their own
  session; the same share over every labelled entity (topics and projects too) is reported beside it;
- kind accuracy: share of matched wings whose kind is the labelled one (`topic` for a wing matched to a
  topic only); kinds are whatever the labels and the wings say, no list is assumed;
- junk: wings named after a labelled non_entity (a name labelled an entity elsewhere is not junk);
- room titles that contain the conversation id.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from memory_site.lib.text import content_words

CLOSET_SAMPLE = 5  # closet topics kept per session for the detail table
RECALL_KINDS = ("person", "place", "organisation", "work")  # issue 14: "people, places and organisations/works"
TARGETS = {"precision": 0.90, "recall": 0.85, "kind_accuracy": 0.90, "junk": 0, "titles_with_id": 0}


class EntityLabel(TypedDict):
    name: str
    kind: str
    aliases: NotRequired[list[str]]
    relation: NotRequired[str]


class SessionLabel(TypedDict):
    session_id: str
    title: str
    entities: list[EntityLabel]
    also_mentioned: list[EntityLabel]
    topics: list[str]
    non_entities: list[str]


@dataclass(frozen=True)
class WingRow:
    name: str
    kind: str
    aliases: list[str] = field(default_factory=list)


@dataclass
class SessionPalace:
    """What mining made of one session: its room, the room's wings, closet topics and drawer tags."""

    room_title: str = ""
    wings: list[str] = field(default_factory=list)
    closets: list[str] = field(default_factory=list)
    tags: set[str] = field(default_factory=set)


def normalise(name: str) -> str:
    text = re.sub(r"['\u2019]s\b", "", name.lower())
    words = re.sub(r"[\W_]+", " ", text).split()
    return " ".join(w for w in words if w != "the")


def _holds(longer: str, part: str) -> bool:
    return f" {part} " in f" {longer} " and bool(content_words(part))


def topic_matches(name: str, topic: str) -> bool:
    """Whether a wing name matches a topic: equal, or one a whole-word part of the other with a content word."""
    name, topic = normalise(name), normalise(topic)
    if not name or not topic:
        return False
    return name == topic or _holds(topic, name) or _holds(name, topic)


def _names(entity: EntityLabel) -> set[str]:
    return {n for n in (normalise(a) for a in [entity["name"], *entity.get("aliases", [])]) if n}


@dataclass
class LabelIndex:
    kinds: dict[str, set[str]]  # normalised entity name or alias -> labelled kinds
    topics: list[str]
    non_entities: set[str]

    @classmethod
    def of(cls, sessions: list[SessionLabel]) -> LabelIndex:
        kinds: dict[str, set[str]] = {}
        for session in sessions:
            for entity in [*session["entities"], *session["also_mentioned"]]:
                for name in _names(entity):
                    kinds.setdefault(name, set()).add(entity["kind"])
        topics = [t for s in sessions for t in s["topics"]]
        non_entities = {normalise(n) for s in sessions for n in s["non_entities"]} - {""}
        return cls(kinds=kinds, topics=topics, non_entities=non_entities)


@dataclass(frozen=True)
class WingVerdict:
    wing: WingRow
    expected: frozenset[str]  # the kinds it may have; empty when it matches no label
    junk: bool

    @property
    def matched(self) -> bool:
        return bool(self.expected)

    @property
    def kind_right(self) -> bool:
        return self.wing.kind in self.expected


def judge_wing(wing: WingRow, index: LabelIndex) -> WingVerdict:
    names = [wing.name, *wing.aliases]
    kinds = {k for n in names for k in index.kinds.get(normalise(n), set())}
    if not kinds and any(topic_matches(n, t) for n in names for t in index.topics):
        kinds = {"topic"}
    return WingVerdict(
        wing=wing, expected=frozenset(kinds), junk=not kinds and normalise(wing.name) in index.non_entities
    )


def _judged(name: str, judged: WingVerdict | None) -> str:
    """A wing as the detail table shows it: `Name (kind)`, then `?` unmatched, `!` junk, `~` wrong kind."""
    if judged is None:
        return f"{name} (agent)"
    mark = "!" if judged.junk else "?" if not judged.matched else "" if judged.kind_right else "~"
    return f"{name} ({judged.wing.kind}){mark}"


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def score(sessions: list[SessionLabel], wings: list[WingRow], palace: dict[str, SessionPalace]) -> dict[str, Any]:
    """Every figure of the summary but the run's timings, from the labels and what mining made."""
    index = LabelIndex.of(sessions)
    verdicts = [judge_wing(w, index) for w in wings if w.kind != "agent"]
    matched = [v for v in verdicts if v.matched]
    judged = {v.wing.name: v for v in verdicts}
    wing_names = {n for w in wings for n in (normalise(a) for a in [w.name, *w.aliases]) if n}
    by_kind: dict[str, Counter[str]] = {}
    per_session = []
    for session in sessions:
        mined = palace.get(session["session_id"], SessionPalace())
        known = wing_names | {normalise(t) for t in mined.tags}
        found: list[str] = []
        missed: list[str] = []
        for entity in session["entities"]:
            hit = bool(_names(entity) & known)
            (found if hit else missed).append(entity["name"])
            by_kind.setdefault(entity["kind"], Counter()).update(entities=1, found=int(hit))
        per_session.append(
            {
                "session_id": session["session_id"],
                "labelled_title": session["title"],
                "room_title": mined.room_title,
                "title_has_id": session["session_id"].lower() in mined.room_title.lower(),
                "wings": [_judged(name, judged.get(name)) for name in mined.wings],
                "found": found,
                "missed": missed,
                "closets": mined.closets[:CLOSET_SAMPLE],
            }
        )
    entities = sum(c["entities"] for k, c in by_kind.items() if k in RECALL_KINDS)
    found_total = sum(c["found"] for k, c in by_kind.items() if k in RECALL_KINDS)
    every = sum(c["entities"] for c in by_kind.values())
    every_found = sum(c["found"] for c in by_kind.values())
    confusions = Counter(f"{'/'.join(sorted(v.expected))} -> {v.wing.kind}" for v in matched if not v.kind_right)
    return {
        "wings": {
            "total": len(wings),
            "agent": len(wings) - len(verdicts),
            "scored": len(verdicts),
            "matched": len(matched),
            "precision": _ratio(len(matched), len(verdicts)),
            "by_kind": dict(Counter(v.wing.kind for v in verdicts).most_common()),
            "unmatched": [v.wing.name for v in verdicts if not v.matched],
        },
        "recall": {
            "entities": entities,
            "found": found_total,
            "recall": _ratio(found_total, entities),
            "all_kinds": {"entities": every, "found": every_found, "recall": _ratio(every_found, every)},
            "by_kind": {k: {**c, "recall": _ratio(c["found"], c["entities"])} for k, c in sorted(by_kind.items())},
        },
        "kind_accuracy": {
            "matched": len(matched),
            "right": sum(v.kind_right for v in matched),
            "accuracy": _ratio(sum(v.kind_right for v in matched), len(matched)),
            "confusions": dict(confusions.most_common()),
        },
        "junk": {"count": sum(v.junk for v in verdicts), "wings": [v.wing.name for v in verdicts if v.junk]},
        "room_titles": {
            "rooms": sum(1 for s in per_session if s["room_title"]),
            "with_conversation_id": sum(s["title_has_id"] for s in per_session),
        },
        "sessions": per_session,
    }


def verdict(summary: dict[str, Any]) -> dict[str, bool]:
    """Which targets the figures reach (a figure that could not be computed reaches none)."""
    figures = {
        "precision": summary["wings"]["precision"],
        "recall": summary["recall"]["recall"],
        "kind_accuracy": summary["kind_accuracy"]["accuracy"],
    }
    met = {name: value is not None and value >= TARGETS[name] for name, value in figures.items()}
    met["junk"] = summary["junk"]["count"] <= TARGETS["junk"]
    met["titles_with_id"] = summary["room_titles"]["with_conversation_id"] <= TARGETS["titles_with_id"]
    return met


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def details(summary: dict[str, Any]) -> str:
    lines = ["wings: ? matches no label, ! a labelled non-entity, ~ matches one of another kind"]
    for s in summary["sessions"]:
        lines.append(f"{s['session_id']}")
        lines.append(f"  labelled: {s['labelled_title']}")
        lines.append(f"  room:     {s['room_title']}{'   <- holds the conversation id' if s['title_has_id'] else ''}")
        lines.append(f"  wings:    {', '.join(s['wings']) or '-'}")
        lines.append(f"  found:    {', '.join(s['found']) or '-'}")
        lines.append(f"  missed:   {', '.join(s['missed']) or '-'}")
        lines.append(f"  closets:  {' | '.join(s['closets']) or '-'}")
    return "\n".join(lines)


def titles(summary: dict[str, Any]) -> str:
    width = max((len(s["labelled_title"]) for s in summary["sessions"]), default=0)
    lines = [f"{'labelled title':<{width}}  room title"]
    for s in summary["sessions"]:
        lines.append(f"{s['labelled_title']:<{width}}  {s['room_title'] or '(no room)'}")
    return "\n".join(lines)


def report(summary: dict[str, Any]) -> str:
    wings, recall, kinds, junk = summary["wings"], summary["recall"], summary["kind_accuracy"], summary["junk"]
    rooms, met, run = summary["room_titles"], summary["targets_met"], summary.get("run", {})
    recall_by_kind = ", ".join(f"{k} {c['found']}/{c['entities']}" for k, c in recall["by_kind"].items())
    every = recall["all_kinds"]
    rows = [
        ("wing precision", "precision", wings["precision"], f"{wings['matched']}/{wings['scored']}"),
        (
            "entity recall",
            "recall",
            recall["recall"],
            f"{recall['found']}/{recall['entities']} people, places, orgs, works",
        ),
        ("kind accuracy", "kind_accuracy", kinds["accuracy"], f"{kinds['right']}/{kinds['matched']}"),
        ("junk wings", "junk", junk["count"], ""),
        ("titles with id", "titles_with_id", rooms["with_conversation_id"], f"of {rooms['rooms']} rooms"),
    ]
    lines = [
        f"{run.get('sessions', len(summary['sessions']))} sessions, {run.get('turns', '-')} turns; "
        f"mining {run.get('mining_seconds', '-')} s = {run.get('turns_per_second', '-')} turns/s"
        + "".join(f"; {stage} {sec} s" for stage, sec in run.get("stage_seconds", {}).items()),
        f"wings: {wings['total']} ({wings['agent']} agent, not scored); scored by kind: "
        + (", ".join(f"{k} {n}" for k, n in wings["by_kind"].items()) or "-"),
        f"{'figure':<16} {'value':>8}  {'target':>8}",
    ]
    for label, key, value, note in rows:
        target = TARGETS[key]
        shown, wanted = (_fmt(value), f">= {target:.2f}") if isinstance(target, float) else (str(value), str(target))
        lines.append(f"{label:<16} {shown:>8}  {wanted:>8}  {'ok' if met[key] else 'MISSED'}  {note}".rstrip())
    lines.append(
        f"recall, every labelled kind: {_fmt(every['recall'])} ({every['found']}/{every['entities']}: {recall_by_kind})"
    )
    confusions = ", ".join(f"{pair} ({n})" for pair, n in kinds["confusions"].items())
    for title, text in (
        ("kind confusions (labelled -> wing)", confusions),
        ("junk", ", ".join(junk["wings"])),
        ("unmatched wings", ", ".join(wings["unmatched"])),
    ):
        if text:
            lines.append(f"{title}: {_cut(text, 300)}")
    return "\n".join(lines)
