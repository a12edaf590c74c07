"""What the eval commands share: their exit codes, and running a suite — the models checked, the run in the
scratch (or the current) database, the report kept for the admin page, its summary printed."""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from evals.ratings import eval_run_record
from evals.services import EvalUsageError

USAGE = 2
INVALID = 3


def suite_arguments(parser: ArgumentParser, *, name: str, model_help: str, fixture_help: str) -> None:
    """The options both suite commands take besides their own: the model, the shop's fixture, the report folder,
    quiet."""
    parser.add_argument("--model", help=model_help)
    parser.add_argument("--fixture", help=fixture_help)
    parser.add_argument("--out", help=f"report directory (default var/evals/{name}-<time>)")
    parser.add_argument("--no-progress", action="store_true")


def suite_paths(opts: dict, *, name: str) -> tuple[Path | None, Path]:
    """(the fixture, checked to exist, or None; the report folder) from the options of `suite_arguments`."""
    fixture = Path(opts["fixture"]) if opts["fixture"] else None
    if fixture and not fixture.is_file():
        raise CommandError(f"--fixture {fixture}: 파일이 없습니다", returncode=USAGE)
    out = Path(opts["out"] or settings.BASE_DIR / "var" / "evals" / f"{name}-{datetime.now():%Y%m%d-%H%M%S}")
    return fixture, out


def eval_command_run(
    command: BaseCommand,
    *,
    suite: str,
    check: Callable[[], None],
    run: Callable[[], object],
    scratch: Callable[[], AbstractContextManager] | None,
    summary: Callable[[dict], str],
) -> None:
    """Run one suite (`run` returns its outcome: report, json_path, md_path, valid) inside `scratch()` if given,
    keep the report in the shop's own database, print `summary(report)` and the report's paths. A usage error
    exits USAGE; an invalid run exits INVALID after its report is written."""
    try:
        check()
        if scratch is not None:
            with scratch():
                outcome = run()
        else:
            outcome = run()
    except EvalUsageError as exc:
        raise CommandError(str(exc), returncode=USAGE) from exc
    report = outcome.report
    try:  # kept in the shop's own database for the admin page (the scratch database is gone by now)
        eval_run_record(suite=suite, model=str(report["meta"].get("model")), report=report)
    except DatabaseError:
        command.stderr.write(
            "관리 화면에 기록하지 못했습니다: 데이터베이스가 마이그레이션되지 않았습니다 (manage.py migrate)"
        )
    command.stdout.write(summary(report))
    command.stdout.write(f"report: {outcome.json_path} {outcome.md_path}")
    if not outcome.valid:
        raise CommandError(f"무효한 실행: {'; '.join(report['validity']['reasons'])}", returncode=INVALID)
