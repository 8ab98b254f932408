"""Settings → Memory → Webhooks: the person's endpoints (add, delete, failing state, last deliveries).

`templates/webhooks/_settings.html` is an includable section; it needs `webhooks_section(owner)` in the
page's context (or it is fetched by itself from `settings/memory/webhooks`, the htmx way). Adding an
endpoint answers with a page that shows its secret, once."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from memory_site.events import EVENT_TYPES
from memory_site.lib.errors import InvalidFieldError, ServiceError
from palace.web.common import is_htmx, page, person
from webhooks import selectors
from webhooks.services import endpoints


class EndpointForm(forms.Form):
    url = forms.CharField(label="URL", max_length=2000, widget=forms.URLInput(attrs={"placeholder": "https://"}))
    event_types = forms.MultipleChoiceField(
        label="Events",
        choices=[(t, t) for t in EVENT_TYPES],
        widget=forms.CheckboxSelectMultiple,
        initial=[t for t in EVENT_TYPES if t != "memory.recalled"],
    )


def webhooks_section(owner: User, form: EndpointForm | None = None) -> dict[str, Any]:
    """What `webhooks/_settings.html` needs, for the settings page's context: the endpoints, each with its
    last deliveries (what failed, and why)."""
    endpoints_ = list(selectors.endpoint_list(owner=owner))
    recent = selectors.deliveries_recent(endpoints=endpoints_)
    return {
        "webhook_endpoints": [(e, recent.get(e.pk, [])) for e in endpoints_],
        "webhook_form": form or EndpointForm(),
    }


@login_required
def webhooks_settings(request: HttpRequest) -> HttpResponse:
    if not is_htmx(request):  # opened by itself: the section lives on the settings page
        return redirect("/settings/memory#webhooks")
    return render(request, "webhooks/_settings.html", webhooks_section(person(request)))


@login_required
@require_POST
def webhook_add(request: HttpRequest) -> HttpResponse:
    owner = person(request)
    form = EndpointForm(request.POST)
    if form.is_valid():
        try:
            registered = endpoints.endpoint_create(owner=owner, **form.cleaned_data)
        except InvalidFieldError as error:
            form.add_error(error.field if error.field in form.fields else None, error.reason)
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            context = {"endpoint": registered.endpoint, "secret": registered.secret}
            return page(request, "webhooks/created.html", context, active="settings-memory", status=201)
    return page(request, "webhooks/add.html", webhooks_section(owner, form), active="settings-memory", status=400)


@login_required
@require_POST
def webhook_delete(request: HttpRequest, endpoint_id: str) -> HttpResponse:
    try:
        endpoints.endpoint_delete(owner=person(request), endpoint_id=endpoint_id)
    except ServiceError as error:
        raise Http404(error.detail) from None
    messages.success(request, "Webhook endpoint removed.")
    return redirect("/settings/memory#webhooks")
