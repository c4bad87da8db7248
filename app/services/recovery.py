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

from app.services import sealing

SEAL_INFO = b"squarescores recovery code v1"  # HKDF's info: what the derived key is for


def seal(secret: str, credential_id: str, code: str) -> bytes:
    """``code``, encrypted with a key only the token's ``secret`` gives; bound to its
    credential, so it opens in no other row."""
    return sealing.seal(secret, info=SEAL_INFO, data=code.encode(), bound_to=credential_id.encode())


def open_sealed(secret: str, credential_id: str, sealed: bytes) -> str:
    """The code ``seal`` sealed with the same secret and credential."""
    opened = sealing.open_sealed(
        secret, info=SEAL_INFO, sealed=sealed, bound_to=credential_id.encode()
    )
    return opened.decode()


def sealed_for(token: str, code: str) -> bytes:
    """``code`` sealed for the host token ``token`` (``<credential id>.<secret>``)."""
    credential_id, secret = token.split(".", 1)
    return seal(secret, credential_id, code)
