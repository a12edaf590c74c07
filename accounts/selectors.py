from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.db import connections

from accounts import policy
from accounts.models import AuthToken

TOKEN_DB = "default"


def token_get(*, key: str) -> AuthToken | None:
    """The token for a presented key, with its user, in one query.

    Every authenticated request runs this, so its SQL is compiled once per process and only the digest changes:
    the ORM compiling the same join on every request was most of what a request to the constant endpoint cost.
    The row is still read from the database every time, so a revoked token or a changed password is seen at
    once."""
    connection = connections[TOKEN_DB]
    sql, converters, token_fields, user_fields = _token_query(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [policy.token_digest(key)])
        row = cursor.fetchone()
    if row is None:
        return None
    row = list(row)
    for position, (functions, expression) in converters.items():  # what the ORM does to each value it reads
        for function in functions:
            row[position] = function(row[position], expression, connection)
    n = len(token_fields)
    token = AuthToken.from_db(TOKEN_DB, token_fields, row[:n])
    token.user = get_user_model().from_db(TOKEN_DB, user_fields, row[n:])
    return token


@functools.lru_cache(maxsize=4)
def _token_query(vendor: str) -> tuple[str, dict, list[str], list[str]]:
    """(SQL with one parameter, the column converters, the token's field names, the user's) as the ORM writes
    the lookup. `vendor` is the key: the SQL is the database's dialect."""
    queryset = AuthToken.objects.using(TOKEN_DB).select_related("user").filter(digest="").order_by()
    compiler = queryset.query.get_compiler(TOKEN_DB)
    sql, params = compiler.as_sql()
    if list(params) != [""]:
        raise AssertionError(f"token lookup expected one parameter, got {params!r}")
    converters = compiler.get_converters([column for column, _sql, _alias in compiler.select])
    token_fields = [f.attname for f in AuthToken._meta.concrete_fields]
    user_fields = [f.attname for f in get_user_model()._meta.concrete_fields]
    if len(compiler.select) != len(token_fields) + len(user_fields):
        raise AssertionError("token lookup columns are not the token's then the user's fields")
    return sql, converters, token_fields, user_fields
