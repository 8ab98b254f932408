from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from accounts.models import Agent, ApiKey, MemorySettings

pytestmark = pytest.mark.django_db


def _call(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_issue_api_key_creates_what_is_missing_and_prints_the_key_last(api: APIClient) -> None:
    out, _ = _call("issue_api_key", "--user", "ada", "--agent", "lovelace")
    key = out.strip().splitlines()[-1]
    agent = Agent.objects.get(owner__username="ada", name="lovelace")
    assert MemorySettings.objects.filter(user__username="ada").exists()
    assert api.get("/api/v1/agents/me", HTTP_AUTHORIZATION=f"Bearer {key}").json()["id"] == str(agent.id)

    again, _ = _call("issue_api_key", "--user", "ada", "--agent", "lovelace")
    assert again.strip() != key
    assert Agent.objects.filter(owner__username="ada").count() == 1
    assert ApiKey.objects.filter(agent=agent).count() == 2


def test_revoke_api_key_by_prefix(api: APIClient) -> None:
    out, _ = _call("issue_api_key", "--user", "grace", "--agent", "hopper")
    key = out.strip()
    prefix = key.split("_")[1]
    revoked, _ = _call("revoke_api_key", prefix)
    assert f"revoked {prefix}" in revoked
    assert api.get("/api/v1/agents/me", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 401
    with pytest.raises(CommandError, match="no API key with prefix"):
        _call("revoke_api_key", "nosuchpx")


def test_bootstrap_demo_prints_credentials_once(api: APIClient) -> None:
    first, _ = _call("bootstrap_demo")
    password = next(line.split()[-1] for line in first.splitlines() if "password:" in line)
    key = next(line.split()[-1] for line in first.splitlines() if "API key:" in line)
    user = User.objects.get(username="demo")
    assert user.check_password(password) and user.is_superuser
    assert api.get("/api/v1/agents/me", HTTP_X_API_KEY=key).json()["name"] == "demo-agent"

    second, _ = _call("bootstrap_demo")
    assert password not in second and "issue_api_key --user demo --agent demo-agent" in second
    assert ApiKey.objects.filter(agent__owner=user).count() == 1
