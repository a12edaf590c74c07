"""How long each kind of record is kept, and under which rule. Pure: plain values in, plain values out.

전자상거래법 제6조 and 시행령 제6조 make a shop keep complaint and dispute records 3 years and contract,
withdrawal, payment and supply records 5 years; 개인정보 보호법 제21조 says what no law keeps any longer is
destroyed without delay, and what a law keeps is stored apart or marked. Settings may lengthen a period
(CS_RETENTION_YEARS), never shorten it below the law's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class Rule:
    code: str
    years: int
    label: str  # what an operator or customer reads: the law and the item


COMPLAINT = Rule("COMPLAINT", 3, "전자상거래법 시행령 제6조제1항제4호(소비자 불만·분쟁처리 기록) 3년")
CONTRACT = Rule("CONTRACT", 5, "전자상거래법 시행령 제6조제1항제2호(계약 또는 청약철회 등에 관한 기록) 5년")
PAYMENT = Rule("PAYMENT", 5, "전자상거래법 시행령 제6조제1항제3호(대금결제 및 재화등의 공급에 관한 기록) 5년")
ACCESS = Rule("ACCESS", 2, "개인정보의 안전성 확보조치 기준 제8조(접속기록) 2년")
# Nothing requires keeping it: destroyed on an erasure request.
NONE = Rule("NONE", 0, "보존 의무 없음")

RULES: dict[str, Rule] = {rule.code: rule for rule in (COMPLAINT, CONTRACT, PAYMENT, ACCESS, NONE)}

# The action kinds (actions.ActionRecord.Kind codes): a refund or cancellation is a withdrawal with money paid
# back, an exchange a withdrawal of the delivered goods, an address change a record of supply.
ACTION_KIND_RULES: dict[str, str] = {
    "REFUND": "PAYMENT",
    "CANCEL": "PAYMENT",
    "EXCHANGE": "CONTRACT",
    "ADDRESS_CHANGE": "PAYMENT",
}

# Each kind of record the shop holds and the rule it is kept under. Audit rows follow their subject.
RECORD_RULES: dict[str, str] = {
    "chat.Conversation": "COMPLAINT",
    "chat.ChatMessage": "COMPLAINT",
    "chat.ToolCall": "COMPLAINT",
    "tickets.Ticket": "COMPLAINT",
    "tickets.TicketMessage": "COMPLAINT",
    "tickets.TicketEvent": "COMPLAINT",
    "tickets.DataSubjectRequest": "COMPLAINT",
    "drafts.Draft": "COMPLAINT",  # drafts hold the operator-only diagnosis too
    "drafts.DraftEvent": "COMPLAINT",
    "evals.DraftRating": "COMPLAINT",
    "orders.Order": "CONTRACT",
    "orders.OrderEvent": "CONTRACT",
    "actions.ActionRecord": "PAYMENT",  # by kind: ACTION_KIND_RULES
    "actions.ActionEvent": "PAYMENT",
    "diagnostics.ServiceEvent": "ACCESS",
    # The customer's contact data (name, phone, e-mail, shipping address) is needed for complaints only.
    "contact": "COMPLAINT",
}

# A model call (and its prompt) serves a complaint conversation or draft and may serve a money request; it is kept
# only as long as the shortest of the periods of what it serves.
MODEL_CALL_SERVES: tuple[str, ...] = ("COMPLAINT", "PAYMENT")


def years_for(code: str, overrides: Mapping[str, int] | None = None) -> int:
    """The period of rule `code` in years: the law's, or a longer one from settings (a shorter one is ignored)."""
    legal = RULES[code].years
    return max(legal, int((overrides or {}).get(code, legal)))


def model_call_rule(overrides: Mapping[str, int] | None = None) -> str:
    """The rule a model-call log follows: the shortest applicable period."""
    return min(MODEL_CALL_SERVES, key=lambda code: years_for(code, overrides))


def action_rule(kind: str) -> str:
    return ACTION_KIND_RULES.get(kind, "PAYMENT")


def years_before(moment: datetime | date, years: int):
    """`moment` moved back `years` calendar years (29 February becomes 28 February)."""
    try:
        return moment.replace(year=moment.year - years)
    except ValueError:
        return moment.replace(year=moment.year - years, day=28)


def cutoff(now: datetime, code: str, overrides: Mapping[str, int] | None = None) -> datetime:
    """Records of rule `code` whose period started before this moment have expired."""
    return years_before(now, years_for(code, overrides))


def keep_until(start: datetime | date, code: str, overrides: Mapping[str, int] | None = None):
    """The moment a record of rule `code` started at `start` may no longer be kept."""
    years = years_for(code, overrides)
    try:
        return start.replace(year=start.year + years)
    except ValueError:
        return start.replace(year=start.year + years, day=28)
