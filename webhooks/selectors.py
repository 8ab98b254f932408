from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from memory_site.lib.errors import NotFoundError
from webhooks.models import Delivery, Endpoint

MESSAGE_NO_ENDPOINT = "No such webhook endpoint."
MESSAGE_NO_DELIVERY = "No such delivery."


def endpoint_list(*, owner: User) -> QuerySet[Endpoint]:
    return Endpoint.objects.filter(owner=owner).order_by("created_at")


def endpoint_get(*, owner: User, endpoint_id: Any) -> Endpoint:
    """The owner's endpoint; another owner's is not found, exactly like one that does not exist."""
    try:
        pk = uuid.UUID(str(endpoint_id))
    except ValueError:
        raise NotFoundError(MESSAGE_NO_ENDPOINT) from None
    endpoint = Endpoint.objects.filter(owner=owner, pk=pk).first()
    if endpoint is None:
        raise NotFoundError(MESSAGE_NO_ENDPOINT)
    return endpoint


def delivery_list(*, endpoint: Endpoint) -> QuerySet[Delivery]:
    return Delivery.objects.filter(endpoint=endpoint).select_related("event").order_by("-created_at", "-pk")


def delivery_get(*, endpoint: Endpoint, delivery_id: Any) -> Delivery:
    delivery = (
        Delivery.objects.filter(endpoint=endpoint, pk=delivery_id).first() if str(delivery_id).isdigit() else None
    )
    if delivery is None:
        raise NotFoundError(MESSAGE_NO_DELIVERY)
    return delivery


LAST_DELIVERIES = 5


def deliveries_recent(*, endpoints: list[Endpoint]) -> dict[Any, list[Delivery]]:
    """Each endpoint's last LAST_DELIVERIES delivery attempts, newest first (one query per endpoint, on
    the (endpoint, -created_at) index; a person has a handful of endpoints)."""
    return {
        e.pk: list(
            Delivery.objects.filter(endpoint=e).select_related("event").order_by("-created_at")[:LAST_DELIVERIES]
        )
        for e in endpoints
    }
