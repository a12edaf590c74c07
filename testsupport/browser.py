"""The headless Chromium the browser tests (and the live-lists benchmark) drive: where it is, how it is started,
and what a test does when it is missing (skip; fail under CI=true)."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("CS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def browser_require(what: str, ok: bool) -> None:
    """Skip the browser test without `what` (fail under CI=true, where it must run)."""
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true: {what} is required for the browser test (see .ci/run)")
    pytest.skip(f"{what} not available")
