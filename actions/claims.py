"""The money-claim guard: finds Korean sentences that assert a refund or cancellation *is* approved, done,
paid or scheduled, so that no text tells a customer what a person has not decided.

It reasons on morphemes from the shared Kiwi (common.tokenize), sentence by sentence, not on a phrase
list:

1. A *money event* is a predicate on a money noun: 환불/취소/입금/환급/반환/송금/지급/승인 + 되다/하다
   (환불되었습니다, 승인했습니다, 환불해 드리겠습니다), a state noun on a money subject (환불이 완료되었습니다,
   환불 처리 중입니다, 입금 예정입니다), a light verb with a money subject or an amount (승인이 났습니다,
   69,000원을 돌려드렸습니다), or a bare headline (환불 완료, 3영업일 안에 환불).
2. The event's clause is read to its end: negation (않다, 안, 못, 없다, 아니다, 미승인), a question
   (-나요, -까요, ?), an indirect question (-는지), a possibility (-ㄹ 수 있다), an imperative or request
   (-세요, 해 주세요), a wish (-고 싶다) or a purpose (-도록, -려고) makes it no claim.
3. A condition earlier in the sentence (승인되면, 승인 후, 승인되는 대로, 승인일로부터, 확인하면) — or one
   trailing it (…환불됩니다(승인 시)) — makes a non-past event no claim ("승인되면 환불됩니다"); a past one
   stays a claim ("승인 후 환불되었습니다" says it happened).

What is a claim is decided here, on plain values; whether the customer's records make it true is decided
by `claims_unsupported` over facts a selector reads (actions.selectors.money_claims_unsupported).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from common.tokenize import Morpheme, sentences

CODE = "money_claim"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Nouns that are themselves a money event when predicated (환불되다, 승인하다, 입금되다).
EVENT_NOUNS = _words("환불 취소 입금 환급 반환 송금 지급 승인 결제취소 환불금")
# Nouns that say a thing happened or will happen; a money event when the thing is money.
STATE_NOUNS = _words("처리 완료 진행 확정 예정 약속 보장 결정 실행 마무리")
# Heads a verbless headline may end on and still assert: 환불 완료, 취소 승인, 입금 예정.
HEADLINE_HEADS = _words("완료 승인 확정 예정")
# Nouns that name an amount of money: a subject that can be "sent back" or "deposited".
AMOUNT_NOUNS = _words("금액 전액 환불금 대금 돈 차액 금 액 결제금액 적립금")
# A cancellation of these is not money (교환 취소, 배송지 변경 취소, 접수 취소).
NOT_MONEY_BEFORE_CANCEL = _words("교환 배송지 주소 변경 접수 문의 상담 예약 티켓 신청")
# An approval of these, with no refund or cancellation in sight, is a payment, not money going back.
PAYMENT_BEFORE_APPROVAL = _words("결제 카드 구매 주문")
# Heads that make a money noun about paperwork, not money: 환불 요청, 취소 접수, 환불 여부, 환불 규정.
PAPERWORK_HEADS = _words("요청 신청 접수 문의 여부 절차 규정 정책 안내 결과 기간 대상 관련 내역 건")
# "X 후 / X 시 / X되는 대로": what follows waits for X.
AFTER_NOUNS = _words("후 뒤 다음 이후 즉시 시 때 경우 대로 시점 직후")
# Events another event can wait for (승인 후, 확인 후, 회수 후, 검수 완료 시).
AWAITED_NOUNS = _words("승인 확인 검토 검수 회수 입고 도착 완료 처리 접수 결정 반품 수거 결과")
FROM_PARTICLES = _words("부터 로부터 으로부터 에서부터")

NOUNISH = _words("NNG NNP NNB NR SN XPN XSN SL SH")
PREDICATE_AFTER_NOUN = _words("XSV XSA")
# Light verbs: 승인이 났다, 환불이 됐다, 환불을 해 드렸다, 금액을 돌려드렸다, 입금이 들어갔다.
LIGHT_VERBS_EVENT = _words("되 하 나 끝나 마치 받 이루어지 진행하")
LIGHT_VERBS_AMOUNT = _words("돌리 돌려주 돌려드리 보내 넣 드리 들어가 들어오 받 주")
# Directly after a noun, these make it a predicate (환불처리 되었습니다, 약속드립니다).
VERB_AFTER_NOUN = _words("되 하 드리")

PAST_EP = _words("었 았 였 ᆻ 었었 았었")
NEGATING_MAG = _words("안 못")
NEGATING_VX = _words("않 못하 말")
# Auxiliaries that withdraw the event: a wish (환불하고 싶다), an attempt (환불해 보다). Others (해 드리다,
# 하고 있다) carry it on.
WITHDRAWING_VX = _words("싶 보")
# 승인되면, 승인되어야, 승인돼도, 승인되자마자: what follows waits for it.
CONDITIONAL_EC = _words("면 으면 다면 ᆫ다면 는다면 라면 이라면 거든 으려면 려면") | _words(
    "어야 아야 여야 어도 아도 여도 더라도 자마자 자"
)
# Reported speech: the main clause decides (…완료되었다고 안내드렸습니다 vs …말씀드릴 수 없습니다).
QUOTE_EC = _words("다고 라고 이라고 ᆫ다고 는다고 냐고 자고 다는 라는")
PURPOSE_EC = _words("도록 려고 으려고 러 으러 고자 게")
INDIRECT_QUESTION_EC = _words("는지 ᆫ지 은지 ᆯ지 을지 는가 ᆫ가 은가 나 던지")
QUESTION_EF_ENDINGS = tuple("까 까요 나요 냐 냐고 니 는지요 ᆫ지요 은지요 ᆫ가요 는가요 은가요".split())
IMPERATIVE_EF = _words("세요 으세요 십시오 으십시오 어라 아라 거라 자 ᆸ시다 읍시다 렴")
PUNCTUATION = _words("SF SP SS SSO SSC SE SO SW SWK SB W_EMOJI")

# Every claim names money: an event noun (환불, 취소, 승인 …) or an amount (금액, 돈, 69,000원, 7만 원).
_MONEY_HINT = re.compile("|".join(sorted(EVENT_NOUNS | AMOUNT_NOUNS, key=len, reverse=True)) + r"|[\d만천백]\s*원")
_LINE = re.compile(r"[^\n]+")
_CHUNK = re.compile(r".+?(?:[.!?。]+(?=\s)|$)")
_AMOUNT = re.compile(r"(\d[\d,]*(?:\s*[만천백]\s*\d[\d,]*)*\s*[만천백]?)\s*원")
_AMOUNT_PART = re.compile(r"(\d[\d,]*)\s*([만천백]?)")
_UNITS = {"만": 10_000, "천": 1_000, "백": 100, "": 1}


@dataclass(frozen=True)
class Claim:
    """One sentence that asserts money moved or will move. Offsets index the checked text."""

    start: int
    end: int
    sentence: str
    trigger: str  # the predicate that makes it a claim, e.g. "승인되었습니다"
    past: bool  # said to have happened (vs promised or scheduled)
    amounts: tuple[int, ...] = ()
    code: str = CODE

    def as_blocker(self, *, field: str) -> dict:
        """The shape stored on a draft and returned by the staff API: a stable code and the span."""
        return {
            "code": self.code,
            "field": field,
            "start": self.start,
            "end": self.end,
            "sentence": self.sentence,
            "trigger": self.trigger,
        }


@dataclass(frozen=True)
class MoneyFact:
    """What the records say: a refund or cancellation that a person approved (or that is done)."""

    order_id: str
    amount: Decimal | None


# --- finding claims ------------------------------------------------------------------------------------


def _base(tag: str) -> str:
    return tag.split("-", 1)[0]


@dataclass
class _Compound:
    first: int  # index of its first morpheme
    last: int  # index of its last morpheme
    forms: tuple[str, ...]
    has_number: bool

    @property
    def head(self) -> str:
        return self.forms[-1]

    def _money_at(self, index: int) -> bool:
        noun = self.forms[index]
        if noun not in EVENT_NOUNS:
            return False
        before = set(self.forms[:index])
        if noun == "취소" and before & NOT_MONEY_BEFORE_CANCEL:
            return False
        if noun == "승인" and before & PAYMENT_BEFORE_APPROVAL and not {"취소", "환불"} & set(self.forms):
            return False
        return True

    @property
    def money(self) -> bool:
        return any(self._money_at(i) for i in range(len(self.forms)))

    @property
    def event(self) -> bool:
        """The compound itself is a money event when predicated: 환불, 환불 처리, 취소 완료, 환불 처리 중."""
        if self._money_at(len(self.forms) - 1):
            return True
        if self.head in STATE_NOUNS:
            return self.money
        if self.head == "중" and len(self.forms) >= 2 and self.forms[-2] in {"처리", "진행"}:
            return self.money
        return False

    @property
    def state(self) -> bool:
        """A state noun with no money of its own (완료, 처리): an event when the clause's subject is money."""
        return self.head in STATE_NOUNS or (
            self.head == "중" and len(self.forms) >= 2 and self.forms[-2] in {"처리", "진행"}
        )

    @property
    def amount(self) -> bool:
        return self.head in AMOUNT_NOUNS or (self.has_number and self.head in {"원", "만원", "천원"})

    @property
    def topic(self) -> bool:
        """Money is what the clause is about (환불, 환불 가능, 69,000원) — not a request for it (환불 요청)."""
        return self.event or self.amount or (self.money and self.head not in PAPERWORK_HEADS)

    @property
    def negated(self) -> bool:
        return "미" in self.forms  # 미승인, 미처리, 미입금

    @property
    def awaited(self) -> bool:
        """승인 후, 확인 시, 검수 완료 후: a condition, not an event."""
        return self.head in AFTER_NOUNS and any(f in AWAITED_NOUNS for f in self.forms[:-1])


