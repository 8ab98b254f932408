"""(placeholder: filled in by the API work of the tiers issue)"""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
