"""`make run` and `make test` land here.

    python -m memory_site.launcher run     # web + worker + beat in the foreground; Ctrl-C stops all
    python -m memory_site.launcher test    # the whole suite on its own embedded servers

Both start the embedded PostgreSQL and Redis when DATABASE_URL / REDIS_URL are unset, hand their URLs
to the child processes through the environment, and stop exactly the servers they started, also on
Ctrl-C, SIGTERM or a failing child.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from memory_site import queues
from memory_site.config import BASE_DIR, Config, ConfigError, load_config
from memory_site.embedded import EmbeddedServers

PYTHON = sys.executable
BIN = Path(PYTHON).parent
_PR_SET_PDEATHSIG = 1
_SHUTDOWN_GRACE_SECONDS = 20
_SETTLE_SECONDS = 12  # after Ctrl-C, for the children to stop by themselves (gunicorn's graceful timeout is 10)
_SETTLE_FIRST_SECONDS = 2  # ... unless none of them has stopped by then


def _die_with_parent() -> None:
    """In a child: get SIGTERM if the launcher dies, even by SIGKILL, so no process outlives it."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _child_at(nice: int) -> Callable[[], None]:
    def setup() -> None:
        _die_with_parent()
        os.nice(nice)

    return setup


def _worker(name: str, queue_names: list[str], concurrency: int) -> list[str]:
    return [
        *(str(BIN / "celery"), "-A", "memory_site", "worker"),
        *("--loglevel", "INFO"),
        *("--queues", ",".join(queue_names)),
        *("--concurrency", str(concurrency)),
        *("--hostname", f"{name}@%h"),
    ]


def _say(message: str) -> None:
    print(f"loci: {message}", flush=True)


class _Stop(Exception):
    pass


_received: list[int] = []


