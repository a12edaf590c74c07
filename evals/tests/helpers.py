"""What the eval command tests share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings


def manage_py(*args: str, env: dict[str, str], timeout: int) -> subprocess.CompletedProcess:
    """`manage.py <args>` as a shop runs it: a new process in the project's folder, on `env` (without the test
    run's settings module: the command picks its own)."""
    env = {name: value for name, value in env.items() if name != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=Path(settings.BASE_DIR),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def eval_agent_process(*args: str, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`manage.py eval_agent <args>` in a new process, its report in `out`, no progress bar."""
    return manage_py("eval_agent", *args, "--out", str(out), "--no-progress", env=env, timeout=300)
