from __future__ import annotations

from django.db.models import Count, Min

from knowledge.models import FaqEntry, KnowledgeDocument

FAQ_PROMPT_LIMIT = 200


def faq_list_active(limit: int = FAQ_PROMPT_LIMIT) -> list[FaqEntry]:
    """Active FAQs in display order. Small by design: the whole list goes into the prompt."""
    return list(FaqEntry.objects.filter(is_active=True).order_by("sort_order", "id")[:limit])


def index_status() -> dict:
    """{"documents": active documents, "chunks": their chunks, "built": bool}.

    built: there is at least one active document and every active document has chunks built no earlier
    than its last edit. An edited document stays searchable with its old chunks until the next build,
    which is what `built=False` warns about.
    """
    rows = list(
        KnowledgeDocument.objects.filter(is_active=True)
        .annotate(n_chunks=Count("chunks"), first_built=Min("chunks__built_at"))
        .values_list("updated_at", "n_chunks", "first_built")
    )
    chunks = sum(n for _, n, _ in rows)
    built = bool(rows) and all(n > 0 and first is not None and first >= updated for updated, n, first in rows)
    return {"documents": len(rows), "chunks": chunks, "built": built}
