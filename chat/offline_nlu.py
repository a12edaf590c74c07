"""What the built-in offline agent understands of one customer message: pure functions over text.

The sentence is analysed into morphemes by the project's one Kiwi (`common.tokenize.morphemes`), so
환불해 / 환불할게 / 환불해쥬세요 all meet on the lemma 환불, and 바꿔 / 바꿀게요 on 바꾸. On top of that:

- `detect_intent`: an intent by lemma and pattern, with "X 말고 Y" and negation taken into account;
- `classify_reason`: 단순변심 / 상품하자 / 오배송 from what the customer *describes*, by the whole
  sentence (a denied cue does not count; an explicit label contradicted by the facts, or one that comes
  from quoted instructions, is not taken at face value);
- `find_orders`, `find_option`, `find_address`: slots against a small catalogue structure (the orders as
  `get_my_orders` reports them, each with its product's real option labels).

No database, no settings: everything here is tested on plain text (chat/tests/test_offline_nlu.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from common.tokenize import Morpheme, morphemes
from orders.policy import PRODUCT_NICKNAMES, product_words

# --- vocabulary ----------------------------------------------------------------------------------
ORDERS, TRACK, ADDRESS, EXCHANGE, REFUND, CANCEL, TICKET, HANDOFF, REQUESTS, MY_DATA, REVIEW = (
    "orders",
    "track",
    "address",
    "exchange",
    "refund",
    "cancel",
    "ticket",
    "handoff",
    "requests",
    "my_data",
    "review",
)
INTENTS = (ORDERS, TRACK, ADDRESS, EXCHANGE, REFUND, CANCEL, TICKET, HANDOFF, REQUESTS, MY_DATA, REVIEW)
ACTION_INTENTS = frozenset({ADDRESS, EXCHANGE, REFUND, CANCEL})

CHANGE_OF_MIND, DEFECT, WRONG_ITEM, UNCLEAR = "단순변심", "상품하자", "오배송", "확인필요"
REASONS = (CHANGE_OF_MIND, DEFECT, WRONG_ITEM)

ORDER_ID = re.compile(r"[Hh][Rr]\s?([0-9]{11})")  # ASCII digits only: `\d` also matches ١٢٣ or １２

# --- normalising the text ------------------------------------------------------------------------
# Quoted "instructions" inside a customer's message are data, not the customer's own words.
_INJECTED = re.compile(
    r"[\[(（【<]\s*(?:시스템|system|지시|명령|관리자|admin|instruction|assistant|개발자)[^\])）】>]*[\])）】>]"
    r"|(?:^|\n)\s*(?:시스템|system)\s*(?:지시|메시지|message)?\s*[:：][^\n]*",
    re.IGNORECASE,
)
_LAUGH = re.compile(r"[ㄱ-ㅎㅏ-ㅣ]{1,}")  # ㅠㅠ, ㅋㅋ, ㄱㄱ: no lemma in them
_TYPOS = {
    "해쥬": "해주",
    "해듀": "해주",
    "해조": "해줘",
    "주셈": "주세요",
    "햇어": "했어",
    "햇는": "했는",
    "됬": "됐",
    "됫": "됐",
    "안되": "안 되",
    "안돼": "안 돼",
    "안됐": "안 됐",
    "어딨": "어디 있",
    "어디쯤": "어디 쯤",
    "뭐였": "무엇이었",
    "멀 ": "뭘 ",
    "몰 샀": "뭘 샀",
    "맘에": "마음에",
    "맘이": "마음이",
    "배송지좀": "배송지 좀",
    "쫌": "좀",
}
# Keywords a one-letter typo should still reach (compared letter by letter, jamo-wise, at a word start).
_FUZZY_KEYWORDS = ("환불", "교환", "반품", "취소", "결제", "택배", "상담원", "상담사", "오배송", "변심")


def _jamo(syllables: str) -> str:
    return unicodedata.normalize("NFD", syllables)


def _distance_at_most_one(a: str, b: str) -> bool:
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _fix_typos(text: str) -> str:
    for wrong, right in _TYPOS.items():
        text = text.replace(wrong, right)
    words = text.split(" ")
    for index, word in enumerate(words):
        for keyword in _FUZZY_KEYWORDS:
            head = word[: len(keyword)]
            if len(head) == len(keyword) and head != keyword and re.fullmatch(r"[가-힣]+", head):
                if _distance_at_most_one(_jamo(head), _jamo(keyword)):
                    words[index] = keyword + word[len(keyword) :]
                    break
    return " ".join(words)


def strip_injected(text: str) -> str:
    """The text without quoted "[시스템 지시: …]" instructions, otherwise as the customer wrote it."""
    return " ".join(_INJECTED.sub(" ", text or "").split())


def clean(text: str) -> str:
    """The customer's own words: quoted instructions dropped, laughter and common typos fixed."""
    text = unicodedata.normalize("NFC", text or "")
    text = _INJECTED.sub(" ", text)
    text = _LAUGH.sub(" ", text)
    text = re.sub(r"[~^]+", " ", text)
    return " ".join(_fix_typos(text).split())


@dataclass(frozen=True)
class Analysed:
    text: str  # cleaned
    ms: tuple[Morpheme, ...]

    @property
    def compact(self) -> str:
        return self.text.replace(" ", "").lower()

    def says(self, *words: str) -> bool:
        """Whether the text (spaces ignored) contains one of `words`: for compounds Kiwi splits oddly
        (이중결제 → 이 + 중 + 결제, 운송장 → 운송 + 장)."""
        return any(w in self.compact for w in words)

    def has(self, *forms: str) -> bool:
        wanted = set(forms)
        return any(m.form in wanted for m in self.ms)


def analyse(text: str) -> Analysed:
    cleaned = clean(text)
    return Analysed(cleaned, tuple(morphemes(cleaned)))


def _seq(a: Analysed, *steps: Iterable[str], gap: int = 4) -> bool:
    """Whether the lemmas `steps[0]`, `steps[1]`, ... occur in this order, each within `gap` morphemes of
    the previous one."""
    sets = [set(s) for s in steps]
    for i, m in enumerate(a.ms):
        if m.form not in sets[0]:
            continue
        position, ok = i, True
        for wanted in sets[1:]:
            found = next(
                (j for j in range(position + 1, min(len(a.ms), position + 1 + gap)) if a.ms[j].form in wanted), None
            )
            if found is None:
                ok = False
                break
            position = found
        if ok:
            return True
    return False


