"""Episodic rows for tests, made through the real services (what tests create is what Loci creates)."""

from __future__ import annotations

from typing import Any

from episodic.models import ContextEntry, PersistentContext
from episodic.services.context_entries import entry_create
from episodic.services.contexts import context_create
from tests.factories import Persona


def make_context(persona: Persona, name: str = "project-notes", **fields: Any) -> PersistentContext:
    return context_create(agent=persona.agent, name=name, **fields)


def make_entry(persona: Persona, context: PersistentContext, content: str, **fields: Any) -> ContextEntry:
    return entry_create(agent=persona.agent, context=context, content=content, **fields)
