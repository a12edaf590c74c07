import pytest


@pytest.fixture
def no_ai_drafts(settings):
    """A ticket's AI reply draft is not what the test watches: without it a ticket's API call answers right after
    its commit (a clock starts where the change does), and a scripted model is asked only by the chat turn."""
    settings.CS_AI_DRAFTS_ENABLED = False
