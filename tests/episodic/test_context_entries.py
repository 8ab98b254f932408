"""Entries of persistent contexts over HTTP: versioned edits, importance, relevance, read, delete,
search within a context, bad input. Access to them is tested with the contexts' (test_contexts.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.api.context_entries import MESSAGE_ENTRY_NOT_CURRENT
from episodic.api.contexts import MESSAGE_CONTEXT_NOT_FOUND
from episodic.models import ContextAccessLog, ContextEntry
from episodic.selectors import contexts as context_selectors
from memory_site.api.exceptions import MESSAGE_INVALID_INPUT
from tests.conftest import Personas
from tests.episodic.factories import make_context, make_entry
from tests.factories import Persona

pytestmark = pytest.mark.django_db

CONTEXTS = "/api/v1/contexts"


def _search(api: APIClient, persona: Persona, context_id: str, query: str, **body: Any) -> Any:
    return api.post(f"{CONTEXTS}/{context_id}/search", {"query": query, **body}, format="json", **persona.headers)


def _error(response: Any, status_code: int, message: str) -> bool:
    return response.status_code == status_code and response.json() == {"message": message, "extra": {}}


# --- entries: versions, importance, relevance ---------------------------------------------------------


def test_editing_an_entry_twice_leaves_three_linked_versions_and_only_the_newest_is_current(
    api: APIClient, personas: Personas
) -> None:
    owner = personas.owner
    context = make_context(owner)
    first = make_entry(owner, context, "The deadline is May 1.", metadata={"source": "email"}, key="deadline")
    url = f"{CONTEXTS}/{context.pk}/entries"
    second = api.patch(f"{url}/{first.pk}", {"content": "The deadline is May 8."}, format="json", **owner.headers)
    assert second.status_code == 200
    third = api.patch(
        f"{url}/{second.json()['id']}",
        {"content": "The deadline is May 15.", "metadata": {"source": "call"}},
        format="json",
        **owner.headers,
    ).json()

    v1, v2, v3 = (ContextEntry.objects.get(pk=pk) for pk in (first.pk, second.json()["id"], third["id"]))
    assert [v.version for v in (v1, v2, v3)] == [1, 2, 3]
    assert (v1.previous_version_id, v2.previous_version_id, v3.previous_version_id) == (None, v1.pk, v2.pk)
    assert [v.is_current for v in (v1, v2, v3)] == [False, False, True]
    assert (v2.metadata, v3.metadata) == ({"source": "email"}, {"source": "call"})  # kept unless given
    assert v3.key == "deadline" and v3.embedding is not None

    for any_version in (v1, v2, v3):
        history = api.get(f"{url}/{any_version.pk}/history", **owner.headers).json()["results"]
        assert [h["content"] for h in history] == [
            "The deadline is May 1.",
            "The deadline is May 8.",
            "The deadline is May 15.",
        ]
    live = api.get(url, **owner.headers).json()
    assert live["count"] == 1 and [e["id"] for e in live["results"]] == [str(v3.pk)]

    stale = api.patch(f"{url}/{v1.pk}", {"content": "The deadline is June 1."}, format="json", **owner.headers)
    assert stale.status_code == 409
    assert stale.json() == {"message": MESSAGE_ENTRY_NOT_CURRENT, "extra": {"current_id": str(v3.pk)}}
    assert ContextEntry.objects.count() == 3 and ContextEntry.objects.filter(is_current=True).get().pk == v3.pk


def test_boost_and_reduce_keep_the_importance_between_zero_and_one(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    context = make_context(owner)
    entry_id = make_entry(owner, context, "Prefers tea.", importance=0.5).pk
    url = f"{CONTEXTS}/{context.pk}/entries/{entry_id}"

    def importance() -> float:
        return ContextEntry.objects.get(pk=entry_id).importance

    assert api.post(f"{url}/boost", **owner.headers).json()["importance"] == pytest.approx(0.6)  # default 0.1
    assert importance() == pytest.approx(0.6)
    assert api.post(f"{url}/boost", {"amount": 0.9}, format="json", **owner.headers).json()["importance"] == 1.0
    assert api.post(f"{url}/boost", {"amount": 0.9}, format="json", **owner.headers).json()["importance"] == 1.0
    assert importance() == 1.0
    assert api.post(f"{url}/reduce", {"amount": 0.25}, format="json", **owner.headers).json()["importance"] == 0.75
    assert api.post(f"{url}/reduce", {"amount": 1}, format="json", **owner.headers).json()["importance"] == 0.0
    assert api.post(f"{url}/reduce", {"amount": 0.5}, format="json", **owner.headers).json()["importance"] == 0.0
    assert importance() == 0.0
    for amount in (-0.1, 1.5, "lots"):
        refused = api.post(f"{url}/boost", {"amount": amount}, format="json", **owner.headers)
        assert refused.status_code == 400 and refused.json()["message"] == MESSAGE_INVALID_INPUT
    assert importance() == 0.0


def test_the_effective_relevance_score_follows_the_documented_formula(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    context = make_context(owner)
    context_id = str(context.pk)
    used = str(make_entry(owner, context, "Used two months ago.").pk)
    never = str(make_entry(owner, context, "Written long ago, never read.").pk)
    fresh = str(make_entry(owner, context, "Written just now.", importance=0.6, confidence=0.9).pk)
    now = timezone.now()
    ContextEntry.objects.filter(pk=used).update(
        importance=0.8,
        confidence=0.5,
        last_accessed_at=now - timedelta(days=60),
        updated_at=now - timedelta(days=90),
        created_at=now - timedelta(days=90),
    )
    ContextEntry.objects.filter(pk=never).update(
        importance=1.0, confidence=0.2, updated_at=now - timedelta(days=3000), created_at=now - timedelta(days=3000)
    )
    half_life = settings.MAINTENANCE_STALENESS_HALF_LIFE_DAYS

    def documented(importance: float, confidence: float, days: float) -> float:
        return importance * confidence * (0.5 + 0.5 * 0.5 ** (days / half_life))

    # The list does not count as a use, so it shows the scores of the crafted timestamps.
    listed = {e["id"]: e for e in api.get(f"{CONTEXTS}/{context_id}/entries", **owner.headers).json()["results"]}
    assert listed[used]["effective_relevance_score"] == pytest.approx(documented(0.8, 0.5, 60), rel=1e-4)
    assert listed[never]["effective_relevance_score"] == pytest.approx(0.1, rel=1e-4)  # never below half of 0.2
    assert listed[fresh]["effective_relevance_score"] == pytest.approx(0.54, rel=1e-4)
    for entry_id, entry in listed.items():
        assert entry["staleness"] == pytest.approx(
            context_selectors.staleness(ContextEntry.objects.get(pk=entry_id), now), abs=1e-4
        )
    assert listed[never]["staleness"] > 0.9 > listed[used]["staleness"] > listed[fresh]["staleness"]

    # The function itself, at a fixed instant, for last use taken as the latest of the three timestamps.
    entry = ContextEntry.objects.get(pk=used)
    later = now + timedelta(days=30)
    assert context_selectors.effective_relevance_score(entry, later) == pytest.approx(documented(0.8, 0.5, 90))
    entry.last_accessed_at = None
    assert context_selectors.effective_relevance_score(entry, later) == pytest.approx(documented(0.8, 0.5, 120))

    # Reading one entry counts a use: it is fresh again.
    read = api.get(f"{CONTEXTS}/{context_id}/entries/{used}", **owner.headers).json()
    assert read["access_count"] == 1 and read["effective_relevance_score"] == pytest.approx(0.4, rel=1e-4)


def test_an_entry_can_be_read_and_deleted(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    context_id = str(make_context(owner).pk)
    body = {
        "content": "Deploys on Fridays are banned.",
        "entry_type": "decision",
        "source_type": "user",
        "memory_type": "experiential",
        "importance": 0.9,
        "confidence": 0.8,
        "metadata": {"by": "cto"},
        "key": "deploys",
    }
    created = api.post(f"{CONTEXTS}/{context_id}/entries", body, format="json", **owner.headers)
    assert created.status_code == 201
    entry = created.json()
    assert set(entry) == {
        "id",
        "context_id",
        "agent_id",
        "key",
        "entry_type",
        "source_type",
        "memory_type",
        "content",
        "metadata",
        "importance",
        "confidence",
        "version",
        "previous_version_id",
        "is_current",
        "archived_at",
        "merged_into_id",
        "deprecated_at",
        "access_count",
        "last_accessed_at",
        "has_embedding",
        "effective_relevance_score",
        "staleness",
        "created_at",
        "updated_at",
    }
    assert (entry["entry_type"], entry["source_type"], entry["memory_type"]) == ("decision", "user", "experiential")
    assert entry["context_id"] == context_id and entry["has_embedding"] is True and entry["version"] == 1
    url = f"{CONTEXTS}/{context_id}/entries/{entry['id']}"
    assert api.get(url, **owner.headers).json()["metadata"] == {"by": "cto"}
    assert api.delete(url, **owner.headers).status_code == 204
    assert api.get(url, **owner.headers).status_code == 404
    assert not ContextEntry.objects.exists()


# --- search -------------------------------------------------------------------------------------------


def test_search_finds_an_entry_by_meaning_and_only_in_this_context(api: APIClient, personas: Personas) -> None:
    owner, outsider = personas.owner, personas.outsider
    context = make_context(owner)
    context_id = str(context.pk)
    car = str(make_entry(owner, context, "I bought a new car last week; it is a red sedan.").pk)
    make_entry(owner, context, "The quarterly tax report is due on Friday.")
    make_entry(owner, context, "We adopted a kitten named Miso.")
    make_entry(owner, make_context(owner, name="garage"), "The automobile needs new tyres and an automobile wash.")
    foreign_context = make_context(outsider)
    foreign = str(foreign_context.pk)
    make_entry(outsider, foreign_context, "My automobile is a blue automobile.")

    hits = _search(api, owner, context_id, "automobile").json()["results"]
    assert hits[0]["entry"]["id"] == car
    assert hits[0]["keyword"] == 0 and hits[0]["similarity"] > hits[-1]["similarity"]  # by meaning alone
    assert set(hits[0]) == {"entry", "score", "similarity", "keyword"}
    assert {hit["entry"]["context_id"] for hit in hits} == {context_id}
    assert ContextEntry.objects.get(pk=car).access_count == 1  # a hit counts a use

    assert len(_search(api, owner, context_id, "automobile", limit=1).json()["results"]) == 1
    theirs = _search(api, outsider, foreign, "car automobile").json()["results"]
    assert {hit["entry"]["context_id"] for hit in theirs} == {foreign}
    assert _error(_search(api, outsider, context_id, "car"), 404, MESSAGE_CONTEXT_NOT_FOUND)


# --- bad input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"content": ""},
        {"content": 42},
        {"content": "x", "importance": 1.5},
        {"content": "x", "importance": -0.1},
        {"content": "x", "confidence": 2},
        {"content": "x", "entry_type": "rumour"},
        {"content": "x", "source_type": "oracle"},
        {"content": "x", "memory_type": "eternal"},
        {"content": "x", "metadata": ["not", "an", "object"]},
        {"content": "x", "key": "k" * 257},
        {"content": "x" * 20_001},
    ],
)
def test_a_bad_entry_is_a_400_and_stores_nothing(api: APIClient, personas: Personas, body: dict) -> None:
    context_id = make_context(personas.owner).pk
    response = api.post(f"{CONTEXTS}/{context_id}/entries", body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not ContextEntry.objects.exists()


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "offset=-1", "limit=many"])
def test_bad_list_parameters_are_400s(api: APIClient, personas: Personas, query: str) -> None:
    context_id = make_context(personas.owner).pk
    response = api.get(f"{CONTEXTS}/{context_id}/entries?{query}", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not ContextAccessLog.objects.exists()
