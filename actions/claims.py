"""The money-claim guard: no text tells a customer that money moved, or will move, unless the records say so.

It fails closed. Every clause of customer-bound text that speaks of money — a refund, a cancellation, a
payment, a card, a deposit, an amount — is a *claim* unless it is recognised as safe:

- its own grammar withdraws it: negated (않다, 안, 못, 없다, 아니다, 미승인, 불가), a question, an indirect
  question (-는지, -ㄹ지, 여부), a possibility (-ㄹ 수 있다, 가능), an imperative, a wish or a purpose;
- it waits for something: a condition in the same sentence (승인되면, 승인 후, 승인되는 대로, "If approved,"),
  for what has not happened yet (a past event stays a claim: "승인 후 환불되었습니다");
- it is about paperwork, not money: a request registered (환불 요청을 접수했습니다, 환불 신청 완료), waiting
  (승인대기, 검토 중), or something the desk does that moves nothing (환불 건을 확인해 드릴게요);
- it explains policy: durations and deductions (3~5영업일 걸립니다, 배송비 3,000원이 차감됩니다), generic
  statements (환불은 원래 결제 수단으로 돌아갑니다), who decides (승인은 담당자가 합니다).

Anything else — a form this module has never seen included — is a claim, and `claims_unsupported` then asks
the records whether it is true. Text is folded before it is read (NFKC, invisible characters and Hangul
fillers removed, common typos and spacing variants, English money words), and a clause with no subject of
its own carries the money of the clause before it ("환불 가능해요. 바로 처리해 드릴게요.").

Pure: plain values in, plain values out; the selector (actions.selectors.money_claims_check) reads the
records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from common.text import Folded
from common.tokenize import Morpheme, sentences

CODE = "money_claim"

# What a claim is about, and so which records can make it true.
MONEY_BACK = "money_back"  # money going back to the customer: an approved or done refund/cancellation
PAYMENT = "payment"  # the customer's own payment: the order was paid (for that amount)
AMOUNT = "amount"  # an amount and nothing else: it must be an amount the records hold


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- vocabulary --------------------------------------------------------------------------------------------

# Nouns of money going back. 취소 and 승인 are money only in a money context (see _Compound._money_at).
MONEY_BACK_NOUNS = _words("환불 환불금 환불액 환급 환급금 반환 반환금 송금 지급 보상 보상금 차액 캐시백 입금 취소 승인")
# Nouns of the customer paying.
PAYMENT_NOUNS = _words("결제 결제금액 카드 구매 청구")
# Nouns that name an amount of money.
AMOUNT_NOUNS = _words("금액 전액 대금 돈 금 액 적립금 비용 요금 포인트 계좌")
MONEY_NOUNS = MONEY_BACK_NOUNS | PAYMENT_NOUNS | AMOUNT_NOUNS
# A cancellation or approval of these is not money (교환 취소, 배송지 변경 취소, 접수 취소, 교환 승인).
NOT_MONEY_BEFORE = _words("교환 배송지 주소 변경 접수 문의 상담 예약 티켓 신청 요청 회원 탈퇴 구독 알림")
# An approval of these, with no refund or cancellation in sight, is a payment, not money going back.
PAYMENT_BEFORE_APPROVAL = _words("결제 카드 구매 주문")
# Fees the policy states: an amount next to these explains the policy, it promises nothing.
FEE_NOUNS = _words("배송비 반품비 택배비 배송료 수수료 왕복 편도 무료배송 기준")
# Verbs of money moving, whoever the subject: 돌려드리다, 돌려받다, 갚다.
MONEY_VERBS = _words("돌리 돌려주 돌려드리 돌려받 되돌리 되돌려주 갚 환불받")
# Verbs that move money when their subject or object is money: 환불 들어갔어요, 69,000원을 보내 드렸습니다.
MOVING_VERBS = _words("들어가 들어오 나가 빠지 보내 넣 드리 주 받 돌아가 돌아오 오 가 쏘 꽂히 찍히 풀리 반영")

# Nouns that say a thing happened or will happen; predicated on money, they are money events.
STATE_NOUNS = _words("처리 완료 진행 확정 예정 약속 보장 결정 실행 마무리 반영 종결")
# Heads a verbless headline may end on and still assert: 환불 완료, 취소 승인, 입금 예정.
HEADLINE_HEADS = _words("완료 승인 확정 예정 처리 진행")
# Paperwork: a money noun before these names a request or a rule, not money (환불 요청, 환불 규정).
PAPERWORK_NOUNS = _words(
    "요청 신청 접수 문의 여부 절차 규정 정책 안내 결과 기간 대상 관련 내역 방법 기준 조건 상태 현황 상황 일정"
    " 가능여부 사유 건 번호 처리번호 양식 서류 신청서 요청서 진행상황"
)
# Paperwork that is registered: its 완료/되다 is the registration, not the money (환불 신청 완료).
REGISTRATION_NOUNS = _words("요청 신청 접수 등록 요청서 신청서")
# What the desk does that moves no money: 확인해 드릴게요, 안내드리겠습니다, 담당자에게 전달했습니다.
NON_MONEY_ACTS = _words(
    "확인 안내 검토 조회 연락 전달 말씀 알리 문의 공유 기록 메모 답변 설명 도와드리 도움 접수 등록 신청 요청"
    " 남기 올리 보 살피 체크 점검 파악 찾 알아보 알 여쭈 묻 부탁 기다리 대기 회신 통보 고지"
)
# People who decide: "승인은 담당자가 합니다" says who, not that it happened.
DECIDERS = _words("담당자 상담원 직원 관리자 매니저 사람 운영자 상담사 팀 고객센터")
DECISION_NOUNS = _words("승인 결정 판단 검토 확인 처리 심사")
# Waiting: 승인대기, 검토 중, 기다리고 있다.
PENDING_NOUNS = _words("대기 심사 검토중 확인중 대기중 보류")
PENDING_VERBS = _words("기다리 대기하")
# Generic statements about how things work.
GENERIC_ADVERBS = _words(
    "보통 일반적 일반 통상 대개 원래 항상 언제나 기본적 원칙적 원칙 규정상 정책상 대부분 평균 최대 최소"
)
POLICY_PREDICATES = _words(
    "걸리 소요 다르 차감 부담 적용 필요 제한 해당 포함 제외 공제 발생 부과 가능 불가 불가능 상이 달라지"
)
NEGATING_NOUNS = _words("불가 불가능 미 전 실패 반려 거절 거부 불허 미처리 미승인 미입금")
PAST_EP = _words("었 았 였 ᆻ 었었 았었")
NEGATING_MAG = _words("안 못")
NEGATING_VX = _words("않 못하 말")
WITHDRAWING_VX = _words("싶 보")
CONDITIONAL_EC = _words(
    "면 으면 다면 ᆫ다면 는다면 라면 이라면 거든 으려면 려면 어야 아야 여야 어도 아도 여도 더라도 자마자 자"
)
QUOTE_EC = _words("다고 라고 이라고 ᆫ다고 는다고 냐고 자고 다는 라는")
PURPOSE_EC = _words("도록 려고 으려고 러 으러 고자")
INDIRECT = _words("는지 ᆫ지 은지 ᆯ지 을지 는가 ᆫ가 은가 던지 ᆯ지요 는지요 ᆫ지요")
QUESTION_EF_ENDINGS = tuple("까 까요 나요 냐 냐고 니 는지요 ᆫ지요 은지요 ᆫ가요 는가요 은가요 ᆯ까 ᆯ까요 죠?".split())
IMPERATIVE_EF = _words("세요 으세요 십시오 으십시오 어라 아라 거라 ᆸ시다 읍시다 렴 어요 아요")
# "X 후 / X 시 / X되는 대로": what follows waits for X.
AFTER_NOUNS = _words("후 뒤 다음 이후 즉시 시 때 경우 대로 시점 직후")
AWAITED_NOUNS = _words("승인 확인 검토 검수 회수 입고 도착 완료 처리 접수 결정 반품 수거 결과 심사 반송")
FROM_PARTICLES = _words("부터 로부터 으로부터 에서부터")
UNCERTAIN_VERBS = _words("모르")
# A promise in time: with one of these, "담당자가 처리할 거예요" is no longer just who decides.
PROMISE_TIME = _words("곧 바로 즉시 오늘 내일 금방 당장 이미 방금 지금 금일 익일 모레")
# Institutions that carry money out: a request sent to them is the money moving.
EXECUTORS = _words("카드사 은행 결제사 결제대행사 PG 피지 페이 카카오페이 네이버페이 토스페이")
# Things a clause may be about that are not money: with one of these, a subjectless clause does not carry
# the money of the clause before it.
OTHER_SUBJECTS = _words(
    "교환 배송 배송지 주소 택배 상품 수거 회수 출고 문의 티켓 답변 상담 접수 반품 재고 옵션 사이즈 색상 송장 기사"
    " 주문 요청 신청 건"
)

# Verbs that work as particles before 어/아: 카드사에 따라, 문자를 통해, 정책에 의해.
POSTPOSITIONAL_VERBS = _words("따르 통하 의하 관하 대하 위하 비하 걸치 거치")
# Nouns that only complete what the clause before them says: 안내될 예정, 확인할 계획, 처리할 것.
AUX_NOUNS = _words("예정 계획 것 거 생각 방침")

NOUNISH = _words("NNG NNP NNB NR SN XPN XSN SL SH XR")
PUNCTUATION = _words("SF SP SS SSO SSC SE SO SW SWK SB W_EMOJI")

_AMOUNT = re.compile(
    r"(?:₩|\bKRW)\s*(?P<pre>\d[\d,]*)|(?P<num>\d[\d,]*(?:\s*[만천백]\s*\d[\d,]*)*\s*[만천백]?)\s*(?:원|KRW\b|won\b)",
    re.IGNORECASE,
)
_AMOUNT_PART = re.compile(r"(\d[\d,]*)\s*([만천백]?)")
_UNITS = {"만": 10_000, "천": 1_000, "백": 100, "": 1}
_LINE = re.compile(r"[^\n]+")
_CHUNK = re.compile(r".+?(?:[.!?。]+(?=\s)|$)")


# --- folding -------------------------------------------------------------------------------------------

# Typos and spacing variants of the money words, and verb endings written wrong (됬어요, 완료댔어요).
_TYPOS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), repl)
    for pattern, repl in (
        (r"환[블뷸볼뿔]|활불|환\s+불(?=[\s이은을가도요처완됐되해]|$)", "환불"),
        (r"취\s+소(?=[\s이은를가도요처완됐되해]|$)|취쇼", "취소"),
        (r"입\s+금(?=[\s이은을도요처완됐되해]|$)|입굼", "입금"),
        (r"결재", "결제"),
        (r"승\s+인(?=[\s이은을도요처완됐되해]|$)|승읜", "승인"),
        (r"완\s+료|완뇨", "완료"),
        (r"(?<=[료리인불소금급])\s*댔", "됐"),
        (r"됬|됫|됏|돼었|돼엇|되엇", "됐"),
        (r"햇(?=[어습다고음])", "했"),
        (r"읍니다", "습니다"),
        (r"되요(?=[\s.!?~]|$)", "돼요"),
        # "N일 내" is read as the verb 내다; "N일 이내" is the noun it means.
        (r"(?<=[일간주월]) ?내(?=[\s,.!?에로]|$)(?<!이내)", " 이내"),
    )
)

# English in a Korean sentence: the words the grammar below knows in Korean.
_ENGLISH_IN_KOREAN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), repl)
    for pattern, repl in (
        (r"\b(?:if|once|when|unless|until|after)\b[^,.;:!?가-힣]*[,;:]?", "승인되면, "),
        (r"\brefund(?:s|ed|ing)?\b|\breimburse(?:d|ment)?\b|\bcharge ?back\b|\bmoney back\b", "환불"),
        (r"\bcancel(?:l?ed|lation|s|ing)?\b", "취소"),
        (r"\bapprov(?:e|ed|al)\b", "승인"),
        (r"\bpayment\b|\bpaid\b|\bpay\b", "결제"),
        (r"\bdeposit(?:ed|s)?\b|\bcredited\b", "입금"),
        (r"\b(?:complete[d]?|done|finished)\b", "완료"),
        (r"\bprocess(?:ed|ing)?\b", "처리"),
        (r"\bcard\b", "카드"),
        (r"\bmoney\b", "돈"),
        (r"(?<=\d)\s*(?:KRW|won)\b|\bKRW\s*(?=\d)", "원"),
    )
)
_HANGUL = re.compile(r"[가-힣]")
_LATIN_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def fold(text: str) -> Folded:
    """`text` as the guard reads it, with offsets back into `text`."""
    folded = Folded.of(text or "")
    for pattern, repl in _TYPOS:
        folded = folded.sub(pattern, repl)
    return folded


# --- claims ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One clause that says money moved or will move. Offsets index the checked text; `scope` is the text
    whose orders the claim is about (its clause, and the clause it carries its subject from)."""

    start: int
    end: int
    sentence: str
    trigger: str  # the words that make it a claim, e.g. "승인되었습니다"
    past: bool  # said to have happened (vs promised or scheduled)
    amounts: tuple[int, ...] = ()
    code: str = CODE
    kind: str = MONEY_BACK
    scope: str = ""
    reason: str = "asserted"  # asserted | unrecognised
    topic: str = ""  # the money clause before it in the same text: what a sentence naming no order is about
    whole: bool = False  # 전액: the amount is each order's full amount

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


