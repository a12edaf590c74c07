from __future__ import annotations

from django.db.models import Prefetch, Q

from drafts.models import Draft
from knowledge.models import KnowledgeChunk, KnowledgeDocument
from tickets.models import Ticket


def ticket_drafts(ticket: Ticket) -> list[Draft]:
    """The ticket's drafts, newest first."""
    return list(Draft.objects.filter(ticket=ticket).select_related("decided_by", "override_by").order_by("-id"))


def draft_current(drafts: list[Draft]) -> Draft | None:
    """What the operator reviews, from `ticket_drafts`: the live draft, else the newest one (failed,
    preparing or decided)."""
    return next((d for d in drafts if d.status == Draft.Status.GENERATED), drafts[0] if drafts else None)


def latest_drafts_prefetch() -> Prefetch:
    """Each ticket's drafts, newest first, as `ticket.draft_list` (id and status only): one query for a page."""
    return Prefetch(
        "drafts", queryset=Draft.objects.order_by("-id").only("id", "ticket_id", "status"), to_attr="draft_list"
    )


def citations_resolve(drafts: list[Draft]) -> dict[tuple[str, int], dict]:
    """Title and text for every (document, chunk) cited by these drafts, in one query."""
    wanted = {(c["doc_id"], c["chunk"]) for d in drafts for c in d.citations}
    if not wanted:
        return {}
    condition = Q()
    for doc_id, index in wanted:
        condition |= Q(document__doc_id=doc_id, index=index)
    rows = KnowledgeChunk.objects.filter(condition).values("document__doc_id", "document__title", "index", "text")
    return {(r["document__doc_id"], r["index"]): {"title": r["document__title"], "text": r["text"]} for r in rows}


def citations_with_text(draft: Draft, chunks: dict[tuple[str, int], dict]) -> list[dict]:
    """The draft's citations with the title and chunk text from `citations_resolve`."""
    return [{**c, **chunks.get((c["doc_id"], c["chunk"]), {})} for c in draft.citations]


def document_titles(doc_ids: list[str]) -> dict[str, str]:
    """doc_id → title for the documents that exist (dropped citations may name one that does not). One query."""
    if not doc_ids:
        return {}
    return dict(KnowledgeDocument.objects.filter(doc_id__in=set(doc_ids)).values_list("doc_id", "title"))
