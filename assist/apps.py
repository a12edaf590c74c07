from django.apps import AppConfig


class AssistConfig(AppConfig):
    name = "assist"
    verbose_name = "상담 보조(답변 초안)"