def _negated_after(a: Analysed, index: int, *, window: int = 5) -> bool:
    """A cue at `index` that the same clause denies: "불량은 아니고", "하자는 없는데", "고장 난 건 아니에요"."""
    for j in range(index + 1, min(len(a.ms), index + 1 + window)):
        m = a.ms[j]
        if m.tag == "SF" or (m.tag == "EC" and m.form in ("고", "는데", "ᆫ데", "지만", "니까", "으니까")):
            return False  # the clause ended: "흠집이 있고 … 아니에요" denies something else
        if m.form == "아니" and m.tag.startswith("VCN"):
            return True
        if m.form in ("없", "없이") and m.tag.startswith("VA"):
            return True
        if m.form == "말" and m.tag.startswith(("VV", "VX")) and j + 1 < len(a.ms) and a.ms[j + 1].form == "고":
            return True
    return False


def _replaced(a: Analysed) -> frozenset[int]:
    """Indices of lemmas the customer sets aside: the X of "X 말고 Y", "X 대신 Y", "X 아니고 Y",
    "X는 안 하고", "X 필요 없고"."""
    out: set[int] = set()
    for i, m in enumerate(a.ms):
        is_marker = (
            (
                m.form == "말"
                and m.tag.startswith(("VV", "VX"))
                and i + 1 < len(a.ms)
                and a.ms[i + 1].form in ("고", "구")
            )
            or (m.form == "대신" and m.tag.startswith("NNG"))
            or (m.form == "아니" and i + 1 < len(a.ms) and a.ms[i + 1].form in ("고", "구", "라"))
            or (m.form == "필요" and i + 1 < len(a.ms) and a.ms[i + 1].form == "없")
        )
        if is_marker:
            for j in range(max(0, i - 3), i):
                if a.ms[j].tag.startswith(("NN", "XR", "SL")):
                    out.add(j)
        if m.form in ("안", "못") and m.tag == "MAG" and i >= 2:
            # "환불은 안 하고", "취소는 안 할게요": the noun right before is not what they want
            nxt = a.ms[i + 1] if i + 1 < len(a.ms) else None
            if nxt is not None and nxt.form == "하" and a.ms[i - 1].tag.startswith("J"):
                out.add(i - 2)
    return frozenset(out)


# --- intents -------------------------------------------------------------------------------------
_REFUND_WORDS = ("환불", "반품", "환급", "리펀드", "반환")
_CANCEL_WORDS = ("취소", "철회", "캔슬")
_EXCHANGE_WORDS = ("교환", "교체")
_ADDRESS_WORDS = ("주소", "배송지", "수령지", "배달지", "주소지", "받는곳", "도착지")
_CHANGE_VERBS = ("바꾸", "변경", "수정", "고치", "바뀌", "옮기", "갈")
_OPTION_WORDS = ("색", "색상", "컬러", "칼라", "사이즈", "치수", "옵션", "크기", "호수", "용량", "색깔")
_STATUS_ASK = (
    "어떻",
    "어떡",
    "정리",
    "현황",
    "내역",
    "목록",
    "리스트",
    "조회",
    "상황",
    "진행",
    "결과",
    "어떻게",
    "어디",
    "확인",
    "상태",
    "보이",
    "보",
    "뭐",
    "무엇",
    "뭘",
    "진척",
)
_REQUEST_WORDS = ("요청", "신청", "접수", "문의", "처리", "맡기", "티켓")
_ORDER_WORDS = ("주문", "구매", "구입", "결제")
_BOUGHT_VERBS = ("사", "시키", "구매", "주문", "구입")
_WHAT = ("뭐", "뭘", "무엇", "무슨", "어떤", "뭐뭐", "몇", "어느")
_LIST_WORDS = ("내역", "목록", "리스트", "조회", "현황", "전체", "기록", "확인")
_PARCEL = ("택배", "배송", "물건", "상품", "주문", "물품", "소포", "배달", "제품")
_WHERE_WHEN = ("어디", "언제", "위치", "추적", "도착", "출발", "출고", "송장", "운송장", "며칠", "몇일")
_STAFF = ("상담원", "상담사", "직원", "매니저", "담당자", "상담원분")
_PEOPLE = (*_STAFF, "사람", "사람분")
_PEOPLE_VERBS = ("연결", "통화", "전화", "바꾸", "얘기", "이야기", "대화", "상담", "부르", "연락", "말하", "말")
_PAY_PROBLEM = (
    "오류",
    "에러",
    "이중",
    "중복",
    "두",
    "2",
    "두번",
    "실패",
    "잘못",
    "빠지",
    "빠져나가",
    "나가",
    "이상",
    "먹통",
    "씹히",
)
_ACCOUNT = ("로그인", "계정", "비밀번호", "비번", "아이디", "회원", "인증", "탈퇴")
_COMPENSATION = ("보상", "배상", "피해")


# What a status question is about (status_topic): the answer to a ticket, money, an exchange, an address.
ANSWER, MONEY, EXCHANGE_TOPIC, ADDRESS_TOPIC = "answer", "money", "exchange", "address"
_ANSWER_WORDS = ("답변", "답장", "회신", "답", "대답", "답글", "답신", "연락", "코멘트", "피드백")
_MONEY_TOPIC = ("환불", "환급", "반품", "취소", "입금", "돈", "환불금", "카드", "결제")
_STATUS_TOPICS = (*_MONEY_TOPIC, "교환", "요청", "신청", "접수", "변경", "처리", "배송지", "주소", "문의", "티켓")
# Asking how far a thing got: 어떻게 됐어요, 어케 됐어, 처리됐나요, 언제 들어와요, 아직이에요.
_PROGRESS_SAYS = (
    "어떻게됐", "어떻게되었", "어떻게돼", "어떻게되고", "어떻게진행", "어케됐", "어케돼", "어찌됐", "어찌되었",
    "어디까지", "처리됐", "처리되었", "처리된", "진행됐", "진행되었", "진행중", "진행상황", "됐나", "되었나",
    "됐는지", "되었는지", "돼가", "되어가", "되고있", "들어와", "들어오", "들어왔", "들어올", "나왔", "나와",
    "결과", "소식", "감감", "아직이", "언제돼", "언제되", "언제처리", "언제완료", "언제와", "언제오",
    "승인났", "승인이났", "승인나", "접수됐", "접수된거", "맞죠", "맞나요", "반영됐", "반영되었",
)  # fmt: skip
# Asking for the thing itself, not about it: 환불해 주세요, 교환하고 싶어요, 취소할게요.
_ASKING_FOR = (
    "해주세요", "해줘", "해주", "해 주", "하고싶", "할게", "할래", "원해", "원합니다", "부탁", "하려", "하겠",
    "해주실", "해주시", "할수있", "가능한가", "가능해", "할까", "하면",
)  # fmt: skip
# "환불 되나요?" asks whether it can be done — unless it asks when (환불 언제 돼요?).
_CAN_IT = ("되나요", "돼요?", "되요?", "가능")
_TOLD = (
    "됐다고",
    "되었다고",
    "완료됐다고",
    "완료되었다고",
    "완료라고",
    "처리됐다고",
    "승인됐다고",
    "됐다는",
    "되었다는",
    "문자",
    "알림",
    "메시지",
    "카톡",
    "메일",
    "연락받",
    "안내받",
)
MISSING = (
    "안들어",
    "아직안",
    "안됐",
    "안되었",
    "반영안",
    "반영이안",
    "못받",
    "안왔",
    "안보여",
    "그대로",
    "없어요",
    "없는데",
    "안돌아",
    "안 들어",
)