def _base(tag: str) -> str:
    return tag.split("-", 1)[0]


@dataclass
class _Compound:
    first: int
    last: int
    forms: tuple[str, ...]
    has_number: bool

    @property
    def head(self) -> str:
        return self.forms[-1]

    def _money_at(self, index: int) -> bool:
        noun = self.forms[index]
        if noun not in MONEY_NOUNS:
            return False
        before = set(self.forms[:index])
        if noun in {"취소", "승인"} and before & NOT_MONEY_BEFORE:
            return False
        return True

    @property
    def money_indexes(self) -> list[int]:
        return [i for i in range(len(self.forms)) if self._money_at(i)]

    @property
    def money(self) -> bool:
        return bool(self.money_indexes) or self.amount

    @property
    def amount(self) -> bool:
        return self.head in AMOUNT_NOUNS or (self.has_number and self.head in {"원", "만원", "천원"})

    @property
    def fee(self) -> bool:
        return bool(set(self.forms) & FEE_NOUNS)

    @property
    def paperwork(self) -> bool:
        """환불 요청, 환불 규정, 환불 신청 완료: after its last money noun comes paperwork, and nothing after
        the paperwork but its registration (접수, 완료)."""
        indexes = self.money_indexes
        if not indexes:
            return False
        tail = self.forms[indexes[-1] + 1 :]
        paper = [i for i, f in enumerate(tail) if f in PAPERWORK_NOUNS]
        if not paper:
            return False
        after = tail[paper[0] + 1 :]
        registered = tail[paper[0]] in REGISTRATION_NOUNS
        return all(f in PAPERWORK_NOUNS or (registered and f in {"완료", "접수", "등록"}) for f in after)

    @property
    def awaited(self) -> bool:
        """승인 후, 확인 시, 검수 완료 후: a condition, not an event."""
        return self.head in AFTER_NOUNS and any(f in AWAITED_NOUNS for f in self.forms[:-1])

    @property
    def pending(self) -> bool:
        return any(f in PENDING_NOUNS for f in self.forms) or (
            self.head == "전" and any(f in AWAITED_NOUNS | MONEY_BACK_NOUNS for f in self.forms[:-1])
        )

    @property
    def negated(self) -> bool:
        return any(f in NEGATING_NOUNS for f in self.forms if f not in {"전"})

    @property
    def state(self) -> bool:
        return self.head in STATE_NOUNS or self.head in MONEY_BACK_NOUNS


