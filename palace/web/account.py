"""The person's account of their memory: what happened to it (activity), how much there is (overview),
and how it behaves (Settings → Memory)."""

from __future__ import annotations

import zoneinfo
from datetime import date, timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts import selectors as account_selectors
from accounts.services import SETTINGS_FIELDS, memory_settings_ensure, memory_settings_update
from episodic.selectors.tiers import tier_counts
from memory_site.lib.errors import InvalidFieldError, ServiceError
from memory_site.settings_sections import settings_sections
from palace import selectors
from palace.services.exclusions import exclusion_preview, exclusion_rule_create, exclusion_rule_delete
from palace.web import activity_text
from palace.web.common import page, paginate, person
from palace.web.usage import usage_context

CHART_DAYS = 30


@login_required
def activity(request: HttpRequest) -> HttpResponse:
    """Everything that happened to the person's memory, newest first, by kind and by agent."""
    owner = person(request)
    kind = request.GET.get("kind", "")
    agents = list(account_selectors.agent_list(owner=owner))
    agent = next((a for a in agents if str(a.pk) == request.GET.get("agent", "")), None)
    events = paginate(
        request, selectors.activity_list(owner=owner, agent_id=agent.pk if agent else None, kind=kind or None), size=50
    )
    context = {
        "events": events,
        "rows": [(e, activity_text.kind_label(e.kind), activity_text.details(e.data)) for e in events.object_list],
        "kinds": [(k, activity_text.kind_label(k)) for k in selectors.activity_kinds(owner=owner)],
        "kind": kind,
        "agents": agents,
        "agent": agent,
    }
    return page(request, "palace/activity.html", context, active="memory-activity")


