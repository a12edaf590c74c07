"""Drafts in the admin: the review panel the ticket page shows beside the conversation (registered into the
ticket page's answer slot, tickets.sections) with its decisions (send as it is or edited, reject, retry a
failed stage), each calling a service; the drafts and dead letters themselves, read-only."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from actions.claims import find_money_claims
from common.admin import AuditEventInline, ReadOnlyAdmin
from common.display import code_html, fields_html
from common.errors import DomainError
from diagnostics.labels import diagnosis_display
from diagnostics.selectors import DIAGNOSIS_VIEW_PERMISSION, service_events_by_event_id
from drafts.guard import draft_hold_for
from drafts.labels import (
    CLAIM_CODE_LABELS,
    CLAIM_FIELD_LABELS,
    SCORE_LABELS,
    citation_views,
    context_report_rows,
    draft_event_change_html,
    holds_html,
    stage_cpu_rows,
    stage_errors_html,
)
from drafts.models import DeadLetter, Draft, DraftEvent, StageState
from drafts.selectors import (
    citations_resolve,
    citations_with_text,
    document_titles,
    draft_current,
    latest_drafts_prefetch,
    ticket_drafts,
)
from drafts.services import REVIEW_PERMISSION, draft_apply, draft_reject, drafts_regenerate
from drafts.stages import stage_labels, stages
from privacy.admin import AccessLoggedAdmin
from privacy.models import AccessRecord
from tickets.models import Tag, Ticket
from tickets.sections import (
    ANSWER,
    TicketColumn,
    TicketSection,
    held_reply_keep,
    last_seen_from,
    ticket_column_register,
    ticket_section_register,
)

_EDIT_KEY = "drafts.held_edit.{}"


def _seconds(start, end) -> str:
    if not start or not end:
        return "-"
    return f"{(end - start).total_seconds():.1f}초"


def _event_url(event) -> str:
    return reverse("admin:diagnostics_serviceevent_change", args=[event.pk])


def draft_diagnosis_view(draft: Draft | None) -> dict | None:
    """The draft's diagnosis for people (`diagnostics.labels.diagnosis_display`), its cited events read in one
    query. Call only for someone who may read service events (DIAGNOSIS_VIEW_PERMISSION)."""
    if draft is None or not draft.diagnosis:
        return None
    cited = [e for fact in draft.diagnosis.get("observed_facts") or [] for e in fact.get("event_ids") or []]
    return diagnosis_display(draft.diagnosis, events=service_events_by_event_id(cited), event_url=_event_url)


def score_rows(confidence: dict) -> list[dict]:
    return [
        {
            "key": k,
            "label": SCORE_LABELS[k],
            "score": v.get("score"),
            "percent": round(100 * v.get("score", 0)),
            "reason": v.get("reason", ""),
        }
        for k, v in confidence.items()
        if k in SCORE_LABELS and isinstance(v, dict)
    ]


def claim_blocker_rows(blockers: list[dict]) -> list[dict]:
    return [
        {
            **b,
            "field_label": CLAIM_FIELD_LABELS.get(b.get("field"), "기타 문구"),
            "code_label": code_html(str(b.get("code", "")), CLAIM_CODE_LABELS),
        }
        for b in blockers
    ]


def stage_output_rows(draft: Draft) -> list[tuple[str, SafeString]]:
    """What the stages without their own columns answered (Draft.stage_results), each by its stage's label and
    its schema's field titles."""
    rows = []
    for stage in stages():
        output = (draft.stage_results.get(stage.name) or {}).get("output")
        if stage.has_column or not output:
            continue
        fields = stage.schema.model_fields
        pairs = [
            (fields[key].title or fields[key].description or key if key in fields else key, _value_text(value))
            for key, value in output.items()
        ]
        rows.append((stage.label, fields_html(pairs)))
    return rows


def _value_text(value: object) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "-"
    return str(value)


