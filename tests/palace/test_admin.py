"""The operator's palace admin: lists of large tables open without counting every row, and the actions
call the services (re-file a conversation, re-embed drawers)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from memory_site.admin_lists import EXACT_BELOW, EstimatedCountPaginator
from palace.models import Drawer, Passage, Room
from tests.conftest import Personas
from tests.factories import make_user
from tests.palace.recall_data import mine
from tests.palace.test_passages import ASIDE, MARCH
from tests.web.test_pages import room  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator() -> Client:
    client = Client()
    client.force_login(make_user("operator", superuser=True))
    return client


def test_the_drawer_list_opens_without_a_full_count(operator: Client, room: Room) -> None:  # noqa: F811
    response = operator.get("/admin/palace/drawer/")
    assert response.status_code == 200 and room.drawers.first().aaak in response.content.decode()  # type: ignore[union-attr]
    assert response.context["cl"].show_full_result_count is False


def test_an_unfiltered_large_table_is_counted_by_the_planners_estimate() -> None:
    with connection.cursor() as cursor:  # what autovacuum would have recorded for a large table
        cursor.execute("UPDATE pg_class SET reltuples = %s WHERE oid = 'palace_drawer'::regclass", [EXACT_BELOW * 50])
    paginator = EstimatedCountPaginator(Drawer.objects.order_by("pk"), 50)
    assert paginator.count == EXACT_BELOW * 50
    assert EstimatedCountPaginator(Drawer.objects.filter(role="user").order_by("pk"), 50).count == 0  # exact


def test_reembed_and_refile_actions_call_the_services(operator: Client, room: Room, personas: Personas) -> None:  # noqa: F811
    drawer = room.drawers.order_by("turn_index").first()
    assert drawer is not None
    Drawer.objects.filter(pk=drawer.pk).update(embedding=None, embedding_model="")
    operator.post("/admin/palace/drawer/", {"action": "reembed", "_selected_action": [drawer.pk]})
    drawer.refresh_from_db()
    assert drawer.embedding is not None and drawer.embedding_model
    conversation = room.conversation
    assert conversation is not None
    response = operator.post("/admin/palace/conversation/", {"action": "refile", "_selected_action": [conversation.pk]})
    assert response.status_code == 302
    assert Drawer.objects.get(pk=drawer.pk).aaak  # kept in place, still addressable


def test_the_passage_list_opens_and_reembed_covers_a_drawers_passages(operator: Client, personas: Personas) -> None:
    owner = personas.owner.user
    drawer = mine(owner, "cases", [{"role": "user", "content": ASIDE}], MARCH)[0]
    Passage.objects.filter(drawer=drawer).update(embedding_model="an-old-model")
    response = operator.get("/admin/palace/passage/")
    assert response.status_code == 200 and "charity auction" in response.content.decode()
    operator.post("/admin/palace/drawer/", {"action": "reembed", "_selected_action": [drawer.pk]})
    models = set(Passage.objects.filter(drawer=drawer).values_list("embedding_model", flat=True))
    assert models == {Drawer.objects.get(pk=drawer.pk).embedding_model}
