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
