"""Settings shared by every mode. Everything that differs between machines comes from the environment."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def env_bool(name: str, default: bool) -> bool:
    value = env(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_float(name: str, default: float) -> float:
    value = env(name)
    return float(value) if value is not None else default


SECRET_KEY = env("SECRET_KEY", "dev-insecure-key-change-me")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = [h.strip() for h in (env("ALLOWED_HOSTS", "127.0.0.1,localhost") or "").split(",") if h.strip()]

INSTALLED_APPS = [
    "metrics",  # before django.contrib.admin: its admin/index.html adds the dashboard link
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "common",
    "privacy",  # the access log, below every app that shows customer data
    "accounts",
    "orders",
    "actions",
    "tickets",
    "llm",
    "chat",
    "knowledge",
    "diagnostics",
    "drafts",
    "web",
    "ops",
    "integration",  # a face: the shop connection (orders in, events out, signed sessions)
    "evals",  # a face: measures chat and drafts; nothing imports it
    "fixtures",  # a face: seed_demo / reset_demo seed every app through its services
    "retention",  # a face: retention by rule and customers' data requests read and change every app
]

MIDDLEWARE = [
    "common.outage.OutageMiddleware",  # first: /api/ outages answer JSON 503 + Retry-After, never an HTML page
    "django.middleware.security.SecurityMiddleware",
    "common.middleware.ApiErrorMiddleware",  # every /api/ error as JSON {code, detail}, oversize bodies → 413
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Writes the access records a request collected, once, after the response is sent (privacy.access).
    "privacy.middleware.AccessLogMiddleware",
    # Last, as django-axes asks: turns a locked-out admin login into its 429 answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "cs_project.urls"
WSGI_APPLICATION = "cs_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],  # every template lives in its own app's templates/
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

# --- Database -------------------------------------------------------------------------------
# DATABASE_URL selects the engine. Unset: an embedded SQLite file under var/, in WAL mode with
# IMMEDIATE transactions so concurrent writers queue on the lock instead of failing.
SQLITE_PATH = BASE_DIR / "var" / "db.sqlite3"
DATABASE_URL = env("DATABASE_URL")


def database_config(url: str | None, sqlite_path: Path) -> dict:
    if url:
        pool_size = int(env("DATABASE_POOL_MAX_SIZE", "0") or 0)
        if pool_size and url.startswith(("postgres://", "postgresql://")):
            # psycopg's pool: a thread's connection goes back to the pool on close instead of being torn down,
            # so the pipeline's short-lived threads stop paying for a new PostgreSQL connection each time.
            # Keep it above the worker concurrency plus the web threads.
            config = dj_database_url.parse(url, conn_max_age=0)
            config.setdefault("OPTIONS", {})["pool"] = {"min_size": 2, "max_size": pool_size, "timeout": 10}
        else:
            config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    else:
        sqlite_path.parent.mkdir(parents=True, exist_ok=True)  # var/ is not in git
        config = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(sqlite_path)}
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config.setdefault("OPTIONS", {}).update(
            {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            }
        )
    return config


DATABASES = {"default": database_config(DATABASE_URL, SQLITE_PATH)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Accounts -----------------------------------------------------------------------------------
# django-axes checks every password login (the API token endpoint and the admin form) first: after
# CS_LOGIN_FAILURE_LIMIT failures within CS_LOGIN_LOCKOUT_MINUTES, for one username (however typed) or from one
# address, further tries answer 429 with Retry-After until the lockout lifts. Unlock: `manage.py axes_reset`,
# `axes_reset_username <name>` or `axes_reset_ip <address>`.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "accounts.backends.CaseInsensitiveModelBackend",  # C003 and c003 are the same login
]
AXES_USERNAME_CALLABLE = "accounts.backends.axes_username"
AXES_FAILURE_LIMIT = int(env("CS_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=env_float("CS_LOGIN_LOCKOUT_MINUTES", 15.0))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one reaching the limit locks
# Tries during a lockout are refused without extending it, so Retry-After is the truth.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success does not clear the counters: it would also clear the address's, which a second account would abuse.
AXES_RESET_ON_SUCCESS = False
AXES_USERNAME_CALLABLE = "accounts.throttle.client_username"
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_ip"
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
# Behind a reverse proxy, the number of proxies that append to X-Forwarded-For (0: use REMOTE_ADDR).
CS_TRUSTED_PROXY_COUNT = int(env("CS_TRUSTED_PROXY_COUNT", "0"))
# API tokens: a new one per login, valid this long; at most this many live per user (other devices stay signed in).
CS_AUTH_TOKEN_TTL_HOURS = env_float("CS_AUTH_TOKEN_TTL_HOURS", 12.0)
CS_AUTH_TOKENS_PER_USER = int(env("CS_AUTH_TOKENS_PER_USER", "10"))

LANGUAGE_CODE = "ko-kr"
# The desk speaks Korean only: LocaleMiddleware may not switch to the browser's language (an English browser got
# Django's admin chrome in English around our Korean labels).
LANGUAGES = [("ko", "한국어")]
# Our corrections to Django's Korean admin titles (locale/ko/LC_MESSAGES/django.po; `msgfmt` builds the .mo).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Seoul"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
LOGIN_URL = "/admin/login/"

# --- Domain -------------------------------------------------------------------------------------
# CS_TODAY pins "today" (YYYY-MM-DD) for demos and tests; unset means today's date in Asia/Seoul.
CS_TODAY = env("CS_TODAY")
# CS_NOW pins "now" (ISO datetime with offset, e.g. 2026-08-14T17:00:00+09:00) for the ticket desk's clock
# (timestamps, SLA due times and states): tests and demos only. Unset means the real clock.
CS_NOW = env("CS_NOW")
CS_DEMO_PASSWORD = env("CS_DEMO_PASSWORD", "demo1234")
# The return windows, in days after delivery: change of mind (단순변심), and defect or wrong item
# (상품하자·오배송). Read at each decision (actions.selectors.return_windows).
CS_RETURN_DAYS = int(env("CS_RETURN_DAYS", "7") or 7)
CS_DEFECT_DAYS = int(env("CS_DEFECT_DAYS", "30") or 30)
FIXTURES_DIR = BASE_DIR / "fixtures"

# --- Working as a team: business hours, SLA, assignment, presence ------------------------------------
# Business hours in Asia/Seoul (common.business_hours): open weekdays (Monday = 0), opening–closing, and the
# days the desk is closed. They drive the SLA clocks, the statutory refund deadline (business days) and the
# after-hours notice customers read. The holiday list is the shop's to keep: add next year's before it starts.
CS_BUSINESS_DAYS = [int(d) for d in (env("CS_BUSINESS_DAYS", "0,1,2,3,4") or "").split(",") if d.strip()]
CS_BUSINESS_HOURS = tuple((env("CS_BUSINESS_HOURS", "09:00-18:00") or "09:00-18:00").split("-", 1))
CS_HOLIDAYS = [
    d.strip()
    for d in (
        env(
            "CS_HOLIDAYS",
            # 2026 public holidays in Korea (관공서의 공휴일에 관한 규정, with substitute days) and 노동절(5/1).
            "2026-01-01,2026-02-16,2026-02-17,2026-02-18,2026-03-02,2026-05-01,2026-05-05,2026-05-25,"
            "2026-06-03,2026-08-17,2026-09-24,2026-09-25,2026-09-26,2026-10-05,2026-10-09,2026-12-25",
        )
        or ""
    ).split(",")
    if d.strip()
]
# Targets per priority in business minutes, as Zammad (first response / update / solution), RT and Intercom
# (first reply, next reply, time to close) define them: the first operator reply, the reply after each customer
# follow-up, and closing. The resolution clock stops while the ticket waits on the customer (답변완료).
CS_SLA_TARGETS = {
    "URGENT": {"first_response": 30, "next_response": 60, "resolution": 4 * 60},
    "HIGH": {"first_response": 2 * 60, "next_response": 4 * 60, "resolution": 9 * 60},
    "NORMAL": {"first_response": 9 * 60, "next_response": 9 * 60, "resolution": 3 * 9 * 60},
    "LOW": {"first_response": 2 * 9 * 60, "next_response": 2 * 9 * 60, "resolution": 5 * 9 * 60},
}
# A running clock is "at risk" when no more than this share of its target is left.
CS_SLA_AT_RISK_SHARE = env_float("CS_SLA_AT_RISK_SHARE", 0.25)
# An answered ticket (waiting on the customer) with no customer reply for this many days is closed by the sweep.
CS_AUTO_CLOSE_DAYS = env_float("CS_AUTO_CLOSE_DAYS", 7.0)
# Retention by rule (retention.policy): each rule's period in years may be lengthened here (JSON, e.g.
# {"COMPLAINT": 4}); a shorter one than the law's is ignored. The sweep treats at most CS_RETENTION_BATCH expired
# rows per kind per pass, so a backlog is worked off in bounded steps.
CS_RETENTION_YEARS = json.loads(env("CS_RETENTION_YEARS", "{}") or "{}")
CS_RETENTION_BATCH = int(env("CS_RETENTION_BATCH", "500") or 500)
# "round_robin": a new ticket goes to the available operator (admin header toggle) who got one least recently.
# Unset: tickets wait unassigned until someone takes them.
CS_AUTO_ASSIGN = env("CS_AUTO_ASSIGN", "")
# --- Telling the customer an answer came -------------------------------------------------------------
# Where customers open the desk: the thread link in the reply e-mail and in the shop's `ticket.replied` event.
CS_PUBLIC_BASE_URL = (env("CS_PUBLIC_BASE_URL", "http://127.0.0.1:8000") or "").rstrip("/")
# Django's mail framework sends the reply notices (an outbox record each, never inline): printed to the console
# unless EMAIL_BACKEND says otherwise (django.core.mail.backends.smtp.EmailBackend with EMAIL_HOST, …).
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env("EMAIL_PORT", "25") or 25)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "CS 데스크 <no-reply@localhost>")
# Who else has a ticket open: a heartbeat lasts this long (Redis with a TTL when REDIS_URL is set, else a table).
CS_PRESENCE_TTL_S = int(env("CS_PRESENCE_TTL_S", "30") or 30)

# --- Operator drafts -----------------------------------------------------------------------------
# Off: no new AI processing at all (and nothing falls back to another path).
CS_AI_DRAFTS_ENABLED = env_bool("CS_AI_DRAFTS_ENABLED", True)
# On: every pipeline stage waits for the previous one (the benchmark's "before" contrast only).
CS_AI_PIPELINE_SEQUENTIAL = env_bool("CS_AI_PIPELINE_SEQUENTIAL", False)
# The draft task's time limits (seconds): soft (the run is interrupted) and hard (the process is killed).
CS_AI_TASK_SOFT_TIME_LIMIT_S = int(env("CS_AI_TASK_SOFT_TIME_LIMIT_S", "150"))
CS_AI_TASK_TIME_LIMIT_S = int(env("CS_AI_TASK_TIME_LIMIT_S", "180"))
# Per-ticket lease (seconds): a crashed worker blocks its ticket at most this long. Must hold:
# draft task time limit < lease < broker visibility timeout (system check drafts.E001, `doctor`).
CS_AI_LEASE_S = int(env("CS_AI_LEASE_S", "200"))
# A run that finds the ticket's lease taken tries again when the lease's remaining lifetime ends; it gives up
# (dead letter) only after waiting this long in total, never after a count of attempts ...
CS_AI_LEASE_WAIT_S = int(env("CS_AI_LEASE_WAIT_S", str(3 * CS_AI_LEASE_S)))
# ... looking again every CS_AI_LEASE_POLL_S at most (a live holder releases early), never later than the lease's end.
CS_AI_LEASE_POLL_S = env_float("CS_AI_LEASE_POLL_S", 2.0)
# Database / broker errors during a run: retried with exponential backoff (1, 2, 4 ... s, capped) this many times.
CS_AI_TRANSIENT_RETRIES = int(env("CS_AI_TRANSIENT_RETRIES", "8"))
CS_AI_TRANSIENT_BACKOFF_MAX_S = int(env("CS_AI_TRANSIENT_BACKOFF_MAX_S", "60"))
# Model outages: a draft with a FAILED stage is retried by the sweep after base·2^(runs-1) s (capped) until it
# has run CS_AI_FAILED_RETRY_LIMIT times (the same limit stops re-running a draft that never finishes); then it
# is left for people (`regenerate_drafts --failed`, the admin's retry button).
CS_AI_FAILED_RETRY_LIMIT = int(env("CS_AI_FAILED_RETRY_LIMIT", "5"))
CS_AI_FAILED_RETRY_BASE_S = int(env("CS_AI_FAILED_RETRY_BASE_S", "30"))
CS_AI_FAILED_RETRY_MAX_S = int(env("CS_AI_FAILED_RETRY_MAX_S", "600"))

# --- Self-healing: the outbox and the periodic sweep ---------------------------------------------------
# Every CS_SWEEP_INTERVAL_S the sweep dispatches outbox rows never handed to the broker and re-requests every
# latest input on an open ticket with no live, complete draft once it has been quiet for CS_SWEEP_GRACE_S.
# Celery beat runs it (`celery -A cs_project worker -B`, or `celery -A cs_project beat`); in embedded mode a
# thread in the web process does (CS_SWEEP_EMBEDDED).
# Open admin lists ask /admin/live/ every few seconds (cs_project/live.py). Each server process reuses a session's
# permission check for CS_LIVE_GRANT_S (logout or a revoked permission takes effect within it) and a computed
# change cursor for CS_LIVE_CURSOR_CACHE_S (added to the delay at most), so a 304 costs no query at all.
CS_LIVE_GRANT_S = env_float("CS_LIVE_GRANT_S", 10.0)
CS_LIVE_CURSOR_CACHE_S = env_float("CS_LIVE_CURSOR_CACHE_S", 0.5)
CS_SWEEP_INTERVAL_S = env_float("CS_SWEEP_INTERVAL_S", 30.0)
CS_SWEEP_GRACE_S = env_float("CS_SWEEP_GRACE_S", 90.0)
CS_SWEEP_EMBEDDED = env_bool("CS_SWEEP_EMBEDDED", True)
# Embedded mode: a served process dispatches committed outbox rows (the draft pipeline) on a background thread
# after the response, not inside the customer's request (ops.background).
CS_OUTBOX_BACKGROUND = env_bool("CS_OUTBOX_BACKGROUND", True)
# Load the Korean analyser and the retrieval index when a server process starts (runserver, gunicorn).
CS_WARM_UP_ON_START = env_bool("CS_WARM_UP_ON_START", True)
CS_OUTBOX_MAX_ATTEMPTS = int(env("CS_OUTBOX_MAX_ATTEMPTS", "20"))
CS_OUTBOX_BACKOFF_BASE_S = env_float("CS_OUTBOX_BACKOFF_BASE_S", 5.0)
CS_OUTBOX_BACKOFF_MAX_S = env_float("CS_OUTBOX_BACKOFF_MAX_S", 300.0)
CS_OUTBOX_CLAIM_S = env_float("CS_OUTBOX_CLAIM_S", 60.0)
# Finished outbox rows are deleted this long after they are done (by the sweep); a webhook's delivery row is
# kept with its event (outbox_register(keep_done=True)).
CS_OUTBOX_RETENTION_DAYS = env_float("CS_OUTBOX_RETENTION_DAYS", 30.0)
# Shop connection (integration app): webhook delivery attempts before DEAD, the POST timeout, how long a
# handed-over delivery may go unfinished before the sweep sends it again, and how far ahead a shop-signed
# session may expire.
CS_WEBHOOK_MAX_ATTEMPTS = int(env("CS_WEBHOOK_MAX_ATTEMPTS", "12"))
CS_WEBHOOK_TIMEOUT_S = env_float("CS_WEBHOOK_TIMEOUT_S", 5.0)
CS_WEBHOOK_REDELIVER_S = env_float("CS_WEBHOOK_REDELIVER_S", 300.0)
CS_SHOP_SESSION_MAX_AHEAD_S = int(env("CS_SHOP_SESSION_MAX_AHEAD_S", "600"))
# Webhooks go to public addresses only: a URL that is, or resolves at connect time to, a loopback, link-local
# (cloud metadata), private, unspecified, multicast or reserved address is refused (integration.outbound).
# On for local development, the tests and the benchmark (their shop receives on 127.0.0.1); off in production.
CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = env_bool("CS_WEBHOOK_ALLOW_PRIVATE_TARGETS", False)

# --- Personal data (개인정보 보호법) ----------------------------------------------------------------
# Access records (who viewed, listed, changed or exported a customer's data) are kept this many days: two years
# by default, never less than one (privacy.policy). The retention sweep purges older ones through
# privacy.services.access_records_purge and reads the period from privacy.services.access_log_retention_days.
CS_ACCESS_LOG_RETENTION_DAYS = int(env("CS_ACCESS_LOG_RETENTION_DAYS", "730") or 730)

# --- Redis / Celery -----------------------------------------------------------------------------
# REDIS_URL unset = embedded mode: tasks run in-process after commit, locks fall back to the DB.
REDIS_URL = env("REDIS_URL")
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# An unacked task (its worker died) is redelivered after this many seconds; keep it above every time limit.
# Workers sweep for such tasks every CELERY_RESTORE_INTERVAL_S seconds (kombu's default would be ~100 s).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(env("CELERY_VISIBILITY_TIMEOUT_S", "600")),
    "unacked_restore_interval": int(env("CELERY_RESTORE_INTERVAL_S", "10")),
    "unacked_restore_throttle": 1,
}
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_TASK_DEFAULT_QUEUE", "celery")
# The sweep, on Celery beat. A sweep not started within one interval is dropped: the next one does its work.
CELERY_BEAT_SCHEDULE = {
    "cs-sweep": {
        "task": "ops.sweep",
        "schedule": CS_SWEEP_INTERVAL_S,
        "options": {"expires": CS_SWEEP_INTERVAL_S},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = env("CELERY_BEAT_SCHEDULE_FILENAME", str(BASE_DIR / "var" / "celerybeat-schedule"))
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE

# --- API --------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "common.apis.exception_handler",
    # JSON only: the browsable API would answer errors as HTML to a browser's Accept header.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # JSON only, as documented: a form body answers 415. (Form encoding has no null, so a form's empty field
    # slipped past the schema: schemathesis found `conversation_id=` accepted as "no conversation".) Ours
    # answers 400 (not 500) to JSON nested deep enough to overflow the stack, and bounds the body size.
    "DEFAULT_PARSER_CLASSES": ["common.parsers.JSONParser"],
    "DEFAULT_THROTTLE_RATES": {
        "chat": env("CS_CHAT_THROTTLE", "30/min"),
        "customer": env("CS_API_THROTTLE", "240/min"),
        # Follow-ups on one's tickets: each reopens the ticket and asks for a new draft.
        "ticket_message": env("CS_TICKET_MESSAGE_THROTTLE", "10/min"),
    },
}
# Request bodies above this many bytes answer 413 (Django's default, stated: DRF's parsers bypass it,
# common.parsers.JSONParser and common.middleware enforce it for /api/).
DATA_UPLOAD_MAX_MEMORY_SIZE = int(env("CS_MAX_BODY_BYTES", str(2_621_440)) or 2_621_440)

# Model-call budget per customer (chat turns, and the drafts their inquiries and follow-ups start).
# Counted in the cache (Redis in production, shared by every worker); fails open when the cache is down.
CS_MODEL_BUDGET_PER_MINUTE = int(env("CS_MODEL_BUDGET_PER_MINUTE", "20") or 20)
CS_MODEL_BUDGET_PER_DAY = int(env("CS_MODEL_BUDGET_PER_DAY", "300") or 300)
# What one inquiry or follow-up costs against that budget: the draft pipeline's model calls
# (draft, QA, confidence, tags; diagnosis only for error reports).
CS_MODEL_BUDGET_DRAFT_COST = int(env("CS_MODEL_BUDGET_DRAFT_COST", "4") or 4)
# The metrics page and `cs_metrics` report at most this many days at once.
CS_METRICS_MAX_DAYS = int(env("CS_METRICS_MAX_DAYS", "366") or 366)
SPECTACULAR_SETTINGS = {
    "TITLE": "CS Desk API",
    "DESCRIPTION": "고객 셀프서비스 채팅과 상담 보조 API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The public schema documents the customer API; staff endpoints are in /api/ops/schema/ (staff only).
    "PREPROCESSING_HOOKS": ["common.schema.exclude_staff_endpoints"],
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI assets come from the sidecar package, not a CDN: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # common.converters: `id` is an integer in ASCII digits; public numbers only in their canonical form
    # (common.numbering.number_pattern, written out here: settings import no app code); the others document
    # their regex.
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "minimum": 0, "maximum": 999_999_999_999},
        "shop_key": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,19}$"},
        "ticket_number": {
            "type": "string",
            "pattern": "^T(?:[0-9]{5}|[1-9][0-9]{5,11})$",
            "description": "티켓번호: T와 다섯 자리 숫자(예: T00012), 99999 다음은 앞자리 0 없이(T100000). "
            "다른 형태(T12, t00012, T000012)는 404.",
        },
        "action_number": {
            "type": "string",
            "pattern": "^A(?:[0-9]{5}|[1-9][0-9]{5,11})$",
            "description": "처리번호: A와 다섯 자리 숫자(예: A00012), 99999 다음은 앞자리 0 없이(A100000). "
            "다른 형태(A12, 12, a00012)는 404.",
        },
    },
    # Every /api/ operation lists its error statuses with the shared Error body.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.openapi.add_error_responses",
    ],
    "ENUM_NAME_OVERRIDES": {
        "OrderStatusEnum": "orders.models.Order.Status",
        "ActionStatusEnum": "actions.models.ActionRecord.Status",
        "TicketStatusEnum": "tickets.models.Ticket.Status",
        "TicketCategoryEnum": "tickets.models.Ticket.Category",
        "TicketCategoryInputEnum": "tickets.apis.CATEGORY_INPUT_CHOICES",
    },
}

# Seconds an /api/ client is told to wait (Retry-After) when a backing service is down (common/outage.py).
CS_OUTAGE_RETRY_AFTER_S = int(env("CS_OUTAGE_RETRY_AFTER_S", "10"))

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cs-desk"}}
if REDIS_URL:
    # Bounded socket waits: a Redis that stops answering costs a request 2 s, not a hung worker thread.
    CACHES = {
        "default": {
            "BACKEND": "common.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }

# --- Model gateway --------------------------------------------------------------------------------
OPENAI_API_KEY = env("OPENAI_API_KEY")
OPENAI_BASE_URL = env("OPENAI_BASE_URL")
CS_LLM_MODEL = env("CS_LLM_MODEL", "gpt-4o-mini")
CS_LLM_FALLBACK_MODEL = env("CS_LLM_FALLBACK_MODEL", "gpt-4o")
CS_LLM_TIMEOUT_S = env_float("CS_LLM_TIMEOUT_S", 30.0)
# For the disclosure of what leaves for the model (manage.py privacy_disclosure, llm.disclosure): the country the
# endpoint processes in (e.g. 미국), who runs it (e.g. OpenAI, L.L.C.), and how long it keeps requests. Unset reads
# "알 수 없음" in the disclosure: find out and set them before publishing it.
CS_LLM_ENDPOINT_COUNTRY = env("CS_LLM_ENDPOINT_COUNTRY", "")
CS_LLM_ENDPOINT_OPERATOR = env("CS_LLM_ENDPOINT_OPERATOR", "")
CS_LLM_ENDPOINT_RETENTION = env("CS_LLM_ENDPOINT_RETENTION", "")
# "json_schema" (OpenAI, vLLM, Ollama) or "json_object" (servers that reject json_schema).
CS_LLM_STRUCTURED_MODE = env("CS_LLM_STRUCTURED_MODE", "json_schema")

# Key/value lines (logfmt) for web, worker and model calls: `ops.logs` renders stdlib records through
# structlog's ProcessorFormatter and masks phone numbers, e-mails, addresses and tokens that slip through.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"kv": {"()": "ops.logs.kv_formatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "kv"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        # The HTTP client logs every request line; our own llm.call event already says what matters.
        "httpx2": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "httpcore2": {"level": "WARNING"},
        # At DEBUG the SDK logs whole request options, i.e. prompts with customer messages.
        "openai": {"level": "INFO"},
        # At DEBUG (with DEBUG=True) Django logs every SQL statement with its parameters: addresses,
        # message bodies, tokens. Never let LOG_LEVEL=DEBUG turn that on.
        "django.db.backends": {"level": "INFO"},
    },
}
