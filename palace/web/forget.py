"""Forgetting from the pages: a confirmation that says exactly what goes, then the receipt, whose
"verify" link re-checks the database. The work is palace.services.forget's, as for the API."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from memory_site.lib.errors import ServiceError
from palace.selectors import forget_receipt_get
from palace.services import forget as forgetting
from palace.web.common import page, person

KINDS = {  # what a person calls each kind: one, many
    "drawer": ("turn", "turns"),
    "conversation": ("conversation", "conversations"),
    "wing": ("wing", "wings"),
    "entity": ("entity", "entities"),
    "typed_memory": ("typed memory", "typed memories"),
    "episode": ("episode", "episodes"),
    "everything": ("everything", "everything"),
}
MAX_IDS = 500


def _asked(request: HttpRequest) -> tuple[str, list[str]]:
    source = request.POST if request.method == "POST" else request.GET
    kind = source.get("kind", "")
    if kind not in KINDS:
        raise Http404("Nothing to forget.")
    ids = [value for value in source.getlist("ids") if value.strip()][:MAX_IDS]
    return kind, ids


@login_required
@require_http_methods(["GET", "POST"])
def forget(request: HttpRequest) -> HttpResponse:
    kind, ids = _asked(request)
    one, many = KINDS[kind]
    context: dict[str, Any] = {"kind": kind, "kind_label": one if len(ids) == 1 else many, "ids": ids}
    if kind != "everything" and not ids:
        context["error"] = "Select at least one item to forget."
        return page(request, "palace/forget.html", context, status=400)
    try:
        if request.method == "POST":
            if kind == "everything" and request.POST.get("confirm") != "everything":
                context["error"] = 'Type "everything" to confirm.'
                context["preview"] = forgetting.forget_preview(owner=person(request), kind=kind, ids=ids)
                return page(request, "palace/forget.html", context, status=400)
            receipt = forgetting.forget(owner=person(request), kind=kind, ids=ids, actor="person")
            return page(request, "palace/receipt.html", {"receipt": receipt, "verified": None})
        context["preview"] = forgetting.forget_preview(owner=person(request), kind=kind, ids=ids)
    except ServiceError as error:
        if error.status_code == 404:
            raise Http404(error.detail) from None
        context["error"] = error.detail
        return page(request, "palace/forget.html", context, status=error.status_code)
    return page(request, "palace/forget.html", context)


@login_required
def receipt(request: HttpRequest, receipt_id: uuid.UUID) -> HttpResponse:
    row = forget_receipt_get(owner=person(request), receipt_id=receipt_id)
    if row is None:
        raise Http404("No such receipt.")
    return page(request, "palace/receipt.html", {"receipt": row, "verified": forgetting.receipt_verify(receipt=row)})