def money_missing(text: str | Analysed) -> bool:
    """ "환불 됐다고 문자는 왔는데 돈이 아직 안 들어왔어요": money said to be back that the customer does not
    see. A person must look at the payment; no tool can."""
    a = text if isinstance(text, Analysed) else analyse(text)
    return a.has(*_MONEY_TOPIC) and a.says(*MISSING) and (a.says(*_TOLD) or _past_claim(a))


def _past_claim(a: Analysed) -> bool:
    """환불이 완료됐는데 / 승인됐는데: the customer reports it was done (and then that something is missing)."""
    return a.says("완료됐는데", "완료되었는데", "승인됐는데", "승인되었는데", "처리됐는데", "처리되었는데", "됐는데")


def status_topic(text: str | Analysed) -> str | None:
    """What a status question asks about, or None when the text asks for something rather than about it."""
    a = text if isinstance(text, Analysed) else analyse(text)
    if not a.ms:
        return None
    question = a.has("?") or any(_is_question(m) for m in a.ms)
    if a.has(*_ANSWER_WORDS) and not a.has("연결", "통화", "바꾸"):
        if a.has("오", "받", "있", "나오", "되", "언제", "아직") or question:
            return ANSWER
    if not a.has(*_STATUS_TOPICS) or a.says(*_ASKING_FOR) or (a.says(*_CAN_IT) and not a.has("언제")):
        return None
    past = any(m.tag == "EP" and m.form in ("었", "았", "였", "ᆻ") for m in a.ms)
    if not (a.says(*_PROGRESS_SAYS) or (past and question) or (a.has("아직") and past)):
        return None
    if a.has(*_MONEY_TOPIC):
        return MONEY
    if a.has("교환"):
        return EXCHANGE_TOPIC
    if a.has("배송지", "주소", "변경"):
        return ADDRESS_TOPIC
    return ""  # about their requests in general


def _is_question(m: Morpheme) -> bool:
    return m.tag == "EF" and (
        m.form.endswith(("나요", "까", "까요", "니", "냐", "나", "는지요", "죠")) or m.form == "어"
    )


_MY_DATA = re.compile(r"(개인\s*정보|(내|제|나의|저의|고객)\s*정보)")
# Kind codes of tickets.DataSubjectRequest.Kind, by what the customer says they want done with their data.
_DATA_KINDS = (
    ("ERASURE", ("삭제", "지워", "지우", "파기", "없애", "탈퇴")),
    ("CORRECTION", ("정정", "고쳐", "수정")),
    ("SUSPENSION", ("처리정지", "이용정지", "정지", "중지", "그만")),
    ("ACCESS", ("열람", "보여", "볼수", "보고싶", "내려받", "다운로드", "사본")),
)
_REVIEW = re.compile(r"(재\s*검토|다시\s*검토|검토\s*다시|(사람|직원|상담원|담당자)\S*\s*(이|가)?\s*(직접\s*)?검토)")


def data_request_kind(text: str | Analysed) -> str | None:
    """The kind of request about one's personal data (ACCESS, CORRECTION, ERASURE, SUSPENSION), if the text asks
    for one ("내 정보 열람 요청", "개인정보 삭제해 주세요"); None otherwise."""
    a = text if isinstance(text, Analysed) else analyse(text)
    if not _MY_DATA.search(a.text):
        return None
    for kind, words in _DATA_KINDS:
        if a.says(*words):
            return kind
    return None


def asks_review(text: str | Analysed) -> bool:
    """ "사람이 다시 검토해 주세요" and close variants (재검토, 직원이 검토): a person reviews an automated decision."""
    a = text if isinstance(text, Analysed) else analyse(text)
    return bool(_REVIEW.search(a.text))


