"""Test data through the real services (no hand-built rows): what tests create is what Loci creates."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User

from accounts import services
from accounts.models import Agent, ApiKey

_counter = itertools.count(1)


@dataclass(frozen=True)
class Persona:
    user: User
    agent: Agent
    api_key: ApiKey
    key: str  # the raw key, as the agent holds it

    @property
    def headers(self) -> dict[str, Any]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.key}"}


def make_user(name: str = "user", *, superuser: bool = False) -> User:
    """A user with memory settings; no password: tests log in with force_login. A superuser is staff
    too (the admin's operator)."""
    user, _ = services.user_ensure(username=f"{name}-{next(_counter)}", is_superuser=superuser)
    return user


def make_agent(*, owner: User, name: str | None = None) -> Agent:
    return services.agent_create(owner=owner, name=name or f"agent-{next(_counter)}")


def make_persona(*, user: User | None = None, agent_name: str | None = None) -> Persona:
    """An agent with an API key: as a client of the API sees it."""
    agent = make_agent(owner=user or make_user(), name=agent_name)
    user = agent.owner
    issued = services.api_key_issue(agent=agent)
    return Persona(user=user, agent=agent, api_key=issued.api_key, key=issued.raw_key)
