"""Things found by name: wings and entities dedupe by slug and aliases, per owner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Model, Q
from django.utils.text import slugify

M = TypeVar("M", bound=Model)


def find_named(model: type[M], *, owner_id: int, name: str) -> M | None:
    """The owner's row of `model` called `name`, by slug or by alias (case-insensitive)."""
    slug = slugify(name)[:200] or "unnamed"
    return (
        model._default_manager.filter(owner_id=owner_id)
        .filter(Q(slug=slug) | Q(aliases__contains=[name.lower()]))
        .first()
    )


def ensure_named(
    model: type[M], *, owner_id: int, name: str, create: Callable[[], dict[str, Any]] | None = None, **fields: Any
) -> M:
    """The owner's row of `model` called `name` — by slug, or by alias (case-insensitive) — created
    when missing. A concurrent creation loses to the unique (owner, slug) constraint and reads the
    winner's row."""
    row = find_named(model, owner_id=owner_id, name=name)
    if row is not None:
        return row
    slug = slugify(name)[:200] or "unnamed"
    alias = name.lower()
    manager = model._default_manager
    try:
        with transaction.atomic():
            extra = create() if create is not None else {}
            return manager.create(owner_id=owner_id, name=name, slug=slug, aliases=[alias], **fields, **extra)
    except IntegrityError:
        return manager.get(owner_id=owner_id, slug=slug)
