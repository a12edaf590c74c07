from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from actions.models import ActionRecord
from actions.services import DECIDE_PERMISSION, action_decide
from common.apis import IsStaff, UsernameField
from common.fields import StrictBooleanField, StrictCharField


class OpsActionDecideApi(APIView):
    """Staff-only: approve or reject a pending refund/cancel. The service checks the `decide` permission again."""

    permission_classes = [IsStaff]
    required_permissions = (DECIDE_PERMISSION, "actions.view_actionrecord")  # the answer shows the record

    @extend_schema_serializer(component_name="OpsActionDecideInput")
    class InputSerializer(serializers.Serializer):
        approve = StrictBooleanField()
        note = StrictCharField(max_length=500, required=False, allow_blank=True, default="")

    @extend_schema_serializer(component_name="OpsActionRecord")
    class OutputSerializer(serializers.ModelSerializer):
        action_id = serializers.CharField(source="number")
        status_display = serializers.CharField(source="status_label")
        decided_by = UsernameField("decided_by")

        class Meta:
            model = ActionRecord
            fields = (
                "action_id",
                "kind",
                "order_id",
                "customer_id",
                "status",
                "status_display",
                "refund_amount",
                "decided_by",
                "decided_at",
                "decision_note",
            )

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer}, summary="[운영] 환불·취소 승인/반려")
    def post(self, request, action_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record = action_decide(number=action_id, actor=request.user, **data.validated_data)
        return Response(self.OutputSerializer(record).data)
