"""The host's recovery code, kept sealed with the host key: ``credential.recovery_sealed``.

A host credential holds its match's current recovery code, encrypted with a key only
its own token gives, so the host can see the code again. Credentials kept from before
have none (NULL): their codes were stored only as hashes, and stay so until the next
recovery or re-issue of the host's token. The downgrade drops the column; every other
column and row is kept both ways.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("credential") as batch:
        batch.add_column(sa.Column("recovery_sealed", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("credential") as batch:
        batch.drop_column("recovery_sealed")
