"""What forgetting drawers takes with it beyond their rows (palace/services/forget.py calls these inside
its transaction): knowledge-graph facts and their citations, entities no fact names any more and
entities no remaining drawer is tagged with, the
preference signal's mentions and counts, and working-memory snapshot fields holding a forgotten text.
Each records what it removed in the caller's `Removal` (ids only)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Exists, OuterRef, Q

from ledger.models import WorkingMemorySnapshot
from palace import naming, preferences
from palace.models import Drawer, Entity, PreferenceMention, PreferenceTopic, Relation, RelationCitation
from palace.services import graph


class Removal:
    """The ids removed so far, per kind, and the few counts that are not rows (embeddings)."""

    def __init__(self) -> None:
        self.ids: dict[str, set[str]] = defaultdict(set)
        self.extra: Counter[str] = Counter()

    def add(self, kind: str, ids: Iterable[Any]) -> None:
        self.ids[kind].update(str(i) for i in ids)

    def counts(self) -> dict[str, int]:
        counts = {kind: len(ids) for kind, ids in self.ids.items() if ids}
        counts.update({kind: n for kind, n in self.extra.items() if n})
        return dict(sorted(counts.items()))

    def sorted_ids(self) -> dict[str, list[str]]:
        return {kind: sorted(ids) for kind, ids in sorted(self.ids.items()) if ids}


def forget_relations(owner: User, drawer_ids: list[int], removal: Removal) -> None:
    """Facts read only from these drawers go (their windows reopened as `relations_delete` does); a fact
    another drawer also shows keeps that citation and loses these."""
    cited = RelationCitation.objects.filter(drawer_id__in=drawer_ids)
    relation_ids = set(cited.values_list("relation_id", flat=True)) | set(
        Relation.objects.filter(owner=owner, source_drawer_id__in=drawer_ids).values_list("pk", flat=True)
    )
    kept = set(
        RelationCitation.objects.filter(relation_id__in=relation_ids)
        .exclude(drawer_id__in=drawer_ids)
        .values_list("relation_id", flat=True)
    )
    removal.add("relation_citations", cited.values_list("pk", flat=True))
    cited.delete()
    for relation in Relation.objects.filter(pk__in=kept, source_drawer_id__in=drawer_ids):
        relation.source_drawer_id = relation.citations.order_by("pk").values_list("drawer_id", flat=True).first()
        relation.save(update_fields=["source_drawer"])
    doomed = Relation.objects.filter(pk__in=relation_ids - kept)
    remove_relations(owner, doomed, removal, forgotten_drawers=drawer_ids)


def remove_relations(owner: User, relations: Any, removal: Removal, forgotten_drawers: Iterable[int] = ()) -> None:
    entity_ids = set(relations.values_list("subject_id", flat=True)) | set(
        relations.exclude(object__isnull=True).values_list("object_id", flat=True)
    )
    removal.add("relations", relations.values_list("pk", flat=True))
    removal.add(
        "relation_citations", RelationCitation.objects.filter(relation__in=relations).values_list("pk", flat=True)
    )
    graph.relations_delete(relations=relations)
    # An entity no fact names any more, and no drawer that stays is tagged with, was only known from what was
    # forgotten: its name goes too ("Nike", named beside a forgotten "Maya" in a turn that stays, stays).
    orphans = list(
        Entity.objects.filter(owner=owner, pk__in=entity_ids, relations_out__isnull=True, relations_in__isnull=True)
    )
    doomed = _untagged(owner, orphans, excluding=list(forgotten_drawers))
    removal.add("entities", doomed)
    Entity.objects.filter(pk__in=doomed).delete()


ENTITY_TAGS = ("p", "l", "i", "e")  # a drawer's tags that name entities (t: topics)


def tagged_names(drawers: Iterable[Drawer]) -> set[str]:
    return {name for d in drawers for letter in ENTITY_TAGS for name in (d.tags or {}).get(letter, [])}


def forget_unmentioned_entities(owner: User, names: set[str], removal: Removal) -> None:
    """Mining keeps every name it finds as an entity, facts or not. Once the drawers tagged with a name are
    forgotten, an entity of that name that no fact names and no remaining drawer is tagged with (by its name
    or an alias, in any case) was only known from them: it goes too (a conversation forgotten leaves no
    one's name behind). One scan of the owner's remaining tags, whatever the number of names."""
    if not names:
        return
    named_in_facts = Relation.objects.filter(Q(subject=OuterRef("pk")) | Q(object=OuterRef("pk")))
    lowered = sorted({n.lower() for n in names})
    candidates = list(
        Entity.objects.filter(owner=owner)
        .filter(Q(slug__in={naming.slug_of(n) for n in names}) | Q(aliases__has_any_keys=lowered))
        .filter(~Exists(named_in_facts))
    )
    doomed = _untagged(owner, candidates)
    removal.add("entities", doomed)
    Entity.objects.filter(pk__in=doomed).delete()


def _untagged(owner: User, entities: list[Entity], excluding: list[int] | None = None) -> list[int]:
    """The entities no remaining drawer (but those `excluding`, being forgotten) is tagged with, by name or
    alias, in any case."""
    if not entities:
        return []
    spellings = {e.pk: {e.name.lower(), *(a.lower() for a in e.aliases or [])} for e in entities}
    still_tagged = _tagged_anywhere(owner, set().union(*spellings.values()), excluding)
    return [pk for pk, spelt in spellings.items() if not spelt & still_tagged]


def _tagged_anywhere(owner: User, spellings: set[str], excluding: list[int] | None = None) -> set[str]:
    """Which of these lower-cased names a remaining drawer of the owner's (not one of `excluding`, being
    forgotten) is tagged with."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT DISTINCT lower(name.value)
            FROM {Drawer._meta.db_table} AS drawer,
                 jsonb_each(drawer.tags) AS tag(letter, names),
                 jsonb_array_elements_text(
                     CASE WHEN jsonb_typeof(tag.names) = 'array' THEN tag.names ELSE '[]'::jsonb END
                 ) AS name(value)
            WHERE drawer.owner_id = %s AND tag.letter = ANY(%s) AND lower(name.value) = ANY(%s)
              AND NOT drawer.id = ANY(%s)
            """,
            [owner.pk, list(ENTITY_TAGS), sorted(spellings), excluding or []],
        )
        return {row[0] for row in cursor.fetchall()}


def remove_entities(owner: User, entities: list[Entity], removal: Removal) -> None:
    ids = [e.pk for e in entities]
    remove_relations(owner, Relation.objects.filter(Q(subject_id__in=ids) | Q(object_id__in=ids)), removal)
    removal.add("entities", ids)
    Entity.objects.filter(pk__in=ids).delete()


def forget_preferences(owner: User, drawers: list[Drawer], room_ids: set[int], removal: Removal) -> None:
    """Undo what these drawers added to the preference signal: their stated preferences, and the rooms'
    mentions of terms no remaining user turn of the room has; a topic no room mentions goes."""
    stated: Counter[str] = Counter()
    for drawer in drawers:
        if drawer.role == "user" and drawer.stated_preference:
            stated.update(preferences.terms_of(drawer.content, drawer.tags))
    gone = {d.pk for d in drawers}
    topics = PreferenceTopic.objects.filter(owner=owner)
    for term, n in stated.items():
        for topic in topics.filter(term=term):
            topic.stated = max(0, topic.stated - n)
            topic.save(update_fields=["stated"])
    mentions = PreferenceMention.objects.filter(room_id__in=room_ids, topic__owner=owner).select_related("topic")
    left: dict[int, set[str]] = defaultdict(set)
    for room_id, content, tags in (
        Drawer.objects.filter(room_id__in=room_ids, role="user")
        .exclude(pk__in=gone)
        .values_list("room_id", "content", "tags")
    ):
        left[room_id] |= preferences.terms_of(content, tags)
    stale = [m.pk for m in mentions if m.topic.term not in left[m.room_id]]
    touched = set(mentions.values_list("topic_id", flat=True))
    removal.add("preference_mentions", stale)
    PreferenceMention.objects.filter(pk__in=stale).delete()
    _recount_topics(owner, touched, removal)


def _recount_topics(owner: User, topic_ids: set[int], removal: Removal) -> None:
    for topic in PreferenceTopic.objects.filter(owner=owner, pk__in=topic_ids):
        topic.rooms = topic.mentions.count()
        topic.save(update_fields=["rooms"])
    unmentioned = PreferenceTopic.objects.filter(owner=owner, pk__in=topic_ids, rooms=0)
    removal.add("preference_topics", unmentioned.values_list("pk", flat=True))
    unmentioned.delete()


def forget_in_snapshots(owner: User, texts: list[str], removal: Removal) -> None:
    """Working-memory snapshots are free-form: a field whose value holds a forgotten text goes."""
    needles = [t for t in (text.strip() for text in texts) if t]
    for snapshot in WorkingMemorySnapshot.objects.filter(owner=owner):
        keep = {k: v for k, v in snapshot.fields.items() if not any(n in str(v) for n in needles)}
        if len(keep) == len(snapshot.fields):
            continue
        removal.extra["working_memory_fields"] += len(snapshot.fields) - len(keep)
        if keep:
            snapshot.fields = keep
            snapshot.size_bytes = sum(len(k.encode()) + len(str(v).encode()) for k, v in keep.items())
            snapshot.save(update_fields=["fields", "size_bytes"])
        else:
            removal.add("working_memory_snapshots", [snapshot.pk])
            snapshot.delete()
