import pytest

from drafts.policy import edit_distance, edit_ratio, normalise_reply


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("", "", 0),
        ("", "환불", 2),
        ("환불", "", 2),
        ("환불", "환불", 0),
        ("환불 요청", "환불 신청", 1),
        ("kitten", "sitting", 3),
        ("배송이 늦어요", "배송 늦어요", 1),
        ("abc", "cba", 2),
        ("교환 접수했습니다", "교환을 접수했습니다", 1),
    ],
)
def test_edit_distance_counts_characters(a, b, distance):
    assert edit_distance(a, b) == distance
    assert edit_distance(b, a) == distance


@pytest.mark.parametrize(
    ("original", "final", "ratio"),
    [
        ("", "", 0.0),
        ("안녕하세요", "안녕하세요", 0.0),
        ("안녕하세요", "", 1.0),
        ("abcd", "abce", 0.25),
        ("환불", "배송", 1.0),
        ("환불 요청", "환불 신청", 0.2),
        ("kitten", "sitting", round(3 / 7, 4)),
    ],
)
def test_edit_ratio_is_distance_over_the_longer_text(original, final, ratio):
    assert edit_ratio(original, final) == ratio


def test_line_endings_and_outer_whitespace_do_not_count_as_edits():
    assert normalise_reply("  안녕하세요\r\n감사합니다 \n") == "안녕하세요\n감사합니다"
