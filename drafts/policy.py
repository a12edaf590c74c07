"""Pure rules for the operator's decision on a draft."""

from __future__ import annotations


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance in characters (insert, delete, substitute each cost 1)."""
    # The shared prefix and suffix cost nothing; trimming them keeps typical edits fast.
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def edit_ratio(original: str, final: str) -> float:
    """Normalised character edit distance: 0.0 = sent as drafted, 1.0 = nothing of the draft kept."""
    longest = max(len(original), len(final))
    if longest == 0:
        return 0.0
    return round(edit_distance(original, final) / longest, 4)


def normalise_reply(text: str) -> str:
    """What counts as the same text: line endings and surrounding whitespace do not."""
    return text.replace("\r\n", "\n").strip()


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
