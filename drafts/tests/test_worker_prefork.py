"""A prefork Celery worker loads the Korean analyser once, in its main process before it forks: its children
share those pages copy-on-write (about 570 MB that each child used to load for itself) and draft with them.
What each process holds is measured by `make bench` (docs/BENCHMARKS.md, "Our own cost")."""

from __future__ import annotations

import re

import pytest

from drafts.models import Draft
from drafts.tests.support import inquiry
from drafts.tests.test_worker import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WARM_UP = re.compile(r"drafts\.warm_up_done seconds=[0-9.]+ pid=(\d+) analyser_loaded_now=(True|False)")


def test_prefork_children_inherit_the_analyser_and_draft_with_it(customer, offline_model, celery_worker_factory):
    worker = celery_worker_factory(pool="prefork", concurrency=2)
    ticket = inquiry(customer, "결제하려고 하면 계속 오류가 나요.", category="결제", subject="결제")
    wait_until(
        lambda: Draft.objects.filter(ticket=ticket, status=Draft.Status.GENERATED).exists(),
        what="a draft from a prefork child",
        log_path=worker.log_path,
    )

    def warm_ups() -> dict[int, list[bool]]:
        found: dict[int, list[bool]] = {}
        for pid, loaded in WARM_UP.findall(worker.log_path.read_text(errors="replace")):
            found.setdefault(int(pid), []).append(loaded == "True")
        return found

    wait_until(lambda: len(warm_ups()) == 3, what="the warm-up of the main process and both children")
    by_pid = warm_ups()
    assert by_pid[worker.pid] == [True]  # the main process loaded it, before the fork
    children = {pid: loads for pid, loads in by_pid.items() if pid != worker.pid}
    assert len(children) == 2 and all(loads == [False] for loads in children.values()), by_pid