def detect_intent(text: str | Analysed) -> str | None:
    a = text if isinstance(text, Analysed) else analyse(text)
    if not a.ms:
        return None
    off = _replaced(a)

    def has(words: Iterable[str]) -> bool:
        wanted = set(words)
        return any(m.form in wanted for i, m in enumerate(a.ms) if i not in off)

    # 0. a request about one's own personal data (내 정보 열람/삭제 요청), or a person asked to look again at
    # what the agent decided by itself (사람이 다시 검토해 주세요): before "요청" reads as a status question
    if data_request_kind(a) is not None:
        return MY_DATA
    if asks_review(a):
        return REVIEW
    # 0. money the customer was told about and does not see: a person checks the payment
    if money_missing(a):
        return TICKET
    # 0. how far something got (답변 왔나요, 환불 언제 들어와요, 교환 어떻게 됐어요): answered from the records
    if status_topic(a) is not None:
        return REQUESTS

    # 1. asking about one's own requests ("환불 요청한 거 어떻게 됐어요", "내 요청 정리해 줘")
    if has(_REQUEST_WORDS) and not has(("연결", "통화")):
        if has(_STATUS_ASK) or a.says("처리됐", "처리되었", "처리 됐", "됐나요", "됐어요", "되었나요", "돼가"):
            return REQUESTS
    if _seq(a, ("나", "제", "저"), ("요청", "신청", "접수"), gap=3):
        return REQUESTS
    if a.says("요청내역", "접수내역", "신청내역", "처리현황", "처리결과", "처리번호조회"):
        return REQUESTS
    # 2. a person: a staff word with a verb of contact, or "사람" with a verb of talking
    staff = has(_STAFF)
    asks_staff = has(_PEOPLE_VERBS) or _seq(a, _STAFF, ("주", "해주", "부탁"), gap=4)
    talks = has(("연결", "통화", "얘기", "이야기", "대화", "바꾸", "말"))
    if has(("상담원", "상담사")) or (staff and asks_staff) or (has(("사람", "사람분")) and talks):
        return HANDOFF
    # 3. problems our tools cannot solve
    account = has(_ACCOUNT) or a.says("비밀번호", "비번", "로그인", "아이디")
    if _payment_problem(a) or (account and not has(_REFUND_WORDS + _EXCHANGE_WORDS)) or has(_COMPENSATION):
        return TICKET
    # 4. actions
    address_word = has(_ADDRESS_WORDS) or a.says("수령지", "배송지", "받는곳", "받을곳", "배달지")
    address_verb = has(_CHANGE_VERBS) or has(("새", "다르", "잘못", "이사", "보내", "로", "다시", "적", "틀리", "쓰"))
    if address_word and (address_verb or find_address(a)):
        return ADDRESS
    if has(("이사",)) and find_address(a):
        return ADDRESS
    if find_address(a) and _seq(a, ("배송", "보내", "받"), gap=6) and not has(_REFUND_WORDS + _EXCHANGE_WORDS):
        return ADDRESS
    if has(_EXCHANGE_WORDS):
        return EXCHANGE
    if has(_REFUND_WORDS) or _seq(a, ("돈", "금액", "결제", "값"), ("돌려받", "돌려주", "돌리", "돌려", "받")):
        return REFUND
    if has(("물리",)) or _seq(a, ("돌려",), ("보내",)):
        return REFUND
    if has(_CANCEL_WORDS) or a.says("캔슬", "취소"):
        return CANCEL
    if _seq(a, ("주문", "구매"), ("안", "않"), gap=5) and not has(_WHERE_WHEN) and not has(("오",)):
        return CANCEL
    if has(_CHANGE_VERBS) and (has(_OPTION_WORDS) or _colour_or_size(a)) and not has(_ADDRESS_WORDS):
        return EXCHANGE
    if _seq(a, ("다르", "다른"), _OPTION_WORDS, ("받", "보내", "오", "하"), gap=5):
        return EXCHANGE
    # "주문한 블랙/260으로 다시 보내 주세요": the right option sent again in place of the one that came
    if _seq(a, ("다시", "새로", "제대로"), ("보내", "받", "배송"), gap=3) and (
        has(_OPTION_WORDS) or _colour_or_size(a)
    ):
        return EXCHANGE
    # 5. questions
    if has(("택배", "운송장", "송장")) or a.says("송장") or (has(_PARCEL) and has(_WHERE_WHEN)):
        return TRACK
    if has(("출고", "출발")) or (has(_WHERE_WHEN) and has(("오", "도착", "받", "걸리", "와", "예정일", "예정"))):
        return TRACK
    if _seq(
        a, ("배송", "배달"), ("상황", "진행", "정보", "현황", "상태", "몇일", "며칠", "걸리", "시작", "출발"), gap=4
    ):
        return TRACK
    if _seq(a, ("언제",), ("오", "도착", "받", "와"), gap=5) or _seq(a, ("아직",), ("안", "못"), ("오", "받"), gap=4):
        return TRACK
    if _seq(a, ("배송",), ("조회", "상태", "현황", "확인", "중", "되"), gap=3):
        return TRACK
    if has(_ORDER_WORDS + _BOUGHT_VERBS) and (has(_WHAT) or has(_LIST_WORDS) or has(("보이", "보", "알리"))):
        return ORDERS
    if _seq(a, ("나", "제", "저"), ("주문", "구매"), gap=3):
        return ORDERS
    if has(("구매내역", "주문내역", "주문목록")):
        return ORDERS
    return None


_JOINERS = ("그리고", "그리구", "또", "또한", "그다음", "그담", "아울러")
_ACTION_NOUNS = frozenset(_REFUND_WORDS + _CANCEL_WORDS + _EXCHANGE_WORDS + ("변경", "주소변경"))
_SAME_FAMILY = ({REFUND, CANCEL},)


def split_requests(text: str) -> list[tuple[str, str]]:
    """Two or more things asked in one message ("운동화 사이즈 교환하고 텀블러는 환불해 주세요"), in order, as
    (intent, the words of that request). A part with no request of its own (둘 다 단순변심이에요) stays with the
    request before it; "취소하고 환불해 주세요" on one order is one request. [] when there is one request."""
    a = analyse(text)
    if not a.ms:
        return []
    starts = [0]
    for i, m in enumerate(a.ms):
        if m.tag == "EC" and m.form in ("고", "구") and i and a.ms[i - 1].tag.split("-")[0] in ("XSV", "VV", "VX"):
            starts.append(a.ms[i + 1].start if i + 1 < len(a.ms) else len(a.text))
        elif m.tag == "MAJ" and m.form in _JOINERS:
            starts.append(m.start)
        elif m.tag == "JC" and i and a.ms[i - 1].form in _ACTION_NOUNS:
            starts.append(m.end)  # "신발 교환이랑 컵 반품": two requests joined as nouns
        elif m.tag in ("SF", "SP") and m.form in (".", ",", "!", "?", ";"):
            starts.append(m.end)
    bounds = sorted({b for b in starts if 0 <= b < len(a.text)})
    parts = [a.text[x:y].strip() for x, y in zip(bounds, [*bounds[1:], len(a.text)], strict=True)]
    requests: list[list] = []
    for part in (p for p in parts if p):
        intent = detect_intent(part)
        named = order_ids(part)
        if requests and (
            intent is None
            or intent not in ACTION_INTENTS
            or (any({intent, requests[-1][0]} <= family for family in _SAME_FAMILY) or intent == requests[-1][0])
            and not (named and named != order_ids(requests[-1][1]))
            and not _names_other_product(part, requests[-1][1])
        ):
            requests[-1][1] = f"{requests[-1][1]} {part}"
        elif intent in ACTION_INTENTS:
            requests.append([intent, part])
        elif requests:
            requests[-1][1] = f"{requests[-1][1]} {part}"
    if len(requests) < 2:
        return []
    return [(intent, words) for intent, words in requests]


def _names_other_product(part: str, before: str) -> bool:
    """Whether `part` names a product word that `before` does not (텀블러는 … after 운동화 …)."""
    words = {w for names in _PRODUCT_NOUNS for w in names}
    here = {w for w in words if w in part}
    return bool(here) and not here & {w for w in words if w in before}


_PRODUCT_NOUNS = tuple((word, *nicknames) for word, nicknames in PRODUCT_NICKNAMES.items())


