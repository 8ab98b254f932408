"""Celery queues: mining, maintenance and webhook delivery each have a queue of their own, so a backlog
in one never holds up the others (a night's consolidation does not delay a mining job, a mining backlog
does not delay a webhook). `make run` starts one worker for mining and one for the rest
(memory_site/launcher.py); a larger deployment scales each queue's workers on its own (docs/scaling.md).
"""

from __future__ import annotations

from typing import Final

from kombu import Queue

DEFAULT: Final = "celery"  # Celery's default: the outbox, reads flushing, anything not routed
MINING: Final = "mining"
MAINTENANCE: Final = "maintenance"
WEBHOOKS: Final = "webhooks"
ALL: Final = (DEFAULT, MINING, MAINTENANCE, WEBHOOKS)

ROUTES: Final = {
    "palace.mine_conversation": {"queue": MINING},
    "palace.embed_passages": {"queue": MINING},
    "episodic.*": {"queue": MAINTENANCE},
    "ops.*": {"queue": MAINTENANCE},
    "webhooks.*": {"queue": WEBHOOKS},
}


def declared() -> tuple[Queue, ...]:
    """Every queue, for `task_queues`: a worker given no -Q consumes them all."""
    return tuple(Queue(name, routing_key=name) for name in ALL)
