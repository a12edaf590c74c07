"""The floors of docs/ARCHITECTURE.md hold: the import-linter contracts pass, and no app hides an import of
another app inside a function (the way a cycle used to be held together) without saying why."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
APPS = (
    "common privacy accounts orders llm actions tickets knowledge diagnostics chat drafts "
    "cs_project web metrics ops evals fixtures integration retention bench"
).split()
# chaos/ (the fault harness) is left out: its scenario module runs against a stack it starts itself.
# Packages that configure Django themselves at run time (`python -m bench` picks its settings, then sets Django
# up) import the apps inside their functions by design: the hidden-cycle check passes over them.
SETS_DJANGO_UP_ITSELF = {"bench"}


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "4 kept, 0 broken" in done.stdout
    assert "Production modules do not import the benchmarks KEPT" in done.stdout


def test_the_contracts_cover_every_app():
    """An app left out of the graph is under no contract: every package this test walks (the measuring bench and
    the shop connection included) is a root package, on a floor, and forbidden to the production code below it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert set(APPS) <= set(config["root_packages"])
    contracts = {contract["id"]: contract for contract in config["contracts"]}
    floors = {app.strip() for layer in contracts["floors"]["layers"] for app in layer.replace("|", ":").split(":")}
    assert set(APPS) <= floors
    assert contracts["floors"]["layers"][0] == "bench"
    assert contracts["no-bench-in-production"]["forbidden_modules"] == ["bench"]
    assert set(contracts["no-bench-in-production"]["source_modules"]) == set(config["root_packages"]) - {"bench"}


def _local_app_imports(path: Path) -> list[tuple[int, str]]:
    """Function-local `from <app>... import` lines without a stated reason (a comment on the line or just
    above it), outside AppConfig.ready() and its helpers in apps.py (the app registry is not ready earlier)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if path.name == "apps.py":
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.ImportFrom | ast.Import):
                continue
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            if not any(name.split(".")[0] in APPS for name in names):
                continue
            line, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
            if "#" in line or above.startswith("#"):
                continue
            found.append((node.lineno, line.strip()))
    return sorted(set(found))


def test_no_function_local_import_of_an_app_without_a_reason():
    offenders = []
    for app in set(APPS) - SETS_DJANGO_UP_ITSELF:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if {"tests", "migrations"} & set(rel.parts):
                continue
            offenders += [f"{rel}:{n}: {text}" for n, text in _local_app_imports(path)]
    assert offenders == []


def _unregister_calls(path: Path) -> list[tuple[int, str]]:
    """`<anything>.unregister(...)` calls: an admin site losing a registration someone else made."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    return [
        (node.lineno, lines[node.lineno - 1].strip())
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "unregister"
    ]


def test_no_app_unregisters_an_admin():
    """An app adds to another app's admin page through the slot that page owns (tickets.sections,
    actions.record_sections); it never unregisters and replaces it (that depended on INSTALLED_APPS order)."""
    offenders = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts:
                continue
            offenders += [f"{rel}:{n}: {text}" for n, text in _unregister_calls(path)]
    assert offenders == []


def test_every_model_admin_lives_in_its_models_app():
    from django.contrib import admin

    ours = set(APPS)
    strangers = [
        f"{model._meta.label} → {type(model_admin).__module__}.{type(model_admin).__name__}"
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label in ours and type(model_admin).__module__.split(".")[0] != model._meta.app_label
    ]
    assert strangers == []


def test_the_ticket_desk_lives_in_tickets():
    """The operator's desk (the ticket page and its reply view, the staff ticket API, the own-reply service)
    belongs to tickets; drafts only registers its panel, its column and its API fields."""
    from django.contrib import admin
    from django.urls import resolve, reverse

    import drafts.apis
    import drafts.services
    from tickets.models import Ticket

    assert type(admin.site._registry[Ticket]).__module__ == "tickets.admin"
    assert resolve(reverse("admin:tickets_ticket_reply", args=[1])).func.__module__ == "tickets.admin"
    for path in ("/api/ops/tickets/", "/api/ops/tickets/T00001/", "/api/ops/tickets/T00001/reply/"):
        assert resolve(path).func.view_class.__module__ == "tickets.apis", path
    for name in ("ticket_reply_send", "OpsTicketListApi", "OpsTicketDetailApi", "OpsTicketReplyApi"):
        assert not hasattr(drafts.services, name) and not hasattr(drafts.apis, name), name
    assert not (ROOT / "drafts" / "templates" / "admin" / "drafts" / "ticket_review.html").exists()
