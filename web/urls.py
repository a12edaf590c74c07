from django.urls import path

from web.views import chat_page, criteria_page

urlpatterns = [
    path("", chat_page, name="chat-page"),
    path("criteria/", criteria_page, name="criteria-page"),  # chat.tools.CRITERIA_PATH
]
