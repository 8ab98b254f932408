"""The /memory pages in real Chromium: log in, browse wing → drawer with htmx, search with its "why",
edit a memory, pause memory; axe-core finds no serious or critical violation on any page."""

from __future__ import annotations

import json
from typing import Any

import pytest

from episodic.models import TypedMemory
from episodic.services.typed_memories import typed_memory_create
from palace.models import Conversation, Drawer, Entity, Room
from palace.services import mining
from tests.conftest import Personas
from tests.e2e.conftest import axe_violations, logged_in_page, screenshot
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def room(api: Any, personas: Personas) -> Room:
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "c1", "turns": TWO_PEOPLE_AND_A_PROJECT, "title": "Efoil plans"},
        format="json",
        **personas.owner.headers,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c1"))
    typed_memory_create(
        owner=personas.owner.user,
        agent=personas.owner.agent,
        memory_type="semantic",
        content="My cat is called Miso.",
    )
    return Room.objects.get()


@pytest.fixture
def page(chromium: Any, live_server: Any, personas: Personas, room: Room) -> Any:
    return logged_in_page(chromium, live_server, personas.owner.user)


def test_login_with_the_form(chromium: Any, live_server: Any, personas: Personas) -> None:
    user = personas.owner.user
    user.set_password("a long demo password")
    user.save()
    page = chromium.new_page(base_url=live_server.url)
    page.goto("/")
    assert "/accounts/login/" in page.url
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill("a long demo password")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/memory")
    assert page.get_by_role("heading", name="Wings").is_visible()
    page.close()


def test_browse_from_a_wing_down_to_a_drawer(page: Any, room: Room) -> None:
    page.goto("/memory")
    page.get_by_role("link", name=room.wing.name, exact=True).first.click()  # htmx swaps the pane in place
    page.wait_for_url(f"**/memory/wings/{room.wing_id}")  # pushed into the history: the back button works
    assert page.get_by_role("heading", level=1).inner_text().startswith(room.wing.name)
    page.get_by_role("link", name=room.title).first.click()  # the room's topics expand under it
    closet = room.closets.order_by("position").first()
    assert closet is not None
    page.locator(f"#closet-{closet.pk} summary").click()  # the closet's turns load in place
    page.locator(f"#closet-{closet.pk}-drawers li").first.wait_for()
    screenshot(page, "palace")
    drawer = Drawer.objects.filter(closet=closet).order_by("turn_index").first()
    assert drawer is not None
    page.get_by_role("link", name=f"Open turn {drawer.turn_index + 1}").first.click()
    page.wait_for_url(f"**/memory/drawers/{drawer.pk}")
    assert drawer.content[:30] in page.inner_text("main")
    screenshot(page, "drawer")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy").click()
    page.get_by_role("status").filter(has_text="Copied").wait_for()  # the person sees it worked
    assert page.evaluate("navigator.clipboard.readText()") == drawer.aaak


def test_the_tree_opens_a_wing_in_place_and_marks_the_current_one(page: Any, room: Room) -> None:
    page.goto("/memory")
    tree = page.get_by_role("navigation", name="Wings")
    tree.locator("summary").filter(has_text=f"Conversations of {room.wing.name}").click()  # its rooms load under it
    tree.get_by_role("link", name=room.title).wait_for()
    tree.get_by_role("link", name=room.wing.name, exact=True).click()
    page.wait_for_url(f"**/memory/wings/{room.wing_id}")
    current = page.locator('#tree a[aria-current="true"]')
    current.wait_for()
    assert current.inner_text() == room.wing.name  # the tree follows the pane, without a reload
    assert "closets: " in page.inner_text("#pane")  # each room card names its topics
    assert not axe_violations(page)


def test_on_a_phone_a_chosen_wing_takes_the_screen_with_a_way_back(
    chromium: Any, live_server: Any, personas: Personas, room: Room
) -> None:
    phone = logged_in_page(chromium, live_server, personas.owner.user, width=390)
    phone.goto(f"/memory/wings/{room.wing_id}")
    assert not phone.get_by_role("navigation", name="Wings").is_visible()
    phone.locator("#pane").get_by_role("link", name="Palace", exact=True).click()
    phone.wait_for_url("**/memory")
    assert phone.get_by_role("navigation", name="Wings").is_visible()