def _joins(left: Morpheme, right: Morpheme) -> bool:
    """Is `right` part of the same noun phrase as `left`? (환불 처리, 69,000원, 3영업일 — but 승인 후 | 3영업일)"""
    if _base(right.tag) not in NOUNISH or right.start > left.end + 1:
        return False
    if left.form in AFTER_NOUNS:
        return False  # 승인 후 | 3영업일 안에: the condition ends at 후
    return not (right.tag == "SN" and right.start > left.end)  # a spaced number starts a new phrase


def _compounds(morphs: Sequence[Morpheme]) -> dict[int, _Compound]:
    """Runs of nominal morphemes, keyed by the index of their last morpheme."""
    out: dict[int, _Compound] = {}
    i = 0
    while i < len(morphs):
        if _base(morphs[i].tag) not in NOUNISH:
            i += 1
            continue
        j = i
        while j + 1 < len(morphs) and _joins(morphs[j], morphs[j + 1]):
            j += 1
        forms = tuple(m.form for m in morphs[i : j + 1] if m.tag not in {"XSN"} or m.form in AMOUNT_NOUNS)
        if forms:
            out[j] = _Compound(i, j, forms, any(m.tag == "SN" for m in morphs[i : j + 1]))
        i = j + 1
    return out


@dataclass
class _Reading:
    """How an event's clause ends."""

    verdict: str  # "claim" or why not: negated, question, indirect, modal, imperative, wish, purpose, conditional
    past: bool
    end: int  # index after the clause


