"""Kept idempotent answers sealed: nothing secret readable at rest.

A create's kept answer holds every token of the match and its recovery code. From
this revision ``idempotency_key.key`` holds the SHA-256 of the Idempotency-Key, never
the key, and the answer (body and headers) is in ``sealed``, encrypted with AES-GCM
under a key derived from the Idempotency-Key (HKDF-SHA256). Upgrade seals every kept
answer in place; a replay after it answers the same.

Downgrade cannot open them again (the keys are gone): it forgets the kept answers. A
retry sent with an old key after a downgrade is made again, as a new write.

The sealing is written out here, not imported from the app, so this revision does
the same whatever the app's code becomes (``app/services/idempotency.py``, v1).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

"""

import hashlib
import json
import os
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IN_FLIGHT = 0
SEAL_INFO = b"squarescores idempotent replay v1"

KEYS = sa.table(
    "idempotency_key",
    sa.column("scope", sa.String),
    sa.column("key", sa.String),
    sa.column("fingerprint", sa.String),
    sa.column("status", sa.Integer),
    sa.column("body", sa.JSON),
    sa.column("headers", sa.JSON),
    sa.column("sealed", sa.LargeBinary),
)


def _seal(key: str, scope: str, fingerprint: str, status: int, outcome: Any) -> bytes:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=SEAL_INFO)
    nonce = os.urandom(12)
    plain = json.dumps(outcome, separators=(",", ":"), ensure_ascii=False).encode()
    bound = f"{scope}\n{fingerprint}\n{status}".encode()
    return nonce + AESGCM(derived.derive(key.encode())).encrypt(nonce, plain, bound)


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("idempotency_key") as batch:
        batch.add_column(sa.Column("sealed", sa.LargeBinary(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(
            KEYS.c.scope, KEYS.c.key, KEYS.c.fingerprint, KEYS.c.status, KEYS.c.body, KEYS.c.headers
        )
    ).all()
    for scope, key, fingerprint, status, body, headers in rows:
        sealed = None
        if status != IN_FLIGHT:
            outcome = {"body": body, "headers": headers or {}}
            sealed = _seal(key, scope, fingerprint, status, outcome)
        connection.execute(
            KEYS.update()
            .where(KEYS.c.scope == scope, KEYS.c.key == key)
            .values(key=hashlib.sha256(key.encode()).hexdigest(), sealed=sealed)
        )
    with op.batch_alter_table("idempotency_key") as batch:
        batch.drop_column("body")
        batch.drop_column("headers")


def downgrade() -> None:
    """Downgrade schema."""
    op.execute(KEYS.delete())
    with op.batch_alter_table("idempotency_key") as batch:
        batch.add_column(sa.Column("body", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("headers", sa.JSON(), nullable=True))
        batch.drop_column("sealed")
