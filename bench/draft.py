"""Part 1 — the draft critical path: inquiries through a real Celery worker, timed by the draft rows.

Every inquiry is opened with `tickets.services.ticket_create`, which enqueues `drafts.generate_draft` on
commit: the measured path is the product's. One inquiry at a time, so no figure includes queueing.
"""

from __future__ import annotations

import time
from itertools import cycle, islice

from bench.report import ratio, summary

# (customer, category label, subject, body): 30 inquiries, 6 of them 오류 (diagnosis in the path).
INQUIRIES: list[tuple[str, str, str, str]] = [
    ("C003", "배송", "배송 문의", "HR20260726002 주문이 언제 출고되나요? 이번 주 안에 받을 수 있을까요?"),
    ("C001", "교환/반품", "사이즈 교환", "운동화가 작아서 한 치수 큰 걸로 교환하고 싶어요. 어떻게 하면 되나요?"),
    ("C002", "결제", "결제 두 번", "카드 결제 문자가 두 번 왔습니다. 한 번은 취소해 주세요."),
    ("C004", "계정", "로그인 문제", "비밀번호를 바꿨는데 계속 로그인이 실패합니다."),
    ("C005", "오류", "결제 화면 오류", "결제하기 버튼을 누르면 오류가 나고 넘어가지 않아요."),
    ("C006", "기타", "선물 포장", "선물 포장이 가능한지 궁금합니다."),
    ("C007", "교환/반품", "반품 절차", "포장을 뜯지 않았는데 반품하려면 어떻게 하나요? 환불은 언제 되나요?"),
    ("C008", "배송", "배송 조회", "송장번호로 조회해도 정보가 없다고 나옵니다."),
    ("C009", "보상", "파손 배송", "상자가 찌그러져 있고 제품에 흠집이 있습니다. 보상받을 수 있나요?"),
    ("C010", "오류", "앱이 멈춰요", "주문 내역 화면에서 앱이 멈춥니다. 어제부터 계속 그래요."),
]
ERROR_LABEL = "오류"


def inquiries(n: int) -> list[tuple[str, str, str, str]]:
    """n inquiries cycling through the list with a numbered subject (each one a new ticket)."""
    return [(c, cat, f"{subj} #{i + 1}", body) for i, (c, cat, subj, body) in enumerate(islice(cycle(INQUIRIES), n))]


def submit(spec: tuple[str, str, str, str]) -> int:
    from orders.models import Customer
    from tickets.models import Ticket
    from tickets.services import ticket_create

    customer_id, category, subject, body = spec
    customer = Customer.objects.select_related("user").get(pk=customer_id)
    ticket = ticket_create(
        customer=customer, category=category, subject=subject, body=body, source=Ticket.Source.API,
        author=customer.user,
    )  # fmt: skip
    return ticket.pk


FIELDS = (
    "ticket_id", "status", "input_at", "draft_at", "qa_at", "confidence_at", "draft_state", "qa_state",
    "confidence_state", "tags_state", "diagnosis_state", "errors", "context_report",
)  # fmt: skip


def finished(row: dict) -> bool:
    from drafts.models import Draft, StageState

    if row["status"] == Draft.Status.FAILED:
        return True
    if row["status"] != Draft.Status.GENERATED:
        return False
    return StageState.PENDING not in (
        row["qa_state"],
        row["confidence_state"],
        row["tags_state"],
        row["diagnosis_state"],
    )


def poll(ticket_ids: list[int]) -> dict[int, dict]:
    """Finished drafts of these tickets, by ticket id."""
    from drafts.models import Draft

    rows = Draft.objects.filter(ticket_id__in=ticket_ids).values(*FIELDS)
    return {row["ticket_id"]: row for row in rows if finished(row)}


def wait_for(ticket_id: int, *, timeout_s: float = 90.0, interval_s: float = 0.02) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done = poll([ticket_id])
        if ticket_id in done:
            return done[ticket_id]
        time.sleep(interval_s)
    raise TimeoutError(f"draft for ticket {ticket_id} not finished after {timeout_s:.0f}s")


def stage_ms(row: dict) -> dict[str, float | None]:
    def ms(at):
        return None if at is None else (at - row["input_at"]).total_seconds() * 1000

    return {"draft": ms(row["draft_at"]), "qa": ms(row["qa_at"]), "confidence": ms(row["confidence_at"])}


def _context_partial(row: dict) -> bool:
    report = row.get("context_report") or {}
    return any(v != "ok" for k, v in report.items() if k != "elapsed_ms")


def run_mode(n: int, *, L_ms: float, warmup: int = 2, log=print) -> dict:
    """n inquiries one after another on the running worker; per-stage summaries and ratios to L."""
    for spec in inquiries(warmup):
        wait_for(submit((spec[0], spec[1], "warm-up " + spec[2], spec[3])))
    samples: dict[str, list[float]] = {"draft": [], "qa": [], "confidence": []}
    failed, partial, context_ms = 0, 0, []
    for i, spec in enumerate(inquiries(n)):
        row = wait_for(submit(spec))
        if row["status"] != "GENERATED" or "FAILED" in (row["qa_state"], row["confidence_state"]):
            failed += 1
        partial += _context_partial(row)
        if (row.get("context_report") or {}).get("elapsed_ms") is not None:
            context_ms.append(float(row["context_report"]["elapsed_ms"]))
        for stage, value in stage_ms(row).items():
            if value is not None:
                samples[stage].append(value)
        if (i + 1) % 10 == 0:
            log(f"    {i + 1}/{n}")
    out: dict = {"failed": failed, "context_partial": partial, "context_prefetch_ms": summary(context_ms)}
    for stage, values in samples.items():
        fig = summary(values)
        fig["ratio_median"] = ratio(fig["median"], L_ms)
        fig["ratio_p90"] = ratio(fig["p90"], L_ms)
        fig["samples_ms"] = [round(v, 1) for v in values]
        out[stage] = fig
    return out


def mix(n: int) -> str:
    errors = sum(1 for spec in inquiries(n) if spec[1] == ERROR_LABEL)
    return f"{errors} of {n} in category 오류, so the diagnosis runs beside the draft for those"