def _waits_after(etm: Morpheme, noun: Morpheme) -> bool:
    """승인된 후, 승인되는 대로, 확인될 때: the clause is a time the next one waits for. But 요청하신 대로
    ("as you asked") is a manner: 대로 waits only after the present -는."""
    if noun.form == "대로":
        return etm.form == "는"
    return noun.form in AFTER_NOUNS


def _is_question_ef(form: str) -> bool:
    return form.endswith(QUESTION_EF_ENDINGS) or form in {"나", "니"}


def _read_clause(morphs: Sequence[Morpheme], start: int) -> _Reading:
    """Read from the event's predicate (index `start`) to the end of its clause."""
    past = False
    verdict = "claim"
    n = len(morphs)
    i = start
    while i < n:
        m = morphs[i]
        tag = _base(m.tag)
        nxt = morphs[i + 1] if i + 1 < n else None
        nxt_tag = _base(nxt.tag) if nxt else ""
        if tag == "EP":
            if m.form in PAST_EP:
                past = True
        elif tag == "VX":
            if m.form in NEGATING_VX:
                verdict = "negated"
            elif m.form in WITHDRAWING_VX and verdict == "claim":
                verdict = "wish" if m.form == "싶" else "attempt"
        elif tag == "VCN" or (tag == "VA" and m.form == "없"):
            verdict = "negated"
        elif tag == "MAG" and m.form in NEGATING_MAG:
            verdict = "negated"
        elif tag == "EC":
            if m.form in {"어야", "아야", "여야"}:
                return _Reading("conditional" if verdict == "claim" else verdict, past, i + 1)
            if m.form == "지" and nxt and nxt.form in NEGATING_VX:
                pass  # 되지 않다: the VX marks it
            elif m.form in {"게", "도록"} and nxt and nxt.form in {"되", "하"}:
                pass  # 환불되게 하다, 입금되도록 하겠습니다: still the event
            elif m.form in QUOTE_EC:
                pass  # reported: read on into the clause that reports it
            elif nxt_tag == "VX":
                pass  # 해 드리다, 하고 있다: an auxiliary carries the clause on
            elif m.form in CONDITIONAL_EC:
                return _Reading("conditional" if verdict == "claim" else verdict, past, i + 1)
            elif m.form in INDIRECT_QUESTION_EC:
                return _Reading("indirect" if verdict == "claim" else verdict, past, i + 1)
            elif m.form in PURPOSE_EC:
                return _Reading("purpose" if verdict == "claim" else verdict, past, i + 1)
            else:
                return _Reading(verdict, past, i + 1)  # 고, 는데, 니까, 어서, 며: asserted, clause ends
        elif tag == "ETM":
            if nxt and _waits_after(m, nxt):
                return _Reading("conditional" if verdict == "claim" else verdict, past, i + 1)
            if nxt and nxt.form == "수":
                return _Reading("modal" if verdict == "claim" else verdict, past, i + 1)
            # 환불될 예정, 입금될 거예요, 승인된 금액은 …: the clause goes on through the noun it modifies.
        elif tag == "ETN":
            if nxt and nxt.form in {"때문", "때문에"}:
                pass  # 승인되었기 때문에: asserted
            elif nxt and nxt.form in {"로", "으로"} and i + 2 < n and morphs[i + 2].form in {"결정", "확정", "하"}:
                i += 2  # 환불하기로 결정되었습니다: the decision carries the event
            elif not (nxt is None or _base(nxt.tag) in PUNCTUATION):
                return _Reading("nominalised" if verdict == "claim" else verdict, past, i + 1)
        elif tag == "EF":
            if _is_question_ef(m.form) or (nxt and nxt.form == "?"):
                verdict = "question"
            elif m.form in IMPERATIVE_EF and verdict == "claim" and not past:
                verdict = "imperative"
            return _Reading(verdict, past, _sentence_end(morphs, i + 1))
        elif tag == "SF":
            if m.form == "?":
                verdict = "question"
            return _Reading(verdict, past, i + 1)
        i += 1
    return _Reading(verdict, past, n)