def _joins(left: Morpheme, right: Morpheme) -> bool:
    """Is `right` part of the same noun phrase as `left`? (환불 처리, 69,000원, 3영업일 — but 승인 후 | 3영업일)"""
    if _base(right.tag) not in NOUNISH or right.start > left.end + 1:
        return False
    if left.form in AFTER_NOUNS:
        return False
    return not (right.tag == "SN" and right.start > left.end)


def _compounds(morphs: Sequence[Morpheme]) -> dict[int, _Compound]:
    """Runs of nominal morphemes, keyed by the index of every morpheme in them."""
    out: dict[int, _Compound] = {}
    i = 0
    while i < len(morphs):
        if _base(morphs[i].tag) not in NOUNISH:
            i += 1
            continue
        j = i
        while j + 1 < len(morphs) and _joins(morphs[j], morphs[j + 1]):
            j += 1
        forms = tuple(m.form for m in morphs[i : j + 1] if m.tag != "XSN" or m.form in AMOUNT_NOUNS)
        if forms:
            compound = _Compound(i, j, forms, any(m.tag == "SN" for m in morphs[i : j + 1]))
            for k in range(i, j + 1):
                out[k] = compound
        i = j + 1
    return out


# --- clauses ---------------------------------------------------------------------------------------------


@dataclass
class _Clause:
    first: int  # index of its first morpheme in the sentence
    last: int  # index of its last morpheme
    compounds: list[_Compound] = field(default_factory=list)
    conditional: bool = False  # it is itself a condition (승인되면, 승인 후)


