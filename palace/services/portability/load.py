"""Load an export file into an owner's memory: checked and written in one transaction (a bad line
anywhere stores nothing), idempotent (rows are matched by their natural keys, so a second import of
the same file adds nothing), then the rows that came without a usable vector are embedded in batches,
after the commit (STYLE habit 6: no slow calls inside a transaction)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import DatabaseError, models, transaction

from accounts.models import Agent
from accounts.services import agent_create
from episodic import providers
from episodic.models import ContextEntry, Episode, TypedMemory
from palace.models import ActivityEvent, Drawer, Passage
from palace.services.passages import passages_build
from palace.services.portability import load_palace, load_tiers
from palace.services.portability.format import FORMAT, VERSION
from palace.services.portability.rows import BadRow, ImportLineError, Row

BATCH: Final = 1000  # rows per INSERT
EMBED_BATCH: Final = 128  # texts per embedding call
PROGRESS_EVERY: Final = 500  # lines

Writer = Callable[["Loader", Row], None]
WRITERS: Final[dict[str, Writer]] = {**load_palace.WRITERS, **load_tiers.WRITERS}

# What each embedded model embeds (the same text its own service embeds).
EMBEDDED: Final[tuple[tuple[type[models.Model], str], ...]] = (
    (Drawer, "content"),
    (Passage, "text"),
    (Episode, "summary"),
    (TypedMemory, "content"),
    (ContextEntry, "content"),
)


@dataclass
class Loader:
    """What the writers share while one file loads: the owner, the vectors' fate, natural key -> id maps
    (filled from the database on first use, so a file can refer to rows already stored), and the rows
    waiting for a bulk INSERT."""

    owner: User
    keep_vectors: bool
    embedder: str
    line: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    refs: dict[str, dict[Any, Any]] = field(default_factory=dict)
    agents: dict[str, Agent] = field(default_factory=dict)
    pending: list[tuple[int, models.Model]] = field(default_factory=list)  # (line, row)

    def ref(self, kind: str, load: Callable[[], Iterable[tuple[Any, Any]]]) -> dict[Any, Any]:
        if kind not in self.refs:
            self.refs[kind] = dict(load())
        return self.refs[kind]

    def lookup(self, kind: str, key: Any, load: Callable[[], Iterable[tuple[Any, Any]]]) -> Any:
        found = self.ref(kind, load).get(key)
        if found is None:
            raise BadRow(f"no {kind} {key!r} in the file before this line or in the palace.")
        return found

    def agent(self, name: str | None, *, description: str = "", config: dict[str, Any] | None = None) -> Agent | None:
        if name is None:
            return None
        if not self.agents:
            self.agents = {a.name: a for a in Agent.objects.filter(owner=self.owner)}
        if name not in self.agents:
            if not name or len(name) > 100:
                raise BadRow("an agent's name is 1 to 100 characters.")
            self.agents[name] = agent_create(owner=self.owner, name=name, description=description, config=config)
        return self.agents[name]

    def agent_ids(self, names: list[str]) -> list[str]:
        return [str(agent.pk) for agent in (self.agent(n) for n in names) if agent is not None]

    def vector(self, row: Row, target: Any) -> None:
        """Keep the row's vector when it was made by the model this installation embeds with."""
        vector = row.data.get("embedding")
        if self.keep_vectors and isinstance(vector, list) and len(vector) == settings.EMBEDDING_DIM:
            if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
                raise BadRow("'embedding' must be a list of numbers.")
            target.embedding, target.embedding_model = vector, self.embedder

    def queue(self, obj: models.Model) -> None:
        self.pending.append((self.line, obj))
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Insert the queued rows; a row whose natural key is stored already is skipped by its unique
        constraint (ON CONFLICT DO NOTHING), which is what makes a second import a no-op."""
        if not self.pending:
            return
        by_model: dict[type[models.Model], list[tuple[int, models.Model]]] = {}
        for line, obj in self.pending:
            by_model.setdefault(type(obj), []).append((line, obj))
        line, self.pending = self.line, []
        for model, queued in by_model.items():
            if model is Drawer:
                load_palace.drawers_check(self, queued)
            self.line = queued[0][0]
            model._default_manager.bulk_create([obj for _, obj in queued], ignore_conflicts=True)
            self.refs.pop(model.__name__.lower(), None)  # reload the key map with the new ids
        self.line = line


def import_lines(
    *, owner: User, lines: Iterable[str | bytes], progress: Callable[[int], None] | None = None
) -> dict[str, Any]:
    """Load an export file (format.py) into `owner`'s memory. Answers the rows read per type and how many
    rows were embedded afterwards. Raises ImportLineError (400) naming the first bad line; nothing is
    stored then."""
    loader = Loader(owner=owner, keep_vectors=False, embedder=providers.get_embedder().name)
    try:
        with transaction.atomic():
            _load(loader, iter(lines), progress)
    except ImportLineError:
        raise
    except (BadRow, ValidationError, DatabaseError, ValueError) as error:
        raise ImportLineError(loader.line, _reason(error)) from None
    # Passages are derived, never exported: split again from the drawers just loaded.
    passages_build(owner_id=owner.pk)
    embedded = embed_missing(owner=owner)
    result = {"rows": dict(loader.counts), "lines": loader.line, "embedded": embedded}
    ActivityEvent.objects.create(owner=owner, kind="memory_imported", data=result)
    return result


def _reason(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return (
            "; ".join(f"{k}: {' '.join(v)}" for k, v in error.message_dict.items()) if error.error_dict else str(error)
        )
    if isinstance(error, DatabaseError):
        # The database's first line names the column and the rule; the rest is noise for a person.
        return f"refused by the database: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
    return str(error)


def _load(loader: Loader, lines: Any, progress: Callable[[int], None] | None) -> None:
    header = _header(loader, next(lines, None))
    loader.keep_vectors = (
        bool(header.get("with_embeddings"))
        and header.get("embedding_model") == loader.embedder
        and header.get("embedding_dim") == settings.EMBEDDING_DIM
    )
    kind = "header"
    for raw in lines:
        loader.line += 1
        text = _decode(loader, raw)
        if not text.strip():
            continue
        row = Row(_parse(loader, text))
        row_kind = row.text("type")
        if row_kind not in WRITERS:
            raise BadRow(f"unknown row type {row_kind!r}.")
        if row_kind != kind:
            loader.flush()  # later rows refer to these by key
            kind = row_kind
        WRITERS[row_kind](loader, row)
        loader.counts[row_kind] += 1
        if progress is not None and loader.line % PROGRESS_EVERY == 0:
            progress(loader.line)
    loader.flush()
    load_palace.counters_raise(owner=loader.owner)
    load_palace.turns_mark_filed(owner=loader.owner)
    if progress is not None:
        progress(loader.line)


def _decode(loader: Loader, raw: str | bytes) -> str:
    if isinstance(raw, bytes):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRow("not UTF-8 text.") from None
    return raw


def _parse(loader: Loader, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadRow(f"not JSON ({error.msg} at column {error.colno}).") from None
    if not isinstance(data, dict):
        raise BadRow("each line is one JSON object.")
    return data


def _header(loader: Loader, first: str | bytes | None) -> dict[str, Any]:
    loader.line = 1
    if first is None:
        raise BadRow("the file is empty.")
    header = _parse(loader, _decode(loader, first))
    if header.get("type") != "header" or header.get("format") != FORMAT:
        raise BadRow(f"the first line is not a {FORMAT} header.")
    if header.get("version") != VERSION:
        raise BadRow(f"format version {header.get('version')!r} is not supported (this server reads {VERSION}).")
    return header


def embed_missing(*, owner: User) -> int:
    """Embed the owner's rows that have no vector (those just imported, and any the embedder missed
    before), in batches. Stops at the first failed batch: the embedding_backfill job retries later."""
    done = 0
    for model, text_field in EMBEDDED:
        last: Any = None
        while True:
            rows = model._default_manager.filter(owner=owner, embedding__isnull=True).order_by("pk")
            if last is not None:
                rows = rows.filter(pk__gt=last)
            batch = list(rows.values_list("pk", text_field)[:EMBED_BATCH])
            if not batch:
                break
            vectors = providers.embed_documents(owner_id=owner.pk, texts=[text for _, text in batch])
            if vectors is None:
                return done
            name = providers.get_embedder().name
            objs = [model(pk=pk, embedding=v, embedding_model=name) for (pk, _), v in zip(batch, vectors, strict=True)]
            model._default_manager.bulk_update(objs, ["embedding", "embedding_model"])
            done += len(objs)
            last = batch[-1][0]
    return done
