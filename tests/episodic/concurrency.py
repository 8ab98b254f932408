"""Requests at the same instant, for the tests of concurrent writes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection
from rest_framework.test import APIClient


def run_together(*jobs: Callable[[APIClient], Any]) -> list[Any]:
    """Run each job in its own thread, with its own client and database connection, all released at
    once by a barrier; returns their results in order."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(index: int, job: Callable[[APIClient], Any]) -> None:
        client = APIClient()
        barrier.wait()
        try:
            results[index] = job(client)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