def _ec_ends_clause(morphs: Sequence[Morpheme], i: int) -> bool:
    m = morphs[i]
    nxt = morphs[i + 1] if i + 1 < len(morphs) else None
    if nxt is None:
        return True
    if _base(nxt.tag) == "VX":
        return False  # 해 드리다, 하고 있다: an auxiliary carries the clause on
    if m.form in {"게", "도록"} and nxt.form in {"되", "하"}:
        return False
    if m.form == "지" and nxt.form in NEGATING_VX:
        return False
    if m.form in {"어", "아", "여"} and i and morphs[i - 1].form in POSTPOSITIONAL_VERBS:
        return False  # 카드사에 따라, 문자를 통해: a verb used as a particle
    return m.form not in QUOTE_EC


def _clauses(morphs: Sequence[Morpheme], compounds: dict[int, _Compound]) -> list[_Clause]:
    """The sentence cut where a clause ends: a connective ending that is not carried on (고, 는데, 면), a final
    ending (with the punctuation after it), or a sentence mark."""
    out: list[_Clause] = []
    start = 0
    n = len(morphs)
    for i, m in enumerate(morphs):
        tag = _base(m.tag)
        nxt_tag = _base(morphs[i + 1].tag) if i + 1 < n else None
        if nxt_tag is None:
            end = True
        elif tag == "EC":
            end = _ec_ends_clause(morphs, i)
        elif tag in {"EF", "SF"} or (tag in PUNCTUATION and i > start and _base(morphs[i - 1].tag) in PUNCTUATION):
            end = nxt_tag not in PUNCTUATION
        elif tag in PUNCTUATION and i > start and _base(morphs[i - 1].tag) in {"EF", "EC"}:
            end = nxt_tag not in PUNCTUATION
        else:
            end = False
        if end:
            out.append(_clause(morphs, compounds, start, i))
            start = i + 1
    return out


def _clause(morphs: Sequence[Morpheme], compounds: dict[int, _Compound], first: int, last: int) -> _Clause:
    seen: list[_Compound] = []
    for k in range(first, last + 1):
        c = compounds.get(k)
        if c is not None and (not seen or seen[-1] is not c):
            seen.append(c)
    k = last
    while k > first and _base(morphs[k].tag) in PUNCTUATION:
        k -= 1
    conditional = _base(morphs[k].tag) == "EC" and morphs[k].form in CONDITIONAL_EC
    return _Clause(first, last, seen, conditional)


@dataclass
class _Reading:
    money: bool = False
    kind: str = AMOUNT
    past: bool = False
    safe: str = ""  # why it is no claim, or "" (a claim)
    event: bool = False  # a money predicate was recognised (vs money merely mentioned)
    trigger_start: int = -1


def _waits_after(etm: Morpheme, noun: Morpheme) -> bool:
    """승인된 후, 승인되는 대로, 확인될 때: the clause is a time the next one waits for. But 요청하신 대로
    ("as you asked") is a manner: 대로 waits only after the present -는."""
    if noun.form == "대로":
        return etm.form == "는"
    return noun.form in AFTER_NOUNS


def _is_question_ef(form: str) -> bool:
    return form.endswith(QUESTION_EF_ENDINGS) or form in {"나", "니", "냐"}


def _money_mentions(morphs: Sequence[Morpheme], clause: _Clause) -> list[int]:
    out = []
    for k in range(clause.first, clause.last + 1):
        m = morphs[k]
        tag = _base(m.tag)
        if tag in {"VV", "VX"} and m.form in MONEY_VERBS:
            out.append(k)
    for c in clause.compounds:
        if c.money:
            out.append(max(c.first, clause.first))
    return sorted(set(out))


def _kind(morphs: Sequence[Morpheme], clause: _Clause) -> str:
    forms = [f for c in clause.compounds for f in c.forms]
    back = [f for c in clause.compounds for i, f in enumerate(c.forms) if c._money_at(i) and f in MONEY_BACK_NOUNS]
    if "승인" in back and set(forms) & PAYMENT_BEFORE_APPROVAL and not {"취소", "환불"} & set(forms):
        back = [f for f in back if f != "승인"]
    if "입금" in back and "확인" in forms and not {"환불", "취소"} & set(forms):
        back = [f for f in back if f != "입금"]
    if back:
        return MONEY_BACK
    for k in range(clause.first, clause.last + 1):
        m = morphs[k]
        if _base(m.tag) not in {"VV", "VX"}:
            continue
        if m.form in MONEY_VERBS:
            return MONEY_BACK
        if m.form in MOVING_VERBS and any(
            c.money and c.last < k and not set(c.forms) & PAYMENT_NOUNS for c in clause.compounds
        ):
            return MONEY_BACK  # 69,000원이 들어갑니다, 돈은 내일 들어올 거예요, 계좌로 보내 드렸어요
    if set(forms) & PAYMENT_NOUNS:
        return PAYMENT
    if any(c.head in STATE_NOUNS and _predicated(morphs, c.last) for c in clause.compounds):
        return MONEY_BACK  # 돈 처리해 드렸어요
    return AMOUNT


def _predicated(morphs: Sequence[Morpheme], k: int) -> bool:
    """Is the noun at k directly made a predicate (환불되다, 처리하다, 완료예요, 환불해 드리다)?"""
    nxt = morphs[k + 1] if k + 1 < len(morphs) else None
    if nxt is None:
        return False
    tag = _base(nxt.tag)
    return tag in {"XSV", "XSA", "VCP"} or (tag in {"VV", "VX"} and nxt.form in {"되", "하", "드리", "받", "시키"})


