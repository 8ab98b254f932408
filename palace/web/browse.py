"""The palace as a person browses it: wings → rooms → closets → drawers, a drawer's detail, and search
with the reason each result was recalled."""

from __future__ import annotations

import re
import time
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from palace import keywords, selectors
from palace.models import Drawer
from palace.recall import recall
from palace.services import curation
from palace.web.common import is_htmx, page, paginate, person

MAX_QUERY = 500
# A signal's name to a person.
SIGNAL_LABELS = {
    "semantic": "meaning",
    "keyword": "words",
    "temporal": "time",
    "preference": "your interests",
    "speaker": "said by you",
    "entity": "a name you asked",
    "pinned": "pinned",
}


def _found(row: Any) -> Any:
    if row is None:
        raise Http404("Not in your memory.")
    return row


def _tree(request: HttpRequest) -> dict[str, Any]:
    wings = selectors.wings(owner=person(request), busiest_first=True)
    return {"wings": paginate(request, wings, size=50, param="wings")}


@login_required
def memory_index(request: HttpRequest) -> HttpResponse:
    """The palace root: the wing tree on the left, the newest rooms on the right."""
    recent = selectors.rooms_recent(owner=person(request))
    context = {**_tree(request), "rooms": paginate(request, recent, size=10), "heading": "Latest conversations"}
    return page(request, "palace/index.html", context, partial="palace/_tree.html", active="memory")


@login_required
def wing_detail(request: HttpRequest, wing_id: int) -> HttpResponse:
    wing = _found(selectors.wing_get(owner=person(request), wing_id=wing_id))  # type: ignore[arg-type]
    rooms = paginate(request, selectors.rooms_of_wing(wing=wing), size=10)
    # Opened from the tree (htmx): the tree comes along out of band, so it marks this wing as the current one.
    context = {**_tree(request), "wing": wing, "rooms": rooms, "tree_oob": is_htmx(request)}
    return page(request, "palace/wing.html", context, partial="palace/_wing.html", active="memory")


TREE_ROOMS = 12


@login_required
def wing_rooms(request: HttpRequest, wing_id: int) -> HttpResponse:
    """The tree's rooms of a wing, fetched when the person opens it there (lazily, as UI.md draws it)."""
    wing = _found(selectors.wing_get(owner=person(request), wing_id=wing_id))  # type: ignore[arg-type]
    rooms = selectors.rooms_of_wing(wing=wing)
    total = rooms.count()
    context = {"wing": wing, "rooms": list(rooms[:TREE_ROOMS]), "more": total > TREE_ROOMS, "total": total}
    return render(request, "palace/_tree_rooms.html", context)


TURNS_PER_PAGE = 30


@login_required
def room_detail(request: HttpRequest, room_id: int) -> HttpResponse:
    room = _found(selectors.room_get(owner=person(request), room_id=room_id))  # type: ignore[arg-type]
    context = {**_tree(request), "room": room, "closets": selectors.closets_of_room(room=room), "turns": None}
    if request.GET.get("read"):  # the whole conversation in order, a page at a time
        context["turns"] = paginate(request, selectors.drawers_of_room(room=room), size=TURNS_PER_PAGE)
        return page(request, "palace/room.html", context, active="memory")
    return page(request, "palace/room.html", context, partial="palace/_room.html", active="memory")


@login_required
def closet_detail(request: HttpRequest, closet_id: int) -> HttpResponse:
    closet = _found(selectors.closet_get(owner=person(request), closet_id=closet_id))  # type: ignore[arg-type]
    drawers = paginate(request, selectors.drawers_of_closet(closet=closet), size=20)
    context = {**_tree(request), "closet": closet, "room": closet.room, "drawers": drawers}
    return page(request, "palace/closet.html", context, partial="palace/_closet.html", active="memory")


