"""A scripted model that plays the customer's chat while the rest of the pipeline gets the built-in offline
model's answers: a whole session (chat turns, then the draft stages reading what was sent) in one test."""

from __future__ import annotations

from llm.offline import respond
from llm.testing import ScriptedModelServer, Step, text_message


def chat_scripted(scripted_model: ScriptedModelServer, chat_script: list[Step]) -> ScriptedModelServer:
    """Chat requests (those offering tools) take `chat_script`'s steps in order, then "(끝)"; every other
    request (a pipeline stage) is answered by the offline model, which reads the prompt the way a model would,
    so the stages really run on what was sent."""
    steps = list(chat_script)

    def handler(body: dict) -> Step:
        if body.get("tools"):
            return steps.pop(0) if steps else text_message("(끝)")
        return respond(body)

    scripted_model.handler = handler
    return scripted_model
