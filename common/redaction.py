"""The one masking policy: credentials, personal data, internal addresses and raw stack traces. Pure.

Two uses, one set of patterns:
- `redact` is THE policy for every text bound for a model (draft, QA, confidence, tags, diagnosis, context
  summaries, chat) and for customer-facing screens. `llm.masking` applies it to every message just before the
  wire, so a new prompt builder cannot forget it; builders that put JSON into a prompt mask the values first
  (`redact_obj`), because escaped text (`\\n010-...`) is harder to read reliably after encoding.
  It masks: phone numbers, e-mail, card numbers, bank account numbers, resident registration numbers
  (주민등록번호, 외국인등록번호), street addresses (도로명 and 지번), tokens/keys/passwords, internal URLs and
  hosts, IP addresses, stack traces. Order matters: stack traces go first (their frames carry paths and
  hosts), then URLs (so an internal URL is replaced whole before its query string is read as `token=...`),
  then credentials, then the numbers from most to least specific (resident number, account after a bank
  word, card, phone, dash-grouped account, any other 13-19 digits), e-mail and street addresses.
  The ONE exception (`MODEL_EXCEPTIONS`): `keep={"address"}` leaves street addresses in place. Only
  `chat.prompts` asks for it, for the customer's current chat message, so the agent can pass a new
  shipping address to change_shipping_address; see `llm.masking` for how that is scoped.
- `redact_personal` (our own logs, where tracebacks and hosts are what an engineer needs): credentials and
  personal data only.
Markers never match any pattern, so both are idempotent.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from common.text import Folded

TOKEN = "[토큰]"
PASSWORD = "[비밀번호]"
CARD = "[카드번호]"
PHONE = "[전화번호]"
EMAIL = "[이메일]"
INTERNAL_URL = "[내부URL]"
IP_ADDRESS = "[IP주소]"
STACK = "[스택트레이스 생략]"
ADDRESS = "[주소]"
RRN = "[주민등록번호]"
ACCOUNT = "[계좌번호]"
PASSPORT = "[여권번호]"
CARD_DETAIL = "[카드정보]"  # a card's expiry or security code

MARKERS = (
    TOKEN,
    PASSWORD,
    CARD,
    PHONE,
    EMAIL,
    INTERNAL_URL,
    IP_ADDRESS,
    STACK,
    ADDRESS,
    RRN,
    ACCOUNT,
    PASSPORT,
    CARD_DETAIL,
)


def has_marker(text: str) -> bool:
    """Does `text` carry a mask placeholder? A model that copies one into a tool argument must be refused,
    not obeyed (an order's address must never become "[주소]")."""
    return any(marker in text for marker in MARKERS)


# The kinds a caller may ask `redact` to leave in place; there is exactly one (see the module docstring).
ADDRESS_KIND = "address"
MODEL_EXCEPTIONS = frozenset({ADDRESS_KIND})

# Left edge of a number or e-mail: not glued to a letter, digit or dash (HR20260721001 stays), but a JSON
# escape right before it (`\n010-...` inside an encoded string) still counts as an edge.
_EDGE = r"(?=\d)(?:(?<=\\[nrt])|(?<![\\A-Za-z0-9+-]))"  # (?=\d) first: fails fast on most positions
_END = r"(?![A-Za-z0-9-])"

# --- stack traces -------------------------------------------------------------------------------------------

# "Traceback (most recent call last):" and every indented line after it. The final unindented
# "SomeError: message" line stays: it is the summary, and the later rules clean what it says.
_PY_TRACEBACK = re.compile(r"Traceback \(most recent call last\):[^\n]*(?:\n[ \t]+[^\n]*)*")
# A Python frame outside a full traceback, with the source line that usually follows it.
_PY_FRAME = re.compile(r"[ \t]*File \"[^\"\n]+\", line \d+(?:, in [^\n]*)?(?:\n[ \t]{4,}[^\n]*)?")
_JAVA_THREAD = re.compile(r"Exception in thread \"[^\"\n]*\"[^\n]*")
_JAVA_FRAME = re.compile(
    r"[ \t]*\bat (?:[\w$.@-]+//?)*(?:[\w$]+\.)+[\w$<>]+"  # at java.base/com.x.Y.method
    r"\((?:[\w$]+\.(?:java|kt|scala|groovy):\d+|Native Method|Unknown Source)\)"
)
_JAVA_MORE = re.compile(r"[ \t]*\.\.\. \d+ (?:more|common frames omitted)")
_STACK_RUN = re.compile(re.escape(STACK) + r"(?:\s*" + re.escape(STACK) + r")+")

# --- URLs and hosts -----------------------------------------------------------------------------------------

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://(?:\[토큰\]@)?(?:\[[0-9A-Fa-f:.]+\])?[^\s\"'<>`)\]}]*", re.IGNORECASE)
_WEB_SCHEMES = {"http", "https", "ws", "wss"}
_INTERNAL_SUFFIXES = (".internal", ".local", ".svc", ".cluster.local", ".lan", ".corp", ".intra", ".intranet")
_INTERNAL_LABELS = {"internal", "intra", "intranet", "corp", "svc", "private", "localhost", "staging", "stg", "admin"}
_INTERNAL_HOST = re.compile(
    r"(?<![\w.@-])(?:localhost|(?:[a-z0-9-]+\.)+(?:cluster\.local|internal|local|svc))(?::\d{1,5})?(?![\w-])",
    re.IGNORECASE,
)
_PRIVATE_IP = re.compile(
    r"(?<![\d.])(?:10\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])|192\.168|127\.\d{1,3})\.\d{1,3}\.\d{1,3}(?::\d{1,5})?(?![\d.])"
)
# Any other IPv4 address: a customer's address is personal data.
_IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])")

