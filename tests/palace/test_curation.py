"""Pin and never recall: a pin lifts a relevant drawer (and makes it a candidate whatever the pool), never
an unrelated one; a never-recall drawer stays browsable but is out of recall, partners and context."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from palace.models import ActivityEvent, Drawer
from palace.recall import recall
from palace.services import curation
from tests.conftest import Personas
from tests.palace.recall_data import mine, set_vector, unit

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)
LISBON = "My sister Anna is flying to Lisbon next week for a conference."


def _three(personas: Personas) -> list[Drawer]:
    drawers = mine(
        personas.owner.user,
        "c1",
        [
            {"role": "user", "content": "Our dog chewed the sofa again."},
            {"role": "user", "content": "The puppy ate a cushion as well."},
            {"role": "user", "content": "Taxes are due in April."},
        ],
        MARCH,
    )
    set_vector(drawers[0], unit((0, 0.9), (1, 0.1)))  # closest to the query
    set_vector(drawers[1], unit((0, 0.7), (2, 0.3)))  # relevant, but second
    set_vector(drawers[2], unit((5, 1.0)))  # unrelated
    return drawers


def _first(personas: Personas) -> int:
    hits = recall(owner=personas.owner.user, query="zzz", top_k=1, vector=unit((0, 1.0))).hits
    return hits[0].drawer.pk


def test_a_pinned_drawer_comes_first_for_a_query_it_is_relevant_to(personas: Personas) -> None:
    closest, second, _ = _three(personas)
    assert _first(personas) == closest.pk
    curation.drawer_pin(drawer=second, pinned=True)
    hits = recall(owner=personas.owner.user, query="zzz", top_k=2, vector=unit((0, 1.0))).hits
    assert [h.drawer.pk for h in hits] == [second.pk, closest.pk]
    assert hits[0].signals["pinned"] == 1.0 and hits[1].signals["pinned"] == 0.0
    curation.drawer_pin(drawer=second, pinned=False)
    assert _first(personas) == closest.pk


def test_a_pin_never_brings_an_unrelated_drawer(personas: Personas) -> None:
    _, _, unrelated = _three(personas)
    curation.drawer_pin(drawer=unrelated, pinned=True)
    hits = recall(owner=personas.owner.user, query="zzz", top_k=5, vector=unit((0, 1.0))).hits
    assert unrelated.pk not in [h.drawer.pk for h in hits]


def test_a_pinned_drawer_is_a_candidate_even_outside_the_pool(personas: Personas) -> None:
    turns = [{"role": "user", "content": f"Note number {i} about the dog."} for i in range(14)]
    drawers = mine(personas.owner.user, "many", turns, MARCH)
    for index, drawer in enumerate(drawers):
        set_vector(drawer, unit((0, 1.0), (index + 1, 0.05 * (index + 1))))  # later ones a little further
    last = drawers[-1]
    with override_settings(RECALL_CANDIDATES=10):
        before = recall(owner=personas.owner.user, query="zzz", top_k=1, vector=unit((0, 1.0)), candidates=10)
        assert before.hits[0].drawer.pk != last.pk
        curation.drawer_pin(drawer=last, pinned=True)
        after = recall(owner=personas.owner.user, query="zzz", top_k=1, vector=unit((0, 1.0)), candidates=10)
    assert after.hits[0].drawer.pk == last.pk


def test_without_pins_scores_are_unchanged_by_the_pinned_signal(personas: Personas) -> None:
    _three(personas)
    for hit in recall(owner=personas.owner.user, query="zzz", top_k=5, vector=unit((0, 1.0))).hits:
        assert hit.signals["pinned"] == 0.0
        assert hit.score == pytest.approx(
            sum(w * hit.signals[s] for s, w in {"semantic": 1.0, "keyword": 0.3}.items())
            + 0.3 * hit.signals["temporal"]
            + 0.1 * hit.signals["preference"],
            abs=1e-5,
        )


def test_a_never_recall_drawer_is_out_of_recall_and_context_but_browsable(personas: Personas, api: APIClient) -> None:
    question, answer = mine(
        personas.owner.user,
        "trip",
        [
            {"role": "user", "content": LISBON},
            {"role": "assistant", "content": "Lisbon in spring is lovely; she should try the pastel de nata."},
        ],
        MARCH,
    )
    h = personas.owner.headers
    found = api.post("/api/v1/recall", {"query": "When does Anna fly to Lisbon?"}, format="json", **h).json()
    assert LISBON in found["memory_context"]
    changed = api.put(f"/api/v1/palace/drawers/{question.pk}/never-recall", {"never_recall": True}, format="json", **h)
    assert changed.status_code == 200 and changed.json()["never_recall"] is True
    found = api.post("/api/v1/recall", {"query": "When does Anna fly to Lisbon?"}, format="json", **h).json()
    assert LISBON not in found["memory_context"]
    assert all(r["drawer_id"] != question.pk for r in found["results"])
    # Nor as the partner of its answer.
    assert all((r["partner"] or {}).get("drawer_id") != question.pk for r in found["results"])
    context = api.post(
        "/api/v1/context", {"query": "When does Anna fly to Lisbon?", "layers": ["drawers"]}, format="json", **h
    ).json()
    assert LISBON not in context["memory_context"]
    browsed = api.get(f"/api/v1/palace/drawers/{question.pk}", **h).json()
    assert browsed["content"] == LISBON and browsed["never_recall"] is True and browsed["pinned"] is False
    listed = api.get(f"/api/v1/palace/closets/{question.closet_id}/drawers", **h).json()["results"]
    assert question.pk in [d["id"] for d in listed]
    assert answer.pk in [d["id"] for d in listed]


def test_pinning_over_the_api_records_activity_and_owners_only(personas: Personas, api: APIClient) -> None:
    drawer = _three(personas)[1]
    url = f"/api/v1/palace/drawers/{drawer.pk}/pin"
    pinned = api.put(url, {"pinned": True}, format="json", **personas.owner.headers)
    assert pinned.status_code == 200 and pinned.json()["pinned"] is True
    event = ActivityEvent.objects.get(kind=curation.KIND_PINNED)
    assert event.agent_id == personas.owner.agent.pk and event.owner_id == personas.owner.user.pk
    assert event.data == {"drawer_id": drawer.pk, "pointer": drawer.aaak}
    # Pinning again changes nothing and records nothing.
    assert api.put(url, {"pinned": True}, format="json", **personas.owner.headers).status_code == 200
    assert ActivityEvent.objects.filter(kind=curation.KIND_PINNED).count() == 1
    # A teammate (another agent of the same person) may unpin it.
    unpinned = api.put(url, {"pinned": False}, format="json", **personas.teammate.headers)
    assert unpinned.status_code == 200 and unpinned.json()["pinned"] is False
    # An outsider cannot see it at all.
    for path, body in ((url, {"pinned": True}), (url.replace("/pin", "/never-recall"), {"never_recall": True})):
        refused = api.put(path, body, format="json", **personas.outsider.headers)
        assert refused.status_code == 404 and refused.json()["message"] == "Drawer not found."
    bad = api.put(url, {"pinned": "perhaps"}, format="json", **personas.owner.headers)
    assert bad.status_code == 400 and "pinned" in bad.json()["extra"]["fields"]
    drawer.refresh_from_db()
    assert drawer.pinned is False and drawer.never_recall is False


def test_pinned_and_never_recall_never_hold_together_the_newer_wins(personas: Personas, api: APIClient) -> None:
    drawer = _three(personas)[0]
    h = personas.owner.headers
    api.put(f"/api/v1/palace/drawers/{drawer.pk}/pin", {"pinned": True}, format="json", **h)
    kept_out = api.put(f"/api/v1/palace/drawers/{drawer.pk}/never-recall", {"never_recall": True}, format="json", **h)
    assert kept_out.json()["never_recall"] is True and kept_out.json()["pinned"] is False
    pinned = api.put(f"/api/v1/palace/drawers/{drawer.pk}/pin", {"pinned": True}, format="json", **h)
    assert pinned.json()["pinned"] is True and pinned.json()["never_recall"] is False
    kinds = list(ActivityEvent.objects.filter(kind__startswith="drawer_").order_by("pk").values_list("kind", flat=True))
    assert kinds == [
        curation.KIND_PINNED,
        curation.KIND_UNPINNED,
        curation.KIND_NEVER_RECALL,
        curation.KIND_RECALL_ALLOWED,
        curation.KIND_PINNED,
    ]
