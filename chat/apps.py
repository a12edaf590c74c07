from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "고객 채팅"
