"""`python -m chaos` (`make chaos`): the fault suite on production settings, printed and written to
docs/RELIABILITY.md. Exit status 1 when any scenario does not recover with every invariant holding.

    python -m chaos                       # every scenario, full timings (model 0.8 s per call, 15 s cut)
    python -m chaos --quick               # the CI timings
    python -m chaos --only db-cut,redis-aof

The database is CHAOS_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/cs_chaos): dropped, created,
migrated and seeded with the demo shop on every run. Nothing else on the machine is touched.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cs_chaos"


def database_fresh(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the CI timings (a few minutes)")
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    parser.add_argument("--no-doc", action="store_true", help="print only; leave docs/RELIABILITY.md alone")
    args = parser.parse_args(argv)
    # `timeout` and CI runners stop with SIGTERM: turn it into SystemExit so every `finally` stops the stack.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    url = os.environ.get("CHAOS_DATABASE_URL") or DEFAULT_URL
    database_fresh(url)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cs_project.settings.base",
        "DATABASE_URL": url,
        "CS_TODAY": "2026-07-27",
    }
    env.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, env=env, check=True)
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CS_TODAY")})
    os.environ.pop("REDIS_URL", None)  # this process only seeds and checks; it never enqueues

    import django

    django.setup()
    from django.db import connection

    from chaos.report import render, write_doc
    from chaos.suite import CI, FULL, run_suite
    from fixtures.demo import demo_seed

    demo_seed(password="demo1234", knowledge=True)
    timings = CI if args.quick else FULL
    started = time.monotonic()
    results, limits = run_suite(
        settings_dict=connection.settings_dict,
        timings=timings,
        only=[s for s in args.only.split(",") if s] or None,
        progress=lambda m: print(m, flush=True),
    )
    print(render(results, timings, limits))
    print(f"\nsuite took {time.monotonic() - started:.0f} s")
    if not args.no_doc:
        write_doc(BASE_DIR / "docs" / "RELIABILITY.md", results, timings, limits)
        print("written: docs/RELIABILITY.md")
    return 0 if results and limits.get("order_ok") and all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
