from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
    verbose_name = "개인정보 보호"
