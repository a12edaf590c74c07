"""The operator's decision on a draft: state after apply/reject, and what is refused."""

import pytest
from django.contrib.auth import get_user_model

from common.errors import InvalidState, PermissionDenied
from drafts.models import Draft
from drafts.services import draft_apply, draft_reject
from tickets.models import Ticket, TicketMessage
from tickets.services import ticket_message_add

pytestmark = pytest.mark.django_db(transaction=True)


def test_apply_unchanged_sends_the_answer_as_an_operator_message(live_draft, desk_user, desk_tags):
    answer = live_draft.answer
    draft = draft_apply(draft_id=live_draft.pk, final_body=None, tags=["결제오류"], actor=desk_user)
    draft.refresh_from_db()
    assert (draft.status, draft.applied, draft.edit_ratio, draft.final_body) == ("APPLIED", "UNCHANGED", 0.0, answer)
    assert draft.decided_by == desk_user and draft.decided_at is not None
    reply = TicketMessage.objects.filter(ticket_id=draft.ticket_id, author_type="OPERATOR").get()
    assert (reply.body, reply.author) == (answer, desk_user)
    ticket = Ticket.objects.get(pk=draft.ticket_id)
    assert ticket.status == "ANSWERED"
    assert list(ticket.tags.values_list("name", flat=True)) == ["결제오류"]


def test_apply_edited_records_the_normalised_edit_distance(live_draft, desk_user):
    answer = live_draft.answer
    final = answer + " 불편을 드려 죄송합니다."
    draft = draft_apply(draft_id=live_draft.pk, final_body=final, actor=desk_user)
    draft.refresh_from_db()
    assert (draft.applied, draft.final_body) == ("EDITED", final)
    assert draft.edit_ratio == round(len(" 불편을 드려 죄송합니다.") / len(final), 4)
    assert TicketMessage.objects.get(ticket_id=draft.ticket_id, author_type="OPERATOR").body == final


def test_the_same_text_sent_from_the_edit_box_counts_as_unchanged(live_draft, desk_user):
    draft = draft_apply(draft_id=live_draft.pk, final_body=f"  {live_draft.answer}\r\n", actor=desk_user)
    assert (draft.applied, draft.edit_ratio) == ("UNCHANGED", 0.0)


def test_reject_sends_nothing_and_keeps_the_ticket_open(live_draft, desk_user):
    draft = draft_reject(draft_id=live_draft.pk, actor=desk_user)
    draft.refresh_from_db()
    assert (draft.status, draft.applied, draft.edit_ratio, draft.decided_by) == ("REJECTED", "", None, desk_user)
    assert not TicketMessage.objects.filter(ticket_id=draft.ticket_id, author_type="OPERATOR").exists()
    assert Ticket.objects.get(pk=draft.ticket_id).status == "OPEN"


def test_a_decided_draft_cannot_be_decided_again(live_draft, desk_user):
    draft_apply(draft_id=live_draft.pk, final_body=None, actor=desk_user)
    for decide in (
        lambda: draft_apply(draft_id=live_draft.pk, final_body=None, actor=desk_user),
        lambda: draft_reject(draft_id=live_draft.pk, actor=desk_user),
    ):
        with pytest.raises(InvalidState) as err:
            decide()
        assert err.value.code == "draft_not_live"
    assert TicketMessage.objects.filter(ticket_id=live_draft.ticket_id, author_type="OPERATOR").count() == 1


def test_a_draft_older_than_the_customers_newest_message_is_refused(live_draft, desk_user, settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the new message's draft is not made: the old one is still GENERATED
    ticket_message_add(ticket=live_draft.ticket, body="그리고 쿠폰도 안 먹혀요", author=None)
    with pytest.raises(InvalidState) as err:
        draft_apply(draft_id=live_draft.pk, final_body=None, actor=desk_user)
    assert err.value.code == "draft_stale"
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"


@pytest.mark.parametrize(
    ("final_body", "tags", "code"),
    [("   ", [], "empty_reply"), ("가" * 4001, [], "reply_too_long"), (None, ["없는태그"], "unknown_tag")],
)
def test_bad_decisions_are_refused_and_change_nothing(live_draft, desk_user, final_body, tags, code):
    with pytest.raises(InvalidState) as err:
        draft_apply(draft_id=live_draft.pk, final_body=final_body, tags=tags, actor=desk_user)
    assert err.value.code == code
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"
    assert not TicketMessage.objects.filter(ticket_id=live_draft.ticket_id, author_type="OPERATOR").exists()


def test_staff_without_the_review_permission_cannot_decide(live_draft):
    clerk = get_user_model().objects.create_user("clerk", is_staff=True)
    with pytest.raises(PermissionDenied):
        draft_apply(draft_id=live_draft.pk, final_body=None, actor=clerk)
    with pytest.raises(PermissionDenied):
        draft_reject(draft_id=live_draft.pk, actor=clerk)
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"