def test_search_shows_why_each_result_was_recalled(page: Any, room: Room) -> None:
    page.goto("/memory")
    page.get_by_label("Search your memory").fill("efoil")
    page.get_by_role("button", name="Search").first.click()
    page.wait_for_url("**/memory/search?q=efoil")
    result = page.locator("article.result").first
    result.wait_for()
    assert "why:" in result.inner_text() and result.locator(".bar").count() >= 2
    assert page.locator('[aria-label^="meaning"]').first.is_visible()
    screenshot(page, "search")


def test_pin_never_recall_and_bulk_forget_from_the_search_results(page: Any, room: Room) -> None:
    page.goto("/memory/search?q=efoil+battery")
    first = page.locator("article.result").first
    first.get_by_role("button", name="Pin").click()
    page.wait_for_url("**/memory/search?q=efoil+battery")  # back on the results, not the drawer page
    page.locator("article.result").first.get_by_role("button", name="Unpin").wait_for()
    assert Drawer.objects.filter(owner=room.owner, pinned=True).count() == 1
    boxes = page.get_by_role("checkbox")
    before = Drawer.objects.filter(owner=room.owner).count()
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.get_by_role("button", name="Forget the selected turns…").click()
    page.get_by_role("heading", name="Forget 2 turns?").wait_for()
    page.get_by_role("button", name="Forget").click()
    page.get_by_text("nothing with those ids remains").wait_for()
    assert Drawer.objects.filter(owner=room.owner).count() == before - 2


def test_edit_a_memory_and_find_the_new_text(page: Any) -> None:
    page.goto("/memory/memories")
    page.get_by_role("link", name="Edit").first.click()
    page.get_by_label("Text").fill("My cat is called Tofu.")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Search now finds the new text").wait_for()
    page.get_by_label("Search", exact=True).fill("what is my cat called")
    page.get_by_role("button", name="Show").click()
    table = page.locator("table").inner_text()
    assert "called Tofu" in table and "called Miso" not in table


def test_pause_memory_and_see_it_on_every_page(page: Any) -> None:
    page.goto("/settings/memory")
    page.get_by_label("Memory on (off pauses mining, recall and storing)").uncheck()
    page.get_by_role("button", name="Save settings").click()
    page.get_by_text("Settings saved.").wait_for()
    for path in ("/memory", "/memory/search?q=efoil", "/memory/overview"):
        page.goto(path)
        assert page.get_by_role("status").filter(has_text="Memory is paused").is_visible(), path
    screenshot(page, "settings")


PAGES = [
    "/memory",
    "/memory/search?q=efoil",
    "/memory/memories",
    "/memory/entities",
    "/memory/activity",
    "/memory/overview",
    "/settings/memory",
]


def test_no_serious_accessibility_violation_on_any_page(page: Any, room: Room) -> None:
    drawer = Drawer.objects.filter(room=room).first()
    assert drawer is not None
    found: dict[str, list[str]] = {}
    entity = Entity.objects.filter(owner=room.owner).first()
    memory = TypedMemory.objects.filter(owner=room.owner).first()
    assert entity is not None and memory is not None
    detail_pages = [
        f"/memory/wings/{room.wing_id}",
        f"/memory/rooms/{room.pk}",
        f"/memory/closets/{drawer.closet_id}",
        f"/memory/drawers/{drawer.pk}",
        f"/memory/entities/{entity.pk}",
        f"/memory/memories/typed/{memory.pk}/edit",
        f"/memory/forget?kind=drawer&ids={drawer.pk}",
        "/accounts/login/",
    ]
    for path in [*PAGES, *detail_pages]:
        page.goto(path)
        violations = axe_violations(page)
        if violations:
            found[path] = violations
    assert not found, found


def _battery_drawer(room: Room) -> Drawer:
    drawer = Drawer.objects.filter(room=room, content__icontains="battery").first()
    assert drawer is not None
    return drawer