def _sentence_end(morphs: Sequence[Morpheme], i: int) -> int:
    """After an EF, the trailing punctuation still belongs to the clause (for "?")."""
    while i < len(morphs) and _base(morphs[i].tag) in PUNCTUATION:
        i += 1
    return i


def _ec_ends_clause(morphs: Sequence[Morpheme], i: int) -> bool:
    m = morphs[i]
    nxt = morphs[i + 1] if i + 1 < len(morphs) else None
    if nxt is None:
        return True
    if _base(nxt.tag) == "VX":
        return False
    if m.form in {"게", "도록"} and nxt.form in {"되", "하"}:
        return False
    return m.form not in QUOTE_EC


def _conditional_marker(morphs: Sequence[Morpheme], i: int, compounds: dict[int, _Compound]) -> bool:
    """Does morpheme i make what follows wait for something (승인되면, 승인 후, 승인되는 대로, 승인일로부터)?"""
    m = morphs[i]
    tag = _base(m.tag)
    nxt = morphs[i + 1] if i + 1 < len(morphs) else None
    if tag == "EC" and m.form in CONDITIONAL_EC:
        return True
    if tag == "ETM" and nxt is not None and _waits_after(m, nxt):
        return True
    compound = compounds.get(i)
    if compound is not None:
        if compound.awaited:
            return True
        if nxt is not None and nxt.form in FROM_PARTICLES and any(f in AWAITED_NOUNS for f in compound.forms):
            return True
    return False


@dataclass
class _Event:
    predicate: int  # index where the clause reading starts
    subject: _Compound | None  # the money compound it is about
    trigger_start: int
    negated: bool = False


