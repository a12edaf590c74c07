"""The admin pieces every app's admin uses: a bulk action run row by row (apply_each) and a code column's filter
made per column (CodeLabelFilter.on)."""

from django.contrib import admin, messages

from common.admin import CodeLabelFilter, apply_each
from common.errors import InvalidState


class Desk:
    """Stands in for a ModelAdmin: keeps what the action told the operator, in order."""

    def __init__(self):
        self.told: list[tuple[str, int]] = []

    def message_user(self, request, message, level):
        self.told.append((message, level))


def close(row: dict) -> bool:
    if row["refused"]:
        raise InvalidState("이미 처리된 요청입니다.")
    return row["changes"]


def test_apply_each_counts_the_rows_it_changed_and_names_each_refused_row():
    desk = Desk()
    rows = [
        {"name": "T1", "refused": False, "changes": True},
        {"name": "T2", "refused": True, "changes": True},
        {"name": "T3", "refused": False, "changes": False},  # nothing to change: not counted
        {"name": "T4", "refused": False, "changes": True},
    ]

    apply_each(desk, None, rows, close, name=lambda row: row["name"], done=lambda n: f"{n}건을 종료했습니다.")

    assert desk.told == [
        ("2건을 종료했습니다.", messages.SUCCESS),
        ("T2: 이미 처리된 요청입니다.", messages.ERROR),
    ]


def test_apply_each_says_nothing_went_through_only_by_the_errors():
    desk = Desk()
    rows = [{"name": "T1", "refused": True, "changes": True}]

    apply_each(desk, None, rows, close, name=lambda row: row["name"], done=lambda n: f"{n}건")

    assert desk.told == [("T1: 이미 처리된 요청입니다.", messages.ERROR)]


def test_a_code_label_filter_is_made_for_one_column():
    made = CodeLabelFilter.on("purpose", "용도", {"chat": "상담"}, "기타 용도")

    assert issubclass(made, CodeLabelFilter) and issubclass(made, admin.SimpleListFilter)
    assert (made.title, made.parameter_name, made.labels, made.unknown) == (
        "용도",
        "purpose",
        {"chat": "상담"},
        "기타 용도",
    )
    assert CodeLabelFilter.parameter_name is None  # the base is left as it was
