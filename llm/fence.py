"""Customer text placed in a prompt is fenced and labelled as data.

The fence is a fixed tag pair; every "<" in the customer's text becomes a full-width "＜" so the
text cannot close the fence (or open another tag) however it is written.
"""

from __future__ import annotations

FENCE_OPEN = "<customer_message>"
FENCE_CLOSE = "</customer_message>"


def fence_customer_text(text: str) -> str:
    return f"{FENCE_OPEN}\n{text.replace('<', '＜')}\n{FENCE_CLOSE}"


def is_fenced(content: str) -> bool:
    return content.startswith(FENCE_OPEN + "\n") and content.endswith("\n" + FENCE_CLOSE)


def unfence(content: str) -> str:
    """The customer's text from a fenced message; any other content is returned unchanged.
    The "＜" escape is kept: it is lossy by design and harmless to read."""
    if is_fenced(content):
        return content[len(FENCE_OPEN) + 1 : -(len(FENCE_CLOSE) + 1)]
    return content
