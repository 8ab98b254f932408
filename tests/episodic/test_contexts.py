from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.api.common import MESSAGE_UNKNOWN_AGENT
from episodic.api.contexts import (
    MESSAGE_CONTEXT_EXISTS,
    MESSAGE_CONTEXT_NOT_FOUND,
    MESSAGE_READ_ONLY,
    MESSAGE_RESERVED_NAME,
    MESSAGE_SNAPSHOT_NOT_FOUND,
)
from episodic.models import ContextAccessLog, ContextEntry, ContextSnapshot, PersistentContext
from memory_site.api.exceptions import MESSAGE_INVALID_INPUT
from tests.conftest import Personas
from tests.episodic.lists import EMPTY_LIST
from tests.factories import Persona

pytestmark = pytest.mark.django_db

CONTEXTS = "/api/v1/contexts"
Action = ContextAccessLog.Action


def _create(api: APIClient, persona: Persona, name: str = "project-notes", **body: Any) -> dict[str, Any]:
    response = api.post(CONTEXTS, {"name": name, **body}, format="json", **persona.headers)
    assert response.status_code == 201, response.json()
    return dict(response.json())


def _add(api: APIClient, persona: Persona, context_id: str, content: str, **body: Any) -> dict[str, Any]:
    response = api.post(
        f"{CONTEXTS}/{context_id}/entries", {"content": content, **body}, format="json", **persona.headers
    )
    assert response.status_code == 201, response.json()
    return dict(response.json())


def _search(api: APIClient, persona: Persona, context_id: str, query: str, **body: Any) -> Any:
    return api.post(f"{CONTEXTS}/{context_id}/search", {"query": query, **body}, format="json", **persona.headers)


def _error(response: Any, status_code: int, message: str) -> bool:
    return response.status_code == status_code and response.json() == {"message": message, "extra": {}}


def _logged(context_id: str, persona: Persona, action: str) -> int:
    return ContextAccessLog.objects.filter(context_id=uuid.UUID(context_id), agent=persona.agent, action=action).count()


def _table(context_id: str) -> list[dict[str, Any]]:
    """Every row of the context's entries, every column, as the database holds it."""
    names = [f.attname for f in ContextEntry._meta.concrete_fields]
    rows = []
    for row in ContextEntry.objects.filter(context_id=uuid.UUID(context_id)).order_by("id").values(*names):
        if row["embedding"] is not None:
            row["embedding"] = [float(x) for x in row["embedding"]]
        rows.append(row)
    return rows


def _reads(context_id: str, entry_id: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("get", f"{CONTEXTS}/{context_id}", None),
        ("get", f"{CONTEXTS}/{context_id}/entries", None),
        ("get", f"{CONTEXTS}/{context_id}/entries/{entry_id}", None),
        ("get", f"{CONTEXTS}/{context_id}/entries/{entry_id}/history", None),
        ("post", f"{CONTEXTS}/{context_id}/search", {"query": "falcon"}),
        ("get", f"{CONTEXTS}/{context_id}/access-log", None),
        ("get", f"{CONTEXTS}/{context_id}/snapshots", None),
    ]


def _writes(
    context_id: str, entry_id: str, snapshot_id: str, agent_id: str
) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("patch", f"{CONTEXTS}/{context_id}", {"description": "taken over"}),
        ("post", f"{CONTEXTS}/{context_id}/archive", None),
        ("post", f"{CONTEXTS}/{context_id}/unarchive", None),
        ("post", f"{CONTEXTS}/{context_id}/grant", {"agent_id": agent_id, "level": "write"}),
        ("post", f"{CONTEXTS}/{context_id}/revoke", {"agent_id": agent_id}),
        ("post", f"{CONTEXTS}/{context_id}/snapshots", {"label": "mine"}),
        ("post", f"{CONTEXTS}/{context_id}/snapshots/{snapshot_id}/restore", None),
        ("post", f"{CONTEXTS}/{context_id}/entries", {"content": "planted"}),
        ("patch", f"{CONTEXTS}/{context_id}/entries/{entry_id}", {"content": "rewritten"}),
        ("post", f"{CONTEXTS}/{context_id}/entries/{entry_id}/boost", {"amount": 0.5}),
        ("post", f"{CONTEXTS}/{context_id}/entries/{entry_id}/reduce", {"amount": 0.5}),
        ("delete", f"{CONTEXTS}/{context_id}/entries/{entry_id}", None),
        ("delete", f"{CONTEXTS}/{context_id}", None),
    ]


