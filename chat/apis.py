from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from chat.models import ChatMessage
from chat.selectors import CONVERSATION_LIST_LIMIT, conversation_list, first_line
from chat.services import MESSAGE_MAX_CHARS, chat_turn, conversation_get
from common.apis import ChatThrottle, CustomerThrottle, IsCustomer
from common.fields import StrictCharField


class ToolResultSerializer(serializers.Serializer):
    tool = serializers.CharField()
    ok = serializers.BooleanField()
    action_id = serializers.CharField(required=False)
    ticket_id = serializers.CharField(required=False)
    status = serializers.CharField(required=False, help_text="상태 코드 (DONE, PENDING, OPEN …)")
    status_display = serializers.CharField(required=False, help_text="상태 (완료, 승인대기 …)")
    reason = serializers.CharField(required=False, help_text="거절·확인 사유")
    needs_clarification = serializers.BooleanField(required=False)


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

        def validate_message(self, value):
            if not isinstance(self.initial_data.get("message"), str):
                raise serializers.ValidationError("메시지는 문자열이어야 합니다.")
            return value

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

    @extend_schema_serializer(component_name="ConversationOutput")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="ConversationMessage")
        class MessageSerializer(serializers.ModelSerializer):
            class Meta:
                model = ChatMessage
                fields = ("role", "content", "tool_results", "created_at")

        conversation_id = serializers.UUIDField(source="pk")
        created_at = serializers.DateTimeField()
        messages = MessageSerializer(many=True)

    @extend_schema(responses={200: OutputSerializer}, summary="대화 내용 (본인 대화만)")
    def get(self, request, conversation_id):
        conversation = conversation_get(customer=request.customer, conversation_id=conversation_id)
        conversation.messages_list = list(conversation.messages.all())
        return Response(
            self.OutputSerializer(
                {"pk": conversation.pk, "created_at": conversation.created_at, "messages": conversation.messages_list}
            ).data
        )
