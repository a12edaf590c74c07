"""Pure rules for the operator's decision on a draft."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

# The reply's own rules live with the reply (tickets); a draft is sent as a reply and shares them.
from tickets.policy import normalise_reply  # noqa: F401


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance in characters (insert, delete, substitute each cost 1). rapidfuzz's C
    implementation (bit-parallel): milliseconds for texts that took the pure-Python version seconds,
    which matters because `draft_apply` computes it inside its locked transaction."""
    return Levenshtein.distance(a, b)


def edit_ratio(original: str, final: str) -> float:
    """Normalised character edit distance: 0.0 = sent as drafted, 1.0 = nothing of the draft kept."""
    longest = max(len(original), len(final))
    if longest == 0:
        return 0.0
    return round(edit_distance(original, final) / longest, 4)


# --- what holds a draft back from a plain click ----------------------------------------------------------

# The checks a draft must have passed (DONE) before it can be sent without an override reason (drafts.stages).
CHECK_STAGES = ("qa", "confidence")
HOLD_MONEY_CLAIM = "money_claim"
HOLD_UNCHECKED = "unchecked"


@dataclass(frozen=True)
class Hold:
    """Why a draft's text may not go to the customer on a plain click. Empty: it may."""

    claim_sentences: tuple[str, ...] = ()  # sentences promising money the records do not show
    unchecked: tuple[tuple[str, str], ...] = ()  # (stage, state) of checks not DONE, as people read them

    @property
    def holds(self) -> list[str]:
        return [code for code, on in ((HOLD_MONEY_CLAIM, self.claim_sentences), (HOLD_UNCHECKED, self.unchecked)) if on]

    @property
    def code(self) -> str:
        """The API's 409 code: a money claim outranks unfinished checks."""
        if self.claim_sentences:
            return "draft_blocked"
        return "draft_unchecked" if self.unchecked else ""

    @property
    def reasons(self) -> list[str]:
        """One Korean line per reason, for the operator."""
        lines = [f"승인되지 않은 환불·취소 약속: “{sentence}”" for sentence in self.claim_sentences]
        lines += [f"{stage} 검사가 끝나지 않았습니다({state})." for stage, state in self.unchecked]
        return lines

    @property
    def message(self) -> str:
        if not self.code:
            return ""
        fix = (
            "문장을 고치거나(고객의 처리 기록에 승인완료된 환불·취소가 있을 때만 약속할 수 있습니다) "
            if self.claim_sentences
            else "실패한 단계를 다시 실행하거나 "
        )
        return (
            "이 답변은 그대로 보낼 수 없습니다. "
            + " ".join(self.reasons)
            + f" {fix}그래도 보내야 하면 예외 발송 사유를 적어 주세요(사유, 보낸 사람, 시각이 기록됩니다)."
        )


def draft_hold(
    *,
    claim_sentences: Iterable[str],
    stage_states: Mapping[str, str],
    stage_labels: Mapping[str, str] = {},
    state_labels: Mapping[str, str] = {},
) -> Hold:
    """`stage_labels`, `state_labels`: the words for the stages (drafts.stages) and their states (StageState)."""
    unchecked = [(stage, stage_states.get(stage, "")) for stage in CHECK_STAGES if stage_states.get(stage) != "DONE"]
    return Hold(
        claim_sentences=tuple(claim_sentences),
        unchecked=tuple((stage_labels.get(s, s), state_labels.get(state, state)) for s, state in unchecked),
    )


# --- retries and the sweep (pure: times in, decisions out) ----------------------------------------
def transient_backoff_s(retries: int, *, cap_s: float) -> float:
    """Database or broker error: 1, 2, 4, 8 ... seconds, capped (kept below the visibility timeout)."""
    return float(min(cap_s, 2**retries))


def lease_wait_s(*, remaining_s: float, waited_s: float, max_wait_s: float, poll_s: float) -> float | None:
    """How long a run that found its ticket leased waits before trying again. A live holder releases early,
    so it looks again every `poll_s` at most, and never later than the lease's own end (plus a second).
    It gives up (None) on time waited in total, never on a count of attempts, so a dead worker's lease
    (up to CS_AI_LEASE_S) always runs out long before."""
    if waited_s >= max_wait_s:
        return None
    return min(max(remaining_s, 0.0) + 1.0, poll_s)


def failed_retry_due_s(attempts: int, *, base_s: float, cap_s: float) -> float:
    """After a run that left a FAILED stage: wait base·2^(runs-1) seconds, capped, before the next one."""
    return float(min(cap_s, base_s * 2 ** max(attempts - 1, 0)))


SWEEP_MISSING = "missing"  # no draft, or an unfinished one nobody is working on
SWEEP_FAILED = "failed"  # a FAILED stage whose automatic retry is due


def sweep_decision(
    *,
    age_s: float,
    has_draft: bool,
    closed: bool,
    unfinished: bool,
    has_failure: bool,
    attempts: int,
    since_attempt_s: float | None,
    lease_held: bool,
    request_pending: bool,
    grace_s: float,
    failed_limit: int,
    failed_base_s: float,
    failed_cap_s: float,
) -> str | None:
    """Whether the sweep re-requests the draft for a ticket's latest input, and why.

    `age_s`: seconds since the input or since it was last requested, whichever is later. A live lease means
    someone is working (or a dead worker's lease has not run out yet); a PENDING request is the outbox's to
    hand over. A failed stage is retried with backoff, and an unfinished draft after the grace period, until
    the draft has run `failed_limit` times; then it is left for people."""
    if lease_held or request_pending or closed:
        return None
    if has_draft and has_failure:
        if attempts >= failed_limit:
            return None
        wait = failed_retry_due_s(attempts, base_s=failed_base_s, cap_s=failed_cap_s)
        return SWEEP_FAILED if since_attempt_s is None or since_attempt_s >= wait else None
    if has_draft and unfinished and attempts >= failed_limit:
        return None  # it never finishes (e.g. always hits the time limit): its dead letters are for people
    if (not has_draft or unfinished) and age_s >= grace_s:
        return SWEEP_MISSING
    return None
