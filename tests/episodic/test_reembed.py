from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from episodic.management.commands.reembed import _column_dim
from episodic.models import Episode, TypedMemory
from episodic.services import episodes as services
from episodic.services.typed_memories import typed_memory_create
from tests.factories import make_persona

pytestmark = pytest.mark.django_db


def test_reembed_rebuilds_every_vector_with_the_configured_model(use_providers: Any) -> None:
    persona = make_persona()
    use_providers(EMBEDDING_PROVIDER="hashing", EMBEDDING_DIM=384)
    episode = services.episode_store(
        owner=persona.user, agent=persona.agent, conversation_id="c", summary="Hiking plans"
    )
    typed_memory_create(owner=persona.user, agent=persona.agent, memory_type="semantic", content="Likes hiking")
    assert episode.embedding_model == "hashing"
    use_providers(EMBEDDING_PROVIDER="local", EMBEDDING_MODEL="all-MiniLM-L6-v2-onnx-int8")  # the default again
    out = StringIO()
    call_command("reembed", stdout=out)
    assert "episodes [" in out.getvalue() and "1/1" in out.getvalue()
    assert set(Episode.objects.values_list("embedding_model", flat=True)) == {"all-MiniLM-L6-v2-onnx-int8"}
    assert set(TypedMemory.objects.values_list("embedding_model", flat=True)) == {"all-MiniLM-L6-v2-onnx-int8"}


def test_reembed_changes_the_column_dimension_after_a_model_change(use_providers: Any) -> None:
    persona = make_persona()
    services.episode_store(owner=persona.user, agent=persona.agent, conversation_id="c", summary="Tax report")
    use_providers(EMBEDDING_PROVIDER="hashing", EMBEDDING_DIM=64)
    call_command("reembed", stdout=StringIO())
    assert _column_dim(Episode._meta.db_table) == 64
    embedding = Episode.objects.get().embedding
    assert embedding is not None and len(embedding) == 64
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'episode_embedding_hnsw'")
        assert "hnsw" in cursor.fetchone()[0]
    # (the test transaction rolls the column back to 384 dimensions)
