"""Exclusion rules: text that must never become memory. Creating and deleting rules, previewing the
drawers a rule matches, and purging them. Mining applies the rules (palace/exclusions.py).

Activity events name a rule by id and kind only: the pattern itself is what the person does not want
kept, so it stays out of the log.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from accounts import selectors as account_selectors
from accounts.models import ExclusionRule
from memory_site.db import advisory_xact_lock
from memory_site.lib.errors import ConflictError, InvalidFieldError, NotFoundError
from palace import exclusions
from palace.exclusions import exclusion_matcher
from palace.models import ActivityEvent, Drawer
from palace.services.forget import forget

__all__ = [
    "exclusion_matcher",
    "exclusion_preview",
    "exclusion_purge",
    "exclusion_rule_create",
    "exclusion_rule_delete",
]

MAX_RULES = 100
PREVIEW_SCAN_CHUNK = 500

MESSAGE_RULE_NOT_FOUND = "Exclusion rule not found."
MESSAGE_RULE_EXISTS = "This rule exists already."
MESSAGE_TOO_MANY_RULES = f"At most {MAX_RULES} exclusion rules; delete one first."
MESSAGE_KIND = "Must be word, phrase or regex."


class RuleMissing(NotFoundError):
    message = MESSAGE_RULE_NOT_FOUND


class RuleExists(ConflictError):
    message = MESSAGE_RULE_EXISTS


class TooManyRules(ConflictError):
    message = MESSAGE_TOO_MANY_RULES


def _owned_rule(owner: User, rule_id: Any) -> ExclusionRule:
    rule = account_selectors.exclusion_rule_get(owner=owner, rule_id=rule_id)
    if rule is None:
        raise RuleMissing(MESSAGE_RULE_NOT_FOUND)
    return rule


def exclusion_rule_create(*, owner: User, kind: str, pattern: str) -> ExclusionRule:
    if kind not in ExclusionRule.Kind.values:
        raise InvalidFieldError("kind", MESSAGE_KIND)
    try:
        pattern = exclusions.validate(kind, pattern)
    except exclusions.PatternError as exc:
        raise InvalidFieldError("pattern", str(exc)) from None
    try:
        with transaction.atomic():
            # Serialises creates per owner, so two at once cannot both pass the count at MAX_RULES - 1.
            advisory_xact_lock(f"exclusions:{owner.pk}")
            # The unique constraint catches an exact repeat; a word or phrase in another case only this
            # (under the lock, so "Derek" and "derek" posted at once cannot both pass).
            if exclusions.exclusion_rule_same(owner=owner, kind=kind, pattern=pattern) is not None:
                raise RuleExists(MESSAGE_RULE_EXISTS)
            if ExclusionRule.objects.filter(owner=owner).count() >= MAX_RULES:
                raise TooManyRules(MESSAGE_TOO_MANY_RULES)
            rule = ExclusionRule.objects.create(owner=owner, kind=kind, pattern=pattern)
            ActivityEvent.objects.create(
                owner=owner, kind="settings_changed", data={"exclusion_rule_added": {"id": rule.pk, "kind": kind}}
            )
    except IntegrityError:
        raise RuleExists(MESSAGE_RULE_EXISTS) from None
    return rule


def exclusion_rule_delete(*, owner: User, rule_id: Any) -> None:
    with transaction.atomic():
        rule = _owned_rule(owner, rule_id)
        data = {"exclusion_rule_deleted": {"id": rule.pk, "kind": rule.kind}}
        rule.delete()
        ActivityEvent.objects.create(owner=owner, kind="settings_changed", data=data)


def exclusion_preview(*, owner: User, rule_id: Any) -> QuerySet[Drawer]:
    """The owner's existing drawers the rule matches, newest first. Words and phrases are matched by
    PostgreSQL (`~*`, the same pattern mining uses); a regex is run here with mining's bounds, since
    PostgreSQL's dialect differs from Python's (`\\b` is a backspace there)."""
    rule = _owned_rule(owner, rule_id)
    drawers = Drawer.objects.filter(owner=owner).order_by("-occurred_at", "-id")
    if rule.kind != ExclusionRule.Kind.REGEX:
        return drawers.filter(content__iregex=exclusions.literal_pattern(rule.kind, rule.pattern))
    matches = exclusions.Compiled(
        rule_id=rule.pk, regex=exclusions.compile_rule(rule.kind, rule.pattern), bounded=True
    ).matches
    ids = [
        pk
        for pk, content in Drawer.objects.filter(owner=owner).values_list("pk", "content").iterator(PREVIEW_SCAN_CHUNK)
        if matches(content)
    ]
    return drawers.filter(pk__in=ids)


def exclusion_purge(*, owner: User, rule_id: Any) -> dict[str, Any]:
    """Forget the drawers the rule matches now (with a receipt, as any forgetting); returns how many,
    their ids and the receipt."""
    ids = list(exclusion_preview(owner=owner, rule_id=rule_id).values_list("pk", flat=True))
    with transaction.atomic():
        receipt = forget(owner=owner, kind="drawer", ids=ids) if ids else None
        ActivityEvent.objects.create(
            owner=owner,
            kind="exclusion_purged",
            data={"rule": int(rule_id), "drawers": len(ids), "drawer_ids": ids, "receipt": receipt and str(receipt.pk)},
        )
    return {"rule_id": int(rule_id), "deleted": len(ids), "drawer_ids": ids, "receipt": receipt}
