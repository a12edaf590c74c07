"""UsernameField: a user foreign key in an ops serializer, as the user's login name or null."""

from types import SimpleNamespace

from rest_framework import serializers

from common.apis import UsernameField


class Decision(serializers.Serializer):
    decided_by = UsernameField("decided_by", help_text="결정한 상담원")


def test_username_field_shows_the_login_name_or_null():
    someone = SimpleNamespace(get_username=lambda: "상담원1")

    assert Decision(SimpleNamespace(decided_by=someone)).data == {"decided_by": "상담원1"}
    assert Decision(SimpleNamespace(decided_by=None)).data == {"decided_by": None}
    assert Decision().fields["decided_by"].help_text == "결정한 상담원"
