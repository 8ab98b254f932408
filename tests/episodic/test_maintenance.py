"""The maintenance jobs on crafted data: each threshold on both sides, idempotence, concurrent runs,
dry runs, the beat schedule, and every job once through a real Celery worker."""

from __future__ import annotations

import math
import threading
import time
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from episodic import tasks
from episodic.models import (
    ContextEntry,
    Episode,
    MaintenanceMark,
    MemoryPool,
    PersistentContext,
    ShortTermMemory,
    TypedMemory,
    WorkflowPool,
)
from episodic.selectors.contexts import entries_readable, staleness
from episodic.services import maintenance, pools, short_term
from episodic.services.context_entries import entry_create
from episodic.services.contexts import context_create
from episodic.services.episodes import episode_store
from episodic.services.maintenance import dedup
from episodic.services.typed_memories import typed_memory_create
from memory_site.db import advisory_lock_key
from ops.models import JobRun
from palace.models import ActivityEvent
from tests.conftest import Personas
from tests.factories import Persona

pytestmark = pytest.mark.django_db(transaction=True)
DIM = 384


def unit(i: int) -> list[float]:
    vector = [0.0] * DIM
    vector[i] = 1.0
    return vector


def at_similarity(similarity: float, base: int = 0, other: int = 1) -> list[float]:
    """A unit vector whose cosine similarity to unit(base) is exactly `similarity`."""
    vector = [0.0] * DIM
    vector[base], vector[other] = similarity, math.sqrt(1 - similarity**2)
    return vector


def entry(context: PersistentContext, content: str, vector: list[float] | None, **fields: Any) -> ContextEntry:
    made = entry_create(agent=None, context=context, content=content, **fields)
    ContextEntry.objects.filter(pk=made.pk).update(embedding=vector)
    made.refresh_from_db()
    return made


def read_times(persona: Persona, session: str, key: str, n: int) -> None:
    for _ in range(n):
        assert short_term.short_term_read(agent=persona.agent, session_id=session, key=key) is not None


# --- consolidation ------------------------------------------------------------------------------------


def test_consolidation_promotes_at_three_reads_and_not_at_two(personas: Personas) -> None:
    owner = personas.owner
    for key, value in [("often", {"goal": "ship the parser"}), ("twice", "look at the lexer")]:
        short_term.short_term_write(
            agent=owner.agent, session_id="s1", key=key, value=value, memory_type=ShortTermMemory.Type.TASK_CONTEXT
        )
    read_times(owner, "s1", "often", 3)
    read_times(owner, "s1", "twice", 2)

    report = maintenance.run("consolidation")
    assert report.counts == {"promoted": 1, "deleted": 0}
    promoted = ContextEntry.objects.get()
    assert promoted.content == 'often: {"goal": "ship the parser"}'
    assert promoted.embedding is not None and len(promoted.embedding) == DIM
    assert promoted.context.name == f"agent-memory:{owner.agent.pk}" and promoted.context.agent == owner.agent
    assert promoted.entry_type == ContextEntry.EntryType.PLAN and promoted.key == "often"
    assert promoted.metadata["reads"] == 3 and promoted.importance == pytest.approx(0.7)
    assert ShortTermMemory.objects.get(key="often").promoted_to == promoted
    assert ShortTermMemory.objects.get(key="twice").promoted_to is None
    logged = ActivityEvent.objects.get(owner=owner.user, kind="memory_consolidated")  # the person's activity log
    assert logged.agent_id == owner.agent.pk and logged.data["key"] == "often"

    # Idempotent: the second run finds nothing.
    assert maintenance.run("consolidation").counts == {"promoted": 0, "deleted": 0}
    assert ContextEntry.objects.count() == 1


def test_consolidation_forgets_expired_little_read_entries_and_keeps_waiting_ones(personas: Personas) -> None:
    owner = personas.owner
    for key in ("forgotten", "read-often", "fresh"):
        short_term.short_term_write(agent=owner.agent, session_id="s", key=key, value=key)
    read_times(owner, "s", "read-often", 4)
    ShortTermMemory.objects.exclude(key="fresh").update(expires_at=timezone.now() - timedelta(minutes=1))

    # expired_cleanup leaves an expired entry that still waits for promotion.
    assert maintenance.run("expired_cleanup").counts["short_term"] == 1
    assert set(ShortTermMemory.objects.values_list("key", flat=True)) == {"read-often", "fresh"}

    assert maintenance.run("consolidation").counts == {"promoted": 1, "deleted": 0}
    # Once promoted, the expired entry goes.
    assert maintenance.run("expired_cleanup").counts["short_term"] == 1
    assert list(ShortTermMemory.objects.values_list("key", flat=True)) == ["fresh"]
    assert ContextEntry.objects.get().key == "read-often"


