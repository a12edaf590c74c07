"""The customer chat page. The page is static HTML; everything it shows comes from the token-authenticated API."""

from __future__ import annotations

from django.views.generic import TemplateView


class ChatPageView(TemplateView):
    template_name = "web/chat.html"


chat_page = ChatPageView.as_view()
