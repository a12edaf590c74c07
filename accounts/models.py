from django.conf import settings
from django.db import models


class AuthToken(models.Model):
    """One signed-in device (the chat page, an integration). A login issues a new one; the others stay until
    they expire, are logged out, or the password changes.

    Only the SHA-256 of the key is stored: a copy of the database holds no usable token. `password_fingerprint`
    is the user's session hash when the token was issued (Django's `get_session_auth_hash`, which changes with
    every password change), so a password change ends every token without a signal. `issuer` names who vouched
    for a token that no password issued (a shop's signed session); it is checked again at every use.
    """

    digest = models.CharField("키 해시", max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="auth_tokens", verbose_name="사용자"
    )
    created_at = models.DateTimeField("발급일시")
    password_fingerprint = models.CharField("비밀번호 지문", max_length=128)
    # "" for a password login; "<kind>:<id>" for a token issued on another party's word (a shop's signed
    # session: "integration:<pk>"), valid only while that party stands behind it (accounts/issuers.py).
    issuer = models.CharField("발급처", max_length=64, blank=True, default="")

    class Meta:
        verbose_name = "로그인 토큰"
        verbose_name_plural = "로그인 토큰"
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "created_at"], name="authtoken_user_created")]

    def __str__(self) -> str:
        return f"토큰 #{self.pk}"
