"""What the episodic API modules share: the calling agent, access-list checks, listed choices."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from accounts import selectors as account_selectors

MESSAGE_UNKNOWN_AGENT = "Not an agent of this account: {agent_id}."


def check_agents(owner: User, field: str, agent_ids: Iterable[uuid.UUID]) -> list[str]:
    """The ids as an access list stores them (strings); 400 unless each is one of the owner's agents."""
    wanted = list(dict.fromkeys(str(agent_id) for agent_id in agent_ids))
    known = {str(pk) for pk in account_selectors.agent_list(owner=owner).filter(pk__in=wanted).values_list("pk", flat=True)}  # fmt: skip
    unknown = [agent_id for agent_id in wanted if agent_id not in known]
    if unknown:
        raise ValidationError({field: [MESSAGE_UNKNOWN_AGENT.format(agent_id=unknown[0])]})
    return wanted


def one_of(values: Iterable[str]) -> str:
    return f"One of: {', '.join(values)}."


@extend_schema_field(OpenApiTypes.STR)
class ListedChoiceField(serializers.ChoiceField):
    """A choice documented as a string whose description lists the values: `scope` and `memory_type`
    are already enums of typed memories, and the schema's enum components would collide on the name."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.help_text = " ".join(filter(None, [str(self.help_text or ""), one_of(self.choices)]))
