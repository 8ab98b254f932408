"""Writes of the temporal knowledge graph: entities and relations with validity windows (the reads are
in palace/selectors.py).

Writes take an advisory lock per (owner, subject, predicate), so the windows of a single-valued
relation never overlap even when two writers race (an exclusion constraint would need btree_gist,
which the embedded PostgreSQL does not ship).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify

from memory_site.db import advisory_xact_lock
from memory_site.lib.errors import InvalidFieldError
from palace.models import Drawer, Entity, Relation, RelationCitation
from palace.naming import ensure_named


def single_valued(predicate: str) -> bool:
    return predicate in settings.KG_SINGLE_VALUED_PREDICATES


MESSAGE_BAD_PREDICATE = "A predicate needs a letter or a digit."


def predicate_slug(predicate: str) -> str:
    """ "Works at" -> works_at, "好き" stays itself; a predicate with no letter or digit ("!!!", an emoji)
    is refused: it would be stored empty, and every such fact would be one predicate."""
    slug = slugify(predicate, allow_unicode=True).replace("-", "_")[:100]
    if not slug:
        raise InvalidFieldError("predicate", MESSAGE_BAD_PREDICATE)
    return slug


def entity_ensure(*, owner_id: int, name: str, kind: str = Entity.Kind.THING) -> Entity:
    return ensure_named(Entity, owner_id=owner_id, name=name, kind=kind)


def relation_add(
    *,
    owner_id: int,
    subject: str,
    predicate: str,
    object: str,
    object_is_entity: bool = True,
    valid_from: datetime | None = None,
    replace: bool = False,
    confidence: float = 1.0,
    source_drawer: Drawer | None = None,
    subject_kind: str = Entity.Kind.THING,
    object_kind: str = Entity.Kind.THING,
) -> Relation:
    """Record subject —predicate→ object from `valid_from` (default now). With `replace` (or a
    single-valued predicate) the current row(s) for subject and predicate are closed at `valid_from`
    and a new one opened. Adding a relation that is already open only adds `source_drawer` to its citations."""
    predicate = predicate_slug(predicate)
    subject_entity = entity_ensure(owner_id=owner_id, name=subject, kind=subject_kind)
    object_entity = entity_ensure(owner_id=owner_id, name=object, kind=object_kind) if object_is_entity else None
    object_filter: dict[str, Any] = (
        {"object": object_entity} if object_entity else {"object__isnull": True, "object_value": object}
    )
    with transaction.atomic():
        advisory_xact_lock(f"kg:{owner_id}:{subject_entity.pk}:{predicate}")
        # "Now" is read under the lock, so writers' times follow the order they really happened in.
        valid_from = valid_from or timezone.now()
        current = Relation.objects.filter(subject=subject_entity, predicate=predicate, valid_to__isnull=True)
        same = current.filter(**object_filter).first()
        if same is not None:
            _cite(same, source_drawer)
            return same
        valid_to = None
        if replace or single_valued(predicate):
            later = (
                Relation.objects.filter(subject=subject_entity, predicate=predicate, valid_from__gt=valid_from)
                .order_by("valid_from")
                .first()
            )
            if later is not None:
                valid_to = later.valid_from  # a back-dated fact ends where the next one begins
            # Whatever row holds at valid_from ends there (open, or closed later than that).
            Relation.objects.filter(subject=subject_entity, predicate=predicate, valid_from__lte=valid_from).filter(
                Q(valid_to__isnull=True) | Q(valid_to__gt=valid_from)
            ).update(valid_to=valid_from)
        relation = Relation.objects.create(
            owner_id=owner_id,
            subject=subject_entity,
            predicate=predicate,
            object=object_entity,
            object_value="" if object_entity else object,
            valid_from=valid_from,
            valid_to=valid_to,
            confidence=confidence,
            source_drawer=source_drawer,
        )
        _cite(relation, source_drawer)
        return relation


def _cite(relation: Relation, drawer: Drawer | None) -> None:
    # Every drawer that shows the fact is a citation: forgetting one drawer then keeps a fact that
    # another still shows (palace/services/forget.py).
    if drawer is not None:
        RelationCitation.objects.get_or_create(relation=relation, drawer=drawer)


def relations_delete(*, relations: QuerySet[Relation]) -> int:
    """Delete relations, and reopen the windows they closed: a single-valued relation closed the row
    it replaced at its own `valid_from`, and without it that row holds until the next one begins (or
    stays open). Returns how many were deleted."""
    gone = list(relations.values_list("owner_id", "subject_id", "predicate", "valid_from"))
    with transaction.atomic():
        count, _ = relations.delete()
        for owner_id, subject_id, predicate, valid_from in sorted(gone, key=lambda row: row[3], reverse=True):
            if not single_valued(predicate):
                continue
            advisory_xact_lock(f"kg:{owner_id}:{subject_id}:{predicate}")
            rows = Relation.objects.filter(subject_id=subject_id, predicate=predicate)
            following = rows.filter(valid_from__gt=valid_from).order_by("valid_from").first()
            rows.filter(valid_to=valid_from).update(valid_to=following.valid_from if following else None)
    return count
