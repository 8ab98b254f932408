"""API-key authentication: `Authorization: Bearer <key>` or `X-API-Key: <key>`."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import User
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission

from accounts.models import Agent, ApiKey
from accounts.selectors import agent_get
from accounts.services import api_key_authenticate, api_key_prefix
from memory_site.api.throttling import Window

MESSAGE_INVALID_KEY = "Invalid or revoked API key."
MESSAGE_MALFORMED_HEADER = "Malformed Authorization header: use 'Bearer <key>'."
MESSAGE_NEEDS_API_KEY = "This endpoint needs an agent's API key."
MESSAGE_AGENT_NOT_FOUND = "Agent not found."


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Any) -> tuple[Any, ApiKey] | None:
        raw_key = self._raw_key(request)
        if raw_key is None:
            return None
        prefix = api_key_prefix(raw_key)
        window = Window(f"key:{prefix}") if prefix else None
        found = api_key_authenticate(raw_key=raw_key, counter=(window.key, window.ttl) if window else None)
        if found is None:
            raise exceptions.AuthenticationFailed(MESSAGE_INVALID_KEY)
        # The key's rate limit, counted in the same Redis round trip (see OwnerRateThrottle).
        if window is not None and found.counted is not None and found.counted > window.limit:
            raise exceptions.Throttled(wait=window.wait())
        return found.api_key.agent.owner, found.api_key

    def authenticate_header(self, request: Any) -> str:
        # Answering with a challenge makes DRF send 401 (not 403) for missing or bad credentials.
        return 'Bearer realm="loci"'

    @staticmethod
    def _raw_key(request: Any) -> str | None:
        header_key = request.META.get("HTTP_X_API_KEY")
        if header_key is not None:
            return str(header_key).strip()
        parts = get_authorization_header(request).split()
        if not parts:
            return None  # no key: a signed-in person's session may still be there
        if parts[0].lower() != b"bearer":
            raise exceptions.AuthenticationFailed(MESSAGE_MALFORMED_HEADER)  # "Token <key>": say what works
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(MESSAGE_MALFORMED_HEADER)
        try:
            return parts[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(MESSAGE_MALFORMED_HEADER) from None


def request_owner(request: Any) -> User:
    """The owner whose memory the request acts on: the key's owner, or the logged-in user."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise exceptions.NotAuthenticated()
    return user


def request_agent(request: Any) -> Agent | None:
    """The agent behind the request's API key; None for a browser session."""
    auth = getattr(request, "auth", None)
    return auth.agent if isinstance(auth, ApiKey) else None


def calling_agent(request: Any) -> Agent:
    """The agent behind the request's API key; 403 for a request without one (views that need an agent
    also declare HasApiKey, so this answers only when a view forgot to)."""
    agent = request_agent(request)
    if agent is None:
        raise exceptions.PermissionDenied(MESSAGE_NEEDS_API_KEY)
    return agent


def owned_agent(request: Any, agent_id: uuid.UUID | str) -> Agent:
    """One of the request owner's agents by id; 404 for another owner's agent as for an unknown one."""
    agent = agent_get(owner=request_owner(request), agent_id=agent_id)
    if agent is None:
        raise exceptions.NotFound(MESSAGE_AGENT_NOT_FOUND)
    return agent


class HasApiKey(BasePermission):
    message = MESSAGE_NEEDS_API_KEY

    def has_permission(self, request: Any, view: Any) -> bool:
        return request_agent(request) is not None
