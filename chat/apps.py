from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "고객 채팅"

    def ready(self) -> None:
        from chat.offline_agent import run_agent
        from llm.offline import register_conversation

        # The built-in offline model answers the customer agent's conversations with this app's offline agent.
        register_conversation(run_agent)
