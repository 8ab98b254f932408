"""Writes of persistent contexts: create, update, archive, grant / revoke, delete, and the access log
every read of a context or its entries writes to (ContextAccessLog). Entries are in
episodic.services.context_entries, snapshots in episodic.services.snapshots; who may do what is in
episodic.selectors.contexts.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Agent
from episodic.models import ContextAccessLog, PersistentContext
from episodic.selectors.contexts import Level
from memory_site.lib.errors import ConflictError

Action = ContextAccessLog.Action

MESSAGE_CONTEXT_EXISTS = "A context with this name already exists."


class ContextExists(ConflictError):
    message = MESSAGE_CONTEXT_EXISTS


# --- the access log -----------------------------------------------------------------------------------


def access_log_record(*, context: PersistentContext, agent: Agent | None, action: str, **detail: Any) -> None:
    ContextAccessLog.objects.create(
        owner_id=context.owner_id, context=context, agent=agent, action=action, detail=detail
    )


def context_read(*, agent: Agent, context: PersistentContext, **detail: Any) -> PersistentContext:
    """Every read of a context or of its entries is logged (listing contexts, snapshots or the log itself
    is not); returns the context read."""
    access_log_record(context=context, agent=agent, action=Action.READ, **detail)
    return context


# --- contexts -----------------------------------------------------------------------------------------


def context_create(
    *,
    agent: Agent,
    name: str,
    context_type: str = PersistentContext.Type.AGENT_MEMORY,
    scope: str = PersistentContext.Scope.AGENT,
    description: str = "",
    access_control: dict[str, Any] | None = None,
) -> PersistentContext:
    context, created = PersistentContext.objects.get_or_create(
        owner_id=agent.owner_id,
        name=name,
        defaults={
            "agent": agent,
            "context_type": context_type,
            "scope": scope,
            "description": description,
            "access_control": {"read": [], "write": [], **(access_control or {})},
        },
    )
    if not created:
        raise ContextExists()
    return context


def agent_memory_context(*, agent: Agent) -> PersistentContext:
    """The agent's own long-term memory (where consolidation and the tiers router write)."""
    context, _ = PersistentContext.objects.get_or_create(
        owner_id=agent.owner_id,
        name=f"agent-memory:{agent.pk}",
        defaults={
            "agent": agent,
            "context_type": PersistentContext.Type.AGENT_MEMORY,
            "scope": PersistentContext.Scope.AGENT,
            "description": f"Long-term memory of {agent.name}.",
        },
    )
    return context


def context_update(*, context: PersistentContext, description: str) -> PersistentContext:
    context.description = description
    context.save(update_fields=["description", "updated_at"])
    return context


def context_set_archived(*, agent: Agent, context: PersistentContext, archived: bool) -> PersistentContext:
    context.archived_at = timezone.now() if archived else None
    context.save(update_fields=["archived_at", "updated_at"])
    access_log_record(context=context, agent=agent, action=Action.ARCHIVE if archived else Action.UNARCHIVE)
    return context


def context_grant(*, agent: Agent, context: PersistentContext, agent_id: str, level: Level) -> PersistentContext:
    with transaction.atomic():
        locked = PersistentContext.objects.select_for_update().get(pk=context.pk)
        acl = {"read": [], "write": [], **locked.access_control}
        for name in ("read", "write") if level == "write" else ("read",):
            if agent_id not in acl[name]:
                acl[name] = [*acl[name], agent_id]
        locked.access_control = acl
        locked.save(update_fields=["access_control", "updated_at"])
        access_log_record(context=locked, agent=agent, action=Action.GRANT, agent_id=agent_id, level=level)
    return locked


def context_revoke(*, agent: Agent, context: PersistentContext, agent_id: str) -> PersistentContext:
    with transaction.atomic():
        locked = PersistentContext.objects.select_for_update().get(pk=context.pk)
        acl = {"read": [], "write": [], **locked.access_control}
        acl["read"] = [a for a in acl["read"] if a != agent_id]
        acl["write"] = [a for a in acl["write"] if a != agent_id]
        locked.access_control = acl
        locked.save(update_fields=["access_control", "updated_at"])
        access_log_record(context=locked, agent=agent, action=Action.REVOKE, agent_id=agent_id)
    return locked


def context_delete(*, context: PersistentContext) -> None:
    context.delete()