def _payment_problem(a: Analysed) -> bool:
    if a.says(
        "이중결제", "중복결제", "결제오류", "결제에러", "결재오류", "이중으로", "두번결제", "결제가이상", "금액이이상"
    ):
        return True
    if a.has("결제", "카드", "돈", "금액", "청구", "출금") and (
        _seq(a, ("두", "2", "이중", "중복", "두번"), ("번", "결제", "회", "차례", "빠지", "나가", "청구"), gap=3)
        or a.has("오류", "에러", "실패", "먹통", "씹히", "이중", "중복", "이상")
        or _seq(a, ("결제",), ("안", "못"), ("되", "돼"), gap=3)
    ):
        return True
    return False


_COLOURS: dict[str, tuple[str, ...]] = {
    "블랙": ("블랙", "검정", "검은", "검은색", "까만", "까만색", "검정색", "흑색", "black"),
    "화이트": ("화이트", "흰", "흰색", "하얀", "하얀색", "하양", "백색", "white"),
    "그레이": ("그레이", "회색", "그래이", "gray", "grey", "잿빛"),
    "레드": ("레드", "빨간", "빨간색", "빨강", "빨강색", "적색", "red"),
    "네이비": ("네이비", "남색", "곤색", "navy"),
    "실버": ("실버", "은색", "silver"),
    "민트": ("민트", "민트색", "mint"),
    "퍼플": ("퍼플", "보라", "보라색", "purple"),
    "그린": ("그린", "초록", "초록색", "녹색", "green"),
}
_ALL_COLOURS = tuple(w for names in _COLOURS.values() for w in names)
_SIZE = re.compile(r"(?<![\d])(2[2-9]0|2[2-9]5|[SMLsml]|XL|xl|\d{3}ml|\d+mm)(?![\d])")


def _colour_or_size(a: Analysed) -> bool:
    words = {w for names in _COLOURS.values() for w in names}
    if any(m.form.lower() in words for m in a.ms):
        return True
    return bool(re.search(r"(?<!\d)(2[2-9][05])(?!\d)", a.text)) and not ORDER_ID.search(a.text)


# --- reasons -------------------------------------------------------------------------------------
# Each cue is a lemma sequence (each step within a few morphemes of the previous one).
_DEFECT_CUES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("불량", "불량품", "하자", "결함", "고장", "파손", "흠집", "스크래치", "기스", "얼룩", "오염", "구멍", "녹"),),
    (("깨지", "찍히", "찢어지", "터지", "부러지", "망가지", "뜯어지", "갈라지", "긁히", "휘", "벗겨지", "고장나"),),
    (("찍힘", "깨짐", "크랙", "찌그러지", "찌그러짐", "새/VV", "샘", "누수", "변색", "곰팡이", "헤지"),),
    (("금/NNG",), ("가/VV", "가", "있", "생기")),
    (("상품", "물건", "제품"), ("하자",)),
    (("작동", "전원", "충전", "소리", "연결", "페어링", "블루투스", "켜지", "불", "인식"), ("안", "않", "못")),
    (("안", "못"), ("켜지", "나오", "들리", "작동", "충전", "울리", "잠기", "닫히", "열리", "맞물리")),
    (("먹통", "고장"),),
    (("지퍼", "버튼", "뚜껑", "바닥", "끈", "마개", "밑창", "밑"), ("고장", "불량", "안", "빠지", "떨어지", "벌어지")),
    (("물",), ("새/VV",)),
)
_WRONG_CUES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("오배송", "오발송", "잘못배송"),),
    (
        ("다른", "다르", "엉뚱"),
        ("상품", "제품", "물건", "거", "것", "색", "색상", "사이즈", "옵션", "게"),
        ("오", "배송", "보내", "도착", "받", "들"),
    ),
    (("잘못",), ("오", "배송", "보내", "발송", "도착", "받")),
    (("주문",), ("하",), ("것", "거", "게"), ("다르",)),
    (("주문", "시키"), ("안", "않"), ("것", "거", "게", "상품", "물건"), ("오", "왔")),
    (("시키",), ("않", "안"), ("오",)),
    (("주문",), ("다르",)),
    (("바뀌",), ("오", "배송")),
    # "레드로 시켰는데 검정색이 왔네요": ordered one thing, another arrived
    (("시키", "주문", "고르", "선택"), _ALL_COLOURS + ("색", "색상", "사이즈", "옵션", "치수"), ("오", "배송", "도착")),
    (("는데", "ᆫ데"), _ALL_COLOURS + ("색", "색상", "사이즈", "치수"), ("오", "배송", "도착")),
)
_MIND_CUES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("변심", "단순변심", "충동구매", "충동"),),
    (("마음", "맘"), ("안", "않")),
    (("마음", "맘"), ("바뀌", "변하", "달라지")),
    (("마음", "맘"), ("들",), ("않",)),
    (("필요", "쓸모"), ("없", "없어지")),
    (("생각",), ("다르", "작", "크", "별로")),
    (("생각보다",),),
    (("사이즈", "크기", "치수", "핏", "발"), ("안", "않"), ("맞",)),
    (("사이즈", "크기", "치수", "핏"), ("작", "크", "애매", "별로")),
    (("작", "크"), ("신", "입", "쓰", "맞")),
    (("별로",),),
    (("예쁘", "이쁘"), ("않", "안")),
    (("안", "않"), ("예쁘", "이쁘", "어울리")),
    (("어울리",), ("않", "안")),
    (("색", "색상", "색깔", "디자인", "컬러"), ("별로", "안", "싫", "마음", "맘", "다르")),
    (("다른", "딴"), ("데", "곳", "사이트", "매장"), ("싸", "저렴")),
    (("싸", "저렴"),),
    (("실수", "잘못"), ("주문", "구매", "시키", "누르", "고르", "선택")),
    (("사이즈", "치수", "색", "색상", "옵션"), ("잘못", "실수"), ("고르", "시키", "주문", "선택", "하")),
    (("쓸", "사용"), ("안", "일", "없")),
    (("안", "못"), ("쓰", "쓸")),
    (("선물",), ("받", "생기")),
    (("중복",), ("구매", "주문")),
    (("그냥",), ("환불", "반품", "교환", "취소")),
)


def _fits(m: Morpheme, step: Iterable[str]) -> bool:
    """A step lists lemmas, optionally with a tag prefix: "새/VV" is the verb 새다 (leak), not 새 (new)."""
    for item in step:
        form, _, tag = item.partition("/")
        if m.form.lower() == form and (not tag or m.tag.startswith(tag)):
            return True
    return False


