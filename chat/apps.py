from django.apps import AppConfig

from chat.offline_agent import run_agent
from llm.disclosure import purpose_fields_register
from llm.offline import register_conversation


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "고객 채팅"

    def ready(self) -> None:
        # The built-in offline model answers the customer agent's conversations with this app's offline agent
        # (the draft pipeline registers its structured replies the same way, in DraftsConfig.ready()).
        register_conversation(run_agent)
        # What a chat request sends, declared beside its prompt builder, for the disclosure (llm.disclosure).
        from chat.prompts import MODEL_FIELDS  # the app registry is ready only now

        purpose_fields_register("chat", MODEL_FIELDS)
