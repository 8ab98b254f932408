"""The one Celery app. Broker and result backend are the same Redis; configuration comes from
Django settings (the CELERY_ namespace), which come from the environment."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

app = Celery("memory_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