# --- credentials --------------------------------------------------------------------------------------------

_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+(?!\[)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)?")
_API_KEY = re.compile(
    r"\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{16,}"
    r"|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{20,}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    # The desk's own: a shop's API key and webhook signing secret (integration.services).
    r"|\b(?:csk|whsec)_[A-Za-z0-9_-]{16,}"
)
# A secret introduced in words, without "=": 비밀번호는 qwer1234!, 비번 abcd9876이에요, PIN 4821, 인증번호 482913.
# The value is ASCII with a digit or a symbol in it, so "비밀번호 변경" or "password reset" stay.
_SECRET_WORDS = (
    r"비밀\s?번호|비번|패스워드|패스코드|암호|password|passwd|passcode|passphrase|pwd|\bpw|\bPIN|핀\s?(?:번호|넘버|코드)?"
    r"|인증\s?번호|\bOTP|일회용\s?비밀번호"
)
_SECRET_WORDY = re.compile(
    rf"(?P<key>{_SECRET_WORDS})"
    r"(?P<gap>(?:[\s:=：]|->|→|[가-힣]|\b(?:is|was|code|number|no)\b\.?){0,24}?)"
    r"(?P<val>(?![\[(])(?=[!-~]*[0-9!@#$%^&*?_+=~])[!-~]{3,40}?)(?=[가-힣\s,)]|[.!?]?(?:\s|$)|$)",
    re.IGNORECASE,
)
_PASSWORD_KEYS = r"password|passwd|pwd|비밀번호"
_SECRET_KEYS = (
    r"access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|token|api[_-]?key|apikey|secret|client[_-]?secret"
    r"|session[_-]?id|sessionid|session|jsessionid|phpsessid|sid|cookie|authorization|x-api-key"
)
_KEY_VALUE = re.compile(
    rf"(?P<key>(?<![\w-])(?:{_PASSWORD_KEYS}|{_SECRET_KEYS}))(?P<q1>[\"']?)(?P<sep>\s*[=:]\s*)(?P<q2>[\"']?)"
    r"(?P<val>(?!\[|(?:Bearer|Basic|Token)\s)[^\s\"'&;,)}\]]+)",
    re.IGNORECASE,
)
# DRF token keys and similar 40-hex secrets, standing alone.
_HEX40 = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{40}(?![0-9A-Za-z])")
_URL_USERINFO = re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+@")

# --- personal data ------------------------------------------------------------------------------------------

