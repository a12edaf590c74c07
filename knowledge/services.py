"""Writes to the knowledge base: loading fixtures and (re)building the chunk index.

Neither is a customer-facing state change (no money, no order moves), so they take no actor and write
no audit row; they are run by deploy scripts, the management command and the admin action.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone

from common.errors import DomainError
from common.tokenize import tokens
from knowledge.chunking import DocumentFormatError, chunk_body, document_parse
from knowledge.models import FaqEntry, KnowledgeChunk, KnowledgeDocument
from knowledge.selectors import faq_list_active, index_status

__all__ = [
    "KnowledgeError",
    "faq_list_active",
    "index_status",
    "knowledge_fixture_load",
    "knowledge_index_build",
]

logger = logging.getLogger(__name__)

FAQ_FILE = "faq.json"
DOCUMENT_GLOB = "*.md"


class KnowledgeError(DomainError):
    code = "knowledge_error"


def _document_kind(value: str) -> str:
    text = value.strip()
    for choice in KnowledgeDocument.Kind:
        if text.upper() == choice.value or text == choice.label:
            return choice.value
    raise KnowledgeError(f"알 수 없는 문서 종류입니다: {value!r} (POLICY/GUIDE/NOTICE 또는 정책/가이드/공지)")


def _faq_rows(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise KnowledgeError(f"{path.name}: {exc}") from exc
    if not isinstance(data, list):
        raise KnowledgeError(f"{path.name}: FAQ 목록(JSON 배열)이어야 합니다.")
    rows = []
    for position, item in enumerate(data, start=1):
        if not isinstance(item, dict) or not item.get("question") or not item.get("answer"):
            raise KnowledgeError(f"{path.name}: {position}번째 항목에 question과 answer가 필요합니다.")
        rows.append(
            {
                "question": str(item["question"]).strip(),
                "answer": str(item["answer"]).strip(),
                "category": str(item.get("category", "")).strip(),
                "sort_order": int(item.get("sort_order", position * 10)),
                "is_active": bool(item.get("is_active", True)),
            }
        )
    return rows


def _upsert(model, lookup: dict, fields: dict, create_only: dict, counts: dict, prefix: str) -> None:
    """Create, update changed fields, or leave alone. Unchanged rows keep their updated_at, so a reload
    does not mark the index stale. `create_only` (is_active) is set on create only: a staff member's
    on/off switch survives a reload."""
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        model.objects.create(**lookup, **fields, **create_only)
        counts[f"{prefix}_created"] += 1
        return
    changed = [name for name, value in fields.items() if getattr(obj, name) != value]
    if not changed:
        counts[f"{prefix}_unchanged"] += 1
        return
    for name in changed:
        setattr(obj, name, fields[name])
    obj.save(update_fields=[*changed, "updated_at"])
    counts[f"{prefix}_updated"] += 1


def knowledge_fixture_load(*, directory: Path) -> dict:
    """Upsert `faq.json` (keyed by question) and every `*.md` document (keyed by doc_id) in `directory`.

    Idempotent: loading the same files twice changes nothing the second time. Nothing is deleted.
    Returns counts: faq_created/_updated/_unchanged, documents_created/_updated/_unchanged.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise KnowledgeError(f"디렉터리가 아닙니다: {directory}")

    faq_path = directory / FAQ_FILE
    faq_rows = _faq_rows(faq_path) if faq_path.exists() else []
    documents = []
    for path in sorted(directory.glob(DOCUMENT_GLOB)):
        try:
            source = document_parse(path.read_text(encoding="utf-8"), source=path.name)
        except DocumentFormatError as exc:
            raise KnowledgeError(str(exc)) from exc
        try:
            validate_slug(source.doc_id)
        except ValidationError as exc:
            raise KnowledgeError(f"{path.name}: doc_id는 영문 slug여야 합니다: {source.doc_id!r}") from exc
        documents.append((source, _document_kind(source.kind)))
    doc_ids = [source.doc_id for source, _ in documents]
    if len(doc_ids) != len(set(doc_ids)):
        raise KnowledgeError("같은 doc_id를 가진 문서 파일이 둘 이상입니다.")

    counts = {f"{prefix}_{what}": 0 for prefix in ("faq", "documents") for what in ("created", "updated", "unchanged")}
    with transaction.atomic():
        for row in faq_rows:
            is_active = row.pop("is_active")
            question = row.pop("question")
            _upsert(FaqEntry, {"question": question}, row, {"is_active": is_active}, counts, "faq")
        for source, kind in documents:
            _upsert(
                KnowledgeDocument,
                {"doc_id": source.doc_id},
                {"title": source.title, "kind": kind, "body": source.body},
                {"is_active": True},
                counts,
                "documents",
            )
    logger.info("knowledge.fixtures_loaded %s", " ".join(f"{k}={v}" for k, v in counts.items()))
    return counts


def _chunk_tokens(title: str, text: str) -> list[str]:
    # The title goes into every chunk's tokens: a question about 환불 should prefer the chunks of the
    # refund policy over a passing mention of 환불 in the payment-error guide.
    return tokens(title) + tokens(text)


def knowledge_index_build(*, document_ids: Iterable[str] | None = None) -> int:
    """Re-chunk and re-tokenize documents; returns the number of chunks written.

    document_ids=None rebuilds every active document and drops the chunks of inactive ones. With ids,
    only those documents are touched (an inactive one just loses its chunks). A document's chunks are
    replaced as a whole, in one transaction, so a reader sees either the old set or the new one.
    """
    built_at = timezone.now()  # taken before reading: an edit that races the build leaves built=False
    documents = KnowledgeDocument.objects.all()
    if document_ids is not None:
        wanted = set(document_ids)
        documents = documents.filter(doc_id__in=wanted)
        missing = wanted - set(documents.values_list("doc_id", flat=True))
        if missing:
            raise KnowledgeError(f"없는 문서 ID입니다: {', '.join(sorted(missing))}", code="not_found")
    documents = list(documents)

    # Tokenizing is the slow part: do it before opening the transaction.
    new_chunks: list[KnowledgeChunk] = []
    for document in documents:
        if not document.is_active:
            continue
        for index, text in enumerate(chunk_body(document.body)):
            new_chunks.append(
                KnowledgeChunk(
                    document=document,
                    index=index,
                    text=text,
                    tokens=_chunk_tokens(document.title, text),
                    built_at=built_at,
                )
            )

    with transaction.atomic():
        stale = KnowledgeChunk.objects.all()
        if document_ids is not None:
            stale = stale.filter(document__in=documents)
        stale.delete()
        KnowledgeChunk.objects.bulk_create(new_chunks)

    logger.info("knowledge.index_built documents=%d chunks=%d", len(documents), len(new_chunks))
    return len(new_chunks)
