"""Workflow pools over HTTP: created by the first write, shared by the owner's agents, versioned like
memory pools, expiring, and bad input."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.api.pools import MESSAGE_STALE_VERSION
from episodic.api.workflow_pools import MESSAGE_WORKFLOW_POOL_NOT_FOUND, MESSAGE_WORKFLOW_RUN_NOT_FOUND
from episodic.models import WorkflowPool
from memory_site.api.exceptions import MESSAGE_INVALID_INPUT
from tests.conftest import Personas
from tests.episodic.concurrency import run_together
from tests.factories import Persona

pytestmark = pytest.mark.django_db

RUNS = "/api/v1/workflow-pools"


def _not_found(response: Any, message: str) -> bool:
    return response.status_code == 404 and response.json() == {"message": message, "extra": {}}


def test_a_workflow_pool_is_created_by_its_first_write(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    assert _not_found(api.get(f"{RUNS}/run-1/blackboard", **h), MESSAGE_WORKFLOW_POOL_NOT_FOUND)
    assert _not_found(api.get(f"{RUNS}/run-1", **h), MESSAGE_WORKFLOW_RUN_NOT_FOUND)
    written = api.put(f"{RUNS}/run-1/blackboard", {"data": {"task": "plan"}}, format="json", **h)
    assert written.status_code == 200
    body = written.json()
    assert set(body) == {"run_id", "pool_type", "data", "version", "expires_at", "created_at", "updated_at"}
    assert (body["run_id"], body["pool_type"], body["data"]) == ("run-1", "blackboard", {"task": "plan"})
    first_version = body["version"]
    merged = api.patch(f"{RUNS}/run-1/tool_cache", {"data": {"search": [1]}}, format="json", **h).json()
    assert merged["data"] == {"search": [1]}
    read = api.get(f"{RUNS}/run-1/blackboard", **h).json()
    assert read["data"] == {"task": "plan"} and read["version"] == first_version
    run = api.get(f"{RUNS}/run-1", **h).json()
    assert run["run_id"] == "run-1" and [p["pool_type"] for p in run["results"]] == ["blackboard", "tool_cache"]
    assert WorkflowPool.objects.get(pool_type="blackboard").read_count == 1  # the run listing is not a read


def test_a_runs_pools_are_shared_by_teammates_and_hidden_from_outsiders(api: APIClient, personas: Personas) -> None:
    base = f"{RUNS}/run-1/shared_memory"
    api.put(base, {"data": {"owner": 1}}, format="json", **personas.owner.headers)
    teammate = personas.teammate.headers
    assert api.get(base, **teammate).json()["data"] == {"owner": 1}
    assert api.patch(base, {"data": {"teammate": 2}}, format="json", **teammate).status_code == 200
    assert api.get(base, **personas.owner.headers).json()["data"] == {"owner": 1, "teammate": 2}

    outsider = personas.outsider.headers
    assert _not_found(api.get(base, **outsider), MESSAGE_WORKFLOW_POOL_NOT_FOUND)
    assert _not_found(api.get(f"{RUNS}/run-1", **outsider), MESSAGE_WORKFLOW_RUN_NOT_FOUND)
    assert _not_found(api.delete(base, **outsider), MESSAGE_WORKFLOW_POOL_NOT_FOUND)
    # An outsider writing the same run id writes its own account's pool, never the owner's.
    assert api.patch(base, {"data": {"outsider": 3}}, format="json", **outsider).json()["data"] == {"outsider": 3}
    assert api.get(base, **personas.owner.headers).json()["data"] == {"owner": 1, "teammate": 2}


def test_a_stale_workflow_pool_version_is_a_409_and_changes_nothing(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    base = f"{RUNS}/run-1/blackboard"
    version = api.put(base, {"data": {"a": 1}}, format="json", **h).json()["version"]
    assert api.put(base, {"data": {"a": 2}, "version": version}, format="json", **h).json()["version"] == version + 1
    for method in (api.put, api.patch):
        stale = method(base, {"data": {"a": 3}, "version": version}, format="json", **h)
        assert stale.status_code == 409
        assert stale.json() == {"message": MESSAGE_STALE_VERSION, "extra": {"current_version": version + 1}}
    assert api.get(base, **h).json()["data"] == {"a": 2}


@pytest.mark.django_db(transaction=True)
def test_teammates_merging_into_a_run_concurrently_lose_nothing(personas: Personas) -> None:
    base = f"{RUNS}/run-1/blackboard"

    def merge(persona: Persona) -> Callable[[APIClient], list[int]]:
        def job(client: APIClient) -> list[int]:
            return [
                client.patch(
                    base, {"data": {f"{persona.agent.name}-{i}": i}}, format="json", **persona.headers
                ).status_code
                for i in range(5)
            ]

        return job

    # Both start before the pool exists: the first writes create it once.
    assert run_together(merge(personas.owner), merge(personas.teammate)) == [[200] * 5] * 2
    pool = WorkflowPool.objects.get()
    assert len(pool.data) == 10 and pool.write_count == 10


def test_deleting_a_workflow_pool(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    api.put(f"{RUNS}/run-1/blackboard", {"data": {"a": 1}}, format="json", **h)
    api.put(f"{RUNS}/run-1/tool_cache", {"data": {"b": 1}}, format="json", **h)
    assert api.delete(f"{RUNS}/run-1/blackboard", **personas.teammate.headers).status_code == 204
    assert _not_found(api.get(f"{RUNS}/run-1/blackboard", **h), MESSAGE_WORKFLOW_POOL_NOT_FOUND)
    assert [p["pool_type"] for p in api.get(f"{RUNS}/run-1", **h).json()["results"]] == ["tool_cache"]
    assert _not_found(api.delete(f"{RUNS}/run-1/blackboard", **h), MESSAGE_WORKFLOW_POOL_NOT_FOUND)


def test_an_expired_workflow_pool_is_gone_at_once_and_a_write_starts_it_afresh(
    api: APIClient, personas: Personas
) -> None:
    h = personas.owner.headers
    base = f"{RUNS}/run-1/blackboard"
    api.put(base, {"data": {"old": True}}, format="json", **h)
    WorkflowPool.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _not_found(api.get(base, **h), MESSAGE_WORKFLOW_POOL_NOT_FOUND)
    assert _not_found(api.get(f"{RUNS}/run-1", **h), MESSAGE_WORKFLOW_RUN_NOT_FOUND)
    fresh = api.patch(base, {"data": {"new": True}}, format="json", **h)
    assert fresh.status_code == 200 and fresh.json()["data"] == {"new": True}
    assert WorkflowPool.objects.count() == 1


@pytest.mark.parametrize(
    ("path", "method", "body"),
    [
        (f"{RUNS}/run-1/scratchpad", "put", {"data": {}}),
        (f"{RUNS}/run-1/scratchpad", "get", None),
        (f"{RUNS}/{'r' * 201}/blackboard", "put", {"data": {}}),
        (f"{RUNS}/{'r' * 201}", "get", None),
        (f"{RUNS}/run-1/blackboard", "put", {"data": [1, 2]}),
        (f"{RUNS}/run-1/blackboard", "patch", {"data": "x"}),
        (f"{RUNS}/run-1/blackboard", "patch", {"data": {}, "version": 0}),
    ],
)
def test_bad_workflow_input_is_a_400_and_stores_nothing(
    api: APIClient, personas: Personas, path: str, method: str, body: dict[str, Any] | None
) -> None:
    response = getattr(api, method)(path, body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not WorkflowPool.objects.exists()


def test_workflow_pools_need_an_api_key(api: APIClient, personas: Personas) -> None:
    assert api.put(f"{RUNS}/run-1/blackboard", {"data": {}}, format="json").status_code == 401
    assert not WorkflowPool.objects.exists()
