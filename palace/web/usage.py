"""Usage and budget on Settings → Memory: calls, tokens and estimated cost per source for one month,
from the same selector as GET /api/v1/usage, and this month's budget. `usage_context` feeds the
includable partial templates/accounts/_usage.html; `settings_usage` serves it alone for the month
links (htmx) or as a page of its own."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse

from accounts.budgets import budget_state, is_month, month_bounds
from accounts.selectors import usage_summary
from palace.web.common import page, person

USAGE_LABELS = {
    "memory_embed": "Embeddings",
    "memory_extract": "Extraction (mining)",
    "memory_summarize": "Episode summaries",
    "memory_rerank": "Recall rerank",
}


def usage_context(*, owner: User, month: str | None = None) -> dict[str, Any]:
    """What _usage.html shows; a month that is not YYYY-MM shows the current one."""
    start, end = month_bounds(month if month and is_month(month) else None)
    current_start, _ = month_bounds()
    shown = f"{start:%Y-%m}"
    rows = usage_summary(owner=owner, month=shown)
    for row in rows:
        row["label"] = USAGE_LABELS.get(row["source"], row["source"])
    return {
        "usage_month": shown,
        "usage_rows": rows,
        "usage_total": sum((row["cost_usd"] or Decimal(0) for row in rows), Decimal(0)),
        "usage_previous": f"{start - timedelta(days=1):%Y-%m}",
        "usage_next": f"{end:%Y-%m}" if start < current_start else "",
        "usage_is_current": start == current_start,
        "budget": budget_state(owner=owner),
    }


@login_required
def settings_usage(request: HttpRequest) -> HttpResponse:
    context = usage_context(owner=person(request), month=request.GET.get("month"))
    return page(request, "accounts/usage.html", context, partial="accounts/_usage.html", active="settings-memory")