@login_required
def overview(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    counts = selectors.palace_counts(owner=owner)
    tiers = [
        ("Turns (drawers)", counts["drawers"]),
        ("Conversations (rooms)", counts["rooms"]),
        ("Wings", counts["wings"]),
        ("Entities", counts["entities"]),
        ("Facts", counts["relations"]),
        *tier_counts(owner=owner).items(),
    ]
    since = timezone.localdate() - timedelta(days=CHART_DAYS - 1)
    per_day = selectors.drawers_per_day(owner=owner, since=since)
    days = [(since + timedelta(days=i), per_day.get(since + timedelta(days=i), 0)) for i in range(CHART_DAYS)]
    context = {
        "tiers": tiers,
        "wings": selectors.wings_by_size(owner=owner),
        "chart": bars_svg(days),
        "usage": account_selectors.usage_by_month(owner=owner),
    }
    return page(request, "palace/overview.html", context, active="memory-overview")


def bars_svg(days: list[tuple[date, int]]) -> dict[str, Any]:
    """Drawers added per day as SVG bar geometry (drawn server-side: no chart script to load)."""
    top = max((n for _, n in days), default=0) or 1
    width, height, gap = 12, 80, 2
    bars = [
        {"x": i * (width + gap), "y": height - round(n / top * height), "h": round(n / top * height), "day": d, "n": n}
        for i, (d, n) in enumerate(days)
    ]
    return {
        "bars": bars,
        "width": len(days) * (width + gap),
        "height": height + 14,
        "base": height + 0.5,  # the axis under the bars, where a day with no turns is
        "bar": width,
        "top": top,
        "peak": max((n for _, n in days), default=0),  # the most turns in a day (top is at least 1, to scale)
        "total": sum(n for _, n in days),
        "first": days[0][0] if days else None,
        "last": days[-1][0] if days else None,
    }


class SettingsForm(forms.Form):
    """The person's memory settings; saved through accounts.services.memory_settings_update, which
    checks them again and logs every change."""

    enabled = forms.BooleanField(label="Memory on (off pauses mining, recall and storing)", required=False)
    top_k = forms.IntegerField(label="Results per recall", min_value=1, max_value=50)
    use_rerank = forms.BooleanField(label="Rerank recall results", required=False)
    rerank_model = forms.CharField(label="Rerank model", required=False, max_length=200)
    embedding_model = forms.ChoiceField(label="Embedding model", required=False)
    auto_mine = forms.BooleanField(label="Mine conversations when they end", required=False)
    timezone = forms.CharField(label="Time zone", max_length=64, widget=forms.TextInput(attrs={"list": "timezones"}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offered = account_selectors.embedding_models_offered()
        self.fields["embedding_model"].choices = [("", "The service's default"), *((m, m) for m in offered)]  # type: ignore[attr-defined]

    def clean_timezone(self) -> str:
        name = str(self.cleaned_data["timezone"]).strip()
        if name not in zoneinfo.available_timezones():
            raise forms.ValidationError("Pick a time zone from the list, e.g. Europe/Paris.")
        return name


class ExclusionForm(forms.Form):
    kind = forms.ChoiceField(
        label="Match", choices=[("word", "Word"), ("phrase", "Phrase"), ("regex", "Regular expression")]
    )
    pattern = forms.CharField(label="Never store turns containing", max_length=200)


@login_required
def settings_memory(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    row = memory_settings_ensure(user=owner)
    form = SettingsForm(request.POST or None, initial={f: getattr(row, f) for f in SETTINGS_FIELDS})
    if request.method == "POST" and form.is_valid():
        agents = [
            {
                "agent_id": str(agent.pk),
                "recall_disabled": request.POST.get(f"recall_disabled_{agent.pk}") == "on",
                "mining_paused": request.POST.get(f"mining_paused_{agent.pk}") == "on",
            }
            for agent in account_selectors.agent_list(owner=owner)
        ]
        try:
            memory_settings_update(user=owner, data={**form.cleaned_data, "agents": agents})
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            messages.success(request, "Settings saved.")
            return redirect("settings-memory")
    return _settings_page(request, form, ExclusionForm())


def _settings_page(request: HttpRequest, form: SettingsForm, exclusion_form: ExclusionForm) -> HttpResponse:
    owner = person(request)
    errors = bool(form.errors or exclusion_form.errors)
    context = {
        "form": form,
        "exclusion_form": exclusion_form,
        "agents": account_selectors.agent_list(owner=owner),
        "rules": account_selectors.exclusion_rule_list(owner=owner),
        "timezones": sorted(zoneinfo.available_timezones()),
        **usage_context(owner=owner, month=request.GET.get("month")),
    }
    context["sections"], extra = settings_sections(owner=owner)
    context.update(extra)
    return page(request, "palace/settings.html", context, active="settings-memory", status=400 if errors else 200)


@login_required
@require_POST
def exclusion_add(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    exclusion_form = ExclusionForm(request.POST)
    if exclusion_form.is_valid():
        try:
            exclusion_rule_create(owner=owner, **exclusion_form.cleaned_data)
        except InvalidFieldError as error:  # the reason, under the field it is about ("unterminated set …")
            field = error.field if error.field in exclusion_form.fields else None
            exclusion_form.add_error(field, error.reason)
        except ServiceError as error:
            exclusion_form.add_error("pattern", error.detail)
        else:
            messages.success(request, "Rule added: matching turns are skipped from now on.")
            return redirect("settings-memory")
    row = memory_settings_ensure(user=owner)
    return _settings_page(request, SettingsForm(initial={f: getattr(row, f) for f in SETTINGS_FIELDS}), exclusion_form)


@login_required
@require_POST
def exclusion_delete(request: HttpRequest, rule_id: int) -> HttpResponse:
    try:
        exclusion_rule_delete(owner=person(request), rule_id=rule_id)
    except ServiceError as error:
        raise Http404(error.detail) from None
    messages.success(request, "Rule removed.")
    return redirect("settings-memory")


@login_required
def exclusion_preview_page(request: HttpRequest, rule_id: int) -> HttpResponse:
    """The drawers already stored that a rule matches, with a button that forgets them (with a receipt)."""
    owner = person(request)
    rule = account_selectors.exclusion_rule_get(owner=owner, rule_id=rule_id)
    if rule is None:
        raise Http404("No such rule.")
    matches = exclusion_preview(owner=owner, rule_id=rule_id)
    context = {"rule": rule, "drawers": paginate(request, matches, size=20)}
    return page(request, "palace/exclusion_preview.html", context, active="settings-memory")
