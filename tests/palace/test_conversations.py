from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.models import MemorySettings
from palace.models import ActivityEvent, Closet, Conversation, Drawer, MiningJob, Room, Turn, Wing
from palace.services import filing, intake, jobs, mining
from tests.conftest import Personas

pytestmark = pytest.mark.django_db

VERBATIM = "  Héllo — I'm *really* sure:\n\ttabs, trailing spaces   \n🙂 "


def _post(api: APIClient, headers: dict, **body: Any) -> Any:
    payload = {"conversation_id": "conv-1", "turns": [{"role": "user", "content": "hi"}], **body}
    return api.post("/api/v1/conversations", payload, format="json", **headers)


def test_a_posted_conversation_is_stored_verbatim_with_its_mining_request(api: APIClient, personas: Personas) -> None:
    turns = [
        {"role": "user", "content": VERBATIM, "timestamp": "2026-04-30T19:00:00Z"},
        {"role": "assistant", "content": "Noted.", "timestamp": "2026-04-30T19:00:05+00:00"},
    ]
    response = _post(api, personas.owner.headers, turns=turns, title="Evening", user_id="u1")
    assert response.status_code == 202
    body = response.json()
    assert body["turns"] == 2 and body["mining"] is False
    conversation = Conversation.objects.get(owner=personas.owner.user, external_id="conv-1")
    assert [t.content for t in conversation.turns.all()] == [VERBATIM, "Noted."]
    assert conversation.started_at.isoformat() == "2026-04-30T19:00:00+00:00"
    job = api.get(f"/api/v1/jobs/{body['job_id']}", **personas.owner.headers).json()
    # Not complete: the job says it waits for that, rather than looking stuck in the queue.
    assert job["status"] == "queued" and job["conversation_id"] == "conv-1" and job["mining"] is False
    api.post("/api/v1/conversations/conv-1/complete", **personas.owner.headers)
    assert api.get(f"/api/v1/jobs/{body['job_id']}", **personas.owner.headers).json()["mining"] is True


