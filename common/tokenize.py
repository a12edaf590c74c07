"""Korean tokens for search: content morphemes from Kiwi, function morphemes dropped.

Kiwi splits 환불은 / 환불이 / 환불해 into 환불 + a particle or 하다-suffix, so the index and the query
meet on 환불 (FTS5 trigram cannot: it needs 3 characters; unicode61 splits on spaces only).

Kept:
- nouns NNG, NNP and numerals NR (pronouns NP such as 저, 이거 are dropped: they carry no topic);
- roots XR (깔끔 in 깔끔하다);
- verb and adjective stems VV, VA (also the irregular VV-R, VA-I ... tags), marked with ``/V`` so the
  stem 가 (가다) cannot collide with a noun 가; the near-universal 하, 되, 있, 없, 같 are dropped;
- foreign words SL (lowercased: PG = pg), numbers SN, hanja SH.

Loading the model takes about 2.5 s and ~100 MB, so there is one Kiwi per process, created on first use.
Creation and every call are serialized by a lock: Kiwi objects are not documented as thread-safe and
gunicorn/celery may run threads.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

NOUN_TAGS = frozenset({"NNG", "NNP", "NR"})
PLAIN_TAGS = frozenset({"XR", "SN", "SH"})
FOREIGN_TAGS = frozenset({"SL"})
PREDICATE_TAGS = frozenset({"VV", "VA"})
PREDICATE_MARKER = "/V"
# Stems that occur in nearly every sentence (환불 되나요, 주문 있어요): they only add noise to BM25.
STOP_STEMS = frozenset({"하", "되", "있", "없", "같", "이"})

_kiwi: Kiwi | None = None
_lock = threading.Lock()


def _get_kiwi() -> Kiwi:
    """Caller holds `_lock`."""
    global _kiwi
    if _kiwi is None:
        from kiwipiepy import Kiwi

        _kiwi = Kiwi()
    return _kiwi


def warm_up() -> bool:
    """Load the model now (e.g. at worker start) instead of on the first query. True when this call loaded it,
    False when the process already held it (inherited from the process that forked it, or loaded before)."""
    with _lock:
        loaded = _kiwi is not None
        _get_kiwi()
    return not loaded


class Morpheme(NamedTuple):
    """One morpheme with its character span in the analysed text (for checks that reason on grammar)."""

    form: str
    tag: str
    start: int
    end: int


def sentences(text: str) -> list[list[Morpheme]]:
    """`text` split into sentences of morphemes, all of them (function morphemes included), in one call
    to the shared Kiwi. Spans index into `text`."""
    if not text or not text.strip():
        return []
    with _lock:
        analysed = _get_kiwi().tokenize(text, split_sents=True)
    return [[Morpheme(m.form, m.tag, m.start, m.start + m.len) for m in sentence] for sentence in analysed]


def _token(form: str, tag: str) -> str | None:
    base_tag = tag.split("-", 1)[0]  # VV-R, VA-I: irregular conjugation markers
    if base_tag in NOUN_TAGS or base_tag in PLAIN_TAGS:
        return form
    if base_tag in FOREIGN_TAGS:
        return form.lower()
    if base_tag in PREDICATE_TAGS:
        if form in STOP_STEMS:
            return None
        return form + PREDICATE_MARKER
    return None


def tokens(text: str) -> list[str]:
    """Content morphemes of `text` in order, repeats kept (BM25 counts them)."""
    if not text or not text.strip():
        return []
    with _lock:
        morphemes = _get_kiwi().tokenize(text)
    out: list[str] = []
    for m in morphemes:
        token = _token(m.form, m.tag)
        if token:
            out.append(token)
    return out


def morphemes(text: str) -> list[Morpheme]:
    """Every morpheme of `text`, function morphemes included (for understanding a sentence, not for search).
    Uses the same single Kiwi as `tokens`."""
    if not text or not text.strip():
        return []
    with _lock:
        analysed = _get_kiwi().tokenize(text)
    return [Morpheme(m.form, m.tag, m.start, m.start + m.len) for m in analysed]
