#!/usr/bin/env bash
# Runs the whole suite twice: on PostgreSQL (+ Redis) where the concurrency tests live, and on the
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

sqlite_pass() {
  DATABASE_URL= "$PY" -m pytest -m "not postgres and not redis" "$@"
}

if pg_up; then
  # The two passes share nothing (another database, no Redis in the SQLite one), so they run side by side:
  # on two cores the suite takes the time of the longer pass, not of both. The SQLite pass writes to a log
  # that is printed when it ends; CS_TEST_SERIAL=1 runs them one after the other instead.
  if [ "${CS_TEST_SERIAL:-}" = "1" ]; then
    echo "== pass 1/2: PostgreSQL ($PG_URL)"
    DATABASE_URL="$PG_URL" "$PY" -m pytest "$@"
    echo "== pass 2/2: SQLite (embedded default)"
    sqlite_pass "$@"
    exit 0
  fi
  echo "== passes 1/2 (PostgreSQL, $PG_URL) and 2/2 (SQLite, embedded default) side by side"
  sqlite_log=test-artifacts/sqlite-pass.log
  sqlite_pass "$@" >"$sqlite_log" 2>&1 &
  sqlite_pid=$!
  trap 'kill "$sqlite_pid" 2>/dev/null || true' EXIT
  pg_rc=0
  DATABASE_URL="$PG_URL" "$PY" -m pytest "$@" || pg_rc=$?
  sqlite_rc=0
  wait "$sqlite_pid" || sqlite_rc=$?
  trap - EXIT
  echo "== pass 2/2: SQLite (embedded default), its output:"
  cat "$sqlite_log"
  echo "== PostgreSQL pass exit $pg_rc, SQLite pass exit $sqlite_rc"
  [ "$pg_rc" = 0 ] && [ "$sqlite_rc" = 0 ]
  exit
elif [ "${CI:-}" = "true" ]; then
  echo "CI=true but PostgreSQL is not reachable: failing instead of skipping its tests." >&2
  exit 1
fi
echo "== pass 1/2 skipped: PostgreSQL not reachable (set TEST_DATABASE_URL)."
echo "== pass 2/2: SQLite (embedded default)"
sqlite_pass "$@"
