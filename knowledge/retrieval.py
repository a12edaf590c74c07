"""BM25 search over the stored chunk tokens, and the check that a model's citations were really retrieved.

The BM25 index lives in process memory. Each call asks the database one cheap aggregate (count, max id,
latest build time, latest document edit over active documents); when that version key changes the
index is rebuilt from the stored tokens (no re-tokenizing: Kiwi runs only on the query).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import bm25s
import numpy as np
from django.db.models import Count, Max

from common.tokenize import tokens
from knowledge.models import KnowledgeChunk

DEFAULT_K = 4


@dataclass(frozen=True)
class Hit:
    doc_id: str
    title: str
    chunk_index: int
    chunk_id: int
    text: str
    score: float

    def citation(self) -> dict:
        return {"doc_id": self.doc_id, "chunk": self.chunk_index}


@dataclass(frozen=True)
class _Row:
    chunk_id: int
    chunk_index: int
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class _Index:
    key: tuple
    bm25: bm25s.BM25 | None
    rows: tuple[_Row, ...]


_index: _Index | None = None
_lock = threading.Lock()


def _active_chunks():
    return KnowledgeChunk.objects.filter(document__is_active=True)


def _version_key() -> tuple:
    agg = _active_chunks().aggregate(
        n=Count("id"), max_id=Max("id"), built=Max("built_at"), edited=Max("document__updated_at")
    )
    return (agg["n"], agg["max_id"], agg["built"], agg["edited"])


def _build(key: tuple) -> _Index:
    records = list(
        _active_chunks()
        .order_by("id")
        .values_list("id", "index", "document__doc_id", "document__title", "text", "tokens")
    )
    if not records:
        return _Index(key=key, bm25=None, rows=())
    bm25 = bm25s.BM25()
    bm25.index([list(r[5]) for r in records], show_progress=False)
    rows = tuple(_Row(chunk_id=r[0], chunk_index=r[1], doc_id=r[2], title=r[3], text=r[4]) for r in records)
    return _Index(key=key, bm25=bm25, rows=rows)


def _current_index() -> _Index:
    global _index
    key = _version_key()
    with _lock:
        if _index is None or _index.key != key:
            _index = _build(key)
        return _index


def reset_cache() -> None:
    global _index
    with _lock:
        _index = None


def retrieve(query: str, *, k: int = DEFAULT_K) -> list[Hit]:
    """The k best chunks of active documents for `query`, best first; chunks sharing no token are left out."""
    if k <= 0:
        return []
    query_tokens = tokens(query)
    if not query_tokens:
        return []
    index = _current_index()
    if index.bm25 is None:
        return []
    token_ids = index.bm25.get_tokens_ids(query_tokens)
    if not token_ids:
        return []
    # The snapshot is immutable once built, so scoring needs no lock.
    scores = index.bm25.get_scores_from_ids(token_ids)
    order = np.argsort(-scores, kind="stable")[:k]
    hits = []
    for position in order:
        score = float(scores[position])
        if score <= 0.0:
            break
        row = index.rows[position]
        hits.append(
            Hit(
                doc_id=row.doc_id,
                title=row.title,
                chunk_index=row.chunk_index,
                chunk_id=row.chunk_id,
                text=row.text,
                score=score,
            )
        )
    return hits


def validate_citations(cited: list[dict], retrieved: list[Hit]) -> tuple[list[dict], list[dict]]:
    """Split a model's citations into (kept, dropped).

    A citation is {"doc_id": str, "chunk": int}. It is kept only if that exact chunk was among the hits
    given to the model; anything else (unknown document, real document but a chunk that was not
    retrieved, malformed item) is dropped as fabricated. Kept citations are normalized to those two keys
    and de-duplicated; dropped ones are returned as given.
    """
    allowed = {(hit.doc_id, hit.chunk_index) for hit in retrieved}
    kept: list[dict] = []
    dropped: list = []
    seen: set[tuple[str, int]] = set()
    for item in cited:
        doc_id = item.get("doc_id") if isinstance(item, dict) else None
        chunk = item.get("chunk") if isinstance(item, dict) else None
        valid = isinstance(doc_id, str) and isinstance(chunk, int) and not isinstance(chunk, bool)
        if not valid or (doc_id, chunk) not in allowed:
            dropped.append(item)
            continue
        if (doc_id, chunk) in seen:
            continue
        seen.add((doc_id, chunk))
        kept.append({"doc_id": doc_id, "chunk": chunk})
    return kept, dropped