# 주민등록번호 / 외국인등록번호: YYMMDD, then 1-4 (citizens) or 5-8 (foreigners) and six more digits (or the
# asterisks of a half-masked copy). The date must be a real month/day, so 13-digit counters rarely match.
_RRN = re.compile(
    _EDGE + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[ ]?[-–]?[ ]?[1-8](?:\d{6}|\d?\*{5,6}|\d{6}(?=\*))" + _END
)
# An account number right after a bank word: 10-16 digits, grouped or not (계좌 110123456789, 국민 123456-78-901234).
_BANK_WORDS = (
    r"계좌(?:번호)?|통장|은행|뱅크|입금|예금주|신한|국민|우리|하나|농협|기업|카카오|토스|케이뱅크|우체국|새마을|신협|수협"
    r"|SC제일|씨티|IBK|KB|NH|bank|account|acct"
)
_ACCOUNT_AFTER_WORD = re.compile(
    rf"(?P<word>{_BANK_WORDS})(?P<gap>[^\d\n]{{0,20}}?)(?P<num>(?<![\d-])\d[\d -]{{8,22}}\d){_END}", re.IGNORECASE
)
# Cards in their printed groupings (4-4-4-4, 4-4-4-4-3, Amex 4-6-5, Diners 4-6-4) or 13-19 digits in a row.
_CARD_STRICT = re.compile(
    _EDGE + r"(?:\d{4}([ -]?)\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?|\d{4}([ -]?)\d{6}\2\d{4,5}|\d{13,19})" + _END
)
_PHONE = re.compile(
    r"(?=[+0])(?:(?<=\\[nrt])|(?<![\\A-Za-z0-9+-]))(?:"
    r"(?:\+82[ -]?(?:\(0\))?|0)1[016789][ .-]?\d{3,4}[ .-]?\d{4}"  # mobile: 010-1234-5678, 01012345678, +82 10 ...
    r"|(?:\+82[ -]?(?:\(0\))?|0)(?:2|[3-6][1-5]|70)[ .-]\d{3,4}[ .-]\d{4}"  # landline / 070, separators required
    r")" + _END
)
# Bank account numbers as banks print them: three or four dash-groups, 10-16 digits (110-123-456789,
# 1002-123-456789, 123456-78-901234, 3333-01-1234567). Dates (2026-07-27) have 8 digits and stay.
_ACCOUNT_GROUPED = re.compile(_EDGE + r"\d{2,6}(?:-\d{2,7}){2,3}" + _END)
# Anything else of 13-19 digits, optionally grouped by single spaces or dashes (odd card groupings). Order
# ids like HR20260721001 are glued to letters and amounts like 38,000원 use commas, so neither matches.
_CARD = re.compile(_EDGE + r"\d(?:[ -]?\d){12,18}" + _END)
_EMAIL = re.compile(
    r"(?=[\w.%+-])(?:(?<=\\[nrt])|(?<![\\\w.%+-]))"
    r"[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)

# Street addresses, 도로명 (서울특별시 송파구 올림픽로 300, 101동 1502호; 송파구 올림픽로35가길 10) and 지번
# (서울 송파구 잠실동 40-1; 경기도 양평군 양평읍 양근리 123번지). A 시·도 or at least one 시·군·구 comes first, then
# a road (…로/…길, never the particle 으로) or a 동·리·가 with its number, then building details. A number that is
# a count, a price or a date (3개, 2일, 5,000원) is not a street number.
_SIDO = (
    r"(?:서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충청북|충청남|충북|충남|전라북|전라남|전북|전남"
    r"|경상북|경상남|경북|경남|제주)(?:특별자치시|특별자치도|특별시|광역시|도|시)?"
)
_SIGUNGU = r"[가-힣]{1,6}(?:시|군|구)"
_EUPMYEON = r"[가-힣]{1,5}(?:읍|면)"
_ROAD = r"[가-힣A-Za-z0-9·]{0,14}[가-힣A-Za-z0-9·](?<!으)(?:로|길)"
_DONGRI = r"[가-힣0-9]{1,8}(?:동|리|가)"
_NOT_COUNT = (
    r"(?!\d|[,.]\d)(?!\s*(?:개|일|원|명|시간|시|분|초|번째|번(?!지)|회|차|주|달|월|년|장|벌|켤레|박스|세트|%|퍼센트|만|천"
    r"|kg|g\b|cm|mm|ml|L\b))"
)
_UNIT_DETAIL = r"(?:[A-Za-z]\d{0,5}|\d{1,5}[A-Za-z]?)[ \t]*(?:동|호|층)"  # 101동, 1502호, B동, 3층
_DETAIL = (
    rf"(?:[ \t]*,?[ \t]*(?:\([^()\n]{{2,30}}\)|(?:[가-힣A-Za-z0-9]{{1,15}}[ \t]?)?{_UNIT_DETAIL}"
    r"|[가-힣A-Za-z0-9]{0,12}(?:아파트|빌라|맨션|타워|오피스텔|빌딩|하이츠|캐슬|자이|래미안|푸르지오|힐스테이트|아이파크)))*"
)
_ADDRESS = re.compile(
    rf"(?=[가-힣])(?:{_SIDO}\s*(?:{_SIGUNGU}\s*){{0,2}}|(?:{_SIGUNGU}\s*){{1,3}})(?:{_EUPMYEON}\s*)?"
    rf"(?:{_ROAD}|{_DONGRI})\s*(?:지하\s*)?(?:산\s*)?\d{{1,5}}(?:-\d{{1,4}})?(?:\s*번지)?{_NOT_COUNT}{_DETAIL}"
)

# Korean passports (M12345678, and one or two letters + 7-8 digits next to the word 여권/passport).
_PASSPORT_WORDED = re.compile(
    r"(?P<word>여권|passport)(?P<gap>[^\n\dA-Za-z]{0,15}(?:번호|no\.?|number)?[^\n\dA-Za-z]{0,6})"
    r"(?P<val>(?<![A-Za-z0-9])[A-Za-z]{1,2}\d{7,8})(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_PASSPORT = re.compile(r"(?<![A-Za-z0-9])[MSRODGmsrodg]\d{8}(?![A-Za-z0-9])")
# A resident number told in halves: 앞자리 900101, 뒷자리 1234567 (each half is the person's).
_RRN_FRONT = re.compile(
    r"(?P<word>주민(?:등록)?\s?(?:번호)?|앞\s?(?:6\s?)?자리|앞\s?번호|생년월일)(?P<gap>(?:[^\d\n]|6\s?자리){0,15}?)"
    r"(?P<val>(?<!\d)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?!\d)"
)
# The second half right after a first half already masked: 주민번호 900101 다시 1234567.
_RRN_SECOND = re.compile(re.escape(RRN) + r"(?P<gap>[^\d\n]{0,10}?)(?P<val>(?<!\d)[1-8]\d{6})(?!\d)")
_RRN_BACK = re.compile(
    r"(?P<word>뒷\s?(?:7\s?)?자리|뒷\s?번호|뒤\s?(?:7\s?)?자리|뒤\s?번호)(?P<gap>(?:[^\d\n]|7\s?(?:자리|개)){0,15}?)"
    r"(?P<val>(?<!\d)[1-8]\d{6})(?!\d)"
)
# A card's expiry and security code, labelled, or right after a card number.
_CARD_EXPIRY = re.compile(
    r"(?P<word>유효\s?기간|유효|만료(?:일)?|exp(?:iry|ires|\.)?|valid(?:\s?thru)?|MM/YY)(?P<gap>[^\d\n]{0,8}?)"
    r"(?P<val>\d{4}\s?년\s?\d{1,2}\s?월|\d{1,2}\s?월\s?\d{2,4}\s?년?|\d{2}\s?[/.-]\s?\d{2,4}|\d{4})(?!\d)",
    re.IGNORECASE,
)
_CARD_CODE = re.compile(
    r"(?P<word>CVC|CVV2?|CID|보안\s?코드|시큐리티\s?코드|카드\s?뒷면(?:\s?\d\s?자리)?|뒷면\s?\d\s?자리)"
    r"(?P<gap>[^\d\n]{0,8}?)(?P<val>(?<!\d)\d{3,4})(?!\d)",
    re.IGNORECASE,
)
# After a masked card number, in the same sentence: an MM/YY (or MMYY) and a three or four digit code.
_AFTER_CARD = re.compile(re.escape(CARD) + r"(?P<tail>[^\n.!?]{0,40}?)(?=$|[\n.!?])")
_EXPIRY_OR_CODE = re.compile(r"(?<![\d/.-])(?:\d{2}\s?[/-]\s?\d{2,4}|\d{3,4})(?![\d/.-])")
# A home told without a road: 래미안아파트 101동 1203호, 은마아파트 3동 402호, 101동 1502호.
_BUILDING = (
    r"[가-힣A-Za-z0-9]{0,10}(?:아파트|빌라|맨션|타워|오피스텔|빌딩|하이츠|캐슬|자이|래미안|푸르지오|힐스테이트|아이파크"
    r"|더샵|e편한세상|주공\d*단지|주공|단지|팰리스|리버뷰|파크뷰|하우스|원룸|기숙사)"
)
_HOME = re.compile(
    rf"(?:{_BUILDING}\s*,?\s*)?(?<![\d-])(?:\d{{1,4}}|(?<![가-힣A-Za-z])[A-Za-z가나다라마바사])\s*동\s*,?\s*\d{{1,5}}\s*호"
    rf"|{_BUILDING}\s*,?\s*(?:\d{{1,4}}\s*동|\d{{1,5}}\s*호)"
)

# Dict keys whose whole value is sensitive, whatever it looks like (redact_obj).
_SENSITIVE_KEY = re.compile(
    rf"^(?:{_PASSWORD_KEYS}|{_SECRET_KEYS}|card[_-]?(?:no|number)|pan|cvc|cvv|phone|mobile|tel|e-?mail|ssn|rrn"
    r"|(?:client|remote|user)[_-]?ip|ip|resident[_-]?(?:no|number)|주민등록번호"
    r"|(?:bank[_-]?)?account[_-]?(?:no|number)|bank[_-]?account|계좌|계좌번호)$",
    re.IGNORECASE,
)
_ADDRESS_KEY = re.compile(
    r"^(?:(?:(?:shipping|new|old|street|home|delivery|billing)[_-]?)?(?:address|addr)|주소|배송지)$", re.IGNORECASE
)


def _host_is_internal(host: str) -> bool:
    host = host.lower().rstrip(".")
    if not host:
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved
    if host == "localhost" or host.endswith(_INTERNAL_SUFFIXES):
        return True
    if "." not in host:  # a bare service name: payment-svc, pg-gateway
        return True
    labels = host.split(".")
    return any(
        label in _INTERNAL_LABELS or label.endswith(("-internal", "-svc", "-intra")) or label.startswith("internal-")
        for label in labels
    )


def _url_is_internal(url: str) -> bool:
    try:
        parts = urlsplit(url.replace("://" + TOKEN + "@", "://user@", 1))
        host = parts.hostname or ""
    except ValueError:
        return True
    if parts.scheme.lower() not in _WEB_SCHEMES:  # jdbc:, redis://, postgres://: infrastructure, never public
        return True
    return _host_is_internal(host)


def _replace_url(match: re.Match[str]) -> str:
    url = match.group(0)
    if _url_is_internal(url):
        return INTERNAL_URL
    return _URL_USERINFO.sub(TOKEN + "@", url)


def _replace_key_value(match: re.Match[str]) -> str:
    key = match.group("key")
    marker = PASSWORD if re.fullmatch(_PASSWORD_KEYS, key, re.IGNORECASE) else TOKEN
    return f"{key}{match.group('q1')}{match.group('sep')}{match.group('q2')}{marker}"


def _replace_account_after_word(match: re.Match[str]) -> str:
    digits = sum(ch.isdigit() for ch in match.group("num"))
    if not 10 <= digits <= 16:
        return match.group(0)
    return f"{match.group('word')}{match.group('gap')}{ACCOUNT}"


def _replace_grouped_account(match: re.Match[str]) -> str:
    digits = sum(ch.isdigit() for ch in match.group(0))
    return ACCOUNT if 10 <= digits <= 16 else match.group(0)


def _masked_group(marker: str) -> Callable[[re.Match[str]], str]:
    """Keep a match's label and gap (여권번호 …, 뒷자리 …, CVC …) and mask only its value."""

    def replace(match: re.Match[str]) -> str:
        return f"{match.group('word')}{match.group('gap')}{marker}"

    return replace


def _replace_secret_words(match: re.Match[str]) -> str:
    return f"{match.group('key')}{match.group('gap')}{PASSWORD}"


def _replace_after_card(match: re.Match[str]) -> str:
    return CARD + _EXPIRY_OR_CODE.sub(CARD_DETAIL, match.group("tail"))


_Step = tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]
_NUMBER_STEPS: tuple[_Step, ...] = (
    (_EMAIL, EMAIL),
    (_RRN, RRN),
    (_RRN_FRONT, _masked_group(RRN)),
    (_RRN_BACK, _masked_group(RRN)),
    (_RRN_SECOND, lambda m: f"{RRN}{m.group('gap')}{RRN}"),
    (_PASSPORT_WORDED, _masked_group(PASSPORT)),
    (_PASSPORT, PASSPORT),
    (_ACCOUNT_AFTER_WORD, _replace_account_after_word),
    (_CARD_STRICT, CARD),
    (_PHONE, PHONE),
    (_ACCOUNT_GROUPED, _replace_grouped_account),
    (_CARD, CARD),
    (_CARD_EXPIRY, _masked_group(CARD_DETAIL)),
    (_CARD_CODE, _masked_group(CARD_DETAIL)),
    (_AFTER_CARD, _replace_after_card),
)
_ADDRESS_STEP: _Step = (_ADDRESS, ADDRESS)
_HOME_STEP: _Step = (_HOME, ADDRESS)
_PERSONAL_STEPS: tuple[_Step, ...] = (
    (_URL_USERINFO, TOKEN + "@"),
    (_BEARER, lambda m: f"{m.group(1)} {TOKEN}"),
    (_JWT, TOKEN),
    (_API_KEY, TOKEN),
    (_HEX40, TOKEN),
    (_KEY_VALUE, _replace_key_value),
    (_SECRET_WORDY, _replace_secret_words),
    *_NUMBER_STEPS,
    _ADDRESS_STEP,
    _HOME_STEP,
)
_STEPS: tuple[_Step, ...] = (
    (_PY_TRACEBACK, STACK),
    (_JAVA_THREAD, STACK),
    (_PY_FRAME, STACK),
    (_JAVA_FRAME, STACK),
    (_JAVA_MORE, STACK),
    (_STACK_RUN, STACK),
    (_URL, _replace_url),
    (_INTERNAL_HOST, INTERNAL_URL),
    (_PRIVATE_IP, INTERNAL_URL),
    (_IPV4, IP_ADDRESS),
    *_PERSONAL_STEPS[1:],  # URL credentials are handled by _replace_url above
)
_STEPS_KEEPING_ADDRESSES: tuple[_Step, ...] = tuple(
    step for step in _STEPS if step is not _ADDRESS_STEP and step is not _HOME_STEP
)


# --- normalising first: the forms people write numbers and addresses in ---------------------------------------

_SPOKEN_DIGITS = {"공": "0", "영": "0", "빵": "0", "일": "1", "이": "2", "삼": "3", "사": "4", "오": "5"}
_SPOKEN_DIGITS |= {"육": "6", "륙": "6", "칠": "7", "팔": "8", "구": "9"}
_SPOKEN = "".join(_SPOKEN_DIGITS)
# Numbers read aloud (공일공 일이삼사 오육칠팔, 구공공일공일 다시 일이삼사오육칠): a run of seven or more digit
# words or digits with at least three words, separated by spaces or dashes at most.
_SPOKEN_RUN = re.compile(rf"[{_SPOKEN}0-9](?:[ \t.·_/-]{{0,3}}[{_SPOKEN}0-9]){{5,}}")
# A one-syllable word after the number is a particle or copula, not a digit: 팔구공일 이에요.
_SPOKEN_TAIL = re.compile(r"[ \t.·_/-]+[이일사오]$")
# Dashes of every kind between digits (010–1234–5678, 010ㅡ1234ㅡ5678), and spaces around a dash.
_DASHES = "\\-\u058a\u05be\u1400\u1806\u2010-\u2015\u2212\u2e17\u2e1a\u2e3a\u2e3b\u2e40\u301c\u3030\u30a0\u30fc"
_DASHES += "\u3161\u1173\u4e00\ufe31\ufe32\ufe58\ufe63\uff0d\u2500\u2501~"
_DIGIT_DASH = re.compile(rf"(?<=\d)[ \t]*[{_DASHES}][ \t]*(?=\d)")
# Underscores and slashes in a phone-shaped number (010_1234_5678, 010/1234/5678).
_DIGIT_GLUE = re.compile(r"(?<![\d/_])(\d{2,4})[_/](\d{3,4})[_/](\d{4})(?![\d/_])")
# A parenthesised area code: (010)1234-5678, (02) 123-4567.
_AREA = re.compile(r"\(\s*(0\d{1,2})\s*\)\s*(?=\d)")
# Every digit on its own: 0 1 0 1 2 3 4 5 6 7 8.
_SPACED_DIGITS = re.compile(r"(?<![\d])\d{1,4}(?:[ \t]{1,3}\d{1,4}){4,}(?![\d])")
# E-mail written around the filters: (at) [at] {at} 골뱅이 " @ ", (dot) [dot] 닷 쩜, 닷컴.
_DOT = r"(?:[(\[{<]\s*dot\s*[)\]}>]|\s+dot\s+|닷|쩜)"
_AT_WORD = re.compile(
    r"[ \t]*(?:[(\[{<]\s*at\s*[)\]}>]|골뱅이(?:표)?|골뱅|(?<=[A-Za-z0-9])[ \t]*(?:앳|엣)(?=[ \t]*[A-Za-z]))[ \t]*"
    r"|(?<=[A-Za-z0-9])[ \t]+at[ \t]+(?=[A-Za-z0-9-]+[ \t]+dot[ \t]+[A-Za-z])"  # jihoon at example dot com
    r"|[ \t]+@[ \t]*|[ \t]*@[ \t]+",
    re.IGNORECASE,
)
_DOT_WORD = re.compile(
    rf"(?<=[A-Za-z0-9])[ \t]*(?:{_DOT}|점(?=\s*(?:컴|넷|케이알|씨오|com|net|kr|co)\b))[ \t]*(?=[A-Za-z0-9컴넷케씨])",
    re.IGNORECASE,
)
_KOREAN_TLD = re.compile(r"(?<=\.)(?:컴|넷|케이알|씨오)")
_TLD = {"컴": "com", "넷": "net", "케이알": "kr", "씨오": "co"}
_KOREAN_MAIL_HOSTS = re.compile(r"(?<=@)(?:지메일|네이버|한메일|다음|네이트|카카오)")
_MAIL_HOSTS = {"지메일": "gmail", "네이버": "naver", "한메일": "hanmail", "다음": "daum", "네이트": "nate"}
_MAIL_HOSTS["카카오"] = "kakao"


def _spaced(run: str) -> str:
    """0 1 0 1 2 3 4 … (mostly single digits, nine or more): one number. Anything else stays as it is."""
    groups = run.split()
    if sum(len(g) == 1 for g in groups) * 2 < len(groups) or sum(map(len, groups)) < 9:
        return run
    return "".join(groups)


def _spoken(match: re.Match[str]) -> str:
    run = match.group(0)
    tail = _SPOKEN_TAIL.search(run)
    if tail:
        run = run[: tail.start()]
    if sum(ch in _SPOKEN_DIGITS for ch in run) < 3 or sum(not ch.isspace() for ch in run) < 6:
        return match.group(0)
    digits = re.sub(r"[ \t.·_/]+", "-", "".join(_SPOKEN_DIGITS.get(ch, ch) for ch in run))
    return digits + (tail.group(0) if tail else "")


_NORMALISE: tuple[_Step, ...] = (
    (_SPOKEN_RUN, _spoken),
    (_AREA, r"\1-"),
    (_DIGIT_DASH, "-"),
    (_DIGIT_GLUE, r"\1-\2-\3"),
    (_SPACED_DIGITS, lambda m: _spaced(m.group(0))),
    (_AT_WORD, "@"),
    (_DOT_WORD, "."),
    (_KOREAN_TLD, lambda m: _TLD[m.group(0)]),
    (_KOREAN_MAIL_HOSTS, lambda m: _MAIL_HOSTS[m.group(0)]),
)


def _view(text: str) -> Folded:
    """`text` as the patterns read it: NFKC (full-width digits and ＠), invisible characters gone, and the
    written-around forms above folded into the forms the patterns know; with the way back to `text`."""
    view = Folded.of(text)
    for pattern, replacement in _NORMALISE:
        view = view.sub(pattern, replacement)
    return view


def _common_ends(old: str, new: str) -> tuple[int, int]:
    """Lengths of the common prefix and suffix of `old` and `new` (not overlapping)."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def _apply(steps: tuple[_Step, ...], text: str) -> str:
    """Run the steps on the normalised view, then replace in `text` only what they masked: the rest of the text
    reaches the model as the customer wrote it (a full-width ９ or "공일공" outside a number stays)."""
    if not text:
        return text
    view = _view(text)
    spans: list[tuple[int, int, str]] = []
    for pattern, replacement in steps:
        current = view

        def record(match: re.Match[str], current: Folded = current, replacement=replacement) -> str:
            old = match.group(0)
            new = replacement if isinstance(replacement, str) else replacement(match)
            if new != old:
                prefix, suffix = _common_ends(old, new)
                start, end = match.start() + prefix, match.end() - suffix
                if end > start:
                    spans.append((*current.span(start, end), new[prefix : len(new) - suffix]))
            return new

        view = current.sub(pattern, record)
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end, marker in sorted(spans):
        if start < last:  # inside what an earlier step already masked
            if end > last:
                last = end
            continue
        out.append(text[last:start])
        out.append(marker)
        last = end
    out.append(text[last:])
    return "".join(out)


def _check_keep(keep: frozenset[str]) -> None:
    if not keep <= MODEL_EXCEPTIONS:
        raise ValueError(f"only {sorted(MODEL_EXCEPTIONS)} may be kept, not {sorted(keep - MODEL_EXCEPTIONS)}")


# Masking is deterministic, and a conversation sends the same stored messages again on every call of every
# turn (history, then the wire's second pass over what the builders produced): each distinct text is masked
# once per process and the masked form reused, so a turn pays only for what is new. Bounded in entries and in
# the length of what is kept, so long documents never pin memory.
REDACT_CACHE_ENTRIES = 4096
REDACT_CACHE_MAX_CHARS = 4000


def redact(text: str, *, keep: frozenset[str] = frozenset()) -> str:
    """The model-bound policy: stack traces, internal URLs and IPs, credentials, personal data.
    `keep={"address"}` (the one exception, see the module docstring) leaves street addresses in place."""
    _check_keep(keep)
    keeps_addresses = ADDRESS_KIND in keep
    if isinstance(text, str) and len(text) <= REDACT_CACHE_MAX_CHARS:
        # The steps' identity is part of the key: whoever swaps the policy (a test proving its checks can
        # fail) neither gets masked forms remembered under the other policy nor leaves its own behind.
        steps = _STEPS_KEEPING_ADDRESSES if keeps_addresses else _STEPS
        return _redact_remembered(text, keeps_addresses, id(steps))
    return _redact_now(text, keeps_addresses)


@functools.lru_cache(maxsize=REDACT_CACHE_ENTRIES)
def _redact_remembered(text: str, keeps_addresses: bool, _steps_id: int) -> str:
    return _redact_now(text, keeps_addresses)


def _redact_now(text: str, keeps_addresses: bool) -> str:
    return _apply(_STEPS_KEEPING_ADDRESSES if keeps_addresses else _STEPS, text)


def redact_known(text: str, values: Iterable[str | None], *, marker: str = ADDRESS) -> str:
    """`text` with each known personal value (a stored address quoted in a summary, say) replaced whole:
    free-form input need not match any pattern to be hidden. Longest first, so a value inside another goes too."""
    for value in sorted({v.strip() for v in values if v and v.strip()}, key=len, reverse=True):
        text = text.replace(value, marker)
    return text


def redact_personal(text: str) -> str:
    """Credentials and personal data only (tokens, keys, passwords, e-mail, resident, account, card and phone
    numbers, street address)."""
    return _apply(_PERSONAL_STEPS, text)


def redact_obj(obj: Any, *, keep: frozenset[str] = frozenset()) -> Any:
    """Redact every string inside dicts, lists and tuples. A value under a sensitive key is masked whole
    (an address key too, unless `keep` holds the address exception)."""
    _check_keep(keep)
    if isinstance(obj, str):
        return redact(obj, keep=keep)
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if isinstance(key, str) and value not in (None, "", [], {}) and _SENSITIVE_KEY.match(key):
                out[key] = _marker_for_key(key)
            elif isinstance(key, str) and value not in (None, "", [], {}) and _ADDRESS_KEY.match(key):
                out[key] = redact(value, keep=keep) if (ADDRESS_KIND in keep and isinstance(value, str)) else ADDRESS
            else:
                out[key] = redact_obj(value, keep=keep)
        return out
    if isinstance(obj, (list, tuple)):
        return [redact_obj(item, keep=keep) for item in obj]
    return obj


def _marker_for_key(key: str) -> str:
    lowered = key.lower()
    if re.fullmatch(_PASSWORD_KEYS, lowered):
        return PASSWORD
    if lowered.startswith(("card", "pan", "cvc", "cvv")):
        return CARD
    if lowered in {"phone", "mobile", "tel"}:
        return PHONE
    if lowered.replace("-", "") == "email":
        return EMAIL
    if lowered.endswith("ip"):
        return IP_ADDRESS
    if lowered in {"ssn", "rrn", "resident_no", "resident_number", "주민등록번호"}:
        return RRN
    if "account" in lowered or lowered in {"계좌", "계좌번호"}:
        return ACCOUNT
    return TOKEN


def _internal_urls(text: str) -> bool:
    return any(_url_is_internal(m.group(0)) for m in _URL.finditer(text))


def _has_account(text: str) -> bool:
    # An account is what is left after the more specific numbers: a phone is not also an account.
    for pattern, replacement in (_RRN, RRN), (_CARD_STRICT, CARD), (_PHONE, PHONE):
        text = pattern.sub(replacement, text)
    return (
        _ACCOUNT_AFTER_WORD.sub(_replace_account_after_word, text) != text
        or _ACCOUNT_GROUPED.sub(_replace_grouped_account, text) != text
    )


_DETECTORS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("stack_trace", lambda t: any(p.search(t) for p in (_PY_TRACEBACK, _PY_FRAME, _JAVA_THREAD, _JAVA_FRAME))),
    ("internal_url", lambda t: _internal_urls(t) or bool(_INTERNAL_HOST.search(t) or _PRIVATE_IP.search(t))),
    ("url_credentials", lambda t: bool(_URL_USERINFO.search(t))),
    ("ip_address", lambda t: bool(_IPV4.search(t))),
    ("bearer_token", lambda t: bool(_BEARER.search(t))),
    ("jwt", lambda t: bool(_JWT.search(t))),
    ("api_key", lambda t: bool(_API_KEY.search(t) or _HEX40.search(t))),
    ("secret_param", lambda t: bool(_KEY_VALUE.search(t))),
    ("email", lambda t: bool(_EMAIL.search(t))),
    ("resident_number", lambda t: bool(_RRN.search(t))),
    ("account_number", lambda t: _has_account(t)),
    ("card_number", lambda t: bool(_CARD.search(t) or _CARD_STRICT.search(t))),
    ("phone", lambda t: bool(_PHONE.search(t))),
    ("address", lambda t: bool(_ADDRESS.search(t))),
)


def find_sensitive(text: str) -> list[str]:
    """Names of the pattern families still present in `text`; empty once `redact` has run."""
    if not text:
        return []
    return [name for name, present in _DETECTORS if present(text)]


# --- contact data an operator may recognise but not read whole --------------------------------------------------
MASK_DOT = "●"


def mask_phone(phone: str | None) -> str:
    """010-6645-1005 → 010-●●●●-1005: the middle digits hidden (as Korean shops print them, with a circle rather
    than `*`, which reads as markdown on the admin pages); anything that is not a phone number becomes the marker."""
    digits = re.sub(r"\D", "", phone or "")
    if not 9 <= len(digits) <= 11:
        return PHONE if phone else "-"
    head = 2 if digits.startswith("02") else 3
    return f"{digits[:head]}-{MASK_DOT * (len(digits) - head - 4)}-{digits[-4:]}"


def mask_email(email: str | None) -> str:
    """doyoon.jung@example.com → do●●●@example.com: enough to tell two addresses apart, not to write to one."""
    local, at, domain = (email or "").partition("@")
    if not at or not local or not domain:
        return EMAIL if email else "-"
    return f"{local[:2]}{MASK_DOT * 3}@{domain}"
