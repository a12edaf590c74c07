"""Staff-only API for integrations: tickets with their drafts, and the operator's decisions."""

from __future__ import annotations

import re

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from common.apis import IsStaff
from common.fields import StrictBooleanField, StrictCharField
from diagnostics.selectors import DIAGNOSIS_VIEW_PERMISSION
from drafts.models import Draft
from drafts.selectors import citations_resolve, citations_with_text, ops_ticket_list, ticket_drafts
from drafts.services import REVIEW_PERMISSION, draft_apply, draft_reject, ticket_reply_send
from tickets.models import Ticket
from tickets.selectors import ticket_get

# What each staff endpoint shows or changes, as Django permissions (the same ones the admin checks).
TICKET_READ = ("tickets.view_ticket", "drafts.view_draft")  # a ticket with its drafts' status or content
CONVERSATION_READ = (*TICKET_READ, "tickets.view_ticketmessage")
DRAFT_DECIDE = (REVIEW_PERMISSION, "drafts.view_draft")  # the answer is the draft as decided
# An own reply: the operator reads the ticket and may answer customers (the same permission that sends drafts).
TICKET_REPLY = ("tickets.view_ticket", REVIEW_PERMISSION)


def draft_context(request, drafts: list[Draft]) -> dict:
    """Serializer context for drafts: the cited chunks, and whether this user may read the diagnosis."""
    return {"chunks": citations_resolve(drafts), "can_view_diagnosis": request.user.has_perm(DIAGNOSIS_VIEW_PERMISSION)}


class OpsPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class OpsPaginationParams(serializers.Serializer):
    limit = serializers.IntegerField(required=False, min_value=1, max_value=OpsPagination.max_limit)
    offset = serializers.IntegerField(required=False, min_value=0)


class StageSerializer(serializers.Serializer):
    draft = serializers.CharField(source="draft_state")
    qa = serializers.CharField(source="qa_state")
    confidence = serializers.CharField(source="confidence_state")
    tags = serializers.CharField(source="tags_state")
    diagnosis = serializers.CharField(source="diagnosis_state")


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
    stages = StageSerializer(source="*")
    timings = TimingSerializer(source="*")
    decided_by = serializers.CharField(source="decided_by.get_username", default=None, allow_null=True)
    claim_blockers = serializers.JSONField(
        help_text="코드가 찾은 승인되지 않은 환불·취소 약속: "
        "[{code: money_claim, field, start, end, sentence, trigger}]"
    )
    override_by = serializers.CharField(source="override_by.get_username", default=None, allow_null=True)

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


class OpsMessageSerializer(serializers.Serializer):
    message_id = serializers.IntegerField(source="pk")
    author_type = serializers.CharField()
    author_display = serializers.CharField(source="get_author_type_display")
    body = serializers.CharField()
    created_at = serializers.DateTimeField()


class OpsTicketSerializer(serializers.ModelSerializer):
    ticket_id = serializers.CharField(source="number")
    customer_id = serializers.CharField()
    category_display = serializers.CharField(source="get_category_display")
    status_display = serializers.CharField(source="get_status_display")
    tags = serializers.SerializerMethodField()

    class Meta:
        model = Ticket
        fields = (
            "ticket_id",
            "customer_id",
            "category",
            "category_display",
            "subject",
            "status",
            "status_display",
            "source",
            "order_id",
            "tags",
            "created_at",
            "updated_at",
        )

    def get_tags(self, ticket: Ticket) -> list[str]:
        tags = getattr(ticket, "tag_list", None)
        return [t.name for t in (tags if tags is not None else ticket.tags.all())]


class OpsTicketListApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = TICKET_READ

    @extend_schema_serializer(component_name="OpsTicketListItem")
    class OutputSerializer(OpsTicketSerializer):
        latest_draft = serializers.SerializerMethodField()

        class Meta(OpsTicketSerializer.Meta):
            fields = (*OpsTicketSerializer.Meta.fields, "latest_draft")

        def get_latest_draft(self, ticket: Ticket) -> dict | None:
            drafts = ticket.draft_list
            return {"draft_id": drafts[0].pk, "status": drafts[0].status} if drafts else None

    class FilterSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=Ticket.Status.choices, required=False)
        category = serializers.ChoiceField(choices=Ticket.Category.choices, required=False)

    @extend_schema_serializer(component_name="OpsTicketPage")
    class PageSerializer(serializers.Serializer):
        count = serializers.IntegerField()
        next = serializers.URLField(allow_null=True)
        previous = serializers.URLField(allow_null=True)
        results = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        parameters=[FilterSerializer, OpsPaginationParams],
        responses={200: PageSerializer},
        operation_id="ops_tickets_list",
        summary="[운영] 문의 목록 (limit/offset)",
    )
    def get(self, request):
        # As documented: a filter or a page given empty is an error, not "no filter" (form semantics), and a
        # limit/offset that is not a number in range is an error, not silently the default.
        params = request.query_params
        problems = {}
        for name in ("status", "category", "limit", "offset"):
            values = params.getlist(name)
            if len(values) > 1:
                problems[name] = ["한 번만 보낼 수 있습니다."]
            elif values == [""]:
                problems[name] = ["값이 비어 있습니다."]
            elif name in ("limit", "offset") and values and not re.fullmatch(r"[0-9]+", values[0]):
                problems[name] = ["0 이상의 정수여야 합니다."]
        if problems:
            raise ValidationError(problems)
        OpsPaginationParams(data=params).is_valid(raise_exception=True)
        filters = self.FilterSerializer(data=params)
        filters.is_valid(raise_exception=True)
        paginator = OpsPagination()
        page = paginator.paginate_queryset(ops_ticket_list(**filters.validated_data), request, view=self)
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)


class OpsTicketDetailApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = CONVERSATION_READ

    @extend_schema_serializer(component_name="OpsTicketDetail")
    class OutputSerializer(OpsTicketSerializer):
        messages = OpsMessageSerializer(many=True, source="message_list")
        drafts = serializers.SerializerMethodField()

        class Meta(OpsTicketSerializer.Meta):
            fields = (*OpsTicketSerializer.Meta.fields, "messages", "drafts")

        @extend_schema_serializer(component_name="OpsDraftList")
        def get_drafts(self, ticket: Ticket) -> list[dict]:
            return DraftSerializer(ticket.draft_list, many=True, context=self.context).data

    @extend_schema(responses={200: OutputSerializer}, summary="[운영] 문의 대화와 초안 전체")
    def get(self, request, ticket_id: str):
        ticket = ticket_get(ticket_id=ticket_id)
        ticket.message_list = list(ticket.messages.order_by("id"))
        ticket.draft_list = ticket_drafts(ticket)
        return Response(self.OutputSerializer(ticket, context=draft_context(request, ticket.draft_list)).data)


@extend_schema_serializer(component_name="OpsDraftHeld")
class DraftHeldSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="draft_blocked · draft_unchecked (보류: override_reason으로 발송 가능) · draft_not_live · "
        "draft_stale · unknown_tag · empty_reply · reply_too_long · override_reason_too_long"
    )
    detail = serializers.CharField(help_text="보류 사유 (한국어)")


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

    @extend_schema(
        request=InputSerializer,
        responses={
            200: DraftSerializer,
            409: OpenApiResponse(
                DraftHeldSerializer,
                description="보내지 않음. draft_blocked: 최종 답변이 고객의 처리 기록에 없는 환불·취소(승인완료)를 "
                "약속함. draft_unchecked: QA 또는 신뢰도 단계가 끝나지 않았거나 실패함. override_reason을 "
                "보내면 기록을 남기고 발송합니다. (draft_not_live, draft_stale 등 상태 오류도 409입니다.)",
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
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        draft = draft_apply(draft_id=draft_id, actor=request.user, **data.validated_data)
        return Response(DraftSerializer(draft, context=draft_context(request, [draft])).data)


class OpsDraftRejectApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = DRAFT_DECIDE

    @extend_schema_serializer(component_name="OpsDraftRejectInput")
    class InputSerializer(serializers.Serializer):
        tags = serializers.ListField(child=StrictCharField(max_length=40), required=False, default=list)

    @extend_schema(request=InputSerializer, responses={200: DraftSerializer}, summary="[운영] 초안 반려")
    def post(self, request, draft_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        draft = draft_reject(draft_id=draft_id, actor=request.user, **data.validated_data)
        return Response(DraftSerializer(draft, context=draft_context(request, [draft])).data)


@extend_schema_serializer(component_name="OpsReplyHeld")
class ReplyHeldSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="reply_blocked (override_reason으로 발송 가능) · ticket_closed · unknown_tag · empty_reply · "
        "reply_too_long · override_reason_too_long"
    )
    detail = serializers.CharField(help_text="보내지 않은 사유 (한국어)")


class OpsTicketReplyApi(APIView):
    """The operator's own reply on any ticket (after a rejected or failed draft, or with drafts off)."""

    permission_classes = [IsStaff]
    required_permissions = TICKET_REPLY

    @extend_schema_serializer(component_name="OpsTicketReplyInput")
    class InputSerializer(serializers.Serializer):
        body = StrictCharField(max_length=4000, trim_whitespace=True, help_text="고객에게 보낼 답변")
        tags = serializers.ListField(child=StrictCharField(max_length=40), required=False, default=list)
        close = StrictBooleanField(required=False, default=False, help_text="true면 답변 후 문의를 종료")
        override_reason = StrictCharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=500,
            help_text="예외 발송 사유. 답변이 고객의 처리 기록에 없는 환불·취소를 약속할 때만 필요하며, "
            "사유와 보낸 사람이 티켓의 시스템 메모로 기록됩니다.",
        )

    @extend_schema_serializer(component_name="OpsTicketReply")
    class OutputSerializer(OpsTicketSerializer):
        message = OpsMessageSerializer(source="reply_message")

        class Meta(OpsTicketSerializer.Meta):
            fields = (*OpsTicketSerializer.Meta.fields, "message")

    @extend_schema(
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            409: OpenApiResponse(
                ReplyHeldSerializer,
                description="보내지 않음. reply_blocked: 답변이 고객의 처리 기록에 없는 환불·취소(승인완료)를 "
                "약속함 — override_reason을 보내면 기록을 남기고 발송합니다. ticket_closed: 종료된 문의. "
                "생성된(GENERATED) 초안이 있으면 그 초안은 이 상담원의 반려로 기록됩니다.",
                examples=[
                    OpenApiExample(
                        "reply_blocked",
                        {"code": "reply_blocked", "detail": "이 답변은 보낼 수 없습니다. 고객의 처리 기록에 없는 …"},
                    ),
                ],
            ),
        },
        operation_id="ops_ticket_reply",
        summary="[운영] 상담원 직접 답변",
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = ticket_get(ticket_id=ticket_id)
        message = ticket_reply_send(ticket_id=ticket.pk, actor=request.user, **data.validated_data)
        ticket = ticket_get(ticket_id=ticket_id)
        ticket.reply_message = message
        return Response(self.OutputSerializer(ticket).data, status=201)
