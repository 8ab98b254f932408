"""An embedder that really fails: rows are stored with a null embedding, keyword search still finds
them, and the backfill job, run by a real Celery worker, embeds them."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.models import Episode, TypedMemory
from episodic.services import episodes as services
from episodic.tasks import embedding_backfill, expired_cleanup
from ops.models import JobRun
from tests.conftest import Personas

pytestmark = pytest.mark.django_db(transaction=True)


def test_embedding_failure_then_backfill_through_a_real_worker(
    api: APIClient, personas: Personas, failing_embedder: None, celery_worker: str
) -> None:
    h = personas.owner.headers
    created = api.post(
        "/api/v1/episodes", {"conversation_id": "c", "summary": "The zebra crossing is unsafe."}, format="json", **h
    )
    assert created.status_code == 201 and created.json()["has_embedding"] is False
    memory = api.post(
        "/api/v1/memories/typed/semantic", {"content": "Prefers zebra-striped notebooks"}, format="json", **h
    )
    assert memory.status_code == 201
    # With no embedder, search falls back to keywords.
    hits = api.post("/api/v1/episodes/search", {"query": "zebra crossing"}, format="json", **h).json()["results"]
    assert [hit["episode"]["id"] for hit in hits] == [created.json()["id"]]
    assert hits[0]["similarity"] is None and hits[0]["keyword"] > 0

    # The worker runs with the default (working) embedder.
    result = embedding_backfill.delay()
    counts = result.get(timeout=120)
    assert counts["episodes"] == 1 and counts["typed_memories"] == 1 and counts["failed"] == 0
    episode = Episode.objects.get(pk=created.json()["id"])
    assert episode.embedding is not None and len(episode.embedding) == 384
    assert TypedMemory.objects.get().embedding is not None
    # Running it again finds nothing to do.
    again = embedding_backfill.delay().get(timeout=60)
    assert again["episodes"] == again["typed_memories"] == again["failed"] == 0
    deadline = time.monotonic() + 10
    while not JobRun.objects.filter(task_id=result.id, status=JobRun.Status.SUCCEEDED).exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_expired_cleanup_through_a_real_worker(personas: Personas, celery_worker: str) -> None:
    owner = personas.owner
    kept = services.episode_store(owner=owner.user, agent=owner.agent, conversation_id="k", summary="Stays.")
    gone = services.episode_store(owner=owner.user, agent=owner.agent, conversation_id="g", summary="Expires.")
    Episode.objects.filter(pk=gone.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    counts = expired_cleanup.delay().get(timeout=60)
    assert counts == {"episodes": 1, "short_term": 0, "pools": 0, "workflow_pools": 0, "dry_run": 0}
    assert list(Episode.objects.values_list("pk", flat=True)) == [kept.pk]
