"""The web worker survives the two quit signals one Ctrl-C delivers (memory_site/web_worker.py).

A child Python process builds a worker with a real request thread pool and real signal handlers, and sends
itself a SIGINT; the pool's queue sends the SIGQUIT (the master's) while the first handler is inside the
pool's shutdown, the moment that hung gunicorn's own worker. The worker must exit 0 at once.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from memory_site.config import BASE_DIR

_CHILD = textwrap.dedent(
    """
    import logging, os, queue, signal, sys, time
    from concurrent import futures

    from gunicorn.config import Config
    from gunicorn.workers.gthread import ThreadWorker

    from memory_site.web_worker import Worker

    worker_class = Worker if sys.argv[1] == "loci" else ThreadWorker
    config = Config()
    config.set("threads", 4)
    worker = worker_class(0, os.getppid(), [], None, 30, config, logging.getLogger("test"))
    worker.tpool = futures.ThreadPoolExecutor(max_workers=4)


    class MasterQuitsMeanwhile(queue.SimpleQueue):
        # Put runs inside the pool's shutdown, under its lock: the master's SIGQUIT arrives right then.
        def put(self, item, block=True, timeout=None):
            os.kill(os.getpid(), signal.SIGQUIT)
            for _ in range(1000):  # bytecodes, at which Python runs the pending handler
                pass
            super().put(item, block, timeout)


    worker.tpool._work_queue = MasterQuitsMeanwhile()
    signal.signal(signal.SIGINT, worker.handle_quit)
    signal.signal(signal.SIGQUIT, worker.handle_quit)
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C
    time.sleep(30)
    sys.exit(3)  # the handlers never ended the process
    """
)


def _quit(worker: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", _CHILD, worker], cwd=BASE_DIR, capture_output=True, timeout=10)


def test_a_second_quit_during_the_first_ends_the_worker_at_once() -> None:
    done = _quit("loci")
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def test_the_reproduction_hangs_gunicorns_own_worker() -> None:
    # The check above can fail: the same two signals leave gunicorn's stock worker waiting for ever.
    with pytest.raises(subprocess.TimeoutExpired):
        _quit("gunicorn")
