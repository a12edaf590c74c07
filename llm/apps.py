from django.apps import AppConfig


class LlmConfig(AppConfig):
    name = "llm"
    verbose_name = "모델 호출"
