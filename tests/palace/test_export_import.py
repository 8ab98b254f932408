from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import models
from rest_framework.test import APIClient

from episodic.models import (
    ContextEntry,
    Episode,
    MemoryPool,
    PersistentContext,
    ShortTermMemory,
    TypedMemory,
    WorkflowPool,
)
from palace.models import (
    ActivityEvent,
    Closet,
    Conversation,
    Drawer,
    Entity,
    PreferenceTopic,
    Relation,
    Room,
    Turn,
    Wing,
)
from palace.services import mining
from palace.services.forget import forget
from tests.conftest import Personas
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db

MEMORY: list[type[models.Model]] = [
    Conversation,
    Turn,
    Wing,
    Room,
    Closet,
    Drawer,
    Entity,
    Relation,
    PreferenceTopic,
    Episode,
    TypedMemory,
    ShortTermMemory,
    MemoryPool,
    WorkflowPool,
    PersistentContext,
    ContextEntry,
]
GARDEN = [
    {"role": "user", "content": "My tomatoes in the allotment need staking before the zeppelin festival."},
    {"role": "assistant", "content": "Stake the tomatoes with bamboo canes."},
]


@pytest.fixture
def remembered(api: APIClient, personas: Personas) -> Personas:
    h = personas.owner.headers
    for external_id, turns in (("c1", TWO_PEOPLE_AND_A_PROJECT), ("c2", GARDEN)):
        api.post("/api/v1/conversations", {"conversation_id": external_id, "turns": turns}, format="json", **h)
        mining.conversation_mine(conversation=Conversation.objects.get(external_id=external_id))
    body = {"content": "The user prefers metric units.", "entity_id": "units"}
    assert api.post("/api/v1/memories/typed/semantic", body, format="json", **h).status_code == 201
    body = {"conversation_id": "c2", "summary": "The user planned staking tomatoes."}
    assert api.post("/api/v1/episodes", body, format="json", **h).status_code == 201
    relation = {"subject": "efoil", "predicate": "has_battery", "object": "12V20Ah", "object_is_entity": False}
    assert api.post("/api/v1/kg/relations", relation, format="json", **h).status_code == 201
    assert api.post("/api/v1/pools", {"pool_id": "plan", "data": {"step": 1}}, format="json", **h).status_code == 201
    assert api.post("/api/v1/contexts", {"name": "notes"}, format="json", **h).status_code == 201
    rule = {"kind": "word", "pattern": "passport"}
    assert api.post("/api/v1/settings/exclusions", rule, format="json", **h).status_code == 201
    pinned = Drawer.objects.filter(owner=personas.owner.user).order_by("number").first()
    assert pinned is not None
    assert api.put(f"/api/v1/palace/drawers/{pinned.pk}/pin", {"pinned": True}, format="json", **h).status_code == 200
    return personas


