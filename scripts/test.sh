#!/usr/bin/env bash
# Runs the whole suite twice: on PostgreSQL (+ Redis) where the concurrency tests live, then on the
# embedded SQLite default. Under CI=true a missing PostgreSQL is a failure, never a silent skip.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PG_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/cs_desk}"
mkdir -p test-artifacts

echo "== lint: ruff"
"$PY" -m ruff check .
"$PY" -m ruff format --check .
echo "== layers: import-linter (contracts in pyproject.toml, picture in docs/ARCHITECTURE.md)"
.venv/bin/lint-imports --no-cache

echo "== browser tools: npm ci (axe-core for the accessibility check, pinned in package-lock.json)"
if command -v npm >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error
elif [ "${CI:-}" = "true" ]; then
  echo "CI=true but npm is missing: the accessibility check needs axe-core (package.json)." >&2
  exit 1
else
  echo "npm not found: the accessibility check will be skipped."
fi

pg_up() {
  "$PY" - "$PG_URL" <<'PYEOF'
import sys, psycopg
from urllib.parse import urlsplit, urlunsplit
u = urlsplit(sys.argv[1])
try:
    psycopg.connect(urlunsplit(u._replace(path="/postgres")), connect_timeout=3).close()
except Exception as exc:
    print(f"PostgreSQL not reachable at {u.hostname}:{u.port}: {exc.__class__.__name__}", file=sys.stderr)
    sys.exit(1)
PYEOF
}

if pg_up; then
  echo "== pass 1/2: PostgreSQL ($PG_URL)"
  DATABASE_URL="$PG_URL" "$PY" -m pytest "$@"
elif [ "${CI:-}" = "true" ]; then
  echo "CI=true but PostgreSQL is not reachable: failing instead of skipping its tests." >&2
  exit 1
else
  echo "== pass 1/2 skipped: PostgreSQL not reachable (set TEST_DATABASE_URL)."
fi

echo "== pass 2/2: SQLite (embedded default)"
DATABASE_URL= "$PY" -m pytest -m "not postgres and not redis" "$@"
