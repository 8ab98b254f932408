"""The one Celery app. Broker and result backend are the same Redis; configuration comes from
Django settings (the CELERY_ namespace), which come from the environment."""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

app = Celery("memory_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _preload_models(**kwargs: object) -> None:
    """In the mining worker (`make run` sets LOCI_PRELOAD_MODELS=1 for it), load the embedder and the NER
    model as each process starts, not in its first job: a conversation posted to a fresh worker is
    mined as fast as the next."""
    if os.environ.get("LOCI_PRELOAD_MODELS") != "1":
        return
    from episodic import providers
    from palace import entities

    try:
        providers.get_embedder()
        entities.load_nlp()
    except Exception:
        # The first job loads them again and reports what fails; a worker must not die over a warm-up.
        logging.getLogger(__name__).warning("preloading the models failed", exc_info=True)
