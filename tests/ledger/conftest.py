from __future__ import annotations

import uuid

import pytest
import redis

from memory_site.redis_client import get_redis


@pytest.fixture
def conversation() -> str:
    return f"conv-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def raw_redis() -> redis.Redis:
    """The real Redis the service uses, to look at what it stored."""
    return get_redis()