def _read(morphs: Sequence[Morpheme], clause: _Clause, *, carried: bool) -> _Reading:
    """What the clause says about money, and why it is no claim if it is not one."""
    mentions = _money_mentions(morphs, clause)
    reading = _Reading()
    if not mentions and not carried:
        return reading
    reading.money = True
    reading.kind = _kind(morphs, clause) if mentions else MONEY_BACK
    first = mentions[0] if mentions else clause.first
    reading.trigger_start = first
    forms = [morphs[k].form for k in range(clause.first, clause.last + 1)]
    form_set = set(forms)
    compound_forms = {f for c in clause.compounds for f in c.forms}

    # How the clause ends, read from its first money word.
    negated = question = conditional = modal = withdrawn = indirect = False
    for k in range(clause.first, clause.last + 1):
        m = morphs[k]
        tag = _base(m.tag)
        nxt = morphs[k + 1] if k + 1 <= clause.last else None
        if tag == "EP" and m.form in PAST_EP:
            reading.past = True
        if k < first:
            continue
        if tag == "VX" and m.form in NEGATING_VX:
            negated = True
        elif tag == "VX" and m.form in WITHDRAWING_VX:
            withdrawn = True
        elif tag == "VCN" or (tag == "VA" and m.form in {"없", "어렵"}):
            negated = True
        elif tag == "MAG" and m.form in NEGATING_MAG:
            negated = True
        elif tag == "MAG" and m.form == "아직" and nxt is not None and _base(nxt.tag) == "VCP":
            negated = True  # 환불은 아직이에요
        elif tag == "VV" and m.form in UNCERTAIN_VERBS:
            indirect = True
        elif tag == "EC" and m.form in INDIRECT:
            indirect = True
        elif tag == "EC" and m.form in PURPOSE_EC:
            withdrawn = True
        elif tag == "EC" and m.form in CONDITIONAL_EC and not (nxt is not None and _base(nxt.tag) == "VX"):
            conditional = True
        elif tag in {"ETN", "ETM"} and nxt is not None and nxt.form == "전":
            negated = True  # 완료되기 전까지, 승인된 전: not yet
        elif tag == "ETM" and nxt is not None and nxt.form == "수":
            modal = True
        elif (
            tag == "ETM"
            and nxt is not None
            and (nxt.form in AFTER_NOUNS - {"대로"} or (nxt.form == "대로" and m.form == "는"))
        ):
            conditional = True
        elif tag == "EF":
            if _is_question_ef(m.form) or m.form in INDIRECT:
                question = True
            elif m.form in IMPERATIVE_EF and m.form not in {"어요", "아요"}:
                withdrawn = True
            elif nxt is not None and nxt.form == "?":
                question = True
        elif tag == "SF" and m.form == "?":
            question = True
    if any(c.awaited for c in clause.compounds) or any(
        c.forms
        and any(f in AWAITED_NOUNS for f in c.forms)
        and morphs[min(c.last + 1, clause.last)].form in FROM_PARTICLES
        for c in clause.compounds
    ):
        conditional = True
    # 환불해 주세요 (a customer's words quoted or a request): 주 + 세요.
    if "주" in form_set and any(f in {"세요", "으세요", "십시오"} for f in forms):
        withdrawn = True

    if question:
        reading.safe = "question"
    elif negated or any(c.negated for c in clause.compounds) or "불가" in compound_forms:
        reading.safe = "negated"
    elif indirect or "여부" in compound_forms:
        reading.safe = "indirect"
    elif withdrawn:
        reading.safe = "withdrawn"
    elif modal or (("가능" in compound_forms) and not reading.past):
        reading.safe = "possible"
    elif conditional and not reading.past:
        reading.safe = "conditional"
    if reading.safe:
        return reading

    money_compounds = [c for c in clause.compounds if c.money]
    predicated_money = _money_predicate(morphs, clause, money_compounds)
    reading.event = predicated_money is not None
    if predicated_money is not None:
        reading.trigger_start = predicated_money
    verbs = {morphs[k].form for k in range(clause.first, clause.last + 1) if _base(morphs[k].tag) in {"VV", "VX"}}
    executor = bool(compound_forms & EXECUTORS)

    # Paperwork: every money word is part of a request or a rule, and nothing money-like is predicated.
    if mentions and money_compounds and all(c.paperwork for c in money_compounds) and not verbs & MONEY_VERBS:
        if not executor and not _state_on_paper(morphs, clause):
            reading.safe = "paperwork"
            return reading
    # Waiting for a person.
    if any(c.pending for c in clause.compounds) or verbs & PENDING_VERBS:
        if not reading.past or not reading.event:
            reading.safe = "pending"
            return reading
    # Fees and deductions the policy states.
    if any(c.fee for c in clause.compounds) and not reading.past:
        if reading.kind != MONEY_BACK or _main_predicate(morphs, clause) in POLICY_PREDICATES:
            reading.safe = "policy"
            return reading
    if not reading.past and not (compound_forms & PROMISE_TIME or form_set & PROMISE_TIME):
        if compound_forms & GENERIC_ADVERBS or form_set & GENERIC_ADVERBS:
            reading.safe = "policy"
            return reading
        if _main_predicate(morphs, clause) in POLICY_PREDICATES and not reading.event:
            reading.safe = "policy"
            return reading
        if _who_decides(morphs, clause):
            reading.safe = "who_decides"
            return reading
    # Something the desk does that moves nothing, with no money event before it.
    main = _main_predicate(morphs, clause)
    if main in NON_MONEY_ACTS and predicated_money is None and not executor and not verbs & MONEY_VERBS:
        reading.safe = "desk_act"
        return reading
    return reading


