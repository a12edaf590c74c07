"""The signing secret at rest: encrypted, because the desk must sign with it (a hash cannot sign).

No third-party cipher is installed here, so this is encrypt-then-MAC from the standard library: a keystream of
HMAC-SHA256(enc_key, nonce || counter) XORed with the secret, then HMAC-SHA256(mac_key, nonce || ciphertext).
Both keys are derived from SECRET_KEY (django `salted_hmac`), so a database dump alone does not reveal them;
rotating SECRET_KEY needs the secrets re-issued (integration_create --rotate is not built yet).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from django.utils.crypto import salted_hmac

_NONCE = 16


def _keys() -> tuple[bytes, bytes]:
    return (
        salted_hmac("integration.secret.enc", "v1", algorithm="sha256").digest(),
        salted_hmac("integration.secret.mac", "v1", algorithm="sha256").digest(),
    )


def _stream(key: bytes, nonce: bytes, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hmac.new(key, nonce + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
    return out[:length]


def secret_encrypt(plain: str) -> str:
    enc, mac = _keys()
    nonce = secrets.token_bytes(_NONCE)
    data = plain.encode()
    cipher = bytes(a ^ b for a, b in zip(data, _stream(enc, nonce, len(data)), strict=True))
    tag = hmac.new(mac, nonce + cipher, hashlib.sha256).digest()
    return "v1:" + base64.urlsafe_b64encode(nonce + tag + cipher).decode()


def secret_decrypt(token: str) -> str:
    if not token.startswith("v1:"):
        raise ValueError("unknown secret format")
    raw = base64.urlsafe_b64decode(token[3:])
    nonce, tag, cipher = raw[:_NONCE], raw[_NONCE : _NONCE + 32], raw[_NONCE + 32 :]
    enc, mac = _keys()
    if not hmac.compare_digest(tag, hmac.new(mac, nonce + cipher, hashlib.sha256).digest()):
        raise ValueError("secret does not authenticate (SECRET_KEY changed?)")
    return bytes(a ^ b for a, b in zip(cipher, _stream(enc, nonce, len(cipher)), strict=True)).decode()
