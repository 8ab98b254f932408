from __future__ import annotations

from dataclasses import dataclass

import pytest
from rest_framework.test import APIClient

from tests.factories import Persona, make_persona

pytest_plugins = [
    "tests.fixtures.celery_worker",
    "tests.fixtures.live_server",
    "tests.fixtures.providers",
    "tests.fixtures.redis",
]


@dataclass(frozen=True)
class Personas:
    """STYLE habit 9: the owner, a teammate (another agent of the same user) and an outsider."""

    owner: Persona
    teammate: Persona
    outsider: Persona


@pytest.fixture
def personas(db: None) -> Personas:
    owner = make_persona()
    return Personas(owner=owner, teammate=make_persona(user=owner.user), outsider=make_persona())


@pytest.fixture
def api() -> APIClient:
    return APIClient()