def _raise_stop(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise _Stop(signal.Signals(signum).name)


def _manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([PYTHON, str(BASE_DIR / "manage.py"), *args], env=env, check=True, cwd=BASE_DIR)


def _terminate(processes: dict[str, subprocess.Popen[bytes]], settle: float = 0.0) -> None:
    """Stop the children: SIGTERM, then SIGKILL after the grace. With `settle`, first wait that long for
    them to stop on their own: Ctrl-C in a terminal reaches every process of the foreground group, and a
    SIGTERM landing in the middle of a child's own shutdown stalls it (celery beat, saving its schedule,
    hung until killed; gunicorn's workers were killed after its graceful timeout). When none has stopped after
    a moment, the signal reached the launcher alone (`kill -INT <pid>`): they are sent SIGTERM at once."""
    started = time.monotonic()
    while time.monotonic() - started < settle and any(p.poll() is None for p in processes.values()):
        if time.monotonic() - started > _SETTLE_FIRST_SECONDS and all(p.poll() is None for p in processes.values()):
            break
        time.sleep(0.1)
    for process in processes.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + _SHUTDOWN_GRACE_SECONDS
    for name, process in processes.items():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _say(f"{name} did not stop in {_SHUTDOWN_GRACE_SECONDS}s; killing it")
            process.kill()
            process.wait()


def run(config: Config) -> int:
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    processes: dict[str, subprocess.Popen[bytes]] = {}
    try:
        with EmbeddedServers(config.state_dir, database_url=config.database_url, redis_url=config.redis_url) as servers:
            try:
                return _serve(config, servers, processes)
            finally:
                # Children first (the worker needs Redis to shut down cleanly), then the servers.
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                _terminate(processes, settle=_SETTLE_SECONDS if signal.SIGINT in _received else 0.0)
    except _Stop as stop:
        _say(f"{stop} received; stopped")
        return 0
    except subprocess.CalledProcessError as exc:
        _say(f"set-up step failed: {' '.join(map(str, exc.cmd[1:]))}")
        return 1


def _serve(config: Config, servers: EmbeddedServers, processes: dict[str, subprocess.Popen[bytes]]) -> int:
    env = {**os.environ, **servers.environ()}
    if servers.started:
        _say(f"started embedded {' and '.join(servers.started)} (state in {config.state_dir})")
    _manage(env, "migrate", "--noinput", "-v", "0")
    _manage(env, "bootstrap_demo")
    _manage(env, "demo_palace")
    commands = {
        "web": [
            str(BIN / "gunicorn"),
            "memory_site.wsgi:application",
            *("--bind", f"{config.host}:{config.port}"),
            *("--workers", str(config.web_concurrency)),
            *("--worker-class", "memory_site.web_worker.Worker"),
            *("--threads", "4"),
            *("--graceful-timeout", "10"),
            # Two checkouts on one machine would fight over the default ~/.gunicorn/gunicorn.ctl.
            "--no-control-socket",
        ],
        # One worker for mining, one for the rest (memory_site/queues.py): a mining backlog never
        # delays maintenance or webhooks, nor the other way round.
        "mining": _worker("mining", [queues.MINING], config.mining_concurrency),
        "worker": _worker("worker", [queues.DEFAULT, queues.MAINTENANCE, queues.WEBHOOKS], config.worker_concurrency),
        "beat": [str(BIN / "celery"), "-A", "memory_site", "beat", "--loglevel", "INFO", "--pidfile="],
    }
    # The web process embeds one query at a time beside its database work: one onnxruntime thread leaves
    # the other core to PostgreSQL and the request's own thread (recall p95 at 100k: 52.7 ms with two
    # threads, 41.7 ms with one, bench/README.md); the workers embed batches with EMBEDDING_THREADS.
    envs = {
        "web": {**env, "EMBEDDING_THREADS": str(config.web_embedding_threads)},
        "mining": {**env, "LOCI_PRELOAD_MODELS": "1"},
    }
    for name, command in commands.items():
        # The workers yield the cores to the web process: a request waits for no mining batch.
        nice = config.worker_nice if name in ("mining", "worker") else 0
        processes[name] = subprocess.Popen(
            command,
            env=envs.get(name, env),
            cwd=BASE_DIR,
            preexec_fn=_die_with_parent if not nice else _child_at(nice),
        )
    _say(
        f"serving on http://{config.host}:{config.port}/ — API docs /api/docs/, admin /admin/, "
        "health /health. Ctrl-C stops everything."
    )
    while True:
        for name, process in processes.items():
            if process.poll() is not None:
                _say(f"{name} exited with status {process.returncode}; stopping the others")
                return 1
        time.sleep(0.5)


def suite_state_dir() -> Path:
    """Where the suite's own servers keep their data (never `make run`'s)."""
    return Path(os.environ.get("LOCI_TEST_STATE_DIR", str(BASE_DIR / ".state" / "test"))).resolve()


def test(config: Config, pytest_args: list[str]) -> int:
    state_dir = suite_state_dir()
    pytest: subprocess.Popen[bytes] | None = None

    def forward(signum: int, frame: FrameType | None) -> None:
        if pytest is not None and pytest.poll() is None:
            pytest.send_signal(signum)

    def wait_for_pytest(signum: int, frame: FrameType | None) -> None:
        # Ctrl-C reaches pytest directly (same process group); the launcher waits for it to finish so
        # that the servers are stopped below.
        pass

    # The suite runs on servers of its own: tests never touch `make run`'s data.
    with EmbeddedServers(state_dir, database_url=config.database_url, redis_url=config.redis_url) as servers:
        env = {**os.environ, **servers.environ(), "LOCI_STATE_DIR": str(state_dir)}
        signal.signal(signal.SIGINT, wait_for_pytest)
        signal.signal(signal.SIGTERM, forward)
        pytest = subprocess.Popen([PYTHON, "-m", "pytest", *pytest_args], env=env, cwd=BASE_DIR)
        return pytest.wait()


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test"}:
        sys.stderr.write("usage: python -m memory_site.launcher run | test [pytest args]\n")
        return 2
    try:
        config = load_config()
    except ConfigError as exc:
        sys.stderr.write(f"loci: configuration error: {exc}\n")
        return 2
    if argv[0] == "run":
        return run(config)
    return test(config, argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