def test_consolidation_deletes_expired_low_access_entries_itself(personas: Personas) -> None:
    owner = personas.owner
    short_term.short_term_write(agent=owner.agent, session_id="s", key="once", value=1)
    read_times(owner, "s", "once", 1)
    ShortTermMemory.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert maintenance.run("consolidation").counts == {"promoted": 0, "deleted": 1}
    assert not ShortTermMemory.objects.exists()


# --- dedup --------------------------------------------------------------------------------------------


def test_dedup_merges_at_093_and_not_at_091(personas: Personas) -> None:
    owner = personas.owner
    context = context_create(agent=owner.agent, name="kb")
    base = entry(context, "The deploy runs at noon.", unit(0), importance=0.4, metadata={"source": "chat"})
    twin = entry(context, "Deploys run at 12:00.", at_similarity(0.93), importance=0.8, metadata={"team": "ops"})
    cousin = entry(context, "The deploy window is midday.", at_similarity(0.91, other=2), importance=0.9)

    report = maintenance.run("dedup")
    assert report.counts["context_entries"] == 1
    base.refresh_from_db()
    twin.refresh_from_db()
    cousin.refresh_from_db()
    # The more important one survives, keeps the higher importance and the union of the metadata.
    assert twin.deprecated_at is None and twin.importance == 0.8
    assert twin.metadata == {"team": "ops", "source": "chat", "merged_from": [str(base.pk)]}
    # The merged one is kept for the audit trail, out of every read.
    assert base.deprecated_at is not None and base.merged_into == twin
    assert base.metadata["merged_similarity"] == pytest.approx(0.93, abs=1e-3)
    assert cousin.deprecated_at is None and cousin.merged_into is None
    assert base.pk not in set(entries_readable(agent=owner.agent).values_list("pk", flat=True))

    assert maintenance.run("dedup").counts["context_entries"] == 0  # idempotent


def test_dedup_never_merges_across_contexts_or_owners(personas: Personas) -> None:
    mine = context_create(agent=personas.owner.agent, name="a")
    other = context_create(agent=personas.owner.agent, name="b")
    theirs = context_create(agent=personas.outsider.agent, name="a")
    for context in (mine, other, theirs):
        entry(context, "Same words everywhere.", unit(5))
    assert maintenance.run("dedup").counts["context_entries"] == 0
    assert ContextEntry.objects.filter(deprecated_at__isnull=False).count() == 0


def test_dedup_merges_typed_memories_of_one_type_and_scope(personas: Personas) -> None:
    agent = personas.owner.agent
    kept = typed_memory_create(owner=agent.owner, agent=agent, memory_type="semantic", content="Ada likes tea.")
    dup = typed_memory_create(owner=agent.owner, agent=agent, memory_type="semantic", content="Ada enjoys tea.")
    other_type = typed_memory_create(owner=agent.owner, agent=agent, memory_type="procedural", content="Tea: boil.")
    TypedMemory.objects.filter(pk=kept.pk).update(embedding=unit(3), access_count=5)
    TypedMemory.objects.filter(pk=dup.pk).update(embedding=at_similarity(0.95, base=3, other=4))
    TypedMemory.objects.filter(pk=other_type.pk).update(embedding=unit(3))

    assert maintenance.run("dedup").counts["typed_memories"] == 1
    dup.refresh_from_db()
    assert dup.merged_into_id == kept.pk and dup.deprecated_at is not None
    assert TypedMemory.objects.get(pk=other_type.pk).deprecated_at is None
    from episodic.selectors.typed_memories import typed_visible

    assert set(typed_visible(agent=agent).values_list("pk", flat=True)) == {kept.pk, other_type.pk}


# --- context rot --------------------------------------------------------------------------------------


