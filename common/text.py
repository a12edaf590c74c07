"""Text hygiene shared by every writer: what a model (or anything else untrusted) may not put in a row."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

# C0 controls except \t and \n, DEL, and C1 controls. NUL in particular fails a PostgreSQL text write.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control_chars(text: str) -> str:
    """Remove NUL and other control characters, keeping newlines and tabs."""
    return _CONTROL.sub("", text)


def strip_control_chars_deep(value: object) -> object:
    """The same for every string inside decoded JSON (dict keys included)."""
    if isinstance(value, str):
        return strip_control_chars(value)
    if isinstance(value, list):
        return [strip_control_chars_deep(item) for item in value]
    if isinstance(value, dict):
        return {strip_control_chars_deep(key): strip_control_chars_deep(item) for key, item in value.items()}
    return value


# --- folding: text as a checker should read it, with a way back to the original ---------------------------

# Characters that render as nothing (or as a blank) and can hide a word from a checker: format characters
# (zero-width space and joiners, soft hyphen, bidi marks: category Cf) and the Hangul fillers, which NFKC
# turns into U+1160 / U+115F.
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u180e")


def _invisible(char: str) -> bool:
    return char in _FILLERS or unicodedata.category(char) == "Cf"


def _plain(source: str) -> bool:
    """Nothing to fold: already NFKC, no format character (str.isprintable is False for them) and no filler."""
    return (
        unicodedata.is_normalized("NFKC", source)
        and source.replace("\n", "").replace("\t", "").replace("\r", "").isprintable()
        and not any(filler in source for filler in _FILLERS)
    )


@dataclass(frozen=True)
class Folded:
    """`text` derived from `source`, and for each of its characters the index of the source character it came
    from (`origin[len(text)]` is `len(source)`). Checkers read `text` and report spans of `source`."""

    source: str
    text: str
    origin: tuple[int, ...]

    @classmethod
    def of(cls, source: str) -> Folded:
        """NFKC per character (full-width ６９，０００ → 69,000, ＠ → @), invisible characters dropped."""
        if _plain(source):
            return cls(source, source, tuple(range(len(source) + 1)))  # most text: nothing to fold
        out: list[str] = []
        origin: list[int] = []
        for index, char in enumerate(source):
            if _invisible(char):
                continue
            for normalised in unicodedata.normalize("NFKC", char):
                if not _invisible(normalised):
                    out.append(normalised)
                    origin.append(index)
        origin.append(len(source))
        return cls(source, "".join(out), tuple(origin))

    def sub(self, pattern: re.Pattern[str], replace: str | Callable[[re.Match[str]], str]) -> Folded:
        """A regex substitution on `text` that keeps the way back: the replacement's characters point into the
        source characters of what they replace (an unchanged match keeps its own)."""
        out: list[str] = []
        origin: list[int] = []
        last = 0
        for match in pattern.finditer(self.text):
            out.append(self.text[last : match.start()])
            origin.extend(self.origin[last : match.start()])
            new = match.expand(replace) if isinstance(replace, str) else replace(match)
            out.append(new)
            origin.extend(self._spread(match.start(), match.end(), len(new)))
            last = match.end()
        if not out:
            return self
        out.append(self.text[last:])
        origin.extend(self.origin[last:])
        return Folded(self.source, "".join(out), (*origin,))

    def _spread(self, start: int, end: int, size: int) -> list[int]:
        """Origins for `size` characters that replace text[start:end]: spread over it in order, first to first
        and last to last, so a span that ends inside a replacement still ends where the source did."""
        width = end - start
        if size == 0:
            return []
        if width == 0:
            return [self.origin[start]] * size
        if size == 1:
            return [self.origin[start]]
        return [self.origin[start + (i * (width - 1)) // (size - 1)] for i in range(size)]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The source span of `text[start:end]` (end exclusive; an empty span stays empty)."""
        if end <= start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1