def draft_review_context(
    draft: Draft | None, chunks: dict, *, titles: dict | None = None, diagnosis: dict | None = None
) -> dict:
    """Everything the review panel shows, shaped for the template (no logic in the template). `titles`: the
    dropped citations' document titles (`selectors.document_titles`); `diagnosis`: `draft_diagnosis_view`."""
    if draft is None:
        return {}
    hold = None
    if draft.status == Draft.Status.GENERATED:
        # Why a plain click would not send the answer as it stands (an operator's edit is checked again).
        hold, _ = draft_hold_for(draft, claims=find_money_claims(draft.answer), stage_labels=stage_labels())
    return {
        "draft": draft,
        "stages": [
            (stage.label, state, StageState(state).label)
            for stage in stages()
            for state in (draft.stage_state(stage.name),)
        ],
        "stage_outputs": stage_output_rows(draft),
        "timings": [
            ("초안 저장", _seconds(draft.input_at, draft.draft_at)),
            ("QA 완료", _seconds(draft.input_at, draft.qa_at)),
            ("신뢰도 완료", _seconds(draft.input_at, draft.confidence_at)),
        ],
        "scores": score_rows(draft.confidence),
        "citations": citation_views(citations_with_text(draft, chunks)),
        "dropped_citations": citation_views(draft.dropped_citations, titles=titles),
        "errors": stage_errors_html(draft.errors) if draft.errors else "",
        "diagnosis": diagnosis,
        "has_failure": draft.has_failure,
        "is_live": draft.status == Draft.Status.GENERATED,
        "corrected_differs": bool(draft.corrected_body) and draft.corrected_body != draft.body,
        "claim_blockers": claim_blocker_rows(draft.claim_blockers),
        "override_holds": holds_html(draft.override_holds),
        "hold": hold,
    }


# --- the review panel on the ticket page (tickets.sections) --------------------------------------------------
def _can_review(request: HttpRequest) -> bool:
    return request.user.has_perm(REVIEW_PERMISSION)


def ticket_review_section(request: HttpRequest, ticket: Ticket) -> dict:
    """The panel's context. It follows the model permissions, as the admin's own inlines do: drafts need
    view_draft, the diagnosis view_serviceevent."""
    user = request.user
    can_view_drafts = user.has_perm("drafts.view_draft")
    drafts = ticket_drafts(ticket) if can_view_drafts else []
    current = draft_current(drafts)
    chunks = citations_resolve(drafts)
    recommended = set(current.recommended_tags) if current else set()
    applied = set(ticket.tags.values_list("name", flat=True))
    kept_edit = request.session.pop(_EDIT_KEY.format(current.pk), None) if current else None
    return {
        "final_body_initial": kept_edit if kept_edit is not None else (current.answer if current else ""),
        "can_view_drafts": can_view_drafts,
        "can_view_diagnosis": user.has_perm(DIAGNOSIS_VIEW_PERMISSION),
        "review": draft_review_context(
            current,
            chunks,
            titles=document_titles([c.get("doc_id", "") for c in current.dropped_citations if isinstance(c, dict)])
            if current and current.dropped_citations
            else None,
            diagnosis=draft_diagnosis_view(current) if user.has_perm(DIAGNOSIS_VIEW_PERMISSION) else None,
        ),
        "history": [d for d in drafts if current is None or d.pk != current.pk],
        "draft_tag_choices": [
            {"name": t.name, "recommended": t.name in recommended, "applied": t.name in applied}
            for t in Tag.objects.filter(is_active=True)
        ],
        "can_review": _can_review(request),
    }


def _live_draft_on_screen(context: dict) -> bool:
    """With a live draft, its text box is the reply box (the ticket page hides its own)."""
    return bool(context.get("review", {}).get("is_live"))


def _back(ticket_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("admin:tickets_ticket_change", args=[ticket_id]))


