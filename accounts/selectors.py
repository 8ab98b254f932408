"""Reads for identity. Every query is filtered by owner, except the operator's lookups (named so)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import TruncMonth

from accounts.budgets import month_bounds
from accounts.models import Agent, ApiKey, ExclusionRule, MemorySettings, UsageRecord
from memory_site.lib.embeddings import KNOWN_DIMS, LOCAL_MODEL_DIM, LOCAL_MODEL_NAME

_KEY_COLUMNS = ("id", "agent_id", "name", "prefix", "created_at", "last_used_at", "revoked_at")
_AGENT_COLUMNS = ("id", "owner_id", "name", "description", "config", "created_at", "updated_at")
_USER_COLUMNS = ("id", "username", "is_active", "is_staff", "is_superuser")
# Every API request runs this, so it is one hand-written join by the unique key_hash index: the ORM's
# query compilation cost more than the query itself (measured with bench/working_memory.py).
_AUTHENTICATE_SQL = (
    "SELECT "
    + ", ".join(
        [f"k.{c}" for c in _KEY_COLUMNS] + [f"a.{c}" for c in _AGENT_COLUMNS] + [f"u.{c}" for c in _USER_COLUMNS]
    )
    + f" FROM {ApiKey._meta.db_table} k"
    + f" JOIN {Agent._meta.db_table} a ON a.id = k.agent_id"
    + f" JOIN {User._meta.db_table} u ON u.id = a.owner_id"
    + " WHERE k.key_hash = %s AND k.revoked_at IS NULL AND u.is_active"
)


def built(model: type[Any], columns: Sequence[str], values: Sequence[Any]) -> Any:
    """An instance from some of its columns, the way the ORM builds one (the rest deferred). `from_db`
    takes the values in the model's own field order, whatever order `columns` names them in: given
    ("username", "is_active", "is_superuser") in another order, it put the username in is_superuser."""
    by_name = dict(zip(columns, values, strict=True))
    ordered = [f.attname for f in model._meta.concrete_fields if f.attname in by_name]
    return model.from_db("default", ordered, [by_name[name] for name in ordered])


def api_key_for_hash(*, key_hash: str) -> ApiKey | None:
    """The active key with this hash, with its agent and owner loaded; None for unknown or revoked
    keys and for keys whose owner is deactivated."""
    # Looked up by hash (a unique index): no per-key comparison loop to time.
    with connection.cursor() as cursor:
        cursor.execute(_AUTHENTICATE_SQL, [key_hash])
        row = cursor.fetchone()
    if row is None:
        return None
    key_end, agent_end = len(_KEY_COLUMNS), len(_KEY_COLUMNS) + len(_AGENT_COLUMNS)
    # from_db builds instances the way the ORM does (the other columns are deferred, loaded on access).
    api_key = built(ApiKey, _KEY_COLUMNS, row[:key_end])
    agent_row = list(row[key_end:agent_end])
    if isinstance(agent_row[4], str):  # Django leaves jsonb undecoded for its JSONField to parse
        agent_row[4] = json.loads(agent_row[4])
    agent = built(Agent, _AGENT_COLUMNS, agent_row)
    agent.owner = built(User, _USER_COLUMNS, row[agent_end:])
    api_key.agent = agent
    return api_key


def agent_list(*, owner: User) -> QuerySet[Agent]:
    return Agent.objects.filter(owner=owner).order_by("name")


def agent_get(*, owner: User, agent_id: uuid.UUID | str) -> Agent | None:
    try:
        agent_uuid = agent_id if isinstance(agent_id, uuid.UUID) else uuid.UUID(str(agent_id))
    except ValueError:
        return None
    return Agent.objects.filter(owner=owner, pk=agent_uuid).first()


def api_key_list(*, owner: User) -> QuerySet[ApiKey]:
    return ApiKey.objects.select_related("agent").filter(agent__owner=owner).order_by("-created_at")


def api_key_get(*, owner: User, prefix: str) -> ApiKey | None:
    return ApiKey.objects.select_related("agent").filter(agent__owner=owner, prefix=prefix).first()


def api_key_get_for_operator(*, prefix: str) -> ApiKey | None:
    """Any owner's key by its prefix: for the operator's commands, never for an API request."""
    return ApiKey.objects.select_related("agent").filter(prefix=prefix).first()


def usage_summary(*, owner: User, month: str | None = None) -> list[Any]:
    """Calls, items, tokens and estimated cost per source for one owner in one calendar month (UTC):
    `month` as YYYY-MM, default the current one (the month budgets count)."""
    start, end = month_bounds(month)
    return list(
        UsageRecord.objects.filter(owner=owner, created_at__gte=start, created_at__lt=end)
        .values("source")
        .annotate(
            calls=Count("id"),
            items=Sum("items"),
            input_tokens=Sum("input_tokens"),
            output_tokens=Sum("output_tokens"),
            cost_usd=Sum("cost_usd"),
        )
        .order_by("source")
    )


def agent_ids_known(*, owner: User, agent_ids: list[str]) -> set[str]:
    """Which of these ids (as strings) name agents of this owner."""
    return {str(pk) for pk in Agent.objects.filter(owner=owner, pk__in=agent_ids).values_list("pk", flat=True)}


def usage_by_month(*, owner: User) -> list[Any]:
    """Calls, items, tokens and estimated cost per month, source and model (newest month first)."""
    return list(
        UsageRecord.objects.filter(owner=owner)
        .annotate(month=TruncMonth("created_at"))
        .values("month", "source", "model")
        .annotate(calls=Count("id"), items=Sum("items"), tokens=Sum("input_tokens"), cost=Sum("cost_usd"))
        .order_by("-month", "source", "model")
    )


def user_by_name(*, username: str) -> User | None:
    return User.objects.filter(username=username).first()


def exclusion_rule_list(*, owner: User) -> QuerySet[ExclusionRule]:
    return ExclusionRule.objects.filter(owner=owner).order_by("created_at", "id")


def exclusion_rule_get(*, owner: User, rule_id: Any) -> ExclusionRule | None:
    try:
        pk = int(rule_id)
    except (TypeError, ValueError):
        return None
    return ExclusionRule.objects.filter(owner=owner, pk=pk).first()


def embedding_models_offered() -> list[str]:
    """The embedding models a person may choose: those whose vectors have the column's dimension
    (EMBEDDING_DIM); a model of another dimension needs a migration and a re-embed first."""
    dim = settings.EMBEDDING_DIM
    offered = {name for name, model_dim in KNOWN_DIMS.items() if model_dim == dim}
    if LOCAL_MODEL_DIM == dim:
        offered.add(LOCAL_MODEL_NAME)
    if settings.EMBEDDING_PROVIDER == "openai" and KNOWN_DIMS.get(settings.EMBEDDING_MODEL, dim) == dim:
        offered.add(settings.EMBEDDING_MODEL)  # an OpenAI-compatible model configured with this dimension
    return sorted(offered)


def memory_settings_get(*, user: User) -> MemorySettings:
    return MemorySettings.objects.get_or_create(user=user)[0]
