"""Production: behind a TLS-terminating proxy, PostgreSQL + Redis + Celery worker. `manage.py check --deploy`
is clean with these settings (ops/tests/test_production.py). See the README, "Production mode and configuration"."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F401,F403
from .base import env, env_bool

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env("SECRET_KEY")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set in production.")
# The base default (127.0.0.1, localhost) is for development only: say which host names this site answers.
if not env("ALLOWED_HOSTS"):
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set in production (comma-separated host names).")
# Origins allowed to POST forms (the admin) when they differ from the Host header, e.g. https://cs.example.com
CSRF_TRUSTED_ORIGINS = [o.strip() for o in (env("CSRF_TRUSTED_ORIGINS", "") or "").split(",") if o.strip()]

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Login throttling counts per client address: behind the one TLS proxy, that is the address it appends.
CS_TRUSTED_PROXY_COUNT = int(env("CS_TRUSTED_PROXY_COUNT", "1"))
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
# Load balancers and orchestrators probe over plain HTTP inside the network: answer them, do not redirect.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
X_FRAME_OPTIONS = "DENY"
