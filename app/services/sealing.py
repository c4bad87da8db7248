"""Sealing with a secret the service does not keep (AES-GCM, under a key derived from the
secret with HKDF-SHA256): what only the holder of a key or token can open again. Used for
idempotent answers (the Idempotency-Key) and the host's recovery code (the host token)."""

from __future__ import annotations

import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

NONCE_BYTES = 12  # AES-GCM's nonce, random for each thing sealed


def _cipher(secret: str, info: bytes) -> AESGCM:
    derive = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info)
    return AESGCM(derive.derive(secret.encode()))


def seal(secret: str, *, info: bytes, data: bytes, bound_to: bytes) -> bytes:
    """``data`` encrypted with a key only ``secret`` gives (``info``: what the key is for),
    opening only with the same ``bound_to`` (the row it is kept in)."""
    nonce = os.urandom(NONCE_BYTES)
    return nonce + _cipher(secret, info).encrypt(nonce, data, bound_to)


def open_sealed(secret: str, *, info: bytes, sealed: bytes, bound_to: bytes) -> bytes:
    """What ``seal`` sealed with the same secret, info and binding; InvalidTag otherwise."""
    nonce, data = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
    return _cipher(secret, info).decrypt(nonce, data, bound_to)