def _aux(morphs: Sequence[Morpheme], c: _Compound) -> bool:
    """안내될 예정: 예정 only completes the clause before it."""
    return c.head in AUX_NOUNS and c.first > 0 and _base(morphs[c.first - 1].tag) == "ETM"


def _waits_from(morphs: Sequence[Morpheme], c: _Compound, clause: _Clause) -> bool:
    """승인일로부터, 확인 시점부터: counted from an event that has not happened."""
    after = morphs[min(c.last + 1, clause.last)]
    return after.form in FROM_PARTICLES and any(f in AWAITED_NOUNS for f in c.forms)


def _state_on_paper(morphs: Sequence[Morpheme], clause: _Clause) -> bool:
    """A money-like state predicated on a request (환불 요청이 승인되었습니다, 요청이 처리되었습니다)."""
    for c in clause.compounds:
        if c.paperwork or _aux(morphs, c):
            continue
        if (c.state and c.head not in REGISTRATION_NOUNS) and _predicated(morphs, c.last):
            return True
        if c.state and c.last == clause.last:
            return True
    return False


def _money_predicate(morphs: Sequence[Morpheme], clause: _Clause, money: list[_Compound]) -> int | None:
    """Where money is made a predicate: 환불되었습니다, 환불 처리해 드렸습니다, 69,000원을 돌려드렸습니다,
    환불 들어갔어요, a headline (환불 완료). None when money is only mentioned."""
    if not money:
        return None
    for c in clause.compounds:
        if c.paperwork:
            continue
        if (c.money or c.state) and _predicated(morphs, c.last):
            return c.first
        if c.state and c.money and c.last >= clause.last - 1:
            return c.first  # a headline: 환불 완료, 취소 승인
    for k in range(clause.first, clause.last + 1):
        m = morphs[k]
        if _base(m.tag) not in {"VV", "VX"}:
            continue
        if m.form in MONEY_VERBS:
            return money[0].first
        if m.form in MOVING_VERBS:
            near = _nearest_compound(morphs, clause, k)
            if near is not None and (near.money or near.state) and not near.paperwork:
                return near.first
    return None


def _nearest_compound(morphs: Sequence[Morpheme], clause: _Clause, k: int) -> _Compound | None:
    """The noun phrase a verb at k takes (its subject or object): the last compound before it, across
    particles, adverbs and endings only."""
    for c in reversed(clause.compounds):
        if c.last < k:
            between = morphs[c.last + 1 : k]
            if all(_base(b.tag).startswith("J") or _base(b.tag) in {"MAG", "EC", "VX", "SP"} for b in between):
                return c
            return None
    return None


def _main_predicate(morphs: Sequence[Morpheme], clause: _Clause, *, before: int | None = None) -> str:
    """The clause's last content predicate: a verb or adjective stem, or the noun of a 하다/되다 verb. For
    안내될 예정 it is 안내: an auxiliary noun hands over to the clause before it."""
    k = clause.last if before is None else before
    while k >= clause.first:
        m = morphs[k]
        tag = _base(m.tag)
        if tag in {"VV", "VA"} and m.form not in {"하", "되", "드리", "주", "있"}:
            return m.form
        if tag in {"XSV", "XSA", "VCP"} or (tag in {"VV", "VX"} and m.form in {"하", "되", "드리"}):
            j = k - 1
            while j >= clause.first and morphs[j].form in {"어", "아", "해", "드리", "하"}:
                j -= 1
            if j >= clause.first and _base(morphs[j].tag) in NOUNISH:
                if morphs[j].form in AUX_NOUNS and j > clause.first and _base(morphs[j - 1].tag) == "ETM":
                    k = j - 2
                    continue
                return morphs[j].form
        k -= 1
    return ""


def _who_decides(morphs: Sequence[Morpheme], clause: _Clause) -> bool:
    """승인은 담당자가 합니다, 담당자가 검토해 처리합니다: a person decides; nothing is said to have happened."""
    forms = {f for c in clause.compounds for f in c.forms}
    if not forms & DECIDERS or not forms & DECISION_NOUNS:
        return False
    # "승인해 드릴게요" / "환불해 드릴 거예요" with a person named is still a promise to the customer.
    benefactive = any(morphs[k].form == "드리" for k in range(clause.first, clause.last + 1))
    return not benefactive


def _carries(morphs: Sequence[Morpheme], clause: _Clause) -> bool:
    """A clause with no subject of its own whose predicate can be money (처리해 드릴게요, 완료됐어요, 들어갔어요)."""
    forms = {f for c in clause.compounds for f in c.forms}
    if forms & OTHER_SUBJECTS or forms & MONEY_NOUNS:
        return False
    for k in range(clause.first, clause.last + 1):
        m = morphs[k]
        tag = _base(m.tag)
        if tag in NOUNISH and m.form in STATE_NOUNS and _predicated(morphs, k):
            return True
        if tag in {"VV", "VX"} and m.form in MOVING_VERBS - {"주", "드리", "오", "가", "받"}:
            return True
        if tag == "VV" and m.form in {"끝나", "마치"}:
            return True
    # 해 드릴게요 / 해 드렸어요 with nothing named: doing it for the customer.
    tags = [(morphs[k].form, _base(morphs[k].tag)) for k in range(clause.first, clause.last + 1)]
    return any(f == "하" and t == "VV" for f, t in tags) and any(f == "드리" for f, _ in tags)


def _amounts(text: str) -> tuple[int, ...]:
    found = []
    for match in _AMOUNT.finditer(text):
        total = 0
        for digits, unit in _AMOUNT_PART.findall(match.group("pre") or match.group("num")):
            number = digits.replace(",", "")
            if number.isdigit():
                total += int(number) * _UNITS[unit.strip()]
        if total:
            found.append(total)
    return tuple(found)


# --- English ---------------------------------------------------------------------------------------------

