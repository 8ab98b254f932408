"""Loci's configuration: every setting comes from the environment, parsed once into typed values.

`load_config()` is the only place that reads `os.environ` for the project's own settings; Django's
settings module copies the result into `django.conf.settings`, which is what apps read. A malformed
value raises `ConfigError` with a one-line message naming the variable; `manage.py` and the launcher
print it and exit with status 2 instead of a traceback.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ConfigError(Exception):
    """A setting in the environment is malformed; the message is one line, fit for a terminal."""


class _Env:
    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def text(self, name: str, default: str) -> str:
        return self.environ.get(name, default).strip() or default

    def optional(self, name: str) -> str | None:
        value = self.environ.get(name, "").strip()
        return value or None

    def integer(self, name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
        raw = self.environ.get(name, "").strip()
        if not raw:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
        if minimum is not None and value < minimum:
            raise ConfigError(f"{name} must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise ConfigError(f"{name} must be at most {maximum}, got {value}")
        return value

    def number(self, name: str, default: float, *, minimum: float = 0.0, maximum: float = 1e9) -> float:
        raw = self.environ.get(name, "").strip()
        if not raw:
            return default
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"{name} must be a number, got {raw!r}") from None
        if not minimum <= value <= maximum:
            raise ConfigError(f"{name} must be between {minimum} and {maximum}, got {value}")
        return value

    def money(self, name: str) -> Decimal | None:
        """An amount in dollars, or None when unset or empty."""
        raw = self.environ.get(name, "").strip()
        if not raw:
            return None
        try:
            value = Decimal(raw)
        except InvalidOperation:
            raise ConfigError(f"{name} must be an amount such as 5 or 12.50, got {raw!r}") from None
        if not value.is_finite() or value < 0:
            raise ConfigError(f"{name} must be an amount of 0 or more, got {raw!r}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        raw = self.environ.get(name)
        if raw is None:
            return default
        lowered = raw.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ConfigError(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}")

    def items(self, name: str, default: list[str]) -> list[str]:
        raw = self.environ.get(name)
        if raw is None or not raw.strip():
            return default
        return [item.strip() for item in raw.split(",") if item.strip()]

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(name, default)
        if value.upper() in choices:
            return value.upper()
        raise ConfigError(f"{name} must be one of {', '.join(choices)}; got {value!r}")

    def url(self, name: str, schemes: tuple[str, ...]) -> str | None:
        value = self.optional(name)
        if value is None:
            return None
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in schemes:
            raise ConfigError(f"{name} must be a URL starting with {' or '.join(s + '://' for s in schemes)}")
        return value


@dataclass(frozen=True)
class Config:
    secret_key: str
    debug: bool
    https: bool
    hsts_seconds: int
    hsts_preload: bool
    allowed_hosts: list[str]
    csrf_trusted_origins: list[str]
    host: str
    port: int
    state_dir: Path
    database_url: str | None
    redis_url: str | None
    log_level: str
    web_concurrency: int
    web_embedding_threads: int
    worker_concurrency: int
    mining_concurrency: int
    worker_nice: int
    api_max_body_bytes: int
    api_page_size: int
    api_max_page_size: int
    api_throttle_rate: str
    api_key_touch_interval: int
    api_key_cache_seconds: int
    fast_lane: bool
    task_soft_time_limit: int
    task_time_limit: int
    job_run_retention_days: int
    working_memory_ttl: int
    working_memory_max_ttl: int
    working_memory_max_bytes: int
    working_memory_max_messages: int
    embedding_provider: str
    embedding_model: str
    embedding_dim: int
    embedding_batch_size: int
    embedding_query_cache_size: int
    embedding_threads: int
    embedding_timeout: int
    openai_base_url: str | None
    openai_api_key: str | None
    llm_model: str | None
    llm_timeout: int
    monthly_budget_usd: Decimal | None
    episode_ttl: int
    kg_single_valued_predicates: list[str]
    embedding_max_tokens: int
    recall_weights: dict[str, float]
    recall_candidates: int
    recall_ef_search: int
    recall_min_similarity: float
    recall_passage_margin: float
    redis_socket_timeout: float
    redis_breaker_seconds: float
    rerank_timeout: int
    context_token_budget: int
    maintenance: dict[str, float]
    maintenance_daily_at: tuple[int, int]
    webhooks_allow_private: bool
    webhooks_retry_for: int
    webhooks_retry_base: float
    webhooks_timeout: float


def _throttle_rate(env: _Env) -> str:
    value = env.text("API_THROTTLE_RATE", "12000/min")
    count, _, period = value.partition("/")
    if not count.isdigit() or period not in {"s", "sec", "m", "min", "h", "hour", "d", "day"}:
        raise ConfigError(f"API_THROTTLE_RATE must look like 1200/min (per s, min, hour or day); got {value!r}")
    return value


def _secret_key(env: _Env, state_dir: Path) -> str:
    configured = env.optional("DJANGO_SECRET_KEY")
    if configured:
        return configured
    # First run without a configured key: generate one into the state folder so sessions survive
    # restarts, and keep it out of the repository (the state folder is git-ignored).
    path = state_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    state_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key


# The maintenance jobs' thresholds (episodic/maintenance.py documents each), as MAINTENANCE_<NAME>.
MAINTENANCE = {
    "short_term_ttl": 3600,  # seconds a short-term entry lives unless its writer says otherwise
    "consolidation_min_access": 3,  # reads after which a short-term entry is promoted to long-term
    "dedup_similarity": 0.92,  # cosine similarity at which two entries are one memory
    "context_rot_staleness": 0.9,  # staleness at which a context entry is archived
    "staleness_half_life_days": 30,  # days without use after which half of an entry's freshness is gone
    "batch_size": 500,  # rows per transaction in every job
}


def _daily_at(env: _Env) -> tuple[int, int]:
    value = env.text("MAINTENANCE_DAILY_AT", "04:00")
    hour, _, minute = value.partition(":")
    if not (hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
        raise ConfigError(f"MAINTENANCE_DAILY_AT must be HH:MM (24 h); got {value!r}")
    return int(hour), int(minute)


# Recall fuses normalised per-signal scores with these weights (palace/recall.py documents each signal).
# `pinned` lifts a relevant pinned drawer over about 0.2 of similarity: above its equals and near rivals,
# never over a much better match.
RECALL_WEIGHTS = {
    "semantic": 1.0,
    "keyword": 0.3,
    "temporal": 0.3,
    "preference": 0.1,
    "pinned": 0.2,
    "speaker": 0.15,
    "entity": 0.2,
}

_DEFAULT_MODELS = {"local": "all-MiniLM-L6-v2-onnx-int8", "openai": "text-embedding-3-small", "hashing": "hashing"}
_DEFAULT_DIMS = {"local": 384, "openai": 1536, "hashing": 384}


def _provider(env: _Env) -> str:
    value = env.text("EMBEDDING_PROVIDER", "local").lower()
    if value not in _DEFAULT_MODELS:
        raise ConfigError(f"EMBEDDING_PROVIDER must be one of {', '.join(_DEFAULT_MODELS)}; got {value!r}")
    return value


def load_config(environ: Mapping[str, str] | None = None) -> Config:
    env = _Env(os.environ if environ is None else environ)
    state_dir = Path(env.text("LOCI_STATE_DIR", str(BASE_DIR / ".state"))).expanduser().resolve()
    host = env.text("MEMORY_HOST", "127.0.0.1")
    port = env.integer("MEMORY_PORT", 8002, minimum=1, maximum=65535)
    default_hosts = ["localhost", "127.0.0.1", "[::1]", host]
    soft_limit = env.integer("CELERY_TASK_SOFT_TIME_LIMIT", 300, minimum=1)
    hard_limit = env.integer("CELERY_TASK_TIME_LIMIT", 360, minimum=1)
    if hard_limit <= soft_limit:
        raise ConfigError("CELERY_TASK_TIME_LIMIT must be greater than CELERY_TASK_SOFT_TIME_LIMIT")
    page_size = env.integer("API_PAGE_SIZE", 50, minimum=1, maximum=1000)
    max_page_size = env.integer("API_MAX_PAGE_SIZE", 200, minimum=1, maximum=1000)
    if page_size > max_page_size:
        raise ConfigError("API_PAGE_SIZE must not be greater than API_MAX_PAGE_SIZE")
    provider = _provider(env)
    return Config(
        embedding_provider=provider,
        embedding_model=env.text("EMBEDDING_MODEL", _DEFAULT_MODELS[provider]),
        embedding_dim=env.integer("EMBEDDING_DIM", _DEFAULT_DIMS[provider], minimum=2, maximum=16000),
        embedding_batch_size=env.integer("EMBEDDING_BATCH_SIZE", 16, minimum=1, maximum=256),
        embedding_query_cache_size=env.integer("EMBEDDING_QUERY_CACHE_SIZE", 2048, minimum=0, maximum=1_000_000),
        embedding_threads=env.integer("EMBEDDING_THREADS", 2, minimum=1, maximum=64),
        embedding_timeout=env.integer("EMBEDDING_TIMEOUT", 20, minimum=1),
        openai_base_url=env.url("OPENAI_BASE_URL", ("http", "https")),
        openai_api_key=env.optional("OPENAI_API_KEY"),
        llm_model=env.optional("LLM_MODEL"),
        llm_timeout=env.integer("LLM_TIMEOUT", 30, minimum=1),
        monthly_budget_usd=env.money("MEMORY_MONTHLY_BUDGET_USD"),
        episode_ttl=env.integer("EPISODE_TTL", 30 * 86400, minimum=60),
        kg_single_valued_predicates=env.items(
            "KG_SINGLE_VALUED_PREDICATES",
            ["has_battery", "lives_in", "works_at", "married_to", "has_role", "has_status", "located_in", "uses"],
        ),
        embedding_max_tokens=env.integer("EMBEDDING_MAX_TOKENS", 128, minimum=16, maximum=512),
        recall_weights={
            signal: env.number(f"RECALL_WEIGHT_{signal.upper()}", default, maximum=10.0)
            for signal, default in RECALL_WEIGHTS.items()
        },
        recall_candidates=env.integer("RECALL_CANDIDATES", 100, minimum=10, maximum=2000),
        recall_ef_search=env.integer("RECALL_EF_SEARCH", 40, minimum=10, maximum=1000),
        recall_min_similarity=env.number("RECALL_MIN_SIMILARITY", 0.2, minimum=-1.0, maximum=1.0),
        # A sentence matches a query more closely than a whole turn of the same meaning; 0.08 is the middle of
        # the range (0.06-0.11) that helped the hard dev cases without costing a dev question (bench README).
        recall_passage_margin=env.number("RECALL_PASSAGE_MARGIN", 0.08, minimum=0.0, maximum=1.0),
        redis_socket_timeout=env.number("REDIS_SOCKET_TIMEOUT", 0.5, minimum=0.05, maximum=30.0),
        redis_breaker_seconds=env.number("REDIS_BREAKER_SECONDS", 2.0, minimum=0.1, maximum=60.0),
        rerank_timeout=env.integer("RERANK_TIMEOUT", 10, minimum=1),
        context_token_budget=env.integer("CONTEXT_TOKEN_BUDGET", 1500, minimum=50, maximum=200000),
        maintenance={
            name: env.number(f"MAINTENANCE_{name.upper()}", default, minimum=0.0, maximum=1e7)
            for name, default in MAINTENANCE.items()
        },
        maintenance_daily_at=_daily_at(env),
        webhooks_allow_private=env.boolean("WEBHOOKS_ALLOW_PRIVATE", False),
        webhooks_retry_for=env.integer("WEBHOOKS_RETRY_FOR", 24 * 3600, minimum=0),
        webhooks_retry_base=env.number("WEBHOOKS_RETRY_BASE", 5.0, minimum=0.01, maximum=3600),
        webhooks_timeout=env.number("WEBHOOKS_TIMEOUT", 10.0, minimum=0.1, maximum=60),
        secret_key=_secret_key(env, state_dir),
        debug=env.boolean("DJANGO_DEBUG", False),
        https=env.boolean("DJANGO_HTTPS", False),
        hsts_seconds=env.integer("DJANGO_HSTS_SECONDS", 31_536_000, minimum=0),
        hsts_preload=env.boolean("DJANGO_HSTS_PRELOAD", False),
        allowed_hosts=env.items("DJANGO_ALLOWED_HOSTS", default_hosts),
        csrf_trusted_origins=env.items("CSRF_TRUSTED_ORIGINS", []),
        host=host,
        port=port,
        state_dir=state_dir,
        database_url=env.url("DATABASE_URL", ("postgres", "postgresql")),
        redis_url=env.url("REDIS_URL", ("redis", "rediss", "unix")),
        log_level=env.choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR")),
        web_concurrency=env.integer("WEB_CONCURRENCY", 2, minimum=1, maximum=64),
        web_embedding_threads=env.integer("WEB_EMBEDDING_THREADS", 1, minimum=1, maximum=64),
        worker_concurrency=env.integer("CELERY_WORKER_CONCURRENCY", 2, minimum=1, maximum=64),
        mining_concurrency=env.integer("CELERY_MINING_CONCURRENCY", 2, minimum=1, maximum=64),
        worker_nice=env.integer("WORKER_NICE", 10, minimum=0, maximum=19),
        api_max_body_bytes=env.integer("API_MAX_BODY_BYTES", 5 * 1024 * 1024, minimum=1024),
        api_page_size=page_size,
        api_max_page_size=max_page_size,
        api_throttle_rate=_throttle_rate(env),
        api_key_touch_interval=env.integer("API_KEY_TOUCH_INTERVAL", 60, minimum=1),
        api_key_cache_seconds=env.integer("API_KEY_CACHE_SECONDS", 60, minimum=1, maximum=3600),
        fast_lane=env.boolean("FAST_LANE", True),
        task_soft_time_limit=soft_limit,
        task_time_limit=hard_limit,
        job_run_retention_days=env.integer("JOB_RUN_RETENTION_DAYS", 30, minimum=1),
        working_memory_ttl=env.integer("WORKING_MEMORY_TTL", 86400, minimum=1),
        working_memory_max_ttl=env.integer("WORKING_MEMORY_MAX_TTL", 30 * 86400, minimum=1),
        working_memory_max_bytes=env.integer("WORKING_MEMORY_MAX_BYTES", 64 * 1024, minimum=1024),
        working_memory_max_messages=env.integer("WORKING_MEMORY_MAX_MESSAGES", 200, minimum=1, maximum=10000),
    )