def test_staleness_follows_the_documented_formula(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    made = entry(context, "Old note.", unit(0), importance=0.5, confidence=0.8)
    now = timezone.now()
    old = now - timedelta(days=200)
    ContextEntry.objects.filter(pk=made.pk).update(created_at=old, updated_at=old, access_count=1)
    made.refresh_from_db()
    age = 1 - 0.5 ** (200 / 30)
    expected = age * (0.6 + 0.2 * (1 / 2) + 0.2 * (1 - 0.4))
    assert staleness(made, now) == pytest.approx(expected, rel=1e-6)


def test_context_rot_archives_at_09_staleness_and_not_below(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    now = timezone.now()
    stale = entry(context, "Forgotten detail.", unit(0), importance=0.1, confidence=1.0)
    kept = entry(context, "Read often.", unit(1), importance=0.1, confidence=1.0)
    fresh = entry(context, "New detail.", unit(2), importance=0.1)
    old = now - timedelta(days=200)
    ContextEntry.objects.filter(pk__in=[stale.pk, kept.pk]).update(created_at=old, updated_at=old)
    ContextEntry.objects.filter(pk=kept.pk).update(access_count=4, last_accessed_at=old)
    for row in ContextEntry.objects.all():
        row_staleness = staleness(row, now)
        assert (row_staleness >= 0.9) == (row.pk == stale.pk), (row.content, row_staleness)

    assert maintenance.run("context_rot", now=now).counts == {"archived": 1}
    assert ContextEntry.objects.get(pk=stale.pk).archived_at is not None
    assert ContextEntry.objects.filter(archived_at__isnull=True).count() == 2
    assert fresh.pk in set(entries_readable(agent=personas.owner.agent).values_list("pk", flat=True))
    assert maintenance.run("context_rot", now=now).counts == {"archived": 0}


# --- expired cleanup ----------------------------------------------------------------------------------


def test_expired_cleanup_deletes_everything_past_expiry_and_nothing_else(personas: Personas) -> None:
    owner = personas.owner
    past = timezone.now() - timedelta(seconds=1)
    episode_store(owner=owner.user, agent=owner.agent, conversation_id="c", summary="Gone.")
    kept_episode = episode_store(owner=owner.user, agent=owner.agent, conversation_id="k", summary="Kept.")
    Episode.objects.exclude(pk=kept_episode.pk).update(expires_at=past)
    short_term.short_term_write(agent=owner.agent, session_id="s", key="gone", value=1)
    short_term.short_term_write(agent=owner.agent, session_id="s", key="kept", value=1)
    ShortTermMemory.objects.filter(key="gone").update(expires_at=past)
    pools.pool_create(agent=owner.agent, pool_id="gone", expires_at=past)
    pools.pool_create(agent=owner.agent, pool_id="kept")
    pools.workflow_pool_ensure(owner_id=owner.user.pk, run_id="r1", pool_type="blackboard", expires_at=past)
    pools.workflow_pool_ensure(owner_id=owner.user.pk, run_id="r2", pool_type="blackboard")

    dry = maintenance.run("expired_cleanup", dry_run=True)
    assert dry.counts == {"episodes": 1, "short_term": 1, "pools": 1, "workflow_pools": 1}
    assert any("delete pool gone" in action for action in dry.actions)
    assert Episode.objects.count() == 2  # a dry run changes nothing

    assert maintenance.run("expired_cleanup").counts == {
        "episodes": 1,
        "short_term": 1,
        "pools": 1,
        "workflow_pools": 1,
    }
    assert list(Episode.objects.values_list("pk", flat=True)) == [kept_episode.pk]
    assert list(ShortTermMemory.objects.values_list("key", flat=True)) == ["kept"]
    assert list(MemoryPool.objects.values_list("pool_id", flat=True)) == ["kept"]
    assert list(WorkflowPool.objects.values_list("workflow_run_id", flat=True)) == ["r2"]
    assert set(maintenance.run("expired_cleanup").counts.values()) == {0}


# --- singleton, dry run, schedule ---------------------------------------------------------------------


def test_a_run_while_another_holds_the_job_is_skipped(personas: Personas) -> None:
    short_term.short_term_write(agent=personas.owner.agent, session_id="s", key="k", value=1)
    read_times(personas.owner, "s", "k", 3)
    key = advisory_lock_key(maintenance.lock_name("consolidation"))
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [key])
        assert maintenance.run("consolidation").counts == {"skipped": 1}
        assert not ContextEntry.objects.exists()
        with other.cursor() as cursor:
            # Released here: a closed session's locks go only once its backend has exited, a moment
            # after close() returns, and the next run could still find the lock held.
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
    finally:
        other.close()
    assert maintenance.run("consolidation").counts["promoted"] == 1


def test_concurrent_dedup_runs_merge_each_pair_once(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    for i in range(6):
        entry(context, f"Fact {i}.", unit(10 + i))
        entry(context, f"Fact {i} again.", at_similarity(0.97, base=10 + i, other=100 + i))
    results: list[dict[str, int]] = []

    def work() -> None:
        try:
            results.append(maintenance.run("dedup").counts)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.get("context_entries", 0) for r in results) == 6
    assert ContextEntry.objects.filter(deprecated_at__isnull=False).count() == 6
    assert ContextEntry.objects.filter(deprecated_at__isnull=True).count() == 6


def test_concurrent_unlocked_merges_of_one_pair_land_once(personas: Personas) -> None:
    """Without the job lock (two workers racing past it), the row locks still merge a pair once."""
    context = context_create(agent=personas.owner.agent, name="kb")
    a = entry(context, "One.", unit(0))
    b = entry(context, "One again.", at_similarity(0.99))
    kind = dedup.kinds()[0]
    outcomes: list[list[Any]] = []

    def work() -> None:
        try:
            outcomes.append(dedup.merge(kind, [(a.pk, b.pk, 0.99)], timezone.now()))
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes, key=len) == [[], [], [], [b.pk]]
    assert ContextEntry.objects.get(pk=a.pk).metadata["merged_from"] == [str(b.pk)]


