from django.apps import AppConfig

from chat.offline_agent import run_agent
from llm.offline import register_conversation


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "고객 채팅"

    def ready(self) -> None:
        # The built-in offline model answers the customer agent's conversations with this app's offline agent
        # (the draft pipeline registers its structured replies the same way, in DraftsConfig.ready()).
        register_conversation(run_agent)