def _cue_hits(a: Analysed, cues: Sequence[tuple[tuple[str, ...], ...]]) -> list[tuple[int, int]]:
    """(start, end) morpheme spans of the cues found."""
    hits = []
    for cue in cues:
        steps = [step for step in cue if step]
        for i, m in enumerate(a.ms):
            if not _fits(m, steps[0]):
                continue
            position, ok = i, True
            for wanted in steps[1:]:
                found = next(
                    (j for j in range(position + 1, min(len(a.ms), position + 5)) if _fits(a.ms[j], wanted)), None
                )
                if found is None:
                    ok = False
                    break
                position = found
            if ok:
                hits.append((i, position))
    return hits


# "…로 해 주세요", "…라고 해 주세요", "…로 처리해": what follows a label the customer asks us to write down.
_ASKED_AS = re.compile(
    r"(?:으로|로|이라고|라고|이라구|라구)(?:좀)?(?:해|처리|접수|바꿔|적어|적|써|넣어|변경|등록|올려|신청|기록)"
)


def _asked_as_label(a: Analysed, end: int) -> bool:
    after = a.text[a.ms[end].end :].replace(" ", "")
    return bool(_ASKED_AS.match(after))


def _live_hits(a: Analysed, cues: Sequence[tuple[tuple[str, ...], ...]]) -> list[tuple[int, int]]:
    """Cues the customer states as facts: not denied ("불량은 아니고"), not a label they ask us to use
    ("불량이라고 해 주세요")."""
    return [(s, e) for s, e in _cue_hits(a, cues) if not _negated_after(a, e) and not _asked_as_label(a, e)]


@dataclass(frozen=True)
class ReasonReading:
    category: str  # one of REASONS or UNCLEAR
    said: bool  # the text says something about a reason at all (a fact or a label)


def classify_reason(text: str | Analysed) -> ReasonReading:
    """The reason category from the customer's description, by the whole sentence.

    Facts the customer describes win over a label they ask for; a label is taken at face value only when
    nothing they say contradicts it and it is not asked for "because it gives more days"."""
    a = text if isinstance(text, Analysed) else analyse(text)
    if not a.ms:
        return ReasonReading(UNCLEAR, False)
    defect = _live_hits(a, _DEFECT_CUES)
    wrong = _live_hits(a, _WRONG_CUES)
    mind = _live_hits(a, _MIND_CUES)
    denied_defect = any(_negated_after(a, e) for _s, e in _cue_hits(a, _DEFECT_CUES)) and not defect
    denied_wrong = any(_negated_after(a, e) for _s, e in _cue_hits(a, _WRONG_CUES)) and not wrong
    labels = _labels(a)
    requested = [label for label, asked in labels if asked]
    stated = {label for label, asked in labels if not asked}
    # Labels stated as facts ("변심이에요", "상품하자예요") count like descriptions; a label the customer asks
    # us to use ("상품하자로 해 주세요", "불량이라고 해 주세요") is only a wish.
    described = {DEFECT: bool(defect), WRONG_ITEM: bool(wrong), CHANGE_OF_MIND: bool(mind)}
    facts = stated | {category for category, seen in described.items() if seen}
    if not facts and (denied_defect or denied_wrong):
        facts.add(CHANGE_OF_MIND)  # "불량은 아닌데 반품할게요": nothing is wrong with the item
    if len(facts) == 1:
        return ReasonReading(facts.pop(), True)
    if facts:
        if DEFECT in facts and WRONG_ITEM in facts:
            return ReasonReading(UNCLEAR, True)
        # A described defect or wrong item outweighs a change of mind ("사이즈도 작고 흠집도 있어요").
        strong = next((c for c in (WRONG_ITEM, DEFECT) if described[c]), None)
        return ReasonReading(strong or UNCLEAR, True)
    if requested:
        # Taken at face value only when it is the one label asked for and not asked for its window.
        if len(set(requested)) == 1 and not _motive(a):
            return ReasonReading(requested[0], True)
        return ReasonReading(UNCLEAR, True)
    return ReasonReading(UNCLEAR, False)


def _labels(a: Analysed) -> list[tuple[str, bool]]:
    """(label, asked_for) for each explicit label: asked_for when it is the object of "…로 해 주세요"."""
    out = []
    text = a.text.replace(" ", "")
    for label, pattern in (
        (CHANGE_OF_MIND, r"(?:단순)?변심"),
        (DEFECT, r"상품하자|하자|불량품|불량"),
        (WRONG_ITEM, r"오배송"),
    ):
        for match in re.finditer(pattern, text):
            after = text[match.end() : match.end() + 12]
            before = text[max(0, match.start() - 6) : match.start()]
            if re.match(r"(?:이|가|은|는)?(?:아니|아닌|아님|없)", after) or re.search(r"(?:안|아니)$", before):
                continue  # "변심 아니고", "하자는 없어요"
            if (
                label == DEFECT
                and match.group(0) == "하자"
                and not re.match(r"(?:가|는|예|에|이|로|라|야|요|인)", after)
            ):
                continue  # "하자" alone is also the verb ending of "교환하자"
            asked = bool(_ASKED_AS.match(after))
            out.append((label, asked))
    return out


def _motive(a: Analysed) -> bool:
    """ "30일 되니까", "기간 지나서", "그래야 …": the label is chosen for what it gives, not for what happened."""
    return bool(re.search(r"기간|\d+\s?일|그래야|되니까|돼서|넘어서|지나서|넘었|지났|유리", a.text))


# --- slots: orders ---------------------------------------------------------------------------------
_ANAPHORA = ("그거", "그것", "그", "아까", "방금", "같은", "저거", "이거", "그걸", "그게", "해당", "위", "말씀")


def order_ids(text: str) -> list[str]:
    return ["HR" + m.group(1) for m in ORDER_ID.finditer(text or "")]


def refers_back(text: str | Analysed) -> bool:
    """ "그거요", "아까 그 주문", "방금 말한 거": the order already under discussion."""
    a = text if isinstance(text, Analysed) else analyse(text)
    return any(m.form in _ANAPHORA and m.tag in ("NP", "MM", "MAG", "NNG", "VA") for m in a.ms)


