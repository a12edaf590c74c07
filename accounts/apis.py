"""Login (a new token) and logout (that token revoked) for the customer chat page and integrations."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import policy
from accounts.authentication import ExpiringTokenAuthentication
from accounts.services import token_issue, token_revoke, token_ttl
from accounts.throttle import LOCKED_CODE, locked_message, login_retry_after
from common.errors import DomainError
from common.fields import StrictCharField

ERROR = inline_serializer("AuthError", {"code": serializers.CharField(), "detail": serializers.CharField()})


class AuthLoginApi(APIView):
    """Checks the password through Django's backends (django-axes first: it counts failures per username and
    per address and refuses locked ones) and issues a new token."""

    authentication_classes = []  # anonymous by design: a stale token in the header must not block logging in
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="TokenRequest")
    class InputSerializer(serializers.Serializer):
        username = StrictCharField(max_length=150)
        password = StrictCharField(max_length=128, trim_whitespace=False, style={"input_type": "password"})

    @extend_schema_serializer(component_name="TokenResponse")
    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField(help_text="`Authorization: Token <token>` 헤더에 넣습니다.")
        expires_at = serializers.DateTimeField(help_text="이 시각 이후에는 401: 다시 로그인해야 합니다.")
        display_name = serializers.CharField(help_text="화면 인사에 쓰는 이름 (고객이면 고객 이름, 아니면 아이디)")
        customer_id = serializers.CharField(allow_null=True, help_text="고객 계정이면 고객 ID (C003 …)")

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(ERROR, description="아이디·비밀번호가 틀렸거나 빠짐 (`invalid_credentials`)"),
            429: OpenApiResponse(
                ERROR, description="실패가 많아 잠김 (`login_locked`); Retry-After 헤더가 남은 초를 알려 줍니다."
            ),
        },
        auth=[],
        summary="로그인 토큰 발급",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        credentials = data.validated_data
        user = authenticate(request=request, username=credentials["username"], password=credentials["password"])
        if user is None:
            if getattr(request, "axes_locked_out", False):  # set on this (DRF) request by django-axes
                seconds = login_retry_after(request, {"username": credentials["username"]})
                return Response(
                    {"code": LOCKED_CODE, "detail": locked_message(seconds)},
                    status=status.HTTP_429_TOO_MANY_REQUESTS,
                    headers={"Retry-After": str(seconds)},
                )
            raise DomainError("아이디 또는 비밀번호가 올바르지 않습니다.", code="invalid_credentials")
        token, key = token_issue(user=user, actor=user)
        expires_at = policy.token_expires_at(created_at=token.created_at, ttl=token_ttl())
        customer = getattr(user, "customer", None)
        return Response(
            self.OutputSerializer(
                {
                    "token": key,
                    "expires_at": expires_at,
                    "display_name": customer.name if customer is not None else user.get_username(),
                    "customer_id": customer.customer_id if customer is not None else None,
                }
            ).data
        )


class AuthLogoutApi(APIView):
    """Revokes the token that made this request; the user's other devices stay signed in."""

    authentication_classes = [ExpiringTokenAuthentication]
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={
            204: OpenApiResponse(description="토큰 폐기됨"),
            401: OpenApiResponse(ERROR, description="토큰이 없거나 이미 만료·폐기됨"),
        },
        summary="로그아웃 (이 토큰 폐기)",
    )
    def post(self, request):
        token_revoke(token=request.auth, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
