"""The held-out personal-data set (heldout/masking.json) on its way to the model.

Written before the normalising masker, by someone who had not read it, and never tuned on: this test asserts no
rate. It sends every text as a user message through `llm.masking.mask_messages` — exactly what goes on the wire
for a customer's words in a draft, a QA pass, a diagnosis or chat history — and checks the figures against the
line the README's security section states. Run with `-s` to print them.

A secret *leaks* if it reaches the wire as written, or folded (NFKC, digits read aloud turned into digits,
separators and case ignored) inside what is left once the case's `keep` substrings are taken out. A text is
*over-masked* if one of its `keep` substrings does not arrive as written.

The chat's current message is the one exception by design: a street address the customer is asking to ship to
stays in it (README, "Personal data and prompt fences"); the same message is masked as history.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

from django.conf import settings

from llm.masking import mask_messages

DATA = json.loads((Path(settings.BASE_DIR) / "heldout" / "masking.json").read_text())
README = Path(settings.BASE_DIR) / "README.md"
STATED = re.compile(r"<!-- heldout-masking: (?P<figures>[^>]*) -->")

_SPOKEN = {"공": "0", "영": "0", "일": "1", "이": "2", "삼": "3", "사": "4", "오": "5", "육": "6", "륙": "6"}
_SPOKEN |= {"칠": "7", "팔": "8", "구": "9"}
_RUN = re.compile("[공영일이삼사오육륙칠팔구](?:[\\s\\-–—.·/_]*[공영일이삼사오육륙칠팔구]){2,}")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _RUN.sub(lambda m: "".join(_SPOKEN.get(ch, "") for ch in m.group()), text)
    return re.sub(r"[\W_]+", "", text).lower()


def _wire(text: str) -> str:
    return mask_messages([{"role": "user", "content": text}])[0]["content"]


def _leaks(case: dict, out: str) -> bool:
    rest = out
    for kept in case.get("keep", []):
        rest = rest.replace(kept, " ")
    folded = _fold(rest)
    return any(s in out or (len(_fold(s)) >= 3 and _fold(s) in folded) for s in case["secrets"])


def figures() -> dict:
    leaks = [c for c in DATA["cases"] if _leaks(c, _wire(c["text"]))]
    texts = DATA["cases"] + DATA["clean"]
    over = [c for c in texts if any(k not in _wire(c["text"]) for k in c.get("keep", []))]
    return {
        "leaks": len(leaks),
        "cases": len(DATA["cases"]),
        "over": len(over),
        "texts": len(texts),
        "leaked_kinds": dict(Counter(f"{c['kind']}/{c['variant']}" for c in leaks)),
    }


def _line(f: dict) -> str:
    return f"leaks {f['leaks']}/{f['cases']}, over-masked {f['over']}/{f['texts']}"


def test_the_held_out_figures_are_the_ones_the_readme_states():
    f = figures()
    print("\nheld-out masking:", _line(f), "leaked:", f["leaked_kinds"])
    stated = STATED.search(README.read_text())
    assert stated, "README: no <!-- heldout-masking: … --> line"
    measured, said = _line(f), stated.group("figures").strip()
    assert said == measured, f"README states {said!r}, measured {measured!r}"
