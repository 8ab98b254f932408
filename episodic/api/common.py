"""What the episodic API modules share: access-list checks, listed choices, lists with a key."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, cast

from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from accounts import selectors as account_selectors
from memory_site.api.lists import list_response

MESSAGE_UNKNOWN_AGENT = "Not an agent of this account: {agent_id}."


def check_agents(owner: User, field: str, agent_ids: Iterable[uuid.UUID]) -> list[str]:
    """The ids as an access list stores them (strings); 400 unless each is one of the owner's agents."""
    wanted = list(dict.fromkeys(str(agent_id) for agent_id in agent_ids))
    known = account_selectors.agent_ids_known(owner=owner, agent_ids=wanted)
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


def keyed_list_response(request: Request, results: Sequence[Any], **keys: str) -> Response:
    """A whole list in the one shape, after the keys that say whose it is (a session's, a run's)."""
    response = list_response(request, results)
    response.data = {**keys, **response.data}
    return response


def serialized(
    serializer: type[BaseSerializer], items: Iterable[Any], context: dict[str, Any] | None = None
) -> list[Any]:
    """`items` in `serializer`'s shape, as the list the one list shape takes (DRF's type stubs call the
    data of `many=True` a dict)."""
    return cast(list[Any], serializer(items, many=True, context=context or {}).data)


MAX_ACL_AGENTS = 1000


class AgentAccessControl(serializers.Serializer):
    """The agent lists of an access-control list, as pools and contexts share them."""

    read = serializers.ListField(
        child=serializers.UUIDField(), max_length=MAX_ACL_AGENTS, default=list, help_text="Agents that may read."
    )
    write = serializers.ListField(
        child=serializers.UUIDField(),
        max_length=MAX_ACL_AGENTS,
        default=list,
        help_text="Agents that may read and write.",
    )