_EN_MONEY = re.compile(
    r"\b(?:refund\w*|reimburs\w*|cancel\w*|payment\w*|paid|pay|deposit\w*|credit\w*|charge\w*|money|card|"
    r"won|krw|compensat\w*|cash ?back)\b|₩\s*\d|\d\s*원",
    re.IGNORECASE,
)
_EN_EVENT = re.compile(
    r"\b(?:approved|refunded|processed|completed|issued|credited|deposited|sent|reversed|cancell?ed|returned|"
    r"transferred|paid|arriv\w*|(?:will|'ll) (?:receive|get)|go(?:es)? through|on (?:its|the) way|done|back)\b",
    re.IGNORECASE,
)
_EN_STRONG_SAFE = re.compile(
    r"\b(?:if|once|when|whenever|unless|until|after|before|not|no|never|cannot|whether|may|might|could|would|"
    r"pending|awaiting|await|yet)\b|n't\b|\?",
    re.IGNORECASE,
)
_EN_WEAK_SAFE = re.compile(
    r"\b(?:request\w*|submitt\w*|regist\w*|review\w*|policy|usually|typically|generally|normally|takes?|"
    r"eligible|can|please|check|contact|let you know|inform)\b",
    re.IGNORECASE,
)


_EN_CONDITION = re.compile(r"\b(?:if|once|when|whenever|after|unless|until)\b", re.IGNORECASE)


def _english_claims(sentence: str) -> list[tuple[int, int, bool]]:
    """Clauses of an English sentence that speak of money with nothing that withdraws it. A condition earlier
    in the sentence holds for what follows it ("When it is approved, the money goes back …")."""
    out = []
    waits = False
    for part in re.split(r"(?:[,;:]|\band\b|\bbut\b|\bso\b)", sentence, flags=re.IGNORECASE):
        past = bool(re.search(r"\b(?:has|have|had) been\b|\bwas\b|\bwere\b|\b\w+ed\b", part, re.IGNORECASE))
        if _EN_CONDITION.search(part):
            waits = True
        if not _EN_MONEY.search(part) or _EN_STRONG_SAFE.search(part) or (waits and not past):
            continue
        if _EN_WEAK_SAFE.search(part) and not _EN_EVENT.search(part):
            continue
        start = sentence.index(part)
        out.append((start, start + len(part), past))
    return out


# --- the text --------------------------------------------------------------------------------------------


def _chunks(text: str) -> Iterable[tuple[int, str]]:
    """Lines and punctuated sentences, with their offsets."""
    for line in _LINE.finditer(text):
        for chunk in _CHUNK.finditer(line.group()):
            if chunk.group().strip():
                yield line.start() + chunk.start(), chunk.group()


_MONEY_HINT = re.compile(
    "|".join(sorted(MONEY_NOUNS | MONEY_VERBS | {"돌려", "돌아"}, key=len, reverse=True)) + r"|\d\s*원|\d\s*[만천]\s*원"
)
_CARRY_HINT = re.compile(r"처리|완료|진행|마무리|확정|들어|끝났|해\s*드|해드|보내|넣어|빠져|나갔|반영|됐|되었")


def find_money_claims(text: str) -> list[Claim]:
    """Every clause of `text` that speaks of money and is not recognised as safe. Offsets and sentences
    refer to `text` as given."""
    folded = fold(text or "")
    clean = folded.text
    claims: list[Claim] = []
    previous_money: str | None = None  # the text of the last clause that spoke of money (for carrying)
    for offset, chunk in _chunks(clean):
        hinted = bool(_MONEY_HINT.search(chunk)) or bool(_LATIN_WORD.search(chunk) and _EN_MONEY.search(chunk))
        if not hinted and not (previous_money is not None and _CARRY_HINT.search(chunk)):
            previous_money = None
            continue
        if not _HANGUL.search(chunk):
            for start, end, past in _english_claims(chunk):
                claims.append(
                    _claim(
                        folded,
                        offset,
                        chunk,
                        (start, end),
                        (0, len(chunk.rstrip())),
                        trigger=start,
                        past=past,
                        kind=MONEY_BACK,
                        reason="unrecognised",
                    )
                )
            previous_money = chunk if _EN_MONEY.search(chunk) else None
            continue
        korean = _in_korean(chunk)
        for morphs in sentences(korean.text):
            previous_money = _sentence_claims(morphs, korean, offset, folded, claims, previous_money)
    return claims


def _in_korean(chunk: str) -> Folded:
    folded = Folded.of(chunk)
    if _LATIN_WORD.search(chunk):
        for pattern, repl in _ENGLISH_IN_KOREAN:
            folded = folded.sub(pattern, repl)
    return folded


def _sentence_claims(
    morphs: list[Morpheme], korean: Folded, offset: int, folded: Folded, claims: list[Claim], previous: str | None
) -> str | None:
    if not morphs:
        return previous
    compounds = _compounds(morphs)
    clauses = _clauses(morphs, compounds)
    waits = False  # an earlier clause of this sentence is a condition
    found: list[tuple[Claim, bool]] = []  # this sentence's claims, and whether each is past
    for clause in clauses:
        carried = previous is not None and _carries(morphs, clause)
        reading = _read(morphs, clause, carried=carried)
        text_start, text_end = morphs[clause.first].start, morphs[clause.last].end
        clause_text = korean.text[text_start:text_end]
        if not reading.money:
            if clause.conditional:
                waits = True
            continue
        if not reading.safe and waits and not reading.past:
            reading.safe = "conditional"
        if clause.conditional or reading.safe == "conditional":
            waits = True
            if _verbless(morphs, clause):
                # …환불됩니다(승인 시): a condition trailing the sentence holds for what it says will happen.
                found = [(claim, past) for claim, past in found if past]
        scope = clause_text if not carried or _mentions_money(clause_text) else f"{previous} {clause_text}"
        topic, previous = previous or "", clause_text
        if reading.safe:
            continue
        to_chunk = korean.origin
        claim = _claim(
            folded,
            offset,
            korean.source,
            (to_chunk[text_start], to_chunk[text_end - 1] + 1),
            (to_chunk[morphs[0].start], to_chunk[morphs[-1].end - 1] + 1),
            trigger=to_chunk[morphs[max(reading.trigger_start, clause.first)].start],
            past=reading.past,
            kind=reading.kind,
            reason="asserted" if reading.event else "unrecognised",
            scope=scope,
            topic=topic,
        )
        found.append((claim, reading.past))
    claims.extend(claim for claim, _ in found)
    return previous