def _call(api: APIClient, persona: Persona, method: str, url: str, body: dict[str, Any] | None) -> Any:
    return getattr(api, method)(url, body, format="json", **persona.headers)


# --- contexts -----------------------------------------------------------------------------------------


def test_an_agent_creates_lists_reads_edits_and_deletes_a_context(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    body = _create(api, owner, context_type="project_context", description="Notes on Falcon.")
    assert set(body) == {
        "id",
        "name",
        "context_type",
        "scope",
        "description",
        "access_control",
        "agent_id",
        "archived_at",
        "created_at",
        "updated_at",
    }
    assert (body["name"], body["context_type"], body["scope"]) == ("project-notes", "project_context", "agent")
    assert body["agent_id"] == str(owner.agent.id) and body["access_control"] == {"read": [], "write": []}
    context_id = body["id"]

    listed = api.get(CONTEXTS, **owner.headers).json()["results"]
    assert [c["id"] for c in listed] == [context_id]
    read = api.get(f"{CONTEXTS}/{context_id}", **owner.headers).json()
    assert read["entry_count"] == 0 and read["description"] == "Notes on Falcon."
    _add(api, owner, context_id, "Falcon ships in May.")
    _add(api, owner, context_id, "Falcon's lead is Ana.")
    assert api.get(f"{CONTEXTS}/{context_id}", **owner.headers).json()["entry_count"] == 2

    edited = api.patch(f"{CONTEXTS}/{context_id}", {"description": "Falcon, v2."}, format="json", **owner.headers)
    assert edited.status_code == 200 and edited.json()["description"] == "Falcon, v2."
    assert PersistentContext.objects.get(pk=context_id).description == "Falcon, v2."

    assert api.delete(f"{CONTEXTS}/{context_id}", **owner.headers).status_code == 204
    assert _error(api.get(f"{CONTEXTS}/{context_id}", **owner.headers), 404, MESSAGE_CONTEXT_NOT_FOUND)
    assert not ContextEntry.objects.exists()


def test_a_taken_name_is_a_409_and_the_first_context_is_untouched(api: APIClient, personas: Personas) -> None:
    first = _create(api, personas.owner, description="first")
    again = api.post(
        CONTEXTS, {"name": "project-notes", "description": "second"}, format="json", **personas.teammate.headers
    )
    assert _error(again, 409, MESSAGE_CONTEXT_EXISTS)
    assert (
        PersistentContext.objects.get().description == "first"
        and str(PersistentContext.objects.get().pk) == first["id"]
    )
    # Names are unique per account, not across accounts.
    _create(api, personas.outsider)


def test_the_agents_own_memory_names_are_reserved(api: APIClient, personas: Personas) -> None:
    name = f"agent-memory:{personas.teammate.agent.id}"
    response = api.post(CONTEXTS, {"name": name}, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["extra"]["fields"]["name"] == [MESSAGE_RESERVED_NAME]
    assert not PersistentContext.objects.exists()


def test_every_read_is_logged_with_the_reading_agent_and_its_action(api: APIClient, personas: Personas) -> None:
    context_id = _create(api, personas.owner, scope="account")["id"]
    entry_id = _add(api, personas.owner, context_id, "The falcon project uses PostgreSQL.")["id"]
    reader = personas.teammate
    assert _logged(context_id, reader, Action.READ) == 0

    assert api.get(f"{CONTEXTS}/{context_id}", **reader.headers).status_code == 200
    assert _logged(context_id, reader, Action.READ) == 1
    assert api.get(f"{CONTEXTS}/{context_id}/entries", **reader.headers).status_code == 200
    assert _logged(context_id, reader, Action.READ) == 2
    assert api.get(f"{CONTEXTS}/{context_id}/entries/{entry_id}", **reader.headers).status_code == 200
    assert _logged(context_id, reader, Action.READ) == 3
    assert api.get(f"{CONTEXTS}/{context_id}/entries/{entry_id}/history", **reader.headers).status_code == 200
    assert _logged(context_id, reader, Action.READ) == 4
    assert _search(api, reader, context_id, "falcon").status_code == 200
    assert _logged(context_id, reader, Action.SEARCH) == 1
    assert _search(api, reader, context_id, "who uses postgres", limit=1).status_code == 200
    assert _logged(context_id, reader, Action.SEARCH) == 2
    empty_id = _create(api, personas.owner, name="empty", scope="account")["id"]
    assert _search(api, reader, empty_id, "falcon").json()["results"] == []
    assert _logged(empty_id, reader, Action.SEARCH) == 1  # a search that finds nothing is still a read
    # The reads were the teammate's, none the owner's.
    assert _logged(context_id, personas.owner, Action.READ) == _logged(context_id, personas.owner, Action.SEARCH) == 0

    log = api.get(f"{CONTEXTS}/{context_id}/access-log?limit=3", **reader.headers).json()["results"]
    assert [row["action"] for row in log] == ["search", "search", "read"]  # newest first
    assert log[0]["agent_id"] == str(reader.agent.id) and log[0]["detail"]["query"] == "who uses postgres"
    assert log[0]["detail"]["entries"] == [entry_id]
    assert ContextAccessLog.objects.filter(context_id=context_id).count() == 7  # + the owner's write
    assert _logged(context_id, personas.owner, Action.WRITE) == 1


def test_archiving_hides_a_context_from_the_list_until_it_is_unarchived(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    context_id = _create(api, owner)["id"]
    _add(api, owner, context_id, "My car is a red sedan.")
    archived = api.post(f"{CONTEXTS}/{context_id}/archive", **owner.headers)
    assert archived.status_code == 200 and archived.json()["archived_at"] is not None
    assert PersistentContext.objects.get(pk=context_id).archived_at is not None
    assert api.get(CONTEXTS, **owner.headers).json()["results"] == []
    with_archived = api.get(f"{CONTEXTS}?include_archived=true", **owner.headers).json()["results"]
    assert [c["id"] for c in with_archived] == [context_id]
    # Still readable by id; left out of searches.
    assert api.get(f"{CONTEXTS}/{context_id}", **owner.headers).json()["entry_count"] == 1
    assert _search(api, owner, context_id, "car").json()["results"] == []

    unarchived = api.post(f"{CONTEXTS}/{context_id}/unarchive", **owner.headers)
    assert unarchived.status_code == 200 and unarchived.json()["archived_at"] is None
    assert [c["id"] for c in api.get(CONTEXTS, **owner.headers).json()["results"]] == [context_id]
    assert len(_search(api, owner, context_id, "car").json()["results"]) == 1
    assert _logged(context_id, owner, Action.ARCHIVE) == _logged(context_id, owner, Action.UNARCHIVE) == 1


# --- snapshots ----------------------------------------------------------------------------------------


def test_restoring_a_snapshot_brings_back_every_entry_exactly(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    context_id = _create(api, owner, description="before")["id"]
    url = f"{CONTEXTS}/{context_id}/entries"
    edited = _add(api, owner, context_id, "The office is in Lisbon.", metadata={"v": 1})["id"]
    edited = api.patch(
        f"{url}/{edited}", {"content": "The office is in Porto."}, format="json", **owner.headers
    ).json()["id"]
    to_delete = _add(api, owner, context_id, "Standup is at 9.")["id"]
    to_archive = _add(api, owner, context_id, "The VPN is WireGuard.", importance=0.3)["id"]
    to_boost = _add(api, owner, context_id, "Releases are tagged vX.Y.Z.", importance=0.4)["id"]
    api.get(f"{url}/{to_boost}", **owner.headers)  # an access to restore too
    ContextEntry.objects.filter(pk=to_delete).update(deprecated_at=timezone.now() - timedelta(days=2))
    snapshot = api.post(f"{CONTEXTS}/{context_id}/snapshots", {"label": "good state"}, format="json", **owner.headers)
    assert (
        snapshot.status_code == 201 and snapshot.json()["entry_count"] == 5 and snapshot.json()["label"] == "good state"
    )
    snapshot_id = snapshot.json()["id"]
    saved = _table(context_id)
    assert len(saved) == 5

    api.patch(f"{url}/{edited}", {"content": "The office is in Faro."}, format="json", **owner.headers)
    added = _add(api, owner, context_id, "A new entry after the snapshot.")["id"]
    assert api.delete(f"{url}/{to_delete}", **owner.headers).status_code == 204
    ContextEntry.objects.filter(pk=to_archive).update(archived_at=timezone.now())  # as context rot would
    api.post(f"{url}/{to_boost}/boost", {"amount": 0.5}, format="json", **owner.headers)
    api.patch(f"{CONTEXTS}/{context_id}", {"description": "after"}, format="json", **owner.headers)
    api.post(f"{CONTEXTS}/{context_id}/archive", **owner.headers)
    assert _table(context_id) != saved

    restored = api.post(f"{CONTEXTS}/{context_id}/snapshots/{snapshot_id}/restore", **owner.headers)
    assert restored.status_code == 200
    body = restored.json()
    assert _table(context_id) == saved
    assert body["context"]["description"] == "before" and body["context"]["archived_at"] is None
    assert body["context"]["entry_count"] == 3  # Porto, VPN, releases: the standup entry was deprecated

    before = ContextSnapshot.objects.get(pk=body["before_snapshot_id"])
    assert str(before.context_id) == context_id and before.entry_count == 6
    assert added in {state["id"] for state in before.entries}
    assert before.context_state["description"] == "after" and before.context_state["archived_at"] is not None
    log = ContextAccessLog.objects.get(context_id=context_id, action=Action.RESTORE)
    assert log.agent == owner.agent and log.detail["snapshot_id"] == snapshot_id
    assert log.detail["saved_as"] == str(before.pk)
    listed = api.get(f"{CONTEXTS}/{context_id}/snapshots", **owner.headers).json()["results"]
    assert [s["id"] for s in listed] == [str(before.pk), snapshot_id]  # newest first

    # The restore can itself be undone.
    undo = api.post(f"{CONTEXTS}/{context_id}/snapshots/{before.pk}/restore", **owner.headers)
    assert undo.status_code == 200 and ContextEntry.objects.filter(pk=added).exists()


def test_a_snapshot_restores_only_into_its_own_context(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    first = _create(api, owner, name="first")["id"]
    second = _create(api, owner, name="second")["id"]
    snapshot_id = api.post(f"{CONTEXTS}/{first}/snapshots", format="json", **owner.headers).json()["id"]
    wrong = api.post(f"{CONTEXTS}/{second}/snapshots/{snapshot_id}/restore", **owner.headers)
    assert _error(wrong, 404, MESSAGE_SNAPSHOT_NOT_FOUND)
    assert not ContextAccessLog.objects.filter(action=Action.RESTORE).exists()


# --- access -------------------------------------------------------------------------------------------


def test_an_outsider_gets_404_on_every_operation(api: APIClient, personas: Personas) -> None:
    owner, outsider = personas.owner, personas.outsider
    context_id = _create(api, owner, scope="global")["id"]
    entry_id = _add(api, owner, context_id, "The falcon launch code is 1234.")["id"]
    snapshot_id = api.post(f"{CONTEXTS}/{context_id}/snapshots", format="json", **owner.headers).json()["id"]
    saved = _table(context_id)
    for method, url, body in [
        *_reads(context_id, entry_id),
        *_writes(context_id, entry_id, snapshot_id, str(outsider.agent.id)),
    ]:
        response = _call(api, outsider, method, url, body)
        assert response.status_code == 404 and set(response.json()) == {"message", "extra"}, (method, url)
    assert api.get(CONTEXTS, **outsider.headers).json() == EMPTY_LIST
    assert _table(context_id) == saved and PersistentContext.objects.get(pk=context_id).archived_at is None
    assert not ContextAccessLog.objects.filter(agent=outsider.agent).exists()


def test_the_teammate_needs_a_grant_on_an_agent_scope_context(api: APIClient, personas: Personas) -> None:
    owner, teammate = personas.owner, personas.teammate
    context_id = _create(api, owner)["id"]
    entry_id = _add(api, owner, context_id, "The falcon budget is 2M.", importance=0.5)["id"]
    snapshot_id = api.post(f"{CONTEXTS}/{context_id}/snapshots", format="json", **owner.headers).json()["id"]
    teammate_id = str(teammate.agent.id)
    operations = [*_reads(context_id, entry_id), *_writes(context_id, entry_id, snapshot_id, teammate_id)]

    # Not granted: the context does not exist for the teammate.
    for method, url, body in operations:
        assert _call(api, teammate, method, url, body).status_code == 404, (method, url)
    assert api.get(CONTEXTS, **teammate.headers).json() == EMPTY_LIST

    # Granted read: it reads, and every write is a 403 that changes nothing.
    granted = api.post(
        f"{CONTEXTS}/{context_id}/grant", {"agent_id": teammate_id, "level": "read"}, format="json", **owner.headers
    )
    assert granted.status_code == 200 and granted.json()["access_control"] == {"read": [teammate_id], "write": []}
    assert [c["id"] for c in api.get(CONTEXTS, **teammate.headers).json()["results"]] == [context_id]
    for method, url, body in _reads(context_id, entry_id):
        assert _call(api, teammate, method, url, body).status_code == 200, (method, url)
    saved = _table(context_id)
    for method, url, body in _writes(context_id, entry_id, snapshot_id, teammate_id):
        assert _error(_call(api, teammate, method, url, body), 403, MESSAGE_READ_ONLY), (method, url)
    assert [
        {k: v for k, v in row.items() if k not in ("access_count", "last_accessed_at")} for row in _table(context_id)
    ] == [{k: v for k, v in row.items() if k not in ("access_count", "last_accessed_at")} for row in saved]
    context = PersistentContext.objects.get(pk=context_id)
    assert context.access_control == {"read": [teammate_id], "write": []} and context.archived_at is None
    assert ContextSnapshot.objects.filter(context_id=context_id).count() == 1

    # Granted write: it adds entries.
    api.post(
        f"{CONTEXTS}/{context_id}/grant", {"agent_id": teammate_id, "level": "write"}, format="json", **owner.headers
    )
    added = _add(api, teammate, context_id, "The falcon budget grew to 3M.")
    assert added["agent_id"] == teammate_id and _logged(context_id, teammate, Action.WRITE) == 1

    # Revoked: gone again.
    revoked = api.post(f"{CONTEXTS}/{context_id}/revoke", {"agent_id": teammate_id}, format="json", **owner.headers)
    assert revoked.status_code == 200 and revoked.json()["access_control"] == {"read": [], "write": []}
    for method, url, body in operations:
        assert _error(_call(api, teammate, method, url, body), 404, MESSAGE_CONTEXT_NOT_FOUND), (method, url)
    assert _logged(context_id, owner, Action.GRANT) == 2 and _logged(context_id, owner, Action.REVOKE) == 1


def test_an_account_scope_context_is_open_to_the_teammate(api: APIClient, personas: Personas) -> None:
    owner, teammate, outsider = personas.owner, personas.teammate, personas.outsider
    open_id = _create(api, owner, name="team-wiki", scope="account")["id"]
    _add(api, owner, open_id, "The wiki lives at wiki.example.com.")
    assert [c["id"] for c in api.get(CONTEXTS, **teammate.headers).json()["results"]] == [open_id]
    assert api.get(f"{CONTEXTS}/{open_id}", **teammate.headers).json()["entry_count"] == 1
    _add(api, teammate, open_id, "Nobody named writers, so the teammate may write.")
    assert api.get(CONTEXTS, **outsider.headers).json() == EMPTY_LIST

    # Naming writers closes writing to everyone else, not reading.
    guarded_id = _create(api, owner, name="handbook", scope="account", access_control={"write": [str(owner.agent.id)]})[
        "id"
    ]
    assert api.get(f"{CONTEXTS}/{guarded_id}/entries", **teammate.headers).status_code == 200
    refused = api.post(f"{CONTEXTS}/{guarded_id}/entries", {"content": "x"}, format="json", **teammate.headers)
    assert _error(refused, 403, MESSAGE_READ_ONLY)
    assert not ContextEntry.objects.filter(context_id=guarded_id).exists()


def test_grants_name_only_the_accounts_agents(api: APIClient, personas: Personas) -> None:
    owner, outsider = personas.owner, personas.outsider
    foreign_id = str(outsider.agent.id)
    refused = api.post(
        CONTEXTS, {"name": "leaky", "access_control": {"read": [foreign_id]}}, format="json", **owner.headers
    )
    assert refused.status_code == 400
    assert refused.json()["extra"]["fields"] == {
        "access_control.read": [MESSAGE_UNKNOWN_AGENT.format(agent_id=foreign_id)]
    }
    assert not PersistentContext.objects.exists()

    context_id = _create(api, owner, access_control={"read": [str(personas.teammate.agent.id)]})["id"]
    grant = api.post(
        f"{CONTEXTS}/{context_id}/grant", {"agent_id": foreign_id, "level": "write"}, format="json", **owner.headers
    )
    assert grant.status_code == 400
    assert PersistentContext.objects.get(pk=context_id).access_control == {
        "read": [str(personas.teammate.agent.id)],
        "write": [],
    }
    assert api.get(f"{CONTEXTS}/{context_id}", **outsider.headers).status_code == 404


def test_every_operation_needs_an_api_key(api: APIClient, personas: Personas) -> None:
    context_id = _create(api, personas.owner)["id"]
    assert api.get(CONTEXTS).status_code == 401
    assert api.get(f"{CONTEXTS}/{context_id}/entries").status_code == 401
    assert api.post(f"{CONTEXTS}/{context_id}/entries", {"content": "x"}, format="json").status_code == 401
    assert not ContextEntry.objects.exists()


# --- bad input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": 5},
        {"name": "x" * 201},
        {"name": "n", "scope": "everyone"},
        {"name": "n", "context_type": "diary"},
        {"name": "n", "access_control": {"read": ["not-a-uuid"]}},
        {"name": "n", "access_control": {"write": "everyone"}},
        {"name": "n", "description": ["not", "text"]},
    ],
)
def test_a_bad_context_is_a_400_and_stores_nothing(api: APIClient, personas: Personas, body: dict) -> None:
    response = api.post(CONTEXTS, body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not PersistentContext.objects.exists()


@pytest.mark.parametrize(
    ("suffix", "body"),
    [
        ("search", {"query": ""}),
        ("search", {"query": "x", "limit": 0}),
        ("search", {"query": "x", "limit": 51}),
        ("grant", {"agent_id": "nope", "level": "read"}),
        ("grant", {"level": "admin"}),
        ("revoke", {}),
    ],
)
def test_bad_search_and_grant_bodies_are_400s(api: APIClient, personas: Personas, suffix: str, body: dict) -> None:
    context_id = _create(api, personas.owner)["id"]
    response = api.post(f"{CONTEXTS}/{context_id}/{suffix}", body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not ContextAccessLog.objects.exists()
