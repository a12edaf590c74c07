from dataclasses import fields as dataclass_fields
from functools import cache
from typing import Any, get_args, get_origin, get_type_hints

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from chat.models import ChatMessage
from chat.policy import author_line
from chat.selectors import CONVERSATION_LIST_LIMIT, conversation_list, first_line
from chat.services import MESSAGE_MAX_CHARS, chat_turn, conversation_get, conversation_replies_seen
from chat.tools import ToolResult
from common.apis import ChatThrottle, CustomerThrottle, IsCustomer
from common.fields import StrictCharField
from common.numbering import format_number


def _result_field(hint: Any, help_text: str) -> serializers.Field:
    """The serializer field of one `ToolResult` field: its type, optional when it may be None."""
    optional = type(None) in get_args(hint)
    kind = next((a for a in get_args(hint) if a is not type(None)), hint) if optional else hint
    options = {"help_text": help_text, "required": not optional}
    if kind is bool:
        return serializers.BooleanField(**options)
    if get_origin(kind) is list:
        return serializers.ListField(child=serializers.CharField(), **options)
    return serializers.CharField(**options)


@cache
def _result_specs() -> tuple[tuple[str, Any, str], ...]:
    """(name, type, help) of each `ToolResult` field, resolved once: every chat turn serialises its results."""
    hints = get_type_hints(ToolResult)
    return tuple((f.name, hints[f.name], f.metadata.get("help", "")) for f in dataclass_fields(ToolResult))


class ToolResultSerializer(serializers.Serializer):
    """A `chat.tools.ToolResult` as the API sends it; its fields are the dataclass's. A stored result (a dict)
    is read through `ToolResult.from_stored`, so an older one gets its labels too."""

    def get_fields(self):
        return {name: _result_field(hint, help_text) for name, hint, help_text in _result_specs()}

    def to_representation(self, instance):
        result = instance if isinstance(instance, ToolResult) else ToolResult.from_stored(instance)
        return super().to_representation(result.as_dict())


class ChatTurnApi(APIView):
    """POST: one turn with the agent. GET: the customer's conversations (chat history), newest first."""

    permission_classes = [IsCustomer]
    throttle_classes = [ChatThrottle]

    def get_throttles(self):
        # Reading the history is not a model call: the ordinary per-customer limit, not the chat one.
        return [CustomerThrottle()] if self.request.method == "GET" else super().get_throttles()

    @extend_schema_serializer(component_name="ConversationListItem")
    class ListItemSerializer(serializers.Serializer):
        conversation_id = serializers.UUIDField(source="pk")
        first_line = serializers.SerializerMethodField(help_text="첫 고객 메시지의 첫 줄")
        message_count = serializers.IntegerField()
        created_at = serializers.DateTimeField()
        updated_at = serializers.DateTimeField(help_text="마지막 대화 시각")

        def get_first_line(self, conversation) -> str:
            return first_line(conversation.first_message)

    @extend_schema(responses={200: ListItemSerializer(many=True)}, summary="내 대화 목록 (최근 대화부터)")
    def get(self, request):
        conversations = conversation_list(customer=request.customer)[:CONVERSATION_LIST_LIMIT]
        return Response(self.ListItemSerializer(conversations, many=True).data)

    @extend_schema_serializer(component_name="ChatTurnInput")
    class InputSerializer(serializers.Serializer):
        message = StrictCharField(
            max_length=MESSAGE_MAX_CHARS,
            trim_whitespace=True,
            error_messages={
                "blank": "메시지가 비어 있습니다.",
                "required": "message 항목이 필요합니다.",
                "max_length": f"메시지는 {MESSAGE_MAX_CHARS:,}자 이내로 보내 주세요.",
                "invalid": "메시지는 문자열이어야 합니다.",
                "null": "메시지가 비어 있습니다.",
            },
        )
        conversation_id = serializers.UUIDField(required=False, allow_null=True)

    @extend_schema_serializer(component_name="ChatTurnOutput")
    class OutputSerializer(serializers.Serializer):
        conversation_id = serializers.UUIDField()
        reply = serializers.CharField()
        tool_results = ToolResultSerializer(many=True)

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer}, summary="에이전트와 한 턴 대화")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        turn = chat_turn(
            customer=request.customer,
            text=data.validated_data["message"],
            conversation_id=data.validated_data.get("conversation_id"),
        )
        return Response(
            self.OutputSerializer(
                {
                    "conversation_id": turn.conversation.pk,
                    "reply": turn.reply.content,
                    "tool_results": turn.reply.tool_results,
                }
            ).data
        )


class ConversationDetailApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    class QuerySerializer(serializers.Serializer):
        # A query string is text: "12" is the integer 12 here; the bound keeps a huge number a 400, not a 500.
        after = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=2**62,
            help_text="이 메시지 ID보다 뒤의 메시지만 (화면에 이어 붙일 때)",
        )

    @extend_schema_serializer(component_name="ConversationOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="ConversationMessage")
        class MessageSerializer(serializers.ModelSerializer):
            role = serializers.ChoiceField(
                choices=ChatMessage.Role.choices,
                help_text="customer 고객 · assistant AI 상담 · operator 상담원 답변 · system 처리 결과 안내",
            )
            author = serializers.SerializerMethodField(
                help_text='화면에 보일 작성자: "상담원 김상담" 또는 "상담원", "AI 상담", "안내", 고객은 ""'
            )
            ticket_id = serializers.SerializerMethodField(help_text="관련 문의 번호(T00001) 또는 null")
            tool_results = ToolResultSerializer(many=True, help_text="이 메시지에 딸린 처리 결과")

            class Meta:
                model = ChatMessage
                fields = ("id", "role", "author", "content", "tool_results", "created_at", "ticket_id")

            def get_author(self, message) -> str:
                return author_line(message.role, message.author_name)

            def get_ticket_id(self, message) -> str | None:
                return format_number("T", message.ticket_id) if message.ticket_id else None

        conversation_id = serializers.UUIDField(source="pk")
        created_at = serializers.DateTimeField()
        messages = MessageSerializer(many=True)

    @extend_schema(
        parameters=[QuerySerializer],
        responses={200: OutputSerializer},
        summary="대화 내용 (본인 대화만; 보여 준 상담원 답변은 읽음 처리)",
        description=(
            "상담원 답변(`operator`)과 요청 처리 결과 안내(`system`)도 이 대화에 이어 붙는다. `?after=<id>`면 그보다 "
            "뒤의 메시지만 준다. 보여 준 상담원 답변의 문의는 읽음으로 처리되어 `unread`가 줄어든다."
        ),
    )
    def get(self, request, conversation_id):
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        conversation = conversation_get(customer=request.customer, conversation_id=conversation_id)
        messages = conversation.messages.order_by("id")
        if query.validated_data.get("after") is not None:
            messages = messages.filter(pk__gt=query.validated_data["after"])
        shown = list(messages)
        conversation_replies_seen(customer=request.customer, messages=shown)
        return Response(
            self.OutputSerializer(
                {"pk": conversation.pk, "created_at": conversation.created_at, "messages": shown}
            ).data
        )
