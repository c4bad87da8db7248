"""The host's recovery code, kept sealed with the host key it was issued with.

Recovery checks a code against its SHA-256 (``match.recovery_hash``). So that the host
can see the code again, the host's credential row also keeps it sealed (AES-GCM) with a
key derived (HKDF-SHA256) from that token's secret, of which the service keeps only a
hash: the table alone opens no code, only a request bearing the host token does.

Showing the code to the host token gives its holder nothing new: the code and the host
token are always replaced together (a re-issue of the host's token, a recovery), and the
token alone can already replace both. A code sealed with a token stops opening with it.
"""

from __future__ import annotations

import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

NONCE_BYTES = 12  # AES-GCM's nonce, random for each code sealed
SEAL_INFO = b"squarescores recovery code v1"  # HKDF's info: what the derived key is for


def _cipher(secret: str) -> AESGCM:
    derive = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=SEAL_INFO)
    return AESGCM(derive.derive(secret.encode()))


def seal(secret: str, credential_id: str, code: str) -> bytes:
    """``code``, encrypted with a key only the token's ``secret`` gives; bound to its
    credential, so it opens in no other row."""
    nonce = os.urandom(NONCE_BYTES)
    return nonce + _cipher(secret).encrypt(nonce, code.encode(), credential_id.encode())


def open_sealed(secret: str, credential_id: str, sealed: bytes) -> str:
    """The code ``seal`` sealed with the same secret and credential."""
    nonce, data = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
    return _cipher(secret).decrypt(nonce, data, credential_id.encode()).decode()


def sealed_for(token: str, code: str) -> bytes:
    """``code`` sealed for the host token ``token`` (``<credential id>.<secret>``)."""
    credential_id, secret = token.split(".", 1)
    return seal(secret, credential_id, code)
