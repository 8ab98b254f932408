"""Snapshots of a persistent context: every entry (all versions, archived and merged ones too) and the
context's own fields, and the restore that brings the context back to exactly that state."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils.dateparse import parse_datetime

from accounts.models import Agent
from episodic.models import ContextEntry, ContextSnapshot, PersistentContext
from episodic.services.contexts import Action, access_log_record

_SNAPSHOT_CONTEXT_FIELDS = ("context_type", "scope", "description", "access_control", "archived_at")


def _fields() -> list[Any]:
    return [f for f in ContextEntry._meta.concrete_fields if f.name != "search_vector"]


def _state(entry: ContextEntry) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for field in _fields():
        value = getattr(entry, field.attname)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, uuid.UUID):
            value = str(value)
        elif field.name == "embedding" and value is not None:
            value = [float(x) for x in value]
        state[field.attname] = value
    return state


def snapshot_create(*, agent: Agent | None, context: PersistentContext, label: str = "") -> ContextSnapshot:
    with transaction.atomic():
        context = PersistentContext.objects.select_for_update().get(pk=context.pk)
        entries = [_state(e) for e in ContextEntry.objects.filter(context=context).order_by("created_at", "version")]
        context_state = {
            name: (v.isoformat() if isinstance(v, datetime) else v)
            for name in _SNAPSHOT_CONTEXT_FIELDS
            for v in [getattr(context, name)]
        }
        snapshot = ContextSnapshot.objects.create(
            owner_id=context.owner_id,
            context=context,
            agent=agent,
            label=label,
            entries=entries,
            entry_count=len(entries),
            context_state=context_state,
        )
        access_log_record(
            context=context, agent=agent, action=Action.SNAPSHOT, snapshot_id=str(snapshot.pk), entries=len(entries)
        )
    return snapshot


@dataclass(frozen=True)
class Restored:
    context: PersistentContext  # as restored
    before: ContextSnapshot  # the state the restore replaced: restoring it undoes the restore


def snapshot_restore(*, agent: Agent | None, snapshot: ContextSnapshot) -> Restored:
    """Bring the context back to exactly the snapshot's state (every entry, version and timestamp).
    The state it replaces is snapshotted first, so a restore can itself be undone; the restore is
    logged."""
    before = snapshot_create(agent=agent, context=snapshot.context, label=f"before restoring {snapshot.pk}")
    with transaction.atomic():
        context = PersistentContext.objects.select_for_update().get(pk=snapshot.context_id)
        ContextEntry.objects.filter(context=context).delete()
        ids = {state["id"] for state in snapshot.entries}
        known = {
            str(pk)
            for pk in ContextEntry.objects.filter(
                pk__in=[s["merged_into_id"] for s in snapshot.entries if s.get("merged_into_id")]
            ).values_list("pk", flat=True)
        }
        rows = []
        for state in snapshot.entries:
            values = dict(state)
            for name in ("created_at", "updated_at", "archived_at", "deprecated_at", "last_accessed_at"):
                values[name] = parse_datetime(values[name]) if values.get(name) else None
            if values.get("previous_version_id") not in ids:
                values["previous_version_id"] = None
            target = values.get("merged_into_id")
            if target and target not in ids and target not in known:
                values["merged_into_id"] = None
            rows.append(ContextEntry(**{k: v for k, v in values.items() if k in {f.attname for f in _fields()}}))
        # bulk_create stamps auto_now(_add) fields with the current time, on the instances too: keep the
        # snapshot's times aside and put them back.
        pks, created, updated = [r.pk for r in rows], [r.created_at for r in rows], [r.updated_at for r in rows]
        ContextEntry.objects.bulk_create(rows)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE episodic_contextentry e SET created_at = v.c, updated_at = v.u "
                "FROM unnest(%s::uuid[], %s::timestamptz[], %s::timestamptz[]) AS v(id, c, u) WHERE e.id = v.id",
                [pks, created, updated],
            )
        for name in _SNAPSHOT_CONTEXT_FIELDS:
            value = snapshot.context_state.get(name)
            setattr(context, name, parse_datetime(value) if name == "archived_at" and value else value)
        context.save(update_fields=[*_SNAPSHOT_CONTEXT_FIELDS, "updated_at"])
        access_log_record(
            context=context,
            agent=agent,
            action=Action.RESTORE,
            snapshot_id=str(snapshot.pk),
            entries=len(rows),
            saved_as=str(before.pk),
        )
    return Restored(context=context, before=before)