def draft_decide_view(request: HttpRequest, ticket_id: int, draft_id: int):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if not Draft.objects.filter(pk=draft_id, ticket_id=ticket_id).exists():
        messages.error(request, "이 티켓의 초안이 아닙니다.")
        return _back(ticket_id)
    decision = request.POST.get("decision")
    tags = request.POST.getlist("tags")
    override_reason = request.POST.get("override_reason", "")
    # One send button: what is in the text box is sent, and UNCHANGED/EDITED is decided by comparing it
    # with the draft, so an edit is never lost to the button that was pressed.
    sending = decision == "apply"
    final_body = request.POST.get("final_body") if "final_body" in request.POST else None
    try:
        if sending:
            draft = draft_apply(
                draft_id=draft_id,
                final_body=final_body,
                tags=tags,
                actor=request.user,
                override_reason=override_reason,
                last_seen_message_id=last_seen_from(request.POST),
            )
        elif decision == "reject":
            draft = draft_reject(draft_id=draft_id, tags=tags, actor=request.user)
        else:
            messages.error(request, "알 수 없는 결정입니다.")
            return _back(ticket_id)
    except DomainError as exc:
        messages.error(request, exc.message)
        if sending and final_body is not None:
            # Not sent, not lost: the operator's text comes back in the draft's box, or, when the draft is no
            # longer live (a colleague answered meanwhile), in the ticket page's own reply box.
            if Draft.objects.filter(pk=draft_id, status=Draft.Status.GENERATED).exists():
                request.session[_EDIT_KEY.format(draft_id)] = final_body
            else:
                held_reply_keep(request, ticket_id, final_body)
        return _back(ticket_id)
    if draft.status == Draft.Status.APPLIED:
        text = f"답변을 보냈습니다 ({draft.get_applied_display()}, 편집 비율 {draft.edit_ratio:.0%})."
        if draft.override_at:
            text += " 보류된 답변을 예외 발송했습니다: 사유가 기록되었습니다."
    else:
        text = "초안을 반려했습니다. 답변은 보내지 않았습니다."
    messages.success(request, text)
    return _back(ticket_id)


def draft_retry_view(request: HttpRequest, ticket_id: int):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    if not _can_review(request):
        messages.error(request, "초안을 다시 만들 권한이 없습니다.")
        return _back(ticket_id)
    report = drafts_regenerate(ticket_id=ticket_id)
    if report.considered:
        outcomes = ", ".join(f"{k} {v}" for k, v in report.outcomes.items())
        messages.success(request, f"초안 생성을 다시 요청했습니다 ({outcomes}).")
    else:
        messages.info(request, "다시 만들 초안이 없습니다: 최신 고객 입력의 초안이 이미 완성되었습니다.")
    return _back(ticket_id)


def _review_urls(site) -> list:
    return [
        path(
            "<int:ticket_id>/drafts/<int:draft_id>/decide/",
            site.admin_view(draft_decide_view),
            name="tickets_ticket_draft_decide",
        ),
        path("<int:ticket_id>/drafts/retry/", site.admin_view(draft_retry_view), name="tickets_ticket_draft_retry"),
    ]


ticket_section_register(
    TicketSection(
        key="drafts",
        slot=ANSWER,
        template="admin/drafts/ticket_section.html",
        context=ticket_review_section,
        takes_reply=_live_draft_on_screen,
        urls=_review_urls,
    )
)


def _draft_status(ticket: Ticket) -> str:
    drafts = getattr(ticket, "draft_list", None)
    return drafts[0].get_status_display() if drafts else "-"


ticket_column_register(
    TicketColumn(
        name="draft_status",
        description="초안",
        value=_draft_status,
        permission="drafts.view_draft",
        queryset=lambda tickets: tickets.prefetch_related(latest_drafts_prefetch()),
    )
)


class DraftEventInline(AuditEventInline):
    """이력: the draft's status changes and who made them, read-only."""

    model = DraftEvent
    verbose_name = "이력"
    verbose_name_plural = "이력"

    @admin.display(description="변경 내용")
    def change(self, obj: DraftEvent) -> str:
        return draft_event_change_html(obj)


