"""An owner's webhook endpoints: register (the secret is returned this once), change, delete, ping."""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from memory_site.events import EVENT_TYPES
from memory_site.lib.errors import ConflictError, InvalidFieldError
from palace.services.activity import activity_record
from webhooks.addresses import AddressRefused, url_check
from webhooks.models import Endpoint, Event
from webhooks.selectors import endpoint_get
from webhooks.services.outbox import event_create

MAX_ENDPOINTS = 20
PING = "webhook.ping"
MESSAGE_TOO_MANY = f"At most {MAX_ENDPOINTS} webhook endpoints per person."
MESSAGE_NO_TYPES = "Choose at least one event type."
MESSAGE_UNKNOWN_TYPE = "Unknown event type: {type}."


@dataclass(frozen=True)
class Registered:
    endpoint: Endpoint
    secret: str  # the only time it is shown


def secret_generate() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def _check_url(url: str) -> str:
    try:
        url_check(url)
    except AddressRefused as exc:
        raise InvalidFieldError("url", str(exc)) from None
    return url


def _check_types(event_types: list[str]) -> list[str]:
    if not event_types:
        raise InvalidFieldError("event_types", MESSAGE_NO_TYPES)
    for type in event_types:
        if type not in EVENT_TYPES:
            raise InvalidFieldError("event_types", MESSAGE_UNKNOWN_TYPE.format(type=type))
    return sorted(set(event_types))


def endpoint_create(*, owner: User, url: str, event_types: list[str], active: bool = True) -> Registered:
    secret = secret_generate()
    with transaction.atomic():
        # Counted under the owner's row lock: two concurrent registrations cannot pass the limit.
        User.objects.select_for_update().filter(pk=owner.pk).first()
        if Endpoint.objects.filter(owner=owner).count() >= MAX_ENDPOINTS:
            raise ConflictError(MESSAGE_TOO_MANY)
        endpoint = Endpoint.objects.create(
            owner=owner, url=_check_url(url), event_types=_check_types(event_types), active=active, secret=secret
        )
        activity_record(owner=owner, kind="webhook_created", data={"endpoint_id": str(endpoint.pk)})
    return Registered(endpoint=endpoint, secret=secret)


def endpoint_update(*, owner: User, endpoint_id: Any, **changes: Any) -> Endpoint:
    """Change url, event_types or active. `active: true` clears the failing mark, even on an endpoint
    that was never switched off (failing ones stay active: the mark is all there is to clear)."""
    with transaction.atomic():
        endpoint = endpoint_get(owner=owner, endpoint_id=endpoint_id)
        if "url" in changes:
            endpoint.url = _check_url(changes["url"])
        if "event_types" in changes:
            endpoint.event_types = _check_types(changes["event_types"])
        if "active" in changes:
            # `active: true` is the owner saying "try it again", whether or not it was switched off.
            if changes["active"]:
                endpoint.failing_since = None
            endpoint.active = bool(changes["active"])
        endpoint.save()
        activity_record(
            owner=owner, kind="webhook_changed", data={"endpoint_id": str(endpoint.pk), "fields": sorted(changes)}
        )
    return endpoint


def endpoint_delete(*, owner: User, endpoint_id: Any) -> None:
    with transaction.atomic():
        endpoint = endpoint_get(owner=owner, endpoint_id=endpoint_id)
        activity_record(owner=owner, kind="webhook_deleted", data={"endpoint_id": str(endpoint.pk)})
        endpoint.delete()


def endpoint_test(*, owner: User, endpoint_id: Any) -> Event:
    """A ping event to this endpoint only (whatever its event types), delivered like any other."""
    with transaction.atomic():
        endpoint = endpoint_get(owner=owner, endpoint_id=endpoint_id)
        return event_create(
            owner_id=owner.pk, type=PING, payload={"endpoint_id": str(endpoint.pk)}, endpoint_ids=[endpoint.pk]
        )