def _events(morphs: Sequence[Morpheme], compounds: dict[int, _Compound]) -> list[_Event]:
    events: list[_Event] = []
    clause: list[_Compound] = []  # compounds since the last clause boundary
    before: list[_Compound] = []  # compounds of the sentence's earlier clauses
    has_measure = any(c.amount or "영업일" in c.forms or "이내" in c.forms for c in compounds.values())
    n = len(morphs)
    i = 0
    while i < n:
        m = morphs[i]
        tag = _base(m.tag)
        compound = compounds.get(i)
        if compound is not None:
            nxt = morphs[i + 1] if i + 1 < n else None
            nxt_tag = _base(nxt.tag) if nxt else ""
            money_subject = next((c for c in reversed(clause) if c.event or c.amount), None)
            if money_subject is None and not clause:
                # A dropped subject carries over from the clause before: 환불 가능하고 바로 처리해 드릴게요.
                money_subject = next((c for c in reversed(before) if c.topic), None)
            is_event = compound.event or (compound.state and money_subject is not None)
            subject = compound if compound.event else money_subject
            if compound.awaited:
                pass
            elif nxt is not None and (
                nxt_tag in PREDICATE_AFTER_NOUN
                or (nxt_tag == "VV" and nxt.form in VERB_AFTER_NOUN)
                or nxt_tag == "VCP"
                or (nxt_tag in {"XSV", "VV"} and nxt.form == "받")
            ):
                if is_event and nxt.form in {"하", "되", "이", "드리", "받", "시키"}:
                    negated = compound.negated or _negated_before(morphs, compound.first, clause)
                    events.append(_Event(i + 1, subject, morphs[compound.first].start, negated))
            elif nxt is None or nxt_tag in PUNCTUATION or (nxt_tag == "JX" and nxt.form == "요"):
                if is_event and (compound.head in HEADLINE_HEADS or has_measure):
                    events.append(_Event(i + 1, subject, morphs[compound.first].start, compound.negated))
            clause.append(compound)
        elif tag in {"VV", "VX"} and (m.form in LIGHT_VERBS_EVENT or m.form in LIGHT_VERBS_AMOUNT):
            previous = morphs[i - 1] if i else None
            handled = previous is not None and i - 1 in compounds and m.form in VERB_AFTER_NOUN | {"받"}
            if not handled and not (tag == "VX" and previous is not None and _base(previous.tag) == "EC"):
                subject = next(
                    (
                        c
                        for c in reversed(clause)
                        if (c.event and m.form in LIGHT_VERBS_EVENT) or (c.amount and m.form in LIGHT_VERBS_AMOUNT)
                    ),
                    None,
                )
                if subject is not None:
                    negated = subject.negated or _negated_between(morphs, subject.last + 1, i)
                    events.append(_Event(i, subject, morphs[subject.first].start, negated))
        elif tag == "EC" and _ec_ends_clause(morphs, i):
            before += clause
            clause = []
        i += 1
    return events


def _negated_between(morphs: Sequence[Morpheme], start: int, stop: int) -> bool:
    return any(_base(m.tag) == "MAG" and m.form in NEGATING_MAG for m in morphs[start:stop])


def _negated_before(morphs: Sequence[Morpheme], first: int, clause: list[_Compound]) -> bool:
    """안/못 between the clause's money subject and this predicate (환불은 못 해 드립니다), or right before it."""
    if first and _base(morphs[first - 1].tag) == "MAG" and morphs[first - 1].form in NEGATING_MAG:
        return True
    subject = next((c for c in reversed(clause) if c.event or c.amount), None)
    return subject is not None and _negated_between(morphs, subject.last + 1, first)


def _amounts(sentence: str) -> tuple[int, ...]:
    found = []
    for match in _AMOUNT.finditer(sentence):
        total = 0
        for digits, unit in _AMOUNT_PART.findall(match.group(1)):
            number = digits.replace(",", "")
            if number.isdigit():
                total += int(number) * _UNITS[unit.strip()]
        if total:
            found.append(total)
    return tuple(found)


