from django.apps import AppConfig


class AssistConfig(AppConfig):
    name = "assist"
    verbose_name = "상담 보조(답변 초안)"

    def ready(self) -> None:
        from assist import offline_handlers  # noqa: F401  (registers the built-in model's structured replies)
