"""Export and import from Settings → Memory: the same services as GET /api/v1/export and
POST /api/v1/import, behind the person's login."""

from __future__ import annotations

from collections.abc import Iterator

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from memory_site.lib.errors import ServiceError
from palace.services.portability import export_lines, import_lines
from palace.services.portability.format import CONTENT_TYPE
from palace.web.common import person


@login_required
def export(request: HttpRequest) -> StreamingHttpResponse:
    owner = person(request)
    response = StreamingHttpResponse(_encoded(export_lines(owner=owner)), content_type=CONTENT_TYPE)
    name = f"loci-export-{owner.username}-{timezone.now():%Y%m%d-%H%M%S}.jsonl"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _encoded(lines: Iterator[str]) -> Iterator[bytes]:
    for line in lines:
        yield line.encode("utf-8")


@login_required
@require_POST
def import_file(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose an export file to import.")
        return redirect("settings-memory")
    try:
        result = import_lines(owner=person(request), lines=iter(upload))
    except ServiceError as error:
        messages.error(request, f"Nothing was imported. {error.detail}")
    else:
        total = sum(result["rows"].values())
        messages.success(request, f"Imported {total} rows from {result['lines']} lines; {result['embedded']} embedded.")
    return redirect("settings-memory")
