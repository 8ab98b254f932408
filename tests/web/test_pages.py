"""The person's pages, server-side: login required, the palace from wings down to a drawer, search with
the reason for each result, memories edited and found by their new text, entities, activity, overview,
settings; and no page ever shows another person's memory."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.selectors import exclusion_rule_list
from episodic.services.typed_memories import typed_memory_create
from palace.models import Conversation, Drawer, Entity, MiningJob, Room, Wing
from palace.services import jobs, mining
from palace.services.filing import wing_ensure
from tests.conftest import Personas
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(api, personas: Personas) -> Room:  # type: ignore[no-untyped-def]
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "c1", "turns": TWO_PEOPLE_AND_A_PROJECT, "title": "Efoil plans"},
        format="json",
        **personas.owner.headers,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c1"))
    return Room.objects.get()


@pytest.fixture
def owner(personas: Personas) -> Client:
    client = Client()
    client.force_login(personas.owner.user)
    return client


@pytest.fixture
def outsider(personas: Personas) -> Client:
    client = Client()
    client.force_login(personas.outsider.user)
    return client


PAGES = [
    "/memory",
    "/memory/search?q=efoil",
    "/memory/memories",
    "/memory/memories?tier=episodes",
    "/memory/entities",
    "/memory/activity",
    "/memory/overview",
    "/settings/memory",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_needs_a_login(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_root_sends_a_person_to_their_memory_and_a_stranger_to_the_login(owner: Client) -> None:
    assert Client().get("/")["Location"] == "/accounts/login/"
    assert owner.get("/")["Location"] == "/memory"
    assert Client().get("/accounts/login/").status_code == 200


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_for_its_owner(owner: Client, room: Room, path: str) -> None:
    response = owner.get(path)
    assert response.status_code == 200 and b"<main" in response.content


def test_from_the_wing_down_to_the_drawer(owner: Client, room: Room) -> None:
    wing = room.wing
    assert wing.name in owner.get("/memory").content.decode()
    assert room.title in owner.get(f"/memory/wings/{wing.pk}").content.decode()
    closet = room.closets.first()
    assert closet is not None and closet.topic in owner.get(f"/memory/rooms/{room.pk}").content.decode()
    drawer = closet.drawers.first()
    assert drawer is not None
    html = owner.get(f"/memory/closets/{closet.pk}").content.decode()
    assert drawer.content[:40] in html
    detail = owner.get(f"/memory/drawers/{drawer.pk}").content.decode()
    assert drawer.aaak in detail and "Read by" in detail


def test_an_htmx_request_gets_the_partial_and_a_plain_one_the_page(owner: Client, room: Room) -> None:
    partial = owner.get(f"/memory/wings/{room.wing_id}", HTTP_HX_REQUEST="true").content.decode()
    full = owner.get(f"/memory/wings/{room.wing_id}").content.decode()
    assert room.title in partial and "<html" not in partial
    assert room.title in full and "<html" in full


def test_search_shows_each_result_with_its_place_and_why(owner: Client, room: Room) -> None:
    html = owner.get("/memory/search", {"q": "efoil"}).content.decode()
    assert "why:" in html and re.search(r'class="bar"', html)
    assert re.search(r"your words in it: <mark>efoil</mark>", html)  # which of the query's words it holds
    assert "Type what you are looking for" in owner.get("/memory/search", {"q": "\x00"}).content.decode()  # no search
    assert room.title in html and "§ W-" in html


def test_an_edited_memory_is_found_by_its_new_text_only(owner: Client, personas: Personas) -> None:
    memory = typed_memory_create(
        owner=personas.owner.user, agent=personas.owner.agent, memory_type="semantic", content="My cat is called Miso."
    )
    response = owner.post(f"/memory/memories/typed/{memory.pk}/edit", {"text": "My cat is called Tofu."})
    assert response.status_code == 302
    found = owner.get("/memory/memories", {"tier": "typed", "q": "cat called Tofu"}).content.decode()
    assert "called Tofu" in found and "called Miso" not in found
    old = owner.get("/memory/memories", {"tier": "typed", "q": "Miso"}).content.decode()
    assert "called Miso" not in old
    memory.refresh_from_db()
    assert memory.embedding is not None


def test_an_empty_edit_is_refused_and_keeps_the_text(owner: Client, personas: Personas) -> None:
    memory = typed_memory_create(
        owner=personas.owner.user, agent=personas.owner.agent, memory_type="semantic", content="Likes tea."
    )
    response = owner.post(f"/memory/memories/typed/{memory.pk}/edit", {"text": "   "})
    assert response.status_code == 400
    memory.refresh_from_db()
    assert memory.content == "Likes tea."


def test_an_entity_shows_its_timeline(owner: Client, room: Room) -> None:
    entity = Entity.objects.filter(owner=room.owner).first()
    assert entity is not None
    html = owner.get(f"/memory/entities/{entity.pk}").content.decode()
    assert entity.name in html
    assert owner.get(f"/memory/entities/{entity.pk}", {"as_of": "2001-01-01"}).status_code == 200


def test_settings_save_and_a_bad_value_changes_nothing(owner: Client, personas: Personas) -> None:
    form = {"enabled": "on", "top_k": "7", "auto_mine": "on", "timezone": "Europe/Paris", "embedding_model": ""}
    assert owner.post("/settings/memory", form).status_code == 302
    settings_row = personas.owner.user.memory_settings
    settings_row.refresh_from_db()
    assert settings_row.top_k == 7 and settings_row.timezone == "Europe/Paris"
    bad = owner.post("/settings/memory", {**form, "timezone": "Mars/Olympus", "top_k": "3"})
    assert bad.status_code == 400
    settings_row.refresh_from_db()
    assert settings_row.top_k == 7


def test_pausing_memory_says_so_on_every_page(owner: Client, personas: Personas) -> None:
    owner.post("/settings/memory", {"top_k": "5", "timezone": "UTC", "embedding_model": ""})  # enabled unchecked
    for path in PAGES:
        assert "Memory is paused" in owner.get(path).content.decode(), path


def test_another_persons_memory_is_a_404_on_every_page(outsider: Client, room: Room) -> None:
    drawer = Drawer.objects.filter(room=room).first()
    entity = Entity.objects.filter(owner=room.owner).first()
    assert drawer is not None and entity is not None
    for path in (
        f"/memory/wings/{room.wing_id}",
        f"/memory/rooms/{room.pk}",
        f"/memory/closets/{drawer.closet_id}",
        f"/memory/drawers/{drawer.pk}",
        f"/memory/entities/{entity.pk}",
    ):
        assert outsider.get(path).status_code == 404, path
    listed = outsider.get("/memory").content.decode() + outsider.get("/memory/search?q=efoil").content.decode()
    assert room.title not in listed and all(w.name not in listed for w in Wing.objects.filter(owner=room.owner))


def test_an_exclusion_rule_from_the_page_skips_new_turns_and_previews_stored_ones(
    owner: Client,
    personas: Personas,
    api,
    room: Room,  # type: ignore[no-untyped-def]
) -> None:
    response = owner.post("/settings/memory/exclusions", {"kind": "word", "pattern": "battery"})
    assert response.status_code == 302
    rule = exclusion_rule_list(owner=personas.owner.user).get()
    preview = owner.get(f"/settings/memory/exclusions/{rule.pk}").content.decode()
    assert "battery" in preview.lower() and "Forget these" in preview  # the already stored turn is shown
    turns = [
        {"role": "user", "content": "The new battery arrived today."},
        {"role": "user", "content": "Derek painted the board blue."},
    ]
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "c2", "turns": turns, "complete": True},
        format="json",
        **personas.owner.headers,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c2"))
    kept = list(Drawer.objects.filter(conversation__external_id="c2").values_list("content", flat=True))
    assert kept == ["Derek painted the board blue."]


def test_a_bad_rule_is_refused_on_the_page(owner: Client) -> None:
    response = owner.post("/settings/memory/exclusions", {"kind": "regex", "pattern": "(a+)+$"})
    html = response.content.decode()
    assert response.status_code == 400 and "errorlist" in html and "exponential time" in html  # the reason
    unclosed = owner.post("/settings/memory/exclusions", {"kind": "regex", "pattern": "["}).content.decode()
    assert "unterminated character set" in unclosed and "Invalid input." not in unclosed


def test_per_agent_overrides_are_saved_from_the_page(owner: Client, personas: Personas) -> None:
    agent = personas.owner.agent
    form = {"enabled": "on", "top_k": "5", "timezone": "UTC", "embedding_model": "", f"mining_paused_{agent.pk}": "on"}
    assert owner.post("/settings/memory", form).status_code == 302
    agent.refresh_from_db()
    assert agent.mining_paused and not agent.recall_disabled


def test_forget_a_drawer_from_the_page_with_a_confirmation_and_a_receipt(owner: Client, room: Room) -> None:
    drawer = Drawer.objects.filter(room=room, content__icontains="battery").first()
    assert drawer is not None
    confirm = owner.get(
        "/memory/forget",
        {"kind": "drawer", "ids": str(drawer.pk)},
        HTTP_REFERER=f"http://testserver/memory/rooms/{room.pk}",
    )
    html = confirm.content.decode()
    assert confirm.status_code == 200 and Drawer.objects.filter(pk=drawer.pk).exists()
    assert (
        "<li>1 drawer</li>" in html
        and "<li>1 posted turn</li>" in html
        and "_" not in "".join(re.findall(r"<li>(.*?)</li>", html))
    )  # a person's words, not table names
    assert f'<a href="/memory/rooms/{room.pk}">Cancel</a>' in html  # back where the person came from
    bad = owner.get("/memory/forget", {"kind": "wing", "ids": "abc"})  # no count promised above the error
    assert bad.status_code == 400 and "<h1>Nothing to forget</h1>" in bad.content.decode()
    done = owner.post("/memory/forget", {"kind": "drawer", "ids": drawer.pk})
    assert done.status_code == 302 and not Drawer.objects.filter(pk=drawer.pk).exists()
    receipt_id = re.search(r"/memory/forget/receipts/([0-9a-f-]{36})", done["Location"]).group(1)  # type: ignore[union-attr]
    for _ in range(2):  # the receipt is a page of its own: a reload shows it again
        again = owner.get(done["Location"]).content.decode()
        assert receipt_id in again and "nothing with those ids remains" in again and "1 drawer" in again
    results = owner.get("/memory/search", {"q": "battery pack"}, HTTP_HX_REQUEST="true").content.decode()
    assert "results" in results and drawer.content[:40] not in results


def test_bulk_forget_and_forget_a_whole_conversation(owner: Client, room: Room) -> None:
    ids = list(Drawer.objects.filter(room=room).values_list("pk", flat=True)[:2])
    owner.post("/memory/forget", {"kind": "drawer", "ids": ids})
    assert not Drawer.objects.filter(pk__in=ids).exists()
    assert room.conversation is not None
    owner.post("/memory/forget", {"kind": "conversation", "ids": room.conversation.external_id})
    assert not Drawer.objects.filter(owner=room.owner).exists()


def test_forgetting_everything_needs_the_word(owner: Client, room: Room) -> None:
    refused = owner.post("/memory/forget", {"kind": "everything"})
    assert refused.status_code == 400 and Drawer.objects.filter(owner=room.owner).exists()
    owner.post("/memory/forget", {"kind": "everything", "confirm": "everything"})
    assert not Drawer.objects.filter(owner=room.owner).exists()


def test_an_outsider_cannot_forget_or_read_a_receipt(outsider: Client, owner: Client, room: Room) -> None:
    drawer = Drawer.objects.filter(room=room).first()
    assert drawer is not None
    assert outsider.post("/memory/forget", {"kind": "drawer", "ids": drawer.pk}).status_code == 404
    assert Drawer.objects.filter(pk=drawer.pk).exists()
    location = owner.post("/memory/forget", {"kind": "drawer", "ids": drawer.pk})["Location"]
    receipt_id = re.search(r"/memory/forget/receipts/([0-9a-f-]{36})", location).group(1)  # type: ignore[union-attr]
    assert outsider.get(f"/memory/forget/receipts/{receipt_id}").status_code == 404


def test_pin_and_never_recall_from_the_drawer_page(owner: Client, room: Room) -> None:
    drawer = Drawer.objects.filter(room=room, content__icontains="battery").first()
    assert drawer is not None
    owner.post(f"/memory/drawers/{drawer.pk}/pin", {"value": "on"})
    drawer.refresh_from_db()
    assert drawer.pinned and "Unpin" in owner.get(f"/memory/drawers/{drawer.pk}").content.decode()
    owner.post(f"/memory/drawers/{drawer.pk}/never-recall", {"value": "on"})
    results = owner.get("/memory/search", {"q": "battery pack"}, HTTP_HX_REQUEST="true").content.decode()
    assert drawer.content[:40] not in results  # kept and browsable, never recalled
    assert drawer.content[:40] in owner.get(f"/memory/drawers/{drawer.pk}").content.decode()
    kinds = owner.get("/memory/activity").content.decode()
    assert "<td>Turn pinned</td>" in kinds and "<td>Turn kept out of recall</td>" in kinds
    assert '<option value="drawer_pinned">Turn pinned</option>' in kinds  # the filter, in words too
    assert "{'" not in kinds, kinds[kinds.index("{'") - 200 : kinds.index("{'") + 100]
    assert "drawer id: " in kinds  # details as a line, not a dict's text


def test_activity_filters_by_agent(owner: Client, personas: Personas, room: Room) -> None:
    mined = owner.get("/memory/activity", {"agent": str(personas.owner.agent.pk)}).content.decode()
    other = owner.get("/memory/activity", {"agent": str(personas.teammate.agent.pk)}).content.decode()
    assert "<td>Conversation filed</td>" in mined and "<td>Conversation filed</td>" not in other


def test_the_settings_page_shows_this_months_usage_and_budget(owner: Client) -> None:
    html = owner.get("/settings/memory").content.decode()
    assert 'id="usage"' in html and "Budget this month" in html


def test_the_settings_page_includes_the_webhooks_section(owner: Client) -> None:
    assert 'id="webhooks"' in owner.get("/settings/memory").content.decode()


def test_errors_are_pages_of_the_site_with_a_way_back(owner: Client, outsider: Client, room: Room) -> None:
    drawer = Drawer.objects.filter(room=room).first()
    assert drawer is not None
    for client, path in ((owner, "/memory/drawers/999999"), (outsider, f"/memory/drawers/{drawer.pk}")):
        missing = client.get(path)
        html = missing.content.decode()
        assert missing.status_code == 404 and "Back to your palace" in html and 'aria-label="Main"' in html
    wrong_method = owner.get(f"/memory/drawers/{drawer.pk}/pin")
    assert wrong_method.status_code == 405 and "Back to your palace" in wrong_method.content.decode()
    assert "POST" in wrong_method["Allow"]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(room.owner)
    refused = strict.post(f"/memory/drawers/{drawer.pk}/pin")
    assert refused.status_code == 403 and "could not be sent" in refused.content.decode()
    assert Drawer.objects.get(pk=drawer.pk).pinned is False
    api_missing = owner.get("/api/v1/nowhere")
    assert api_missing.status_code == 404 and api_missing.json()["message"]  # the API keeps its envelope


def test_a_conversation_reads_in_order_a_page_at_a_time(owner: Client, room: Room) -> None:
    html = owner.get(f"/memory/rooms/{room.pk}").content.decode()
    assert f'href="/memory/rooms/{room.pk}?read=1"' in html  # not a link to the page itself
    reading = owner.get(f"/memory/rooms/{room.pk}", {"read": "1"}).content.decode()
    contents = list(Drawer.objects.filter(room=room).order_by("turn_index").values_list("content", flat=True))
    positions = [reading.find(text[:40].replace("'", "&#x27;")) for text in contents]
    assert all(p > 0 for p in positions) and positions == sorted(positions)  # every turn, in order
    assert "page 1 of 1" in reading and 'form="bulk-room"' in reading


def test_a_conversation_that_failed_to_file_says_so_and_can_be_forgotten(
    owner: Client, api, personas: Personas
) -> None:  # type: ignore[no-untyped-def]
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "stuck", "turns": [{"role": "user", "content": "The kayak rack bolts are 8 mm."}]},
        format="json",
        **personas.owner.headers,
    )
    job = MiningJob.objects.get(conversation__external_id="stuck")
    jobs.job_fail(job_id=job.pk, error="DataError: value too long for type character varying(200)")
    html = owner.get("/memory/search", {"q": "kayak rack bolts"}).content.decode()
    assert "not filed: filing this conversation failed" in html
    assert "/memory/forget?kind=conversation&amp;ids=stuck" in html
    activity = owner.get("/memory/activity").content.decode()
    assert "<td>Filing failed</td>" in activity and "error: DataError" in activity and "varying" not in activity
    owner.post("/memory/forget", {"kind": "conversation", "ids": "stuck"})
    assert "bolts are 8 mm" not in owner.get("/memory/search", {"q": "kayak rack bolts"}).content.decode()


def test_the_icon_is_served(owner: Client) -> None:
    icon = owner.get("/favicon.ico", follow=True)
    assert icon.status_code == 200 and b"<svg" in b"".join(icon.streaming_content)  # type: ignore[attr-defined]
    assert "favicon.svg" in owner.get("/memory").content.decode()


def test_the_largest_wings_count_the_turns_of_the_rooms_that_mention_them(owner: Client, room: Room) -> None:
    linked = list(room.linked_wings.all())
    assert linked  # Derek and Anna are mentioned in the Efoil room
    turns = Drawer.objects.filter(room=room).count()
    empty = wing_ensure(owner_id=room.owner_id, name="Nowhere", kind="topic")
    html = owner.get("/memory/overview").content.decode()
    table = html[html.index("Largest wings") :]
    for wing in [room.wing, *linked]:
        row = table[table.index(f">{wing.name}</a>") :]
        assert f'<td class="count">{turns}</td>' in row[: row.index("</tr>")]
    assert empty.name not in table  # a wing with no turns is not among the largest


def test_the_overview_chart_says_the_busiest_day_and_an_empty_month_says_none(owner: Client, room: Room) -> None:
    turns = Drawer.objects.filter(room=room).count()  # all mined today
    html = owner.get("/memory/overview").content.decode()
    assert f"{turns} turns, at most {turns} a day" in html and 'class="axis"' in html
    Drawer.objects.filter(room=room).delete()
    assert "0 turns, at most 0 a day" in owner.get("/memory/overview").content.decode()