def _verbless(morphs: Sequence[Morpheme], clause: _Clause) -> bool:
    return not any(
        _base(morphs[k].tag) in {"VV", "VA", "VX", "XSV", "XSA", "EF", "VCP"}
        for k in range(clause.first, clause.last + 1)
    )


def _mentions_money(text: str) -> bool:
    return bool(_MONEY_HINT.search(text))


def _claim(
    folded: Folded,
    offset: int,
    chunk: str,
    clause: tuple[int, int],
    sentence: tuple[int, int],
    *,
    trigger: int,
    past: bool,
    kind: str,
    reason: str,
    scope: str = "",
    topic: str = "",
) -> Claim:
    """A claim found in `chunk` (which starts at `offset` of the folded text). `clause`, `sentence` and
    `trigger` index `chunk`; the claim's offsets and sentence are the original text's."""
    src_start, src_end = folded.span(offset + sentence[0], offset + sentence[1])
    clause_text = chunk[clause[0] : clause[1]]
    return Claim(
        start=src_start,
        end=src_end,
        sentence=folded.source[src_start:src_end],
        trigger=chunk[trigger : clause[1]].strip()[:80],
        past=past,
        amounts=_amounts(clause_text),
        kind=kind,
        scope=scope or clause_text,
        reason=reason,
        topic=topic,
        whole="전액" in clause_text or bool(re.search(r"\bfull\b|\bin full\b", clause_text, re.IGNORECASE)),
    )


# --- are they true? ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoneyFact:
    """What the records say: a refund or cancellation that a person approved (or that is done)."""

    order_id: str
    amount: Decimal | None


@dataclass(frozen=True)
class OrderFact:
    """One of the customer's orders as a claim may name it: by id, by product word, or by a request number."""

    order_id: str
    amount: Decimal | None = None
    names: tuple[str, ...] = ()  # product words and nicknames (운동화, 신발)
    numbers: tuple[str, ...] = ()  # request numbers on it (A00003)
    paid: bool = True


def _named(scope: str, orders: Sequence[OrderFact]) -> set[str]:
    upper = scope.upper()
    compact = scope.replace(" ", "").lower()
    out = set()
    for order in orders:
        if order.order_id.upper() in upper or any(n.upper() in upper for n in order.numbers):
            out.add(order.order_id.upper())
        elif any(name and name.replace(" ", "").lower() in compact for name in order.names):
            out.add(order.order_id.upper())
    return out


def claims_unsupported(
    claims: Iterable[Claim],
    *,
    approved: Iterable[MoneyFact],
    customer_order_ids: Iterable[str] = (),
    order_ids: Iterable[str] | None = None,
    orders: Sequence[OrderFact] = (),
) -> list[Claim]:
    """The claims the records do not make true.

    A claim is about the orders its clause names (by id, product word or request number), else the orders
    its sentence names, else those of the money clause before it, else `order_ids` (the ticket's order, the
    orders the chat turn touched). Money going back needs an approved or done refund or cancellation on
    *every* one of those orders — with no order in sight it is unsupported (no customer-wide fallback) — and
    each amount it names must be an approved amount (or their total); 전액 needs the whole order amount.
    A payment or a bare amount is true when its amounts are amounts the customer's orders or approvals hold.
    """
    approved = list(approved)
    orders = list(orders) or [OrderFact(o) for o in customer_order_ids if o]
    context = {o.upper() for o in (order_ids or ()) if o}
    out = []
    for claim in claims:
        scope = _named(claim.scope, orders) or _named(claim.sentence, orders) or _named(claim.topic, orders) or context
        if claim.kind == MONEY_BACK:
            if not scope or not _settled(scope, approved, claim.amounts):
                out.append(claim)
            elif claim.whole and not _whole(scope, approved, orders):
                out.append(claim)  # 전액 환불: every approved amount is its order's full amount
            continue
        known = {int(o.amount) for o in orders if o.amount is not None and (not scope or o.order_id.upper() in scope)}
        known |= {int(f.amount) for f in approved if f.amount is not None}
        if known:
            known.add(sum(known))
        if claim.amounts and not set(claim.amounts) <= known:
            out.append(claim)
        elif claim.kind == PAYMENT and not any(o.paid for o in orders):
            out.append(claim)
    return out


def _whole(scope: set[str], approved: list[MoneyFact], orders: Sequence[OrderFact]) -> bool:
    full = {o.order_id.upper(): o.amount for o in orders}
    return all(
        f.amount is not None and full.get(f.order_id.upper()) is not None and f.amount >= full[f.order_id.upper()]
        for f in approved
        if f.order_id.upper() in scope
    )


def _settled(scope: set[str], approved: list[MoneyFact], amounts: tuple[int, ...]) -> bool:
    facts = [f for f in approved if f.order_id.upper() in scope]
    if {f.order_id.upper() for f in facts} != scope:
        return False
    if amounts:
        known = {int(f.amount) for f in facts if f.amount is not None}
        known.add(sum(int(f.amount) for f in facts if f.amount is not None))
        return set(amounts) <= known
    return True
