"""Monthly budgets per person for paid LLM and embedding calls.

A person's limit is their MemorySettings.monthly_budget_usd (set by an operator in the admin) or, when
that is empty, the default MEMORY_MONTHLY_BUDGET_USD; None is unlimited. What they spent is the sum of
this calendar month's (UTC) UsageRecord.cost_usd. Over budget, callers take their offline path
(episodic/providers.py); nothing is cached: the check runs only before a paid call, which takes far
longer than these two indexed queries, and a cache would keep blocking after an operator raised the
limit. Calls already in flight when the limit is crossed finish and are metered, so a burst of parallel
calls can overshoot by at most those calls.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import TypedDict

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Sum
from django.utils import timezone

from accounts.models import MemorySettings, UsageRecord
from memory_site.lib.errors import InvalidFieldError

MESSAGE_MONTH = "month must be YYYY-MM, e.g. 2026-04."
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


class BudgetState(TypedDict):
    limit: Decimal | None  # None: unlimited
    spent: Decimal
    over: bool


def is_month(value: str) -> bool:
    """Whether `value` is a YYYY-MM that month_bounds accepts."""
    match = _MONTH.match(value)
    return match is not None and 1 <= int(match.group(2)) <= 12 and int(match.group(1)) >= 1970


def month_bounds(month: str | None = None, *, now: datetime | None = None) -> tuple[datetime, datetime]:
    """[start, end) of a calendar month in UTC: `month` as YYYY-MM, or the current month."""
    if month is None:
        current = (now or timezone.now()).astimezone(UTC)
        year, number = current.year, current.month
    else:
        if not is_month(month):
            raise InvalidFieldError("month", MESSAGE_MONTH)
        year, number = int(month[:4]), int(month[5:])
    start = datetime(year, number, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC) if number == 12 else datetime(year, number + 1, 1, tzinfo=UTC)
    return start, end


def budget_limit(*, owner_id: int) -> Decimal | None:
    own = MemorySettings.objects.filter(user_id=owner_id).values_list("monthly_budget_usd", flat=True).first()
    return own if own is not None else settings.MEMORY_MONTHLY_BUDGET_USD


def _spent(owner_id: int) -> Decimal:
    start, end = month_bounds()
    # The usage_owner_source_time index serves this (owner prefix, then the time range per source).
    total = UsageRecord.objects.filter(owner_id=owner_id, created_at__gte=start, created_at__lt=end).aggregate(
        total=Sum("cost_usd")
    )["total"]
    return total if total is not None else Decimal(0)


def budget_state(*, owner: User) -> BudgetState:
    """The person's limit this month, what they spent, and whether paid work must stop."""
    limit = budget_limit(owner_id=owner.pk)
    spent = _spent(owner.pk)
    return {"limit": limit, "spent": spent, "over": limit is not None and spent >= limit}


def budget_exceeded(*, owner_id: int) -> bool:
    """True when the person has a limit and this month's spend reached it; no sum without a limit."""
    limit = budget_limit(owner_id=owner_id)
    return limit is not None and _spent(owner_id) >= limit
