"""The person's account of their memory: what happened to it (activity), how much there is (overview),
and how it behaves (Settings → Memory)."""

from __future__ import annotations

import zoneinfo
from datetime import date, timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.models import MemorySettings
from accounts.services import memory_settings_ensure
from episodic.selectors.tiers import tier_counts
from memory_site.lib.embeddings import KNOWN_DIMS, LOCAL_MODEL_NAME
from palace import selectors
from palace.services.activity import activity_record
from palace.web.common import page, paginate, person

CHART_DAYS = 30


@login_required
def activity(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    kind = request.GET.get("kind", "")
    context = {
        "events": paginate(request, selectors.activity_events(owner=owner, kind=kind), size=50),
        "kinds": selectors.activity_kinds(owner=owner),
        "kind": kind,
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
        "bar": width,
        "top": top,
        "total": sum(n for _, n in days),
        "first": days[0][0] if days else None,
        "last": days[-1][0] if days else None,
    }


def embedding_model_choices() -> list[tuple[str, str]]:
    """Only models whose vectors fit the columns: a model of another dimension would need a migration."""
    names = [LOCAL_MODEL_NAME] + [name for name, dim in KNOWN_DIMS.items() if dim == settings.EMBEDDING_DIM]
    return [("", "The service's default")] + [(name, name) for name in dict.fromkeys(names)]


class SettingsForm(forms.ModelForm):
    class Meta:
        model = MemorySettings
        fields = ["enabled", "top_k", "use_rerank", "rerank_model", "embedding_model", "auto_mine", "timezone"]
        labels = {
            "enabled": "Memory on (off pauses mining, recall and storing)",
            "top_k": "Results per recall",
            "use_rerank": "Rerank recall results",
            "auto_mine": "Mine conversations when they end",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["embedding_model"] = forms.ChoiceField(
            label="Embedding model", choices=embedding_model_choices(), required=False
        )
        self.fields["timezone"].widget = forms.TextInput(attrs={"list": "timezones"})


@login_required
def settings_memory(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    form = SettingsForm(request.POST or None, instance=memory_settings_ensure(user=owner))
    if request.method == "POST" and form.is_valid():
        changed = form.changed_data
        form.save()
        if changed:
            activity_record(owner=owner, kind="settings_changed", data={"fields": changed})
        messages.success(request, "Settings saved." if changed else "Nothing changed.")
        return redirect("settings-memory")
    context = {
        "form": form,
        "agents": account_selectors.agent_list(owner=owner),
        "timezones": sorted(zoneinfo.available_timezones()),
    }
    return page(request, "palace/settings.html", context, active="settings-memory", status=400 if form.errors else 200)
