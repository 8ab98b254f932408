"""Forgetting from the pages: a confirmation that says exactly what goes, then the receipt, whose
"verify" link re-checks the database. The work is palace.services.forget's, as for the API."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
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
# A receipt's counts in a person's words: one, many.
COUNTED = {
    "drawers": ("drawer", "drawers"),
    "turns": ("posted turn", "posted turns"),
    "conversations": ("conversation", "conversations"),
    "rooms": ("room", "rooms"),
    "closets": ("closet", "closets"),
    "wings": ("wing", "wings"),
    "entities": ("name in the knowledge graph", "names in the knowledge graph"),
    "relations": ("fact", "facts"),
    "relation_citations": ("source of a fact", "sources of facts"),
    "preference_mentions": ("preference mention", "preference mentions"),
    "preference_topics": ("recurring-topic count", "recurring-topic counts"),
    "episodes": ("episode", "episodes"),
    "typed_memories": ("typed memory", "typed memories"),
    "short_term_entries": ("short-term entry", "short-term entries"),
    "working_memory_snapshots": ("working-memory snapshot", "working-memory snapshots"),
    "working_memory_fields": ("working-memory field", "working-memory fields"),
    "redis_keys": ("cached working-memory key", "cached working-memory keys"),
    "memory_pools": ("memory pool", "memory pools"),
    "workflow_pools": ("workflow pool", "workflow pools"),
    "persistent_contexts": ("persistent context", "persistent contexts"),
    "context_entries": ("context entry", "context entries"),
    "context_snapshots": ("context snapshot", "context snapshots"),
    "context_access_logs": ("context access record", "context access records"),
    "activity_events": ("activity entry", "activity entries"),
    "activity_events_redacted": ("activity entry redacted", "activity entries redacted"),
    "embeddings": ("embedding", "embeddings"),
}


def described(counts: dict[str, int]) -> list[str]:
    """ "1 drawer", "3 names in the knowledge graph": each count in words, in COUNTED's order."""
    order = list(COUNTED)
    named = sorted((name for name, n in counts.items() if n), key=lambda n: (order.index(n) if n in order else 99, n))
    lines = []
    for name in named:
        one, many = COUNTED.get(name, (name.replace("_", " "), name.replace("_", " ")))
        lines.append(f"{counts[name]} {one if counts[name] == 1 else many}")
    return lines


def _posted_back(request: HttpRequest) -> str:
    back = request.POST.get("back", "")
    return back if back.startswith("/") and not back.startswith("//") else ""


def _back(request: HttpRequest) -> str:
    """Where Cancel goes: the page the person came from on this site, else the palace."""
    referer = request.headers.get("referer", "")
    if referer and url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()}):
        path = urlsplit(referer)
        if path.path != request.path:
            return path.path + (f"?{path.query}" if path.query else "")
    return reverse("memory")


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
    context: dict[str, Any] = {
        "kind": kind,
        "kind_label": one if len(ids) == 1 else many,
        "ids": ids,
        "back": _posted_back(request) or _back(request),
    }
    if kind != "everything" and not ids:
        context["error"] = "Select at least one item to forget."
        return page(request, "palace/forget.html", context, status=400)
    try:
        if request.method == "POST":
            if kind == "everything" and request.POST.get("confirm") != "everything":
                context["error"] = 'Type "everything" to confirm.'
                _preview(request, context, kind, ids)
                return page(request, "palace/forget.html", context, status=400)
            receipt = forgetting.forget(owner=person(request), kind=kind, ids=ids, actor="person")
            # The receipt has a page of its own: a reload shows it again instead of posting twice.
            return redirect("memory-receipt", receipt.id)
        _preview(request, context, kind, ids)
    except ServiceError as error:
        if error.status_code == 404:
            raise Http404(error.detail) from None
        context["error"] = error.detail
        return page(request, "palace/forget.html", context, status=error.status_code)
    return page(request, "palace/forget.html", context)


def _preview(request: HttpRequest, context: dict[str, Any], kind: str, ids: list[str]) -> None:
    counts, names = forgetting.forget_preview_named(owner=person(request), kind=kind, ids=ids)
    context.update(preview=described(counts), names=names)


@login_required
def receipt(request: HttpRequest, receipt_id: uuid.UUID) -> HttpResponse:
    row = forget_receipt_get(owner=person(request), receipt_id=receipt_id)
    if row is None:
        raise Http404("No such receipt.")
    return page(
        request,
        "palace/receipt.html",
        {"receipt": row, "counted": described(row.counts), "verified": forgetting.receipt_verify(receipt=row)},
    )
