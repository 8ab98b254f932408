"""The JSON shapes Loci answers, as TypedDicts: what the client returns is the decoded body itself, so
a field the server adds later is there too. Times are ISO 8601 strings, as sent."""

from __future__ import annotations

from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar

T = TypeVar("T")

Role = Literal["user", "assistant", "system", "tool"]
JobStatus = Literal["queued", "running", "done", "failed"]
MemoryType = Literal[
    "episodic", "semantic", "procedural", "control", "standard", "strategy", "reflection", "progress", "feature"
]


class Turn(TypedDict):
    role: Role
    content: str
    timestamp: NotRequired[str | None]


class Page(TypedDict, Generic[T]):
    count: int
    next: str | None
    previous: str | None
    results: list[T]


class Accepted(TypedDict):
    """202 of conversations/…: the mining job that follows the write."""

    job_id: str
    conversation_id: str
    turns: int
    mining: bool


class Job(TypedDict):
    job_id: str
    conversation_id: str
    status: JobStatus
    mining: bool  # False: waits for the conversation to be completed (or for mine()), and stays queued
    counts: dict[str, Any]
    error: str
    attempts: int
    requested_at: str
    started_at: str | None
    finished_at: str | None


class RecalledDrawer(TypedDict):
    drawer_id: int | None  # None for a pending turn: posted, not filed by the miner yet
    pointer: str | None
    role: str
    content: str
    occurred_at: str
    date: str


class Wing(TypedDict):
    id: int
    name: str


class Room(TypedDict):
    id: int
    number: int
    title: str


class RecallHit(RecalledDrawer):
    pending: bool
    wing: Wing | None
    room: Room | None
    conversation_id: str
    tags: dict[str, Any]
    score: float
    signals: dict[str, float]
    partner: RecalledDrawer | None


class RecallResult(TypedDict):
    query: str
    top_k: int
    reference_time: str
    when: dict[str, Any] | None
    results: list[RecallHit]
    memory_context: str
    skipped: str | None
    degraded: list[str]
    weights: dict[str, float]
    rerank: dict[str, Any]
    timings_ms: dict[str, float]


class ContextPiece(TypedDict):
    source: str
    ref: str
    text: str
    relevance: float
    score: float
    occurred_at: str | None
    tokens: int


class ContextResult(TypedDict):
    memory_context: str
    pieces: list[ContextPiece]
    tokens: int
    token_budget: int
    token_counter: str
    degraded: list[str]
    skipped: str | None
    dropped: dict[str, int]


class TypedMemory(TypedDict):
    id: str
    memory_type: MemoryType
    content: str
    agent_id: str
    scope: str
    shared_with: list[str]
    session_id: str | None
    sequence_number: int | None
    entity_id: str | None
    steps: list[str]
    trigger_conditions: list[str]
    error_pattern: str | None
    severity: str | None
    source_trajectory_id: str | None
    metadata: dict[str, Any]
    access_count: int
    last_accessed_at: str | None
    created_at: str


class TypedHit(TypedDict):
    memory: TypedMemory
    score: float
    similarity: float | None
    keyword: float


class WorkingMemoryWrite(TypedDict):
    updated: list[str]
    size_bytes: int
    ttl_seconds: int


class WorkingMemoryDelete(TypedDict):
    deleted: int
    whole: bool


class LedgerCheck(TypedDict):
    item: str
    injected: bool


class LedgerMark(TypedDict):
    item: str
    value: str
    newly_marked: bool


class Entity(TypedDict):
    id: int
    kind: str
    name: str
    slug: str
    aliases: list[str]
    created_at: str


class Relation(TypedDict):
    id: int
    subject: str
    predicate: str
    object: str
    valid_from: str | None
    valid_to: str | None
    confidence: float
    source_drawer_id: int | None


class EntityAsOf(TypedDict):
    entity: Entity
    as_of: str
    relations: list[Relation]


class EntityTimeline(TypedDict):
    entity: Entity
    relations: list[Relation]


class ReceiptAsked(TypedDict):
    kind: str
    ids: list[Any]
    actor: str


class Receipt(TypedDict):
    """What a deletion removed: ids and counts per kind, never text; `digest` is the sha256 of the sorted
    removed ids per kind."""

    id: str
    asked: ReceiptAsked
    counts: dict[str, int]
    digest: str
    created_at: str
