"""The configured embedder and LLM, loaded once per process, and metered calls to them.

Every call records a UsageRecord (owner, source, provider, model, items, tokens, estimated cost).
Failures never raise to the caller: an embedding that cannot be made is None (the row is saved with a
null embedding and the backfill job embeds it later), an LLM that fails or is not configured is None
(the caller takes its offline path).

Over its owner's monthly budget (accounts/budgets.py) the LLM and a paid embedder are not called at
all: the same None, so the same offline path. Callers that must say why ask `llm_over_budget` or
`embedding_over_budget` first. The local and hashing embedders cost nothing and are never blocked.
"""

from __future__ import annotations

import functools
import logging
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from accounts.budgets import budget_exceeded
from accounts.models import UsageRecord
from accounts.services import usage_record
from memory_site.after_response import later
from memory_site.lib.embeddings import (
    KNOWN_DIMS,
    LOCAL_MODEL_DIM,
    Embedded,
    Embedder,
    EmbeddingError,
    HashingEmbedder,
    LocalMiniLMEmbedder,
    OpenAIEmbedder,
)
from memory_site.lib.llm import ChatLLM, Completion, LLMError

logger = logging.getLogger(__name__)


def declared_dim() -> int:
    """The dimension the configured embedder produces, known without loading it."""
    if settings.EMBEDDING_PROVIDER == "local":
        return LOCAL_MODEL_DIM
    if settings.EMBEDDING_PROVIDER == "openai":
        return KNOWN_DIMS.get(settings.EMBEDDING_MODEL, settings.EMBEDDING_DIM)
    return int(settings.EMBEDDING_DIM)


def dimension_mismatch() -> str | None:
    dim = declared_dim()
    if dim == settings.EMBEDDING_DIM:
        return None
    return (
        f"the embedding model {settings.EMBEDDING_MODEL!r} ({settings.EMBEDDING_PROVIDER}) makes {dim}-dimensional "
        f"vectors but EMBEDDING_DIM is {settings.EMBEDDING_DIM}: set EMBEDDING_DIM={dim}, migrate the vector "
        "columns and run `manage.py reembed`, or choose a model of the columns' dimension"
    )


@functools.cache
def get_embedder() -> Embedder:
    mismatch = dimension_mismatch()
    if mismatch:
        raise ImproperlyConfigured(mismatch)
    if settings.EMBEDDING_PROVIDER == "openai":
        return OpenAIEmbedder(
            model=settings.EMBEDDING_MODEL,
            dim=settings.EMBEDDING_DIM,
            base_url=settings.OPENAI_BASE_URL,
            api_key=settings.OPENAI_API_KEY,
            timeout=settings.EMBEDDING_TIMEOUT,
        )
    if settings.EMBEDDING_PROVIDER == "local":
        try:
            return LocalMiniLMEmbedder(
                threads=settings.EMBEDDING_THREADS,
                batch_size=settings.EMBEDDING_BATCH_SIZE,
                max_tokens=settings.EMBEDDING_MAX_TOKENS,
            )
        except Exception:
            logger.critical(
                "THE DEFAULT EMBEDDING MODEL COULD NOT LOAD: falling back to the hashing embedder; "
                "semantic search quality is much lower until this is fixed",
                exc_info=True,
            )
    return HashingEmbedder(dim=settings.EMBEDDING_DIM)


@functools.cache
def get_llm() -> ChatLLM | None:
    if not settings.LLM_MODEL:
        return None
    return ChatLLM(
        model=settings.LLM_MODEL,
        base_url=settings.OPENAI_BASE_URL,
        api_key=settings.OPENAI_API_KEY,
        timeout=settings.LLM_TIMEOUT,
    )


def embedder_is_paid() -> bool:
    return settings.EMBEDDING_PROVIDER == "openai"


def embedding_over_budget(*, owner_id: int) -> bool:
    """True when embedding for this owner is held back: a paid embedder and the owner over budget."""
    return embedder_is_paid() and budget_exceeded(owner_id=owner_id)


def llm_over_budget(*, owner_id: int) -> bool:
    """True when an LLM is configured but this owner is over budget (the offline path is taken)."""
    return get_llm() is not None and budget_exceeded(owner_id=owner_id)


def embed_documents(
    *, owner_id: int, texts: list[str], source: str = UsageRecord.Source.EMBED
) -> list[list[float]] | None:
    if not texts:
        return []
    if embedding_over_budget(owner_id=owner_id):
        # Stored with a null embedding; embedding_backfill picks the rows up once the budget allows.
        logger.info("owner %s is over budget: %d texts are stored without embeddings", owner_id, len(texts))
        return None
    embedder = get_embedder()
    try:
        result: Embedded | None = embedder.embed_documents(texts)
    except EmbeddingError:
        logger.warning("embedding %d texts failed; they are stored without embeddings", len(texts), exc_info=True)
        result = None
    return _metered(owner_id=owner_id, source=source, embedder=embedder, items=len(texts), result=result)


def _metered(
    *, owner_id: int, source: str, embedder: Embedder, items: int, result: Embedded | None
) -> list[list[float]] | None:
    """Record an embedding call (failed when `result` is None) and answer its vectors."""
    usage_record(
        owner_id=owner_id,
        source=source,
        provider=embedder.provider,
        model=embedder.name,
        items=items,
        input_tokens=result.tokens if result is not None else 0,
        succeeded=result is not None,
    )
    return result.vectors if result is not None else None


