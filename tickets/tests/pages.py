"""Reading admin pages in tests: which form controls people fill in have no label."""

from __future__ import annotations

from html.parser import HTMLParser


class _Controls(HTMLParser):
    """Form controls people fill in (not hidden inputs or buttons) and what labels them."""

    def __init__(self):
        super().__init__()
        self.controls: list[dict] = []
        self.label_for: set[str] = set()
        self.in_label = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "label":
            self.in_label += 1
            if attrs.get("for"):
                self.label_for.add(attrs["for"])
        if tag in ("input", "textarea", "select") and attrs.get("type") not in ("hidden", "submit", "button"):
            self.controls.append({**attrs, "_tag": tag, "_wrapped": self.in_label > 0})

    def handle_endtag(self, tag):
        if tag == "label" and self.in_label:
            self.in_label -= 1


def unlabelled(html: str) -> list[str]:
    parser = _Controls()
    parser.feed(html)
    return [
        f"{c['_tag']} name={c.get('name')} id={c.get('id')}"
        for c in parser.controls
        if not (c["_wrapped"] or c.get("id") in parser.label_for or c.get("aria-label") or c.get("aria-labelledby"))
    ]