def test_appending_continues_the_turn_indexes(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _post(api, h, turns=[{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}])
    response = api.post(
        "/api/v1/conversations/conv-1/turns", {"turns": [{"role": "user", "content": "three"}]}, format="json", **h
    )
    assert response.status_code == 202 and response.json()["turns"] == 3
    assert list(Turn.objects.values_list("index", "content")) == [(0, "one"), (1, "two"), (2, "three")]


@pytest.mark.parametrize(
    "body",
    [
        {"turns": [{"role": "robot", "content": "x"}]},
        {"turns": [{"role": "user", "content": "x", "timestamp": "yesterday-ish"}]},
        {"turns": [{"role": "user", "content": 42}]},
        {"turns": [{"role": "user"}]},
        {"turns": "not a list"},
        {"turns": [{"role": "user", "content": "x"}] * 1001},
        {"turns": [{"role": "user", "content": "x" * 100_001}]},
        {"conversation_id": "", "turns": []},
        {"started_at": "not a date"},
    ],
)
def test_bad_conversations_are_a_400_and_nothing_is_written(api: APIClient, personas: Personas, body: dict) -> None:
    response = _post(api, personas.owner.headers, **body)
    assert response.status_code == 400 and set(response.json()) == {"message", "extra"}
    assert not Conversation.objects.exists() and not Turn.objects.exists() and not MiningJob.objects.exists()


@override_settings(API_MAX_BODY_BYTES=4096)
def test_a_body_over_the_limit_is_a_413(api: APIClient, personas: Personas) -> None:
    response = _post(api, personas.owner.headers, turns=[{"role": "user", "content": "x" * 5000}])
    assert response.status_code == 413
    assert not Conversation.objects.exists()


def test_a_second_post_of_the_same_id_is_a_conflict(api: APIClient, personas: Personas) -> None:
    assert _post(api, personas.owner.headers).status_code == 202
    assert _post(api, personas.owner.headers).status_code == 409
    assert _post(api, personas.outsider.headers).status_code == 202  # ids are per owner
    assert Turn.objects.count() == 2


def test_other_owners_cannot_touch_a_conversation_or_its_jobs(api: APIClient, personas: Personas) -> None:
    job_id = _post(api, personas.owner.headers).json()["job_id"]
    outsider = personas.outsider.headers
    assert (
        api.post(
            "/api/v1/conversations/conv-1/turns",
            {"turns": [{"role": "user", "content": "x"}]},
            format="json",
            **outsider,
        ).status_code
        == 404
    )
    assert api.post("/api/v1/conversations/conv-1/complete", **outsider).status_code == 404
    assert api.post("/api/v1/conversations/conv-1/mine", **outsider).status_code == 404
    assert api.get(f"/api/v1/jobs/{job_id}", **outsider).status_code == 404
    for unknown in ("not-a-uuid", "00000000-0000-0000-0000-000000000000"):
        answer = api.get(f"/api/v1/jobs/{unknown}", **personas.owner.headers)
        assert answer.status_code == 404 and answer.json()["message"] == "Job not found."
    assert api.get(f"/api/v1/jobs/{job_id}", **personas.teammate.headers).status_code == 200
    assert Turn.objects.count() == 1


def test_with_memory_off_nothing_is_stored(api: APIClient, personas: Personas) -> None:
    MemorySettings.objects.filter(user=personas.owner.user).update(enabled=False)
    response = _post(api, personas.owner.headers)
    assert response.status_code == 409 and response.json()["message"] == intake.MESSAGE_MEMORY_OFF
    assert response.json()["extra"] == {"reason": "memory_paused", "stored": False}
    assert not Conversation.objects.exists()


def test_completing_marks_the_jobs_ready_when_auto_mine_is_on(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    first = _post(api, h).json()["job_id"]
    completed = api.post("/api/v1/conversations/conv-1/complete", **h)
    assert completed.status_code == 202 and completed.json()["mining"] is True
    assert MiningJob.objects.filter(ready=True).count() == 2 and MiningJob.objects.get(pk=first).ready
    MemorySettings.objects.filter(user=personas.owner.user).update(auto_mine=False)
    _post(api, h, conversation_id="conv-2", complete=True)
    assert MiningJob.objects.get(conversation__external_id="conv-2").ready is False


TWO_PEOPLE_AND_A_PROJECT = [
    {"role": "user", "content": "Derek and I are rebuilding the Efoil project this month. Derek owns the board."},
    {"role": "assistant", "content": "What does the Efoil project need first?"},
    {
        "role": "user",
        "content": "The Efoil battery: Derek wants a 12V20Ah pack. My sister Anna might help with wiring.",
    },
    {"role": "assistant", "content": "A 12V20Ah pack for the Efoil project is a good start."},
    {"role": "user", "content": "Separately, what should I cook for dinner tonight? Maybe pasta with basil."},
    {"role": "assistant", "content": "Pasta with basil and tomatoes is quick for dinner."},
]


def _mine(conversation_id: str = "conv-1") -> dict[str, int]:
    return mining.conversation_mine(conversation=Conversation.objects.get(external_id=conversation_id))


def test_mining_files_the_room_under_its_primary_subject_and_links_the_others(
    api: APIClient, personas: Personas
) -> None:
    _post(api, personas.owner.headers, turns=TWO_PEOPLE_AND_A_PROJECT, title="Efoil rebuild")
    counts = _mine()
    assert counts["drawers"] == 6 and counts["rooms"] == 1 and counts["embedded"] == 6
    room = Room.objects.get()
    assert (room.wing.name, room.wing.kind) == ("Efoil", "project")
    assert {w.name for w in room.linked_wings.all()} >= {"Derek", "Anna"}
    # Browsing either person's wing finds the room.
    for name in ("Derek", "Anna"):
        assert Room.objects.filter(linked_wings__name=name).get() == room
    assert Closet.objects.filter(room=room).count() >= 2  # the dinner talk is a topic of its own


def test_drawers_are_verbatim_with_aaak_pointers_and_tags(api: APIClient, personas: Personas) -> None:
    turns = [*TWO_PEOPLE_AND_A_PROJECT, {"role": "user", "content": VERBATIM}]
    _post(api, personas.owner.headers, turns=turns)
    _mine()
    drawers = list(Drawer.objects.order_by("turn_index"))
    assert [d.content for d in drawers] == [t["content"] for t in turns]
    assert all(re.fullmatch(r"§ W-\d{3}/R-\d{2}/D-\d{3}", d.aaak) for d in drawers)
    assert len({d.number for d in drawers}) == len(drawers)
    assert "Derek" in drawers[0].tags["p"]
    assert all(d.embedding is not None for d in drawers)
    event = ActivityEvent.objects.get(kind="memory_mined")
    assert event.data["drawers"] == 7 and event.data["conversation_id"] == "conv-1"


def test_mining_twice_changes_nothing_and_appended_turns_add_only_theirs(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _post(api, h, turns=TWO_PEOPLE_AND_A_PROJECT)
    _mine()
    before = list(Drawer.objects.order_by("pk").values_list("pk", "aaak", "content"))
    assert _mine()["drawers"] == 0
    assert list(Drawer.objects.order_by("pk").values_list("pk", "aaak", "content")) == before
    assert Wing.objects.filter(slug="derek").count() == 1
    api.post(
        "/api/v1/conversations/conv-1/turns",
        {"turns": [{"role": "user", "content": "Derek finished the wiring."}]},
        format="json",
        **h,
    )
    assert _mine()["drawers"] == 1
    assert Drawer.objects.count() == 7 and Room.objects.count() == 1


def test_a_turn_with_no_text_is_kept_as_a_turn_and_never_filed(api: APIClient, personas: Personas) -> None:
    turns = [
        {"role": "user", "content": "Derek asked me to book the Lisbon flights."},
        {"role": "assistant", "content": ""},  # a message that only called a tool
        {"role": "tool", "content": "  \n"},
        {"role": "assistant", "content": "Booked: Lisbon on May 12."},
    ]
    assert _post(api, personas.owner.headers, turns=turns).status_code == 202
    assert _mine()["drawers"] == 2
    assert list(Turn.objects.order_by("index").values_list("content", flat=True)) == [t["content"] for t in turns]
    assert sorted(Drawer.objects.values_list("turn_index", flat=True)) == [0, 3]
    assert _mine()["drawers"] == 0  # and stays so


def test_a_very_long_word_is_filed_verbatim_and_mines_like_any_other(api: APIClient, personas: Personas) -> None:
    token = "A" * 201
    name = "Zanzibarquintessentialhyperextraordinarily" * 6  # one capitalised word, 252 characters
    turns = [
        {"role": "user", "content": f"My API token is {token} and I keep it safe. Ask {name} about it."},
        {"role": "user", "content": f"https://example.com/{'x' * 400} is the link Derek sent about the Efoil."},
    ]
    _post(api, personas.owner.headers, turns=turns)
    assert _mine()["drawers"] == 2
    assert [d.content for d in Drawer.objects.order_by("turn_index")] == [t["content"] for t in turns]
    assert all(len(w.name) <= 200 for w in Wing.objects.all())


def test_an_empty_conversation_mines_to_nothing(api: APIClient, personas: Personas) -> None:
    _post(api, personas.owner.headers, turns=[])
    assert set(_mine().values()) == {0}
    assert not Room.objects.exists()


def test_wings_dedupe_by_slug_and_alias(personas: Personas) -> None:
    owner_id = personas.owner.user.pk
    derek = filing.wing_ensure(owner_id=owner_id, name="Derek", kind="person")
    assert filing.wing_ensure(owner_id=owner_id, name="derek", kind="person") == derek
    Wing.objects.filter(pk=derek.pk).update(aliases=["derek", "derek smith"])
    assert filing.wing_ensure(owner_id=owner_id, name="Derek Smith", kind="person") == derek
    assert filing.wing_ensure(owner_id=personas.outsider.user.pk, name="Derek", kind="person") != derek


def test_a_failed_embedding_still_writes_the_drawers(api: APIClient, personas: Personas, use_providers: Any) -> None:
    use_providers(
        EMBEDDING_PROVIDER="openai",
        EMBEDDING_MODEL="all-minilm",
        EMBEDDING_DIM=384,
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        EMBEDDING_TIMEOUT=2,
    )
    _post(api, personas.owner.headers, turns=TWO_PEOPLE_AND_A_PROJECT)
    counts = _mine()
    assert counts["drawers"] == 6 and counts["embedded"] == 0
    assert Drawer.objects.filter(embedding__isnull=True).count() == 6


def test_long_conversations_are_extracted_window_by_window_with_the_llm(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    from accounts.models import UsageRecord
    from palace.models import Relation

    use_providers(LLM_MODEL="gpt-4o-mini", OPENAI_BASE_URL=stub_openai)
    turns = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Status update number {i} on the rollout."}
        for i in range(60)
    ]
    _post(api, personas.owner.headers, turns=turns)
    counts = _mine()
    assert counts["drawers"] == 60
    assert UsageRecord.objects.filter(owner=personas.owner.user, source="memory_extract").count() == 7  # 60 turns / 9
    relation = Relation.objects.get(predicate="leads")
    assert (relation.subject.name, relation.object.name if relation.object else "") == ("Marguerite", "Heron")
    room = Room.objects.get()
    assert (room.wing.name, room.wing.kind, room.title) == ("Heron", "project", "Rolling out Heron")
    assert not Wing.objects.filter(name="Certainly").exists()  # a kind the prompt did not offer is refused
    boss = Relation.objects.get(predicate="relation_to_user")
    assert (boss.subject.name, boss.object_value) == ("Marguerite", "boss")


def test_an_llm_answer_of_another_shape_sends_the_conversation_to_the_offline_path(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    from accounts.models import UsageRecord
    from tests.fixtures.providers import StubOpenAI

    use_providers(LLM_MODEL="gpt-4o-mini", OPENAI_BASE_URL=stub_openai)
    StubOpenAI.extraction_answer = "Sure! Here are the entities: Derek, Efoil."
    _post(api, personas.owner.headers, turns=TWO_PEOPLE_AND_A_PROJECT)
    assert _mine()["drawers"] == 6
    assert UsageRecord.objects.filter(owner=personas.owner.user, source="memory_extract").count() == 1
    room = Room.objects.get()
    assert (room.wing.name, room.wing.kind) == ("Efoil", "project")  # the offline extractor filed it
    assert "conv-1" not in room.title


def test_one_job_run_mines_the_owners_waiting_conversations_in_one_embedding_batch(
    api: APIClient, personas: Personas
) -> None:
    from accounts.models import UsageRecord

    h = personas.owner.headers
    job_ids = [
        _post(
            api,
            h,
            conversation_id=f"b{i}",
            complete=True,
            turns=[{"role": "user", "content": f"Batch talk {i} about Derek."}],
        ).json()["job_id"]
        for i in range(3)
    ]
    other = _post(api, personas.outsider.headers, conversation_id="o1", complete=True).json()["job_id"]
    UsageRecord.objects.all().delete()
    counts = jobs.job_run(job_id=job_ids[0])
    assert counts is not None and counts["drawers"] == 1
    assert set(MiningJob.objects.filter(pk__in=job_ids).values_list("status", flat=True)) == {"done"}
    assert MiningJob.objects.get(pk=other).status == "queued"  # another owner's job is not taken
    assert Drawer.objects.filter(owner=personas.owner.user).count() == 3
    assert list(UsageRecord.objects.values_list("items", flat=True)) == [3]  # one batch for three conversations
    assert jobs.job_run(job_id=job_ids[1]) is None  # its own message finds it done


def test_the_outbox_resends_a_job_abandoned_mid_run(api: APIClient, personas: Personas) -> None:
    from datetime import timedelta

    from django.utils import timezone

    job_id = _post(api, personas.owner.headers, complete=True).json()["job_id"]
    long_ago = timezone.now() - timedelta(hours=2)
    MiningJob.objects.filter(pk=job_id).update(status="running", started_at=long_ago, enqueued_at=long_ago)
    assert jobs.outbox_requeue() == {"sent": 1, "failed": 0}
    enqueued_at = MiningJob.objects.get(pk=job_id).enqueued_at
    assert enqueued_at is not None and enqueued_at > long_ago


def test_of_subjects_named_as_often_the_room_goes_under_the_one_it_opens_with(
    api: APIClient, personas: Personas
) -> None:
    turns = [
        {"role": "user", "content": "I signed up for the Lisbon Half Marathon in April. My knee acts up on downhills."},
        {"role": "assistant", "content": "Build up slowly and add strength work for the knee."},
        {"role": "user", "content": "My physio, Dr. Patel, said the same about strength work."},
    ]
    _post(api, personas.owner.headers, turns=turns)
    _mine()
    room = Room.objects.get()
    assert room.wing.name == "Lisbon Half Marathon"  # the race, not the physio named once too
    assert "Dr. Patel" in {w.name for w in room.linked_wings.all()}
