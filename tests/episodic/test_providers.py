from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from django.core.checks import run_checks
from django.core.exceptions import ImproperlyConfigured

from accounts.models import UsageRecord
from accounts.selectors import usage_summary
from episodic import providers
from memory_site.config import BASE_DIR
from memory_site.lib.embeddings import HashingEmbedder
from tests.factories import make_user

OFFLINE_SCRIPT = textwrap.dedent(
    """
    import socket
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")
    socket.socket.connect = refuse
    socket.create_connection = refuse
    from memory_site.lib.embeddings import LocalMiniLMEmbedder
    embedder = LocalMiniLMEmbedder(threads=1)
    a, b, c = embedder.embed_documents(
        ["I love hiking in the mountains", "Mountain trekking is my passion", "The tax report is due Friday"]
    ).vectors
    dot = lambda x, y: sum(p * q for p, q in zip(x, y))
    print(len(a), round(dot(a, a), 4), dot(a, b) > dot(a, c) + 0.3)
    """
)


def test_the_default_model_loads_and_embeds_with_the_network_disabled() -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HOME": "/nonexistent/hf"}
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["384", "1.0", "True"]


def test_the_local_embedder_matches_order_and_normalises() -> None:
    embedder = providers.get_embedder()
    assert (embedder.provider, embedder.dim) == ("local", 384)
    texts = ["short", "a much longer sentence about my sister's birthday party in March", "medium length text"]
    batch = embedder.embed_documents(texts).vectors
    singles = [embedder.embed_query(t).vectors[0] for t in texts]
    for got, want in zip(batch, singles, strict=True):
        assert sum(x * y for x, y in zip(got, want, strict=True)) > 0.999


@pytest.mark.django_db
def test_every_embedding_call_is_metered(use_providers: Any, stub_openai: str) -> None:
    owner = make_user()
    use_providers(
        EMBEDDING_PROVIDER="openai",
        EMBEDDING_MODEL="text-embedding-3-small",
        EMBEDDING_DIM=1536,
        OPENAI_BASE_URL=stub_openai,
    )
    # The stub answers 384-d vectors: the provider refuses them rather than storing the wrong size.
    assert providers.embed_documents(owner_id=owner.pk, texts=["a", "b"]) is None
    use_providers(
        EMBEDDING_PROVIDER="openai", EMBEDDING_MODEL="all-minilm", EMBEDDING_DIM=384, OPENAI_BASE_URL=stub_openai
    )
    vectors = providers.embed_documents(owner_id=owner.pk, texts=["one", "two", "three"])
    assert vectors is not None and len(vectors) == 3 and len(vectors[0]) == 384
    records = list(UsageRecord.objects.filter(owner=owner).order_by("created_at"))
    assert [(r.source, r.items, r.succeeded) for r in records] == [
        ("memory_embed", 2, False),
        ("memory_embed", 3, True),
    ]
    assert records[1].input_tokens == 21 and records[1].model == "all-minilm"
    summary = usage_summary(owner=owner)
    assert summary[0]["source"] == "memory_embed" and summary[0]["calls"] == 2 and summary[0]["items"] == 5


@pytest.mark.django_db
def test_a_failing_embedder_gives_none_not_an_error(failing_embedder: None) -> None:
    owner = make_user()
    assert providers.embed_query(owner_id=owner.pk, text="hello") is None
    assert UsageRecord.objects.get(owner=owner).succeeded is False


def test_a_model_of_another_dimension_is_refused_at_start_up(use_providers: Any) -> None:
    use_providers(EMBEDDING_PROVIDER="local", EMBEDDING_DIM=1536)
    message = providers.dimension_mismatch()
    assert message is not None and "makes 384-dimensional vectors but EMBEDDING_DIM is 1536" in message
    with pytest.raises(ImproperlyConfigured, match="EMBEDDING_DIM is 1536"):
        providers.get_embedder()
    assert [e.id for e in run_checks() if (e.id or "").startswith("episodic")] == ["episodic.E001"]


@pytest.mark.django_db
def test_the_vector_columns_are_checked_against_the_configuration(use_providers: Any) -> None:
    assert [e for e in run_checks(databases=["default"]) if e.id == "episodic.E002"] == []
    use_providers(EMBEDDING_PROVIDER="hashing", EMBEDDING_DIM=512)
    errors = [e.msg for e in run_checks(databases=["default"]) if e.id == "episodic.E002"]
    assert "episodic_episode.embedding is vector(384) but EMBEDDING_DIM is 512" in errors


def test_the_hashing_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashingEmbedder(dim=64)
    a, b = embedder.embed_documents(["the same words", "the same words"]).vectors
    assert a == b and abs(sum(x * x for x in a) - 1) < 1e-9


@pytest.mark.django_db
def test_the_llm_is_optional_and_metered(use_providers: Any, stub_openai: str) -> None:
    owner = make_user()
    assert (
        providers.chat(owner_id=owner.pk, source="memory_extract", messages=[{"role": "user", "content": "x"}]) is None
    )
    use_providers(LLM_MODEL="gpt-4o-mini", OPENAI_BASE_URL=stub_openai)
    completion = providers.chat(owner_id=owner.pk, source="memory_extract", messages=[{"role": "user", "content": "x"}])
    assert completion is not None and "Anna" in completion.text
    record = UsageRecord.objects.get(owner=owner, source="memory_extract")
    assert (record.input_tokens, record.output_tokens) == (50, 20)
    assert record.cost_usd > 0


@pytest.mark.django_db
def test_usage_is_summed_per_owner_and_source_over_the_api(api: Any) -> None:
    from tests.factories import make_persona

    owner, outsider = make_persona(), make_persona()
    providers.embed_documents(owner_id=owner.user.pk, texts=["a", "b"])
    providers.embed_query(owner_id=owner.user.pk, text="c")
    rows = api.get("/api/v1/usage", **owner.headers).json()["results"]
    assert [(r["source"], r["calls"], r["items"]) for r in rows] == [("memory_embed", 2, 3)]
    assert api.get("/api/v1/usage", **outsider.headers).json()["results"] == []


@pytest.mark.django_db
def test_a_repeated_query_is_embedded_once_per_owner() -> None:
    owner, other = make_user(), make_user()
    first = providers.embed_query(owner_id=owner.pk, text="where does my sister live?")
    again = providers.embed_query(owner_id=owner.pk, text="where does my sister live?")
    assert first is not None and again == first
    assert UsageRecord.objects.filter(owner=owner).count() == 1  # the second came from the cache
    providers.embed_query(owner_id=other.pk, text="where does my sister live?")
    assert UsageRecord.objects.filter(owner=other).count() == 1  # another owner's query is its own


def test_the_query_cache_is_bounded_least_recently_used_out_first() -> None:
    from episodic.providers import QueryVectors

    cache = QueryVectors(size=2)
    cache.put((1, "m", "a"), [1.0])
    cache.put((1, "m", "b"), [2.0])
    assert cache.get((1, "m", "a")) == [1.0]  # a is now the most recent
    cache.put((1, "m", "c"), [3.0])
    assert cache.get((1, "m", "b")) is None and cache.get((1, "m", "a")) == [1.0]
