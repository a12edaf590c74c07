from django.apps import AppConfig


class DiagnosticsConfig(AppConfig):
    name = "diagnostics"
    verbose_name = "서비스 이벤트·오류 진단"

    def ready(self) -> None:
        # What a diagnosis request sends, declared beside its prompt builder, for the disclosure (llm.disclosure).
        from diagnostics.prompts import MODEL_FIELDS  # the app registry is ready only now
        from llm.disclosure import purpose_fields_register  # beside its use

        purpose_fields_register("diagnosis", MODEL_FIELDS)