def test_forget_a_drawer_and_it_is_gone_from_search(page: Any, room: Room) -> None:
    drawer = _battery_drawer(room)
    page.goto(f"/memory/drawers/{drawer.pk}")
    page.get_by_role("link", name="Forget…").click()
    page.get_by_role("heading", name="Forget 1 turn?").wait_for()
    page.get_by_role("button", name="Forget").click()
    page.get_by_role("heading", name="Forgotten").wait_for()
    page.get_by_text("nothing with those ids remains").wait_for()
    page.reload()  # the receipt has its own address: a reload neither posts again nor loses it
    page.get_by_text("nothing with those ids remains").wait_for()
    page.goto("/memory/search?q=battery+pack")
    assert drawer.content[:40] not in page.inner_text("main")


def test_bulk_forget_selected_turns(page: Any, room: Room) -> None:
    closet = room.closets.order_by("position").first()
    assert closet is not None
    before = Drawer.objects.filter(room=room).count()
    page.goto(f"/memory/closets/{closet.pk}")
    boxes = page.get_by_role("checkbox")
    chosen = min(2, boxes.count())
    for i in range(chosen):
        boxes.nth(i).check()
    page.get_by_role("button", name="Forget the selected turns…").click()
    page.get_by_role("button", name="Forget").click()
    page.get_by_role("heading", name="Forgotten").wait_for()
    # The room is filed again from what is left (its closets may be new ones): count the room's drawers.
    assert chosen and Drawer.objects.filter(owner=room.owner, room=room).count() == before - chosen
    assert f"{chosen} drawers" in page.inner_text("main")


def test_pin_and_never_recall(page: Any, room: Room) -> None:
    drawer = _battery_drawer(room)
    page.goto(f"/memory/drawers/{drawer.pk}")
    page.get_by_role("button", name="Pin").click()
    page.get_by_role("button", name="Unpin").wait_for()
    page.get_by_role("button", name="Never recall").click()
    page.get_by_role("button", name="Allow recall again").wait_for()
    page.get_by_role("button", name="Pin").wait_for()  # kept out of recall: no longer pinned
    drawer.refresh_from_db()
    assert drawer.never_recall and not drawer.pinned
    page.goto("/memory/search?q=battery+pack")
    assert drawer.content[:40] not in page.inner_text("main")


def test_an_exclusion_rule_skips_a_newly_mined_turn(page: Any, api: Any, personas: Personas) -> None:
    page.goto("/settings/memory")
    page.get_by_label("Never store turns containing").fill("passport")
    page.get_by_role("button", name="Add rule").click()
    page.get_by_text("Rule added").wait_for()
    turns = [
        {"role": "user", "content": "My passport number is X1234567."},
        {"role": "user", "content": "I renewed it at the Lisbon consulate."},
    ]
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "c-secret", "turns": turns, "complete": True},
        format="json",
        **personas.owner.headers,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c-secret"))
    page.goto("/memory/search?q=passport+number")
    assert "X1234567" not in page.inner_text("main")
    page.goto("/memory/activity?kind=memory_mined")
    assert "excluded: 1" in page.inner_text("main")


def test_export_and_import_from_the_settings_page(page: Any, room: Room, tmp_path: Any) -> None:
    page.goto("/settings/memory")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download my memory").click()
    path = tmp_path / "memory.jsonl"
    download.value.save_as(path)
    text = path.read_text()
    assert json.loads(text.splitlines()[0])["format"] == "loci-export" and "12V20Ah" in text
    page.get_by_label("Export file").set_input_files(str(path))
    page.get_by_role("button", name="Import").click()
    page.get_by_text("Imported").wait_for()
    assert Drawer.objects.filter(owner=room.owner).count() == room.drawers.count()  # idempotent: nothing doubled


def test_no_page_scrolls_sideways_on_a_phone_or_with_a_long_word(
    chromium: Any, live_server: Any, personas: Personas, room: Room
) -> None:
    phone = logged_in_page(chromium, live_server, personas.owner.user, width=390)
    long_query = "x" * 3000
    for path in (
        "/memory",
        f"/memory/rooms/{room.pk}",
        "/memory/activity",
        "/memory/overview",
        "/settings/memory",
        f"/memory/search?q={long_query}",
    ):
        phone.goto(path)
        wide, seen = phone.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide <= seen + 1, f"{path[:40]} is {wide}px wide on a {seen}px screen"
