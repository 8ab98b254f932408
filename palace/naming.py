"""Things found by name: wings and entities dedupe by slug and aliases, per owner.

A slug keeps what tells names apart: Latin letters lose their accents ("Zürich" and "Zurich" are one
place, "Łódź" is "lodz"), other scripts are kept as written ("東京" and "大阪" are two cities, where an
ASCII-only slug made both "unnamed" and one entity), and a name with no letter or digit at all (an
emoji) is slugged by a digest of itself."""

from __future__ import annotations

import contextlib
import hashlib
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Model, Q
from django.utils.text import slugify

M = TypeVar("M", bound=Model)

# Rows found or created inside `remembered()`: mining names the same people over and over.
_memo: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("naming_memo", default=None)


@contextlib.contextmanager
def remembered() -> Iterator[None]:
    """Remember the rows `ensure_named` returns until the block ends. Use it inside the transaction
    that may create them, so a rollback never leaves a remembered row that does not exist."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


NAME_LIMIT = 200


def find_named(model: type[M], *, owner_id: int, name: str) -> M | None:
    """The owner's row of `model` called `name`, by slug or by alias (case-insensitive)."""
    slug = slug_of(name)
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
    name = name[:NAME_LIMIT].strip()  # the name column's width: a caller's longer name is cut, never a crash
    memo = _memo.get()
    key = (model, owner_id, name.lower())
    if memo is not None and key in memo:
        return memo[key]  # type: ignore[no-any-return]
    row = _ensure_named(model, owner_id=owner_id, name=name, create=create, **fields)
    if memo is not None:
        memo[key] = row
    return row


def _ensure_named(
    model: type[M], *, owner_id: int, name: str, create: Callable[[], dict[str, Any]] | None, **fields: Any
) -> M:
    row = find_named(model, owner_id=owner_id, name=name)
    if row is not None:
        return row
    slug = slug_of(name)
    alias = name.lower()
    manager = model._default_manager
    try:
        with transaction.atomic():
            extra = create() if create is not None else {}
            return manager.create(owner_id=owner_id, name=name, slug=slug, aliases=[alias], **fields, **extra)
    except IntegrityError:
        return manager.get(owner_id=owner_id, slug=slug)


# Latin letters NFKD does not take apart.
LATIN_LETTERS = str.maketrans(
    {
        "ł": "l",
        "Ł": "L",
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "þ": "th",
        "Þ": "TH",
        "ð": "d",
        "Ð": "D",
        "\u0131": "i",  # dotless i
    }
)


def slug_of(name: str, *, limit: int = 200) -> str:
    """A wing's or entity's slug, unique per owner (see the module's docstring)."""
    latin = "".join(
        c for c in unicodedata.normalize("NFKD", name.translate(LATIN_LETTERS)) if not unicodedata.combining(c)
    )
    slug = slugify(latin, allow_unicode=True)[:limit]
    if slug:
        return slug
    return "n-" + hashlib.sha1(name.strip().lower().encode()).hexdigest()[:16]


def ensure_many(model: type[M], *, owner_id: int, kinds: Mapping[str, str]) -> dict[str, M]:
    """`ensure_named` for many names at once (name -> kind): one query finds the existing rows by slug
    or alias, one insert adds the missing ones (a concurrent insert of the same slug is skipped and
    read back). Fills the `remembered()` memo."""
    if not kinds:
        return {}
    slug_for = {name: slug_of(name) for name in kinds}
    lowered = sorted({name.lower() for name in kinds})
    manager = model._default_manager
    existing = list(
        manager.filter(owner_id=owner_id).filter(Q(slug__in=set(slug_for.values())) | Q(aliases__has_any_keys=lowered))
    )

    def match(name: str, rows: list[M]) -> M | None:
        by_slug = next((r for r in rows if getattr(r, "slug") == slug_for[name]), None)  # noqa: B009
        return by_slug or next((r for r in rows if name.lower() in getattr(r, "aliases")), None)  # noqa: B009

    found = {name: row for name in kinds if (row := match(name, existing)) is not None}
    missing: dict[str, str] = {}
    for name in kinds:
        if name not in found and slug_for[name] not in {slug_for[m] for m in missing}:
            missing[name] = kinds[name]
    if missing:
        manager.bulk_create(
            [
                model(owner_id=owner_id, name=n, slug=slug_for[n], aliases=[n.lower()], kind=k)
                for n, k in missing.items()
            ],
            ignore_conflicts=True,
        )
        created = list(manager.filter(owner_id=owner_id, slug__in=[slug_for[n] for n in kinds if n not in found]))
        for name in kinds:
            if name not in found and (row := match(name, created)) is not None:
                found[name] = row
    memo = _memo.get()
    if memo is not None:
        for name, row in found.items():
            memo[(model, owner_id, name.lower())] = row
    return found
