from datetime import datetime

import pytest

from common.clock import SEOUL
from retention import policy

NOW = datetime(2030, 3, 1, 12, 0, tzinfo=SEOUL)


@pytest.mark.parametrize(
    ("code", "overrides", "years"),
    [
        ("COMPLAINT", {}, 3),
        ("CONTRACT", {}, 5),
        ("PAYMENT", {}, 5),
        ("ACCESS", {}, 2),
        ("COMPLAINT", {"COMPLAINT": 4}, 4),  # settings may lengthen
        ("COMPLAINT", {"COMPLAINT": 1}, 3),  # never shorten below the law
        ("PAYMENT", {"COMPLAINT": 9}, 5),  # an override touches its own rule only
    ],
)
def test_period_is_the_laws_or_a_longer_setting(code, overrides, years):
    assert policy.years_for(code, overrides) == years


def test_every_action_kind_is_a_five_year_withdrawal_payment_or_supply_record():
    for kind in ("REFUND", "CANCEL", "EXCHANGE", "ADDRESS_CHANGE"):
        assert policy.years_for(policy.action_rule(kind)) == 5


def test_model_calls_follow_the_shortest_period_of_what_they_serve():
    assert policy.model_call_rule() == "COMPLAINT"
    # Lengthening complaints past payments makes payments the shortest applicable period.
    assert policy.model_call_rule({"COMPLAINT": 7}) == "PAYMENT"


def test_cutoff_counts_calendar_years_back_and_keep_until_forward():
    assert policy.cutoff(NOW, "COMPLAINT") == datetime(2027, 3, 1, 12, 0, tzinfo=SEOUL)
    assert policy.keep_until(datetime(2028, 2, 29, tzinfo=SEOUL), "COMPLAINT") == datetime(2031, 2, 28, tzinfo=SEOUL)


def test_every_record_kind_names_a_known_rule():
    assert set(policy.RECORD_RULES.values()) <= set(policy.RULES)
