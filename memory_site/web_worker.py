"""The web process's gunicorn worker: gunicorn's threaded worker, with a quit that may be signalled twice.

Ctrl-C in a terminal reaches every process of the group at once: each web worker gets the SIGINT itself and,
a moment later, the SIGQUIT its master sends on the same Ctrl-C. Both run gunicorn's quick-quit handler,
which shuts the request thread pool down under the pool's own (non-reentrant) lock. When the second signal
lands while the first handler holds that lock, the second handler waits for it in the same thread for ever,
and the master kills the worker after its graceful timeout (a 10 s stop and "was sent SIGKILL", about one
Ctrl-C in five). Here the second quit returns at once and the first finishes the exit.
"""

from __future__ import annotations

from types import FrameType

from gunicorn.workers.gthread import ThreadWorker


class Worker(ThreadWorker):
    _quitting = False

    def handle_quit(self, sig: int, frame: FrameType | None) -> None:
        if self._quitting:
            return
        self._quitting = True
        super().handle_quit(sig, frame)
