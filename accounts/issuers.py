"""Tokens issued on someone else's word: a shop's signed session is a token of the desk, but it stays good
only while that shop's connection is. The app that issues such tokens stamps them with an issuer
(`token_issue(issuer="integration:<id>")`) and registers, here, the check that says whether the issuer still
stands behind them, with the code and Korean message a refused client gets; authentication asks it on every
use of such a token. A password login has no issuer and is not asked.

This module is the seam: accounts (a ground app) never imports the app that registers here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Issuer:
    check: Callable[[str], bool]  # check(reference) -> True while its tokens are to be accepted
    code: str  # the API error code when they are not
    message: str  # what the client shows then (Korean)


@dataclass(frozen=True)
class IssuerRefusal:
    code: str
    message: str


# An issuer nobody vouches for (its app is not installed): such a token was never a password login.
UNKNOWN = IssuerRefusal("issuer_unknown", "이 로그인은 더 이상 사용할 수 없습니다. 다시 로그인해 주세요.")

_issuers: dict[str, Issuer] = {}


def token_issuer_register(kind: str, *, check: Callable[[str], bool], code: str, message: str) -> None:
    _issuers[kind] = Issuer(check, code, message)


def token_issuer_refusal(issuer: str) -> IssuerRefusal | None:
    """Why a token issued by `issuer` ("<kind>:<reference>", or "" for a password login) may not be used now,
    or None when it may."""
    if not issuer:
        return None
    kind, _, reference = issuer.partition(":")
    registered = _issuers.get(kind)
    if registered is None:
        return UNKNOWN
    return None if registered.check(reference) else IssuerRefusal(registered.code, registered.message)