def find_orders(text: str | Analysed, orders: Sequence[dict], *, today: date | None = None) -> list[dict]:
    """The orders the text names: by id, else by product (name word, synonym or option), else by date."""
    a = text if isinstance(text, Analysed) else analyse(text)
    ids = order_ids(a.text)
    if ids:
        return [o for o in orders if o.get("order_id") in ids] or [{"order_id": i} for i in ids]
    compact = a.text.replace(" ", "")
    lemmas = {m.form for m in a.ms}
    named = []
    for order in orders:
        words = product_words(str(order.get("product_name", "")))
        if any(w in compact if len(w) >= 3 else (w in lemmas or _named_word(w, a.text.split())) for w in words):
            named.append(order)
    if not named:  # one-letter typos in a product word of three syllables or more ("운동하", "텀블라")
        for order in orders:
            words = [w for w in product_words(str(order.get("product_name", ""))) if len(w) >= 3]
            if any(_typo_of(w, compact) for w in words):
                named.append(order)
    if len(named) > 1:
        # Two orders of the same product: the option they name ("검정 가방") tells them apart.
        by_option = [o for o in named if all(_mentions(a, p) for p in _option_parts(str(o.get("option") or "")))]
        named = by_option or named
    if named:
        return named
    dated = _by_date(a, orders, today)
    if dated:
        return dated
    return []


# Particles a product word may carry: 백팩은, 컵이랑, 가방도 (Kiwi sometimes splits the word itself: 백 + 팩).
_PARTICLES = frozenset(
    "은 는 이 가 을 를 도 만 요 랑 이랑 하고 으로 로 의 에 은요 는요 이요 도요 만요 좀 꺼 거 건 것".split()
)


def _named_word(word: str, tokens: list[str]) -> bool:
    return any(t == word or (t.startswith(word) and t[len(word) :] in _PARTICLES) for t in tokens)


def _typo_of(word: str, compact: str) -> bool:
    target = _jamo(word)
    for start in range(0, max(0, len(compact) - len(word) + 1)):
        window = compact[start : start + len(word)]
        if re.fullmatch(r"[가-힣]+", window) and _distance_at_most_one(_jamo(window), target):
            return True
    return False


_DATE = re.compile(r"(?:(\d{1,2})\s?월\s?)?(\d{1,2})\s?일")
_SLASH_DATE = re.compile(r"(?<!\d)(\d{1,2})[/.](\d{1,2})(?!\d)")


def _by_date(a: Analysed, orders: Sequence[dict], today: date | None) -> list[dict]:
    wanted: set[tuple[int | None, int]] = set()
    for m in _DATE.finditer(a.text):
        if re.match(r"\s?(?:이|가)?\s?(?:지나|넘|되|이내|안에|전|만에|째)", a.text[m.end() : m.end() + 4]):
            continue  # "30일 지났어요" is a duration, not a date
        wanted.add((int(m.group(1)) if m.group(1) else None, int(m.group(2))))
    for m in _SLASH_DATE.finditer(a.text):
        wanted.add((int(m.group(1)), int(m.group(2))))
    if today is not None:
        for word, back in (("오늘", 0), ("어제", 1), ("그제", 2), ("그저께", 2)):
            if word in a.text:
                day = today - timedelta(days=back)
                wanted.add((day.month, day.day))
    if not wanted:
        return []
    out = []
    for order in orders:
        for field_ in ("ordered_at", "delivered_at", "shipped_at"):
            value = str(order.get(field_) or "")[:10]
            try:
                day = date.fromisoformat(value)
            except ValueError:
                continue
            if any((month is None or month == day.month) and d == day.day for month, d in wanted):
                out.append(order)
                break
    return out


# --- slots: options --------------------------------------------------------------------------------
def _option_parts(label: str) -> list[str]:
    return [p.strip() for p in label.split("/") if p.strip()]


def _mentions(a: Analysed, part: str) -> bool:
    compact = a.text.replace(" ", "").lower()
    low = part.lower()
    for canonical, names in _COLOURS.items():
        if low == canonical.lower():
            return any(name in compact for name in names)
    if re.fullmatch(r"\d+", low):
        return bool(re.search(rf"(?<!\d){low}(?!\d)", compact))
    if re.fullmatch(r"\d+\s?(ml|mm)", low):
        return bool(re.search(rf"(?<!\d){re.escape(low)}", compact))
    if re.fullmatch(r"[a-z]{1,3}", low):  # S / M / L / XL
        sizes = {"s": ("스몰",), "m": ("미디엄", "미디움"), "l": ("라지",), "xl": ("엑스라지",)}
        return bool(re.search(rf"(?<![a-z]){low}(?![a-z])", compact)) or any(n in compact for n in sizes.get(low, ()))
    return low in compact


def find_option(text: str | Analysed, order: dict) -> tuple[str | None, list[str]]:
    """(the option label, []) when the text names exactly one of the order's real options other than the
    current one, else (None, the labels that would fit). A part left out ("블랙으로" for 화이트/260) is
    kept from the current option."""
    a = text if isinstance(text, Analysed) else analyse(text)
    labels = [str(x) for x in order.get("options") or []]
    current = str(order.get("option") or "")
    if not labels:
        return None, []
    off = _replaced(a)
    set_aside = {a.ms[i].form for i in off}
    # "주문한 블랙/260으로 다시 보내 주세요", "화이트로 골랐는데 검정이 왔어요, 화이트/260으로": the option ordered,
    # sent again because the wrong one came.
    ordered_again = a.says("주문한", "시킨", "원래", "다시보내") or (
        current.replace(" ", "") in a.compact and classify_reason(a).category == WRONG_ITEM
    )
    if current and ordered_again and all(_mentions(a, p) for p in _option_parts(current)):
        return current, []
    scored = []
    for label in labels:
        parts = _option_parts(label)
        named = [p for p in parts if _mentions(a, p)]
        if not named:
            continue
        scored.append((len(named), label, parts, named))
    candidates = [label for _n, label, _p, _named in scored if label != current]
    full = [label for n, label, parts, _ in scored if n == len(parts) and label != current]
    if len(full) == 1:
        return full[0], []
    if len(full) > 1:
        # "화이트 말고 블랙": the set-aside colour is not the one they want
        kept = [label for label in full if not any(p in set_aside for p in _option_parts(label))]
        if len(kept) == 1:
            return kept[0], []
        return None, full
    # Partially named: keep the other parts from the current option.
    current_parts = _option_parts(current)
    completed = []
    for _n, label, parts, named in scored:
        if label == current:
            continue
        rest = [p for p in parts if p not in named]
        if all(p in current_parts for p in rest):
            completed.append(label)
    if len(completed) == 1:
        return completed[0], []
    if not scored and _seq(a, ("다른", "다르"), _OPTION_WORDS, gap=3):
        others = [label for label in labels if label != current]
        if len(others) == 1:
            return others[0], []  # "다른 색으로": the only other option
        return None, others
    return None, completed or candidates