@login_required
def drawer_detail(request: HttpRequest, drawer_id: int) -> HttpResponse:
    drawer = _found(selectors.drawer_get(owner=person(request), drawer_id=drawer_id))  # type: ignore[arg-type]
    before, after = selectors.drawer_neighbours(drawer=drawer)
    context = {
        "drawer": drawer,
        "before": before,
        "after": after,
        "tags": _tag_groups(drawer),
        "facts": selectors.relations_citing(drawer=drawer),
        "readers": selectors.drawer_readers(drawer=drawer),
    }
    return page(request, "palace/drawer.html", context, active="memory")


@login_required
@require_POST
def drawer_flag(request: HttpRequest, drawer_id: int, flag: str) -> HttpResponse:
    """Pin a drawer (always a candidate for recall, boosted) or mark it never recall (kept, browsable,
    never returned); the same services as PUT …/pin and …/never-recall."""
    drawer = _found(selectors.drawer_get(owner=person(request), drawer_id=drawer_id))
    on = request.POST.get("value") == "on"
    if flag == "pin":
        curation.drawer_pin(drawer=drawer, pinned=on)
        messages.success(request, "Pinned: recall will always consider this turn." if on else "Unpinned.")
    elif flag == "never-recall":
        curation.drawer_never_recall(drawer=drawer, never=on)
        messages.success(request, "This turn will never be recalled." if on else "This turn can be recalled again.")
    else:
        raise Http404
    back = request.POST.get("next", "")
    if back.startswith("/memory") and not back.startswith("//"):  # from a list of results: back to it
        return redirect(back)
    return redirect("memory-drawer", drawer_id=drawer.pk)


TAG_GROUPS = (
    ("p", "People"),
    ("l", "Places"),
    ("i", "Items and organisations"),
    ("e", "Events and works"),
    ("t", "Times"),
)


def _tag_groups(drawer: Drawer) -> list[tuple[str, list[str]]]:
    return [(label, drawer.tags[letter]) for letter, label in TAG_GROUPS if drawer.tags.get(letter)]


@login_required
def search(request: HttpRequest) -> HttpResponse:
    """The same recall as POST /api/v1/recall (as the person, not an agent: no agent's recall switch
    applies), each hit with its place, pointer and per-signal scores drawn as bars."""
    query = request.GET.get("q", "").replace("\x00", "").strip()[:MAX_QUERY]  # a NUL is no search
    context: dict[str, Any] = {
        "query": query,
        "results": [],
        "elapsed_ms": None,
        "skipped": None,
        "search_path": f"/memory/search?{urlencode({'q': query})}",  # where a result's pin or never-recall returns
    }
    if query:
        started = time.perf_counter()
        found = recall(owner=person(request), query=query)  # type: ignore[arg-type]
        unfiled = selectors.conversations_failed_to_file(
            conversation_ids={hit.drawer.conversation_id for hit in found.hits if hit.pending}
        )
        context.update(
            results=[
                {
                    "hit": hit,
                    "signals": _bars(hit.signals),
                    "matched": _matched_words(query, hit.drawer.content) if hit.signals.get("keyword") else [],
                    "failed": hit.drawer.conversation_id in unfiled,
                }
                for hit in found.hits
            ],
            skipped=found.skipped,
            elapsed_ms=round((time.perf_counter() - started) * 1000),
        )
    return page(request, "palace/search.html", context, partial="palace/_results.html", active="search")


def _bars(signals: dict[str, float]) -> list[dict[str, Any]]:
    return [
        {"name": SIGNAL_LABELS.get(name, name), "value": value, "percent": round(max(0.0, min(1.0, value)) * 100)}
        for name, value in signals.items()
    ]


def _matched_words(query: str, content: str) -> list[str]:
    """The query's words the turn holds, as a person reads the `words` bar ("sister", "work"): a word or its
    stem's first letters ("working" for "work"), whole words only."""
    return [
        word
        for word in keywords.query_words(query)
        if re.search(rf"(?<!\w){re.escape(word[: max(4, len(word) - 2)])}", content, re.IGNORECASE)
    ][:8]