def _joined_html(wrapper: str, row: str, rows: list[tuple]) -> SafeString:
    """`rows` through the `row` template inside `wrapper`; "-" when there are none."""
    if not rows:
        return mark_safe("-")
    return format_html(wrapper, format_html_join("", row, rows))


def _list_html(items: list) -> SafeString:
    return _joined_html("<ul>{}</ul>", "<li>{}</li>", [(str(i),) for i in items])


# The state columns of the declared stages (drafts.stages; a stage without a column shows in stage_results_display).
_STATE_FIELDS = tuple(f"{stage}_state" for stage in Draft.STAGES)


@admin.register(Draft)
class DraftAdmin(AccessLoggedAdmin, ReadOnlyAdmin):
    access_object_type = AccessRecord.ObjectType.DRAFT

    def access_customer_id(self, obj) -> str:
        return obj.ticket.customer_id

    """All drafts, read-only. Decisions are made on the ticket page, where the conversation is. The JSON a
    draft stores reads as fields with Korean names, never as a JSON object."""

    list_display = (
        "__str__",
        "ticket_link",
        "status",
        "applied",
        "edit_ratio",
        *_STATE_FIELDS,
        "draft_seconds",
        "decided_by",
        "created_at",
    )
    list_filter = ("status", "applied", *_STATE_FIELDS)
    list_select_related = ("ticket", "decided_by")
    search_fields = ("=ticket__id",)
    show_full_result_count = False
    inlines = [DraftEventInline]
    fieldsets = (
        (None, {"fields": ("ticket", "source_message", "status", "attempts", "attempted_at")}),
        (
            "답변",
            {
                "fields": (
                    "body",
                    "corrected_body",
                    "qa_changes_display",
                    "citations_display",
                    "dropped_citations_display",
                    "draft_model",
                    "qa_model",
                )
            },
        ),
        (
            "검사",
            {
                "fields": (
                    "confidence_display",
                    "hard_blockers_display",
                    "claim_blockers_display",
                    "recommended_tags_display",
                    "context_report_display",
                )
            },
        ),
        ("오류 진단 (운영자 전용)", {"fields": ("diagnosis_display",)}),
        (
            "단계",
            {
                "fields": (
                    *_STATE_FIELDS,
                    "stage_results_display",
                    "errors_display",
                    "stage_cpu_display",
                    "input_at",
                    "draft_at",
                    "qa_at",
                    "confidence_at",
                )
            },
        ),
        ("결정", {"fields": ("applied", "edit_ratio_display", "final_body", "decided_by", "decided_at")}),
        ("예외 발송", {"fields": ("override_reason", "override_by", "override_at", "override_holds_display")}),
    )

    def get_fieldsets(self, request, obj=None):
        # The diagnosis is read from service events: shown only to those who may read them.
        if request.user.has_perm(DIAGNOSIS_VIEW_PERMISSION):
            return self.fieldsets
        return tuple(fs for fs in self.fieldsets if "diagnosis_display" not in fs[1]["fields"])

    def get_readonly_fields(self, request, obj=None):
        return [f for _, options in self.fieldsets for f in options["fields"]]

    @admin.display(description="티켓", ordering="ticket_id")
    def ticket_link(self, obj: Draft) -> str:
        url = reverse("admin:tickets_ticket_change", args=[obj.ticket_id])
        return format_html('<a href="{}">{}</a>', url, obj.ticket.number)

    @admin.display(description="입력→초안")
    def draft_seconds(self, obj: Draft) -> str:
        return _seconds(obj.input_at, obj.draft_at)

    @admin.display(description="QA 수정 내용")
    def qa_changes_display(self, obj: Draft) -> SafeString:
        return _list_html(obj.qa_changes)

    @admin.display(description="출처")
    def citations_display(self, obj: Draft) -> SafeString:
        views = citation_views(citations_with_text(obj, citations_resolve([obj])))
        return _citations_html(views)

    @admin.display(description="버린 출처(검색되지 않음)")
    def dropped_citations_display(self, obj: Draft) -> SafeString:
        doc_ids = [c.get("doc_id", "") for c in obj.dropped_citations if isinstance(c, dict)]
        return _citations_html(citation_views(obj.dropped_citations, titles=document_titles(doc_ids)))

    @admin.display(description="신뢰도(항목별)")
    def confidence_display(self, obj: Draft) -> SafeString:
        return _joined_html(
            "<table><tbody>{}</tbody></table>",
            "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
            [
                (r["label"], f"{r['score']:.2f}" if r["score"] is not None else "-", r["reason"])
                for r in score_rows(obj.confidence)
            ],
        )

    @admin.display(description="차단 사유")
    def hard_blockers_display(self, obj: Draft) -> SafeString:
        return _list_html(obj.hard_blockers)

    @admin.display(description="환불 약속 차단")
    def claim_blockers_display(self, obj: Draft) -> SafeString:
        return _joined_html(
            "<ul>{}</ul>",
            "<li>{}: “{}” ({}, {}–{}자)</li>",
            [
                (r["field_label"], r.get("sentence", ""), r["code_label"], r.get("start"), r.get("end"))
                for r in claim_blocker_rows(obj.claim_blockers)
            ],
        )

    @admin.display(description="추천 태그")
    def recommended_tags_display(self, obj: Draft) -> str:
        return ", ".join(str(t) for t in obj.recommended_tags) or "-"

    @admin.display(description="진단 결과")
    def diagnosis_display(self, obj: Draft) -> SafeString:
        view = draft_diagnosis_view(obj)
        if view is None:
            return mark_safe("-")
        return mark_safe(render_to_string("admin/drafts/diagnosis.html", {"diagnosis": view}))

    @admin.display(description="선조회 결과")
    def context_report_display(self, obj: Draft) -> SafeString:
        return fields_html(context_report_rows(obj.context_report))

    @admin.display(description="추가 단계 결과")
    def stage_results_display(self, obj: Draft) -> SafeString:
        outputs = dict(stage_output_rows(obj))
        rows = [
            (stage.label, format_html("{} {}", StageState(state).label, outputs.get(stage.label, "")))
            for stage in stages()
            if not stage.has_column
            for state in (obj.stage_state(stage.name),)
        ]
        return fields_html(rows)

    @admin.display(description="단계별 오류")
    def errors_display(self, obj: Draft) -> SafeString:
        return stage_errors_html(obj.errors) if obj.errors else mark_safe("-")

    @admin.display(description="단계별 CPU")
    def stage_cpu_display(self, obj: Draft) -> SafeString:
        return fields_html(stage_cpu_rows(obj.stage_cpu_ms))

    @admin.display(description="편집 비율")
    def edit_ratio_display(self, obj: Draft) -> str:
        return f"{obj.edit_ratio:.0%}" if obj.edit_ratio is not None else "-"

    @admin.display(description="무시한 보류 사유")
    def override_holds_display(self, obj: Draft) -> SafeString:
        return holds_html(obj.override_holds) if obj.override_holds else mark_safe("-")


def _citations_html(views: list[dict]) -> SafeString:
    if not views:
        return mark_safe("-")
    items = format_html_join(
        "",
        '<li><b title="{}">{}</b> {}{}</li>',
        (
            (
                v["ref"],
                v["title"],
                v["part"],
                format_html("<br><small>{}</small>", Truncator(v["text"]).chars(220)) if v["text"] else "",
            )
            for v in views
        ),
    )
    return format_html("<ul>{}</ul>", items)


@admin.register(DeadLetter)
class DeadLetterAdmin(ReadOnlyAdmin):
    list_display = ("id", "ticket", "source_message_id", "error", "retries", "created_at", "resolved_at", "resolution")
    list_filter = ("error", ("resolved_at", admin.EmptyFieldListFilter), "resolution")
    list_select_related = ("ticket",)