def _trailing(morphs: Sequence[Morpheme], k: int) -> bool:
    """Nothing but particles and punctuation after index k: the condition closes the sentence
    (…환불됩니다(승인 시), 환불됩니다, 승인되면요)."""
    return all(_base(m.tag) in PUNCTUATION or _base(m.tag).startswith("J") for m in morphs[k + 1 :])


def claims_in_sentence(morphs: Sequence[Morpheme], text: str) -> Claim | None:
    """The claim this analysed sentence makes, if any. `text` is the whole text the offsets index."""
    if not morphs:
        return None
    compounds = _compounds(morphs)
    events = _events(morphs, compounds)
    if not events:
        return None
    markers = [i for i in range(len(morphs)) if _conditional_marker(morphs, i, compounds)]
    start, end = morphs[0].start, morphs[-1].end
    for event in events:
        reading = _read_clause(morphs, event.predicate)
        if event.negated or reading.verdict != "claim":
            continue
        waits = any(k < event.predicate for k in markers) or any(
            k >= event.predicate and _trailing(morphs, k) for k in markers
        )
        if waits and not reading.past:
            continue  # "승인되면 환불됩니다", "3영업일 안에 환불됩니다(승인 시)"
        trigger_end = morphs[min(reading.end, len(morphs)) - 1].end
        sentence = text[start:end]
        return Claim(
            start=start,
            end=end,
            sentence=sentence,
            trigger=text[event.trigger_start : trigger_end].strip(),
            past=reading.past,
            amounts=_amounts(sentence),
        )
    return None


def _money_chunks(text: str) -> Iterable[tuple[int, str]]:
    """Lines and punctuated sentences that contain a money word at all, with their offsets. The analyser
    costs ~45 µs a character; a reply about delivery never reaches it."""
    for line in _LINE.finditer(text):
        for chunk in _CHUNK.finditer(line.group()):
            if _MONEY_HINT.search(chunk.group()):
                yield line.start() + chunk.start(), chunk.group()


def _analysable(text: str) -> tuple[str, list[int]]:
    """`text` as the analyser should read it — NFKC (full-width ６９,０００원 → 69,000원) and without invisible
    format characters (a zero-width space inside 환불 would hide the word) — and, for each of its characters,
    the index of the character of `text` it came from."""
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        for normalised in unicodedata.normalize("NFKC", char):
            out.append(normalised)
            origin.append(index)
    origin.append(len(text))
    return "".join(out), origin


def find_money_claims(text: str) -> list[Claim]:
    """Every sentence of `text` that asserts a refund or cancellation is approved, done, paid or scheduled.
    Offsets and sentences refer to `text` as given."""
    clean, origin = _analysable(text or "")
    claims = []
    for offset, chunk in _money_chunks(clean):
        for morphs in sentences(chunk):
            claim = claims_in_sentence([m._replace(start=m.start + offset, end=m.end + offset) for m in morphs], clean)
            if claim is not None:
                start, end = origin[claim.start], origin[claim.end - 1] + 1
                claims.append(replace(claim, start=start, end=end, sentence=text[start:end]))
    return claims


# --- are they true? ------------------------------------------------------------------------------------


def claims_unsupported(
    claims: Iterable[Claim],
    *,
    approved: Iterable[MoneyFact],
    customer_order_ids: Iterable[str] = (),
    order_ids: Iterable[str] | None = None,
) -> list[Claim]:
    """The claims the records do not make true.

    A claim is about the orders its sentence names (any of `customer_order_ids`), else about `order_ids`
    (the ticket's order, the orders the chat turn touched), else about the customer as a whole. It is
    true when one of those orders has an approved (or done) refund or cancellation — and, if the sentence
    names amounts, when each amount is an approved amount (or their total).
    """
    approved = list(approved)
    known = {o.upper() for o in customer_order_ids if o}
    context = {o.upper() for o in (order_ids or ()) if o}
    out = []
    for claim in claims:
        sentence = claim.sentence.upper()
        named = {o for o in known | context if o in sentence}
        scope = named or context or None
        facts = [f for f in approved if scope is None or f.order_id.upper() in scope]
        if not facts:
            out.append(claim)
            continue
        if claim.amounts:
            amounts = {int(f.amount) for f in facts if f.amount is not None}
            amounts.add(sum(int(f.amount) for f in facts if f.amount is not None))
            if not set(claim.amounts) <= amounts:
                out.append(claim)
    return out
