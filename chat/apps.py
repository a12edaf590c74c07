from django.apps import AppConfig

from chat.offline_agent import offline_next_message
from llm.disclosure import purpose_fields_register
from llm.offline import register_conversation


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "고객 채팅"

    def ready(self) -> None:
        # The built-in offline model answers the customer agent's conversations with this app's offline agent
        # (the draft pipeline registers its structured replies the same way, in DraftsConfig.ready()).
        register_conversation(offline_next_message)
        # Answers and outcomes reach the conversation they belong to, in the transaction that makes them: the
        # lower apps name the seam (tickets.hooks, actions.hooks) and never import chat. Imports here, not for a
        # cycle: an apps.py module loads before the app registry is ready.
        from actions.hooks import outcome_register
        from chat.services import chat_action_outcome_append, chat_operator_reply_append
        from tickets.hooks import reply_stored_register

        reply_stored_register("chat.operator_reply", chat_operator_reply_append)
        outcome_register("chat.action_outcome", chat_action_outcome_append)
        # What a chat request sends, declared beside its prompt builder, for the disclosure (llm.disclosure).
        from chat.prompts import MODEL_FIELDS  # the app registry is ready only now

        purpose_fields_register("chat", MODEL_FIELDS)
