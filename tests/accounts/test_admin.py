from __future__ import annotations

import pytest
from django.test import Client
from django_celery_beat.models import PeriodicTask
from rest_framework.test import APIClient

from accounts.models import ApiKey
from accounts.services import api_key_hash
from episodic.services.context_entries import entry_create
from episodic.services.contexts import context_create
from episodic.services.snapshots import snapshot_create
from tests.conftest import Personas
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator() -> Client:
    client = Client()
    client.force_login(make_user("operator", superuser=True))
    return client


@pytest.mark.parametrize(
    "page",
    [
        "auth/user",
        "accounts/agent",
        "accounts/apikey",
        "accounts/memorysettings",
        "ops/jobrun",
        "django_celery_beat/periodictask",
        "django_celery_beat/crontabschedule",
        "accounts/usagerecord",
        "episodic/episode",
        "episodic/typedmemory",
        "episodic/shorttermmemory",
        "episodic/memorypool",
        "episodic/workflowpool",
        "episodic/persistentcontext",
        "episodic/contextentry",
        "episodic/contextsnapshot",
        "episodic/contextaccesslog",
        "ledger/workingmemorysnapshot",
        "palace/conversation",
        "palace/miningjob",
        "palace/wing",
        "palace/room",
        "palace/closet",
        "palace/drawer",
        "palace/entity",
        "palace/relation",
        "palace/activityevent",
        "palace/preferencetopic",
    ],
)
def test_every_operator_page_renders(operator: Client, personas: Personas, page: str) -> None:
    assert operator.get(f"/admin/{page}/").status_code == 200


def test_the_prune_schedule_is_in_the_admin(operator: Client) -> None:
    assert "prune job runs" in operator.get("/admin/django_celery_beat/periodictask/").content.decode()


def test_the_maintenance_schedules_are_in_the_admin_and_editable(operator: Client) -> None:
    page = operator.get("/admin/django_celery_beat/periodictask/").content.decode()
    for job in ("consolidation", "dedup", "expired_cleanup", "context_rot", "embedding_backfill"):
        assert job in page
    dedup = PeriodicTask.objects.get(name="dedup")
    assert operator.get(f"/admin/django_celery_beat/periodictask/{dedup.pk}/change/").status_code == 200


def test_a_context_and_its_entries_open_in_the_admin(operator: Client, personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    entry = entry_create(agent=personas.owner.agent, context=context, content="Visible to operators.")
    snapshot = snapshot_create(agent=None, context=context)
    assert (
        "Visible to operators."
        in operator.get(f"/admin/episodic/persistentcontext/{context.pk}/change/").content.decode()
    )
    assert operator.get(f"/admin/episodic/contextentry/{entry.pk}/change/").status_code == 200
    assert operator.get(f"/admin/episodic/contextsnapshot/{snapshot.pk}/change/").status_code == 200


def test_adding_a_key_in_the_admin_shows_it_once(operator: Client, personas: Personas, api: APIClient) -> None:
    response = operator.post(
        "/admin/accounts/apikey/add/", {"agent": str(personas.owner.agent.id), "name": "from-admin"}, follow=True
    )
    page = response.content.decode()
    api_key = ApiKey.objects.get(name="from-admin")
    shown = next(word for word in page.split() if word.startswith(f"loci_{api_key.prefix}_"))
    shown = shown.rstrip("<").split("<")[0]
    assert api_key.key_hash == api_key_hash(shown)
    assert api.get("/api/v1/agents/me", HTTP_X_API_KEY=shown).status_code == 200
    # The change page shows the hash, never the key.
    assert shown not in operator.get(f"/admin/accounts/apikey/{api_key.pk}/change/").content.decode()


def test_the_revoke_action_revokes(operator: Client, personas: Personas, api: APIClient) -> None:
    operator.post(
        "/admin/accounts/apikey/",
        {"action": "revoke", "_selected_action": [personas.owner.api_key.pk]},
    )
    assert api.get("/api/v1/agents/me", **personas.owner.headers).status_code == 401