class QueryVectors:
    """The latest query embeddings of this process, by (owner, model, text), least recently used out
    first: an agent asks the same questions again (every turn's recall, a retried request), and a hit
    saves the embedder's ~7 ms and its meter row. Keyed by owner too, so how fast a query answers never
    tells one owner what another asked."""

    def __init__(self, size: int) -> None:
        self.size = size
        # float32 arrays: 1.5 KB a vector where a list of Python floats takes ~12 KB (the models give
        # float32, so nothing is lost).
        self._vectors: OrderedDict[tuple[int, str, str], array[float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, str, str]) -> list[float] | None:
        with self._lock:
            vector = self._vectors.get(key)
            if vector is not None:
                self._vectors.move_to_end(key)
        return vector.tolist() if vector is not None else None

    def put(self, key: tuple[int, str, str], vector: list[float]) -> None:
        with self._lock:
            self._vectors[key] = array("f", vector)
            self._vectors.move_to_end(key)
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()


query_vectors = QueryVectors(size=settings.EMBEDDING_QUERY_CACHE_SIZE)


# Query embeddings run here while the request's thread does the database work that does not need them
# (keyword candidates, pins, the pending turns). No database access in these threads: the caller meters
# the call when it collects the vector.
_query_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="loci-embed")


def _awaited(future: Future[Embedded], *, owner_id: int, embedder: Embedder, items: int, what: str) -> Embedded | None:
    """A background embedding's result (None when it failed), metered after the response is sent (a request)
    or now (anywhere else): not on recall's path."""
    try:
        result: Embedded | None = future.result()
    except EmbeddingError:
        logger.warning("embedding %s failed; recall goes on without it", what, exc_info=True)
        result = None
    later(
        functools.partial(
            _metered, owner_id=owner_id, source=UsageRecord.Source.EMBED, embedder=embedder, items=items, result=result
        )
    )
    return result


def embed_query_start(*, owner_id: int, text: str) -> Callable[[], list[float] | None]:
    """Start embedding a query; the function returned waits for its vector (None when the embedder
    failed or the owner is over a paid embedder's budget), meters it and caches it, in the caller's
    thread. From the cache at once when the query was asked lately."""
    key = (owner_id, get_embedder().name, text)
    cached = query_vectors.get(key) if query_vectors.size else None
    if cached is not None:
        return lambda: cached
    if embedding_over_budget(owner_id=owner_id):
        return lambda: None
    embedder = get_embedder()
    future = _query_pool.submit(embedder.embed_query, text)

    def collect() -> list[float] | None:
        result = _awaited(future, owner_id=owner_id, embedder=embedder, items=1, what="a query")
        vectors = result.vectors if result is not None else None
        if not vectors:
            return None
        if query_vectors.size:
            query_vectors.put(key, vectors[0])
        return vectors[0]

    return collect


def embed_queries_start(*, owner_id: int, texts: list[str]) -> Callable[[], list[list[float]] | None]:
    """embed_query_start for several short texts in one batch (the parts of a question): one model call
    where one each would queue behind the model's lock; None when any failed."""
    embedder = get_embedder()
    keys = [(owner_id, embedder.name, text) for text in texts]
    cached = [query_vectors.get(key) if query_vectors.size else None for key in keys]
    missing = [text for text, vector in zip(texts, cached, strict=True) if vector is None]
    if not missing:
        return lambda: [v for v in cached if v is not None]
    if embedding_over_budget(owner_id=owner_id):
        return lambda: None
    future = _query_pool.submit(embedder.embed_documents, missing)

    def collect() -> list[list[float]] | None:
        result = _awaited(future, owner_id=owner_id, embedder=embedder, items=len(missing), what="a question's parts")
        if result is None or len(result.vectors) != len(missing):
            return None
        fresh = dict(zip(missing, result.vectors, strict=True))
        if query_vectors.size:
            for text, vector in fresh.items():
                query_vectors.put((owner_id, embedder.name, text), vector)
        return [vector if vector is not None else fresh[text] for text, vector in zip(texts, cached, strict=True)]

    return collect


def embed_query(*, owner_id: int, text: str) -> list[float] | None:
    """One text's embedding (a search query, usually), from the process's cache when it was asked
    lately; a failed embedding is never cached."""
    return embed_query_start(owner_id=owner_id, text=text)()


def embed_documents_cached(*, owner_id: int, texts: list[str]) -> list[list[float]] | None:
    """The texts' embeddings, from the process's cache where it has them, the rest in one batch (recall
    embeds pending turns with this: the same turn is asked about again until the miner files it)."""
    model = get_embedder().name
    found = {text: query_vectors.get((owner_id, model, text)) for text in dict.fromkeys(texts)}
    missing = [text for text, vector in found.items() if vector is None]
    if missing:
        vectors = embed_documents(owner_id=owner_id, texts=missing)
        if vectors is None:
            return None
        for text, vector in zip(missing, vectors, strict=True):
            found[text] = vector
            query_vectors.put((owner_id, model, text), vector)
    return [found[text] for text in texts]  # type: ignore[misc]


def chat(
    *,
    owner_id: int,
    source: str,
    messages: list[dict[str, Any]],
    json_mode: bool = False,
    model: str | None = None,
    timeout: float | None = None,
) -> Completion | None:
    llm = get_llm()
    if llm is None:
        return None
    if budget_exceeded(owner_id=owner_id):
        logger.info("owner %s is over budget: %s takes the offline path", owner_id, source)
        return None
    try:
        completion = llm.chat(messages, json_mode=json_mode, model=model, timeout=timeout)
    except LLMError:
        logger.warning("LLM call for %s failed; using the offline path", source, exc_info=True)
        usage_record(
            owner_id=owner_id, source=source, provider=llm.provider, model=model or llm.model, items=1, succeeded=False
        )
        return None
    usage_record(
        owner_id=owner_id,
        source=source,
        provider=llm.provider,
        model=completion.model,
        items=1,
        input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens,
    )
    return completion
