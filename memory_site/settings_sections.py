"""Sections other apps add to the person's Settings → Memory page without the page importing them
(dependencies run one way: webhooks builds on palace, never the reverse). An app registers a template
and a function giving its context at start-up (its AppConfig.ready); the page includes each section."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User


@dataclass(frozen=True)
class Section:
    template: str
    context: Callable[[User], dict[str, Any]]


_sections: list[Section] = []


def settings_section_register(*, template: str, context: Callable[[User], dict[str, Any]]) -> None:
    if all(section.template != template for section in _sections):
        _sections.append(Section(template=template, context=context))


def settings_sections(*, owner: User) -> tuple[list[str], dict[str, Any]]:
    """The registered sections' templates, and their contexts merged."""
    merged: dict[str, Any] = {}
    for section in _sections:
        merged.update(section.context(owner))
    return [section.template for section in _sections], merged
