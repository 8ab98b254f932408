"""The person's other tiers (typed memories and episodes: listed, filtered, searched, edited) and the
knowledge graph's entities with their timelines."""

from __future__ import annotations

import uuid
from datetime import datetime, time, timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.models import Agent
from episodic.models import Episode, TypedMemory
from episodic.selectors import episodes as episode_selectors
from episodic.selectors.person import MemoryFilters, person_memories, person_memories_search, person_memory_get
from episodic.services.episodes import episode_edit
from episodic.services.typed_memories import typed_memory_edit
from memory_site.lib.errors import InvalidFieldError
from palace import selectors
from palace.web.common import page, paginate, person


class MemoryFilter(forms.Form):
    tier = forms.ChoiceField(choices=[("typed", "Typed memories"), ("episodes", "Episodes")], required=False)
    memory_type = forms.ChoiceField(label="Type", choices=[("", "Any type"), *TypedMemory.Type.choices], required=False)
    agent = forms.ChoiceField(label="Agent", choices=[("", "Any agent")], required=False)
    since = forms.DateField(label="From", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label="Until", required=False, widget=forms.DateInput(attrs={"type": "date"}))
    q = forms.CharField(label="Search", required=False, max_length=500)

    def __init__(self, *args: Any, agents: list[Agent], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["agent"].choices = [("", "Any agent"), *((str(a.pk), a.name) for a in agents)]  # type: ignore[attr-defined]


def _day_start(day: Any) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


@login_required
def memories(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    agents = list(account_selectors.agent_list(owner=owner))
    form = MemoryFilter(request.GET or None, agents=agents)
    data = form.cleaned_data if form.is_bound and form.is_valid() else {}
    tier = data.get("tier") or "typed"
    filters = MemoryFilters(
        tier=tier,
        memory_type=data.get("memory_type") or "",
        agent_id=data.get("agent") or "",
        since=_day_start(data["since"]) if data.get("since") else None,
        until=_day_start(data["until"]) + timedelta(days=1) if data.get("until") else None,
    )
    items: Any
    if data.get("q"):
        items = person_memories_search(owner=owner, filters=filters, query=data["q"])
    else:
        items = paginate(request, person_memories(owner=owner, filters=filters))
    context = {"form": form, "tier": tier, "items": items, "searching": bool(data.get("q"))}
    return page(request, "palace/memories.html", context, active="memory-memories")


class EditForm(forms.Form):
    text = forms.CharField(label="Text", widget=forms.Textarea(attrs={"rows": 6}), max_length=20000)


@login_required
def memory_edit(request: HttpRequest, tier: str, memory_id: uuid.UUID) -> HttpResponse:
    """Edit a typed memory's content or an episode's summary; the edit re-embeds at once."""
    row: TypedMemory | Episode | None
    if tier == "typed":
        row = person_memory_get(owner=person(request), tier="typed", memory_id=memory_id)
        current = row.content if row is not None else ""
    elif tier == "episodes":
        row = episode_selectors.episode_get(owner=person(request), episode_id=memory_id)
        current = row.summary if row is not None else ""
    else:
        raise Http404
    if row is None:
        raise Http404("Not in your memory.")
    form = EditForm(request.POST or None, initial={"text": current})
    if request.method == "POST" and form.is_valid():
        try:
            if isinstance(row, TypedMemory):
                typed_memory_edit(memory=row, content=form.cleaned_data["text"])
            else:
                episode_edit(episode=row, summary=form.cleaned_data["text"])
        except InvalidFieldError as error:
            form.add_error("text", error.detail)
        else:
            messages.success(request, "Saved. Search now finds the new text.")
            return redirect(f"/memory/memories?tier={tier}")
    context = {"form": form, "row": row, "tier": tier}
    return page(
        request, "palace/memory_edit.html", context, active="memory-memories", status=400 if form.errors else 200
    )


@login_required
def entities(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()[:200]
    queryset = selectors.entities(owner=person(request), name_contains=q)
    context = {"entities": paginate(request, queryset, size=50), "q": q}
    return page(request, "palace/entities.html", context, active="memory-entities")


@login_required
def entity_detail(request: HttpRequest, entity_id: int) -> HttpResponse:
    """An entity's timeline: every fact with its validity window, closed ones shown as history; with
    `as_of` (a date), only what was true then."""
    entity = selectors.entity_get(owner=person(request), entity_id=entity_id)
    if entity is None:
        raise Http404("Not in your memory.")
    as_of_text = request.GET.get("as_of", "")
    as_of = None
    if as_of_text:
        try:
            as_of = _day_start(datetime.strptime(as_of_text, "%Y-%m-%d").date()) + timedelta(days=1)
        except ValueError:
            messages.error(request, "Pick a date as YYYY-MM-DD.")
    facts = selectors.entity_as_of(entity=entity, at=as_of) if as_of else selectors.entity_timeline(entity=entity)
    context = {"entity": entity, "facts": facts, "as_of": as_of_text if as_of else "", "now": timezone.now()}
    return page(request, "palace/entity.html", context, active="memory-entities")
