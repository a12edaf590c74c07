"""The customer chat page. The page is static HTML; everything it shows comes from the token-authenticated API."""

from __future__ import annotations

from django.views.generic import TemplateView

from actions.policy import automated_criteria
from actions.selectors import return_windows
from tickets.services import BODY_MAX


class ChatPageView(TemplateView):
    template_name = "web/chat.html"

    def get_context_data(self, **kwargs):
        # The text boxes take what the API accepts: one limit for what a person writes.
        return {**super().get_context_data(**kwargs), "body_max": BODY_MAX}


chat_page = ChatPageView.as_view()


class CriteriaPageView(TemplateView):
    """The criteria of the agent's automated decisions, generated from the rules the tools apply."""

    template_name = "web/criteria.html"

    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "criteria": automated_criteria(return_windows())}


criteria_page = CriteriaPageView.as_view()