def test_run_maintenance_dry_run_prints_and_changes_nothing(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    entry(context, "Alpha.", unit(0))
    entry(context, "Alpha!", at_similarity(0.99))
    out = StringIO()
    call_command("run_maintenance", "dedup", "--dry-run", stdout=out)
    assert "would merge context_entries" in out.getvalue()
    assert "dedup: would change: context_entries 1, typed_memories 0" in out.getvalue()
    assert not ContextEntry.objects.filter(deprecated_at__isnull=False).exists()
    assert not JobRun.objects.exists()

    call_command("run_maintenance", "dedup", stdout=StringIO())
    assert ContextEntry.objects.filter(deprecated_at__isnull=False).count() == 1
    run = JobRun.objects.get()
    assert run.name == "episodic.dedup" and run.status == JobRun.Status.SUCCEEDED
    assert run.counts["context_entries"] == 1


@pytest.mark.django_db(transaction=False)  # before any transactional test flushes the migrations' rows
def test_beat_has_an_entry_for_every_job() -> None:
    entries = {task.name: task for task in PeriodicTask.objects.filter(name__in=maintenance.JOBS)}
    assert set(entries) == set(maintenance.JOBS)
    for job in ("consolidation", "dedup", "context_rot"):
        crontab = entries[job].crontab
        assert entries[job].task == f"episodic.{job}" and entries[job].enabled
        assert crontab is not None and (crontab.hour, crontab.minute) == ("4", "0")
    assert entries["expired_cleanup"].interval is not None
    assert (entries["expired_cleanup"].interval.every, entries["expired_cleanup"].interval.period) == (1, "minutes")
    assert entries["embedding_backfill"].interval is not None and entries["embedding_backfill"].interval.every == 5


# --- through a real worker ----------------------------------------------------------------------------


def _recorded(task_id: str) -> JobRun:
    deadline = time.monotonic() + 10
    while (run := JobRun.objects.filter(task_id=task_id, finished_at__isnull=False).first()) is None:
        assert time.monotonic() < deadline, "the run was not recorded"
        time.sleep(0.05)
    return run


def test_every_job_runs_through_a_real_worker(personas: Personas, celery_worker: str) -> None:
    owner = personas.owner
    short_term.short_term_write(agent=owner.agent, session_id="s", key="k", value="often read")
    read_times(owner, "s", "k", 3)
    context = context_create(agent=owner.agent, name="kb")
    entry(context, "Twin A.", unit(0))
    entry(context, "Twin B.", at_similarity(0.99))
    old_entry = entry(context, "Ancient.", unit(7), importance=0.0)
    long_ago = timezone.now() - timedelta(days=400)
    ContextEntry.objects.filter(pk=old_entry.pk).update(created_at=long_ago, updated_at=long_ago)
    pools.pool_create(agent=owner.agent, pool_id="old", expires_at=timezone.now() - timedelta(seconds=1))
    missing = entry(context, "Not embedded yet.", None)

    expected: dict[Any, dict[str, int]] = {
        tasks.consolidation: {"promoted": 1},
        tasks.dedup: {"context_entries": 1},
        tasks.context_rot: {"archived": 1},
        tasks.expired_cleanup: {"pools": 1},
        tasks.embedding_backfill: {"context_entries": 1},
    }
    for task, counts in expected.items():
        result = task.delay()
        got = result.get(timeout=120)
        assert {name: got.get(name) for name in counts} == counts, (task.name, got)
        run = _recorded(result.id)
        assert run.status == JobRun.Status.SUCCEEDED and run.hostname == celery_worker
        assert run.counts == got
    assert ContextEntry.objects.get(pk=missing.pk).embedding is not None
    assert ContextEntry.objects.filter(source_ref__startswith="short_term:").count() == 1


# --- dedup, incremental -------------------------------------------------------------------------------


def _aged(*entries: ContextEntry, days: int = 2) -> None:
    """As if written `days` ago: before the mark the tests set."""
    ContextEntry.objects.filter(pk__in=[e.pk for e in entries]).update(updated_at=timezone.now() - timedelta(days=days))


def _mark(days_ago: int) -> None:
    MaintenanceMark.objects.update_or_create(
        job="dedup", defaults={"probed_until": timezone.now() - timedelta(days=days_ago)}
    )


def test_incremental_dedup_probes_only_new_rows_but_against_every_old_one(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    old = entry(context, "The deploy runs at noon.", unit(0))
    old_pair = [
        entry(context, "Backups at two.", unit(3)),
        entry(context, "Backups run at 2am.", at_similarity(0.95, 3, 4)),
    ]
    filler = [entry(context, f"Unrelated fact {i}.", unit(10 + i)) for i in range(5)]
    _aged(old, *old_pair, *filler)
    _mark(days_ago=1)
    new = entry(context, "Deploys run at 12:00.", at_similarity(0.95))

    report = maintenance.run("dedup")
    assert report.looked_at["probed"] == 1  # only the new entry probes ...
    assert report.counts["context_entries"] == 1  # ... and finds its old twin
    assert {old.pk, new.pk} & set(ContextEntry.objects.filter(deprecated_at__isnull=False).values_list("pk", flat=True))
    # Two old entries were compared when they were new (the mark says so): not again.
    assert ContextEntry.objects.filter(pk__in=[e.pk for e in old_pair], deprecated_at__isnull=True).count() == 2
    assert MaintenanceMark.objects.get(job="dedup").probed_until > timezone.now() - timedelta(minutes=1)

    # --full probes them all and merges the old pair too.
    out = StringIO()
    call_command("run_maintenance", "dedup", "--full", stdout=out)
    assert "context_entries 1" in out.getvalue()
    assert ContextEntry.objects.filter(pk__in=[e.pk for e in old_pair], deprecated_at__isnull=True).count() == 1


def test_an_entry_changed_since_the_mark_probes_again(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    first, second = entry(context, "The office is in Lyon.", unit(0)), entry(context, "We moved to Lyon.", unit(7))
    _aged(first, second)
    _mark(days_ago=1)
    quiet = maintenance.run("dedup")
    assert quiet.counts == {"context_entries": 0, "typed_memories": 0} and quiet.looked_at == {"probed": 0}
    second.refresh_from_db()
    second.embedding = at_similarity(0.96)  # re-embedded, as an edit does: saved now
    second.save()
    report = maintenance.run("dedup")
    assert report.looked_at["probed"] == 1 and report.counts["context_entries"] == 1


def test_the_first_run_and_a_dry_run_probe_all_and_a_dry_run_leaves_the_mark(personas: Personas) -> None:
    context = context_create(agent=personas.owner.agent, name="kb")
    entries = [entry(context, f"Fact {i}.", unit(i)) for i in range(4)]
    _aged(*entries)
    assert maintenance.run("dedup", dry_run=True).looked_at["probed"] == 4
    assert not MaintenanceMark.objects.exists()
    assert maintenance.run("dedup").looked_at["probed"] == 4  # no mark yet: everything
    assert maintenance.run("dedup").looked_at["probed"] == 0


def test_full_is_only_for_dedup() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--full is for dedup"):
        call_command("run_maintenance", "consolidation", "--full")