# --- slots: addresses ------------------------------------------------------------------------------
_REGIONS = (
    "서울",
    "부산",
    "대구",
    "인천",
    "광주",
    "대전",
    "울산",
    "세종",
    "제주",
    "경기",
    "강원",
    "충북",
    "충남",
    "전북",
    "전남",
    "경북",
    "경남",
    "충청",
    "전라",
    "경상",
)
_ADMIN_SUFFIX = re.compile(r"[가-힣]+(?:특별시|광역시|특별자치시|특별자치도|시|도|구|군|읍|면|동|리|로|길)$")
_ADDRESS_TAGS = ("NNP", "NNG", "SN", "SP", "SO", "SL", "NNB", "NR", "W_SERIAL", "SS", "SW", "XSN", "MM")
_NOT_ADDRESS = frozenset(
    {
        "배송지",
        "주소",
        "변경",
        "수정",
        "부탁",
        "요청",
        "주문",
        "교환",
        "환불",
        "새",
        "좀",
        "지금",
        "여기",
        "거기",
        "주소지",
    }
)


def find_address(text: str | Analysed) -> str | None:
    """A street address anywhere in the text, before or after the verb: from the first place name that is
    followed by a number, to the last piece that belongs to it (number, 동, 호, 층, 건물 name)."""
    a = text if isinstance(text, Analysed) else analyse(text)
    ms = a.ms
    for i, m in enumerate(ms):
        if not _address_start(m):
            continue
        window = ms[i : i + 8]
        if not any(x.tag in ("SN", "W_SERIAL") or re.search(r"\d", x.form) for x in window):
            continue
        end = i
        j = i + 1
        while j < len(ms):
            x = ms[j]
            nxt = ms[j + 1] if j + 1 < len(ms) else None
            numbered_next = nxt is not None and (nxt.tag in ("SN", "W_SERIAL") or bool(re.match(r"\d", nxt.form)))
            if x.form in _NOT_ADDRESS:
                break
            if x.form in ("로", "으로", "으"):
                if numbered_next:
                    end = j  # 판교 + 로 + 235: part of the road name
                    j += 1
                    continue
                break  # "…101호로 바꿔": the particle, not the address
            if x.tag.split("-")[0] in _ADDRESS_TAGS or numbered_next:
                if x.tag == "SP" and x.form != ",":
                    break
                end = j
                j += 1
                continue
            break
        candidate = a.text[ms[i].start : ms[end].end].strip(" ,.")
        candidate = re.sub(r"\s*(?:으로|로)$", "", candidate) if not re.search(r"[로길]$", ms[end].form) else candidate
        if re.search(r"\d", candidate) and len(candidate) >= 5:
            return candidate
    return None


def _address_start(m: Morpheme) -> bool:
    if not m.tag.startswith(("NNP", "NNG")) or m.form in _NOT_ADDRESS:
        return False
    if any(m.form.startswith(region) for region in _REGIONS):
        return True
    return bool(_ADMIN_SUFFIX.match(m.form)) and len(m.form) >= 3


# --- tickets ---------------------------------------------------------------------------------------
def ticket_category(text: str | Analysed) -> str:
    """The ticket category (Korean label, as the create_ticket tool takes it): the team that can solve what the
    customer describes; 상담원연결 only when they name no topic."""
    a = text if isinstance(text, Analysed) else analyse(text)
    if _payment_problem(a) or a.has("결제", "카드", "청구"):
        return "결제"
    if a.has(*_ACCOUNT):
        return "계정"
    if a.has(*_COMPENSATION):
        return "보상"
    if a.has("오류", "에러", "버그", "먹통") or a.says("안열", "안 열", "튕기", "튕겨"):
        return "오류"
    if a.has("배송", "택배", "배달", "송장", "운송장") and (a.has("늦", "지연", "안", "못", "오") or a.says("늦어")):
        return "배송"
    if a.has(*_PEOPLE):
        return "상담원연결"
    return "기타"


def asks_to_approve(text: str | Analysed) -> bool:
    """ "대기 중인 환불은 지금 승인 처리해 주세요": the customer asks the agent to approve (it cannot)."""
    a = text if isinstance(text, Analysed) else analyse(text)
    return a.has("승인") and a.says("승인해", "승인처리", "승인 처리", "승인좀", "승인 좀", "승인부탁", "승인해줘")


def asks_amount(text: str | Analysed) -> bool:
    """ "얼마 환불되는지도 알려 주세요": the customer asks how much."""
    a = text if isinstance(text, Analysed) else analyse(text)
    return a.has("얼마") or a.says("금액이얼마", "얼마나", "몇원", "금액알려")


def names_product(text: str | Analysed) -> bool:
    """Whether the text names a product by a word or nickname of the shop's catalogue (백팩, 신발, 이어폰)."""
    a = text if isinstance(text, Analysed) else analyse(text)
    return any(name in a.compact for names in _PRODUCT_NOUNS for name in names if len(name) >= 2)


def foreign_option(text: str | Analysed, order: dict) -> str | None:
    """A colour the customer asks for that the order's product does not come in ("레드/260" for a shoe made in
    white and black): the words to name in the refusal, or None."""
    a = text if isinstance(text, Analysed) else analyse(text)
    labels = " ".join(str(x) for x in order.get("options") or [])
    if not labels:
        return None
    words = {m.form.lower() for m in a.ms} | {w.strip(".,!?").split("/")[0].lower() for w in a.text.split()}
    for canonical, names in _COLOURS.items():
        if canonical in labels:
            continue
        if words & set(names):  # Kiwi may split a loanword (레드 → 레 + 드): the written words count too
            written = re.search(rf"{canonical}\s*/\s*[\w]+|{canonical}", a.text)
            return written.group(0) if written else canonical
    return None


def other_product(text: str | Analysed, order: dict) -> str | None:
    """Another product's name in an exchange of this order ("운동화를 백팩 블랙으로"): what the customer named."""
    a = text if isinstance(text, Analysed) else analyse(text)
    own = set(product_words(str(order.get("product_name", ""))))
    for word, nicknames in PRODUCT_NICKNAMES.items():
        names = (word, *nicknames)
        if own & set(names):
            continue
        for name in names:
            if len(name) >= 2 and (name in a.compact) and not any(name in o for o in own):
                return name
    return None