def _export(api: APIClient, headers: dict[str, Any]) -> list[dict[str, Any]]:
    response: Any = api.get("/api/v1/export", **headers)
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"].startswith("attachment;")
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def _file(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def _import(api: APIClient, headers: dict[str, Any], body: bytes) -> Any:
    return api.post("/api/v1/import", body, content_type="application/x-ndjson", **headers)


def _forget_everything(owner: Any) -> None:
    # Deleted row by row through the ORM: forget(kind="everything") is built elsewhere.
    for model in MEMORY:
        if model is not Turn:
            model._default_manager.filter(owner=owner).delete()


def _counts(owner: Any) -> dict[str, int]:
    return {
        m.__name__: m._default_manager.filter(
            **({"conversation__owner": owner} if m is Turn else {"owner": owner})
        ).count()
        for m in MEMORY
    }


def test_export_forget_import_export_gives_the_same_file(api: APIClient, remembered: Personas) -> None:
    h, owner = remembered.owner.headers, remembered.owner.user
    first = _export(api, h)
    header, rows = first[0], first[1:]
    assert (header["format"], header["version"], header["with_embeddings"]) == ("loci-export", 1, False)
    kinds = {row["type"] for row in rows}
    assert {"conversation", "wing", "room", "closet", "drawer", "entity", "relation", "episode"} <= kinds
    assert {"typed_memory", "memory_pool", "context", "agent", "settings", "exclusion_rule"} <= kinds
    assert any(row["type"] == "drawer" and row["pinned"] for row in rows)
    assert not any("embedding" in row for row in rows)
    before = _counts(owner)
    _forget_everything(owner)
    assert sum(_counts(owner).values()) == 0
    answer = _import(api, h, _file(first))
    assert answer.status_code == 200, answer.json()
    assert answer.json()["rows"]["drawer"] == before["Drawer"] and answer.json()["embedded"] >= before["Drawer"]
    assert _counts(owner) == before
    assert _export(api, h)[1:] == rows
    assert ActivityEvent.objects.filter(owner=owner, kind="memory_imported").count() == 1
    assert ActivityEvent.objects.filter(owner=owner, kind="memory_exported").count() == 2


def test_importing_the_same_file_twice_changes_nothing(api: APIClient, remembered: Personas) -> None:
    h, owner = remembered.owner.headers, remembered.owner.user
    exported = _file(_export(api, h))
    before = _counts(owner)
    assert _import(api, h, exported).status_code == 200
    assert _import(api, h, exported).status_code == 200
    assert _counts(owner) == before


def test_recall_finds_an_imported_drawer_by_its_recomputed_embedding(api: APIClient, remembered: Personas) -> None:
    h, owner = remembered.owner.headers, remembered.owner.user
    exported = _file(_export(api, h))
    _forget_everything(owner)
    upload = SimpleUploadedFile("memory.jsonl", exported, content_type="application/x-ndjson")
    assert api.post("/api/v1/import", {"file": upload}, format="multipart", **h).status_code == 200
    assert not Drawer.objects.filter(owner=owner, embedding__isnull=True).exists()
    results = api.post("/api/v1/recall", {"query": "staking tomatoes"}, format="json", **h).json()["results"]
    assert any("tomatoes in the allotment" in r["content"] for r in results)


def test_a_malformed_line_is_a_400_naming_it_and_stores_nothing(api: APIClient, remembered: Personas) -> None:
    h, owner = remembered.owner.headers, remembered.owner.user
    lines = _file(_export(api, h)).decode().splitlines(keepends=True)
    _forget_everything(owner)
    broken = [*lines[:9], "{not json\n", *lines[10:]]
    answer = _import(api, h, "".join(broken).encode())
    assert answer.status_code == 400 and answer.json()["extra"]["line"] == 10
    assert "Line 10" in answer.json()["message"]
    assert sum(_counts(owner).values()) == 0
    assert _import(api, h, b'{"type": "header", "format": "loci-export", "version": 99}\n').status_code == 400
    assert _import(api, h, b"").status_code == 400


def test_an_outsiders_export_never_holds_the_owners_memory(api: APIClient, remembered: Personas) -> None:
    text = json.dumps(_export(api, remembered.outsider.headers))
    assert "Efoil" not in text and "tomatoes" not in text and "metric units" not in text
    # The teammate is another agent of the same person: the same memory.
    assert "tomatoes" in json.dumps(_export(api, remembered.teammate.headers))


def test_vectors_exported_with_the_same_model_are_kept_not_recomputed(api: APIClient, remembered: Personas) -> None:
    h, owner = remembered.owner.headers, remembered.owner.user
    response: Any = api.get("/api/v1/export", {"embeddings": "true"}, **h)
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    drawers = [row for row in rows if row["type"] == "drawer"]
    assert rows[0]["with_embeddings"] and all(len(d["embedding"]) == rows[0]["embedding_dim"] for d in drawers)
    _forget_everything(owner)
    answer = _import(api, h, _file(rows)).json()
    assert answer["rows"]["drawer"] == len(drawers) and answer["embedded"] == 0
    assert not Drawer.objects.filter(owner=owner, embedding__isnull=True).exists()


def test_a_file_whose_numbers_belong_to_other_drawers_is_refused(api: APIClient, remembered: Personas) -> None:
    exported = _file(_export(api, remembered.owner.headers))
    outsider = remembered.outsider
    api.post("/api/v1/conversations", {"conversation_id": "x", "turns": GARDEN}, format="json", **outsider.headers)
    mining.conversation_mine(conversation=Conversation.objects.get(owner=outsider.user, external_id="x"))
    before = _counts(outsider.user)
    answer = _import(api, outsider.headers, exported)
    assert answer.status_code == 400 and "a file loads into the palace it came from" in answer.json()["message"]
    assert _counts(outsider.user) == before


def test_another_person_importing_the_file_gets_a_copy_and_the_owner_keeps_theirs(
    api: APIClient, remembered: Personas
) -> None:
    owner, outsider = remembered.owner.user, remembered.outsider.user
    exported = _file(_export(api, remembered.owner.headers))
    before = _counts(owner)
    assert _import(api, remembered.outsider.headers, exported).status_code == 200
    assert _counts(outsider) == before and _counts(owner) == before
    # The same rows, the outsider's own agent aside (agents are mapped by name, the owner's created).
    copied = [r for r in _export(api, remembered.outsider.headers)[1:] if r["type"] != "agent"]
    assert copied == [r for r in _export(api, remembered.owner.headers)[1:] if r["type"] != "agent"]


def test_the_management_commands_round_trip(remembered: Personas, tmp_path: Any) -> None:
    owner, out = remembered.owner.user, tmp_path / "memory.jsonl"
    call_command("export_memory", "--user", owner.username, "--out", str(out), stderr=io.StringIO())
    before = _counts(owner)
    _forget_everything(owner)
    shown = io.StringIO()
    call_command("import_memory", "--user", owner.username, str(out), stdout=shown)
    assert _counts(owner) == before and "lines" in shown.getvalue() and "rows embedded" in shown.getvalue()
    out.write_text("not a header\n")
    with pytest.raises(CommandError, match="Line 1"):
        call_command("import_memory", "--user", owner.username, str(out), stdout=io.StringIO())


def test_vectors_of_another_embedding_model_are_recomputed(api: APIClient, remembered: Personas) -> None:
    h, owner = remembered.owner.headers, remembered.owner.user
    response: Any = api.get("/api/v1/export", {"embeddings": "1"}, **h)
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    rows[0]["embedding_model"] = "some-other-model"
    for row in rows[1:]:
        if "embedding" in row:
            row["embedding"] = [0.0] * len(row["embedding"])  # not what this installation's model makes
    _forget_everything(owner)
    answer = _import(api, h, _file(rows)).json()
    assert answer["embedded"] >= answer["rows"]["drawer"] + answer["rows"]["typed_memory"] + answer["rows"]["episode"]
    results = api.post("/api/v1/recall", {"query": "staking tomatoes"}, format="json", **h).json()["results"]
    assert any("tomatoes in the allotment" in r["content"] for r in results)


def test_a_forgotten_drawer_is_never_in_an_export(api: APIClient, remembered: Personas) -> None:
    owner = remembered.owner.user
    drawer = Drawer.objects.filter(owner=owner, content__icontains="tomatoes").first()
    assert drawer is not None
    forget(owner=owner, kind="drawer", ids=[drawer.pk])
    exported = json.dumps(_export(api, remembered.owner.headers))
    assert drawer.content not in exported and "staking" in exported  # the rest of the memory is there
