"""Export and import from Settings → Memory: the same services as GET /api/v1/export and
POST /api/v1/import, behind the person's login."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from memory_site.lib.errors import ServiceError
from palace.services.portability import export_download, import_lines
from palace.web.common import person


@login_required
def export(request: HttpRequest) -> StreamingHttpResponse:
    return export_download(owner=person(request))


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
