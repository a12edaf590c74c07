"""What kind of process this is, for work that belongs to servers only (warm-ups at start)."""

from __future__ import annotations

import os
import sys


def serving_process(argv: list[str] | None = None, environ: dict | None = None) -> bool:
    """True in a process that serves the site: runserver's serving child (not the autoreloader's parent),
    or a gunicorn worker. False for tests and every other management command."""
    argv = sys.argv if argv is None else argv
    environ = os.environ if environ is None else environ
    program = os.path.basename(argv[0]) if argv else ""
    if "gunicorn" in program or (len(argv) > 2 and argv[1:3] == ["-m", "gunicorn"]):
        return True
    if "runserver" in argv:
        return environ.get("RUN_MAIN") == "true" or "--noreload" in argv
    return False
