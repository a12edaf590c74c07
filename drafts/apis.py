"""Staff-only API for the operator's decisions on drafts, and what drafts add to the staff ticket API
(tickets.api_parts: each ticket's newest draft in the list, every draft in the detail)."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from common.apis import IsStaff, UsernameField
from common.errors import NotFound
from common.fields import StrictCharField
from diagnostics.selectors import DIAGNOSIS_VIEW_PERMISSION
from drafts.models import Draft, StageState
from drafts.selectors import citations_resolve, citations_with_text, latest_drafts_prefetch, ticket_drafts
from drafts.services import REVIEW_PERMISSION, draft_apply, draft_reject
from drafts.stages import stages
from privacy.access import Action, ObjectType, Surface, access_note
from tickets.api_parts import OpsTicketPart
from tickets.apis import LastSeenMessageIdField
from tickets.models import Ticket

# What each staff endpoint shows or changes, as Django permissions (the same ones the admin checks).
DRAFT_VIEW = ("drafts.view_draft",)  # a ticket in the staff API shows its drafts' status or content
DRAFT_DECIDE = (REVIEW_PERMISSION, "drafts.view_draft")  # the answer is the draft as decided


def draft_context(request, drafts: list[Draft]) -> dict:
    """Serializer context for drafts: the cited chunks, and whether this user may read the diagnosis."""
    return {"chunks": citations_resolve(drafts), "can_view_diagnosis": request.user.has_perm(DIAGNOSIS_VIEW_PERMISSION)}


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {"type": "string", "enum": list(StageState.values)},
        "description": "단계별 상태 (단계 이름 draft·qa·confidence·tags·diagnosis … → PENDING·DONE·FAILED·SKIPPED)",
    }
)
class StagesField(serializers.Field):
    """Each declared stage's state (drafts.stages), by the stage's name."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, draft: Draft) -> dict[str, str]:
        return {stage.name: draft.stage_state(stage.name) for stage in stages()}


class TimingSerializer(serializers.Serializer):
    input_at = serializers.DateTimeField()
    draft_at = serializers.DateTimeField()
    qa_at = serializers.DateTimeField()
    confidence_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="OpsDraft")
class DraftSerializer(serializers.ModelSerializer):
    draft_id = serializers.IntegerField(source="pk")
    source_message_id = serializers.IntegerField()
    status_display = serializers.CharField(source="get_status_display")
    original_body = serializers.CharField(source="body")
    answer = serializers.CharField(help_text="운영자가 시작하는 답변: QA 보정본이 있으면 그것")
    citations = serializers.SerializerMethodField()
    diagnosis = serializers.SerializerMethodField()
    stages = StagesField()
    timings = TimingSerializer(source="*")
    decided_by = UsernameField("decided_by")
    claim_blockers = serializers.JSONField(
        help_text="코드가 찾은 승인되지 않은 환불·취소 약속: "
        "[{code: money_claim, field, start, end, sentence, trigger}]"
    )
    override_by = UsernameField("override_by")

    class Meta:
        model = Draft
        fields = (
            "draft_id",
            "status",
            "status_display",
            "source_message_id",
            "answer",
            "original_body",
            "corrected_body",
            "citations",
            "dropped_citations",
            "draft_model",
            "qa_model",
            "qa_changes",
            "confidence",
            "hard_blockers",
            "claim_blockers",
            "recommended_tags",
            "diagnosis",
            "context_report",
            "stages",
            "errors",
            "attempts",
            "timings",
            "applied",
            "edit_ratio",
            "final_body",
            "decided_by",
            "decided_at",
            "override_reason",
            "override_by",
            "override_at",
            "override_holds",
        )

    def get_citations(self, draft: Draft) -> list[dict]:
        return citations_with_text(draft, self.context.get("chunks", {}))

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "additionalProperties": {},
            "description": "운영자 전용 진단. diagnostics.view_serviceevent 권한이 없으면 null.",
        }
    )
    def get_diagnosis(self, draft: Draft) -> dict | None:
        return draft.diagnosis if self.context.get("can_view_diagnosis") else None


@extend_schema_serializer(component_name="OpsDraftHeld")
class DraftHeldSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="draft_blocked · draft_unchecked (보류: override_reason으로 발송 가능) · ticket_changed · "
        "draft_not_live · draft_stale · unknown_tag · empty_reply · reply_too_long · override_reason_too_long"
    )
    detail = serializers.CharField(help_text="보류 사유 (한국어)")


def _decided(request, draft_id: int, input_serializer: type[serializers.Serializer], decide) -> Response:
    """Validate → the decision's service → the draft as decided."""
    data = input_serializer(data=request.data)
    data.is_valid(raise_exception=True)
    draft = decide(draft_id=draft_id, actor=request.user, **data.validated_data)
    return Response(DraftSerializer(draft, context=draft_context(request, [draft])).data)


class OpsDraftApplyApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = DRAFT_DECIDE

    @extend_schema_serializer(component_name="OpsDraftApplyInput")
    class InputSerializer(serializers.Serializer):
        final_body = StrictCharField(
            required=False,
            allow_null=True,
            default=None,
            trim_whitespace=False,
            help_text="보낼 답변. 생략하면 초안을 그대로 보냅니다(UNCHANGED).",
        )
        tags = serializers.ListField(child=StrictCharField(max_length=40), required=False, default=list)
        override_reason = StrictCharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=500,
            help_text="예외 발송 사유. 보류된 초안(승인되지 않은 환불·취소 약속, QA·신뢰도 미완료·실패)을 "
            "보낼 때만 필요하며, 사유·보낸 사람·시각이 초안에 기록됩니다.",
        )
        last_seen_message_id = LastSeenMessageIdField(
            help_text="초안을 검토하는 동안 화면에 있던 가장 최근 메시지 번호. 그 뒤에 고객 메시지나 다른 상담원의 "
            "답변이 있으면 보내지 않고 409 ticket_changed로 그 메시지들과 보내려던 내용을 돌려줍니다.",
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            200: DraftSerializer,
            409: OpenApiResponse(
                DraftHeldSerializer,
                description="보내지 않음. draft_blocked: 최종 답변이 고객의 처리 기록에 없는 환불·취소(승인완료)를 "
                "약속함. draft_unchecked: QA 또는 신뢰도 단계가 끝나지 않았거나 실패함. override_reason을 "
                "보내면 기록을 남기고 발송합니다. ticket_changed: last_seen_message_id 뒤에 새 고객 메시지나 다른 "
                "상담원의 답변이 있음 — messages와 body(보내려던 내용)가 함께 옵니다. "
                "(draft_not_live, draft_stale 등 상태 오류도 409입니다.)",
                examples=[
                    OpenApiExample(
                        "draft_blocked",
                        {"code": "draft_blocked", "detail": "이 답변은 그대로 보낼 수 없습니다. 승인되지 않은 …"},
                    ),
                    OpenApiExample(
                        "draft_unchecked",
                        {"code": "draft_unchecked", "detail": "이 답변은 그대로 보낼 수 없습니다. QA 검사가 …"},
                    ),
                ],
            ),
        },
        summary="[운영] 초안 적용(발송)",
    )
    def post(self, request, draft_id: int):
        return _decided(request, draft_id, self.InputSerializer, draft_apply)


class OpsDraftRejectApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = DRAFT_DECIDE

    @extend_schema_serializer(component_name="OpsDraftRejectInput")
    class InputSerializer(serializers.Serializer):
        tags = serializers.ListField(child=StrictCharField(max_length=40), required=False, default=list)

    @extend_schema(request=InputSerializer, responses={200: DraftSerializer}, summary="[운영] 초안 반려")
    def post(self, request, draft_id: int):
        return _decided(request, draft_id, self.InputSerializer, draft_reject)


class OpsDraftDetailApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = DRAFT_VIEW

    @extend_schema(responses={200: DraftSerializer}, summary="[운영] 초안 한 건 (열람 기록이 남습니다)")
    def get(self, request, draft_id: int):
        draft = Draft.objects.select_related("ticket", "decided_by", "override_by").filter(pk=draft_id).first()
        if draft is None:
            raise NotFound("초안을 찾을 수 없습니다.")
        data = DraftSerializer(draft, context=draft_context(request, [draft])).data
        access_note(
            request,
            surface=Surface.API,
            action=Action.VIEW,
            object_type=ObjectType.DRAFT,
            customer_id=draft.ticket.customer_id,
            object_id=draft.pk,
        )
        return Response(data)


# --- what drafts add to the staff ticket API (tickets.api_parts) -------------------------------------------
@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {"draft_id": {"type": "integer"}, "status": {"type": "string"}},
        "description": "가장 최근 초안의 번호와 상태 (초안이 없으면 null)",
    }
)
class LatestDraftField(serializers.Field):
    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, ticket: Ticket) -> dict | None:
        drafts = ticket.draft_list
        return {"draft_id": drafts[0].pk, "status": drafts[0].status} if drafts else None


def _drafts_load(ticket: Ticket, request) -> dict:
    ticket.draft_list = ticket_drafts(ticket)
    return draft_context(request, ticket.draft_list)


OPS_TICKET_PART = OpsTicketPart(
    key="drafts",
    permissions=DRAFT_VIEW,
    list_fields=lambda: {"latest_draft": LatestDraftField()},
    detail_fields=lambda: {"drafts": DraftSerializer(many=True, source="draft_list")},
    list_queryset=lambda tickets: tickets.prefetch_related(latest_drafts_prefetch()),
    detail_load=_drafts_load,
)
