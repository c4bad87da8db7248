"""Idempotency keys and round history.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "idempotency_key",
        sa.Column("scope", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("body", sa.JSON(), nullable=True),
        sa.Column("headers", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key", name=op.f("pk_idempotency_key")),
    )
    with op.batch_alter_table("idempotency_key", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_idempotency_key_created_at"), ["created_at"], unique=False
        )

    op.create_table(
        "round_revision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=True),
        sa.Column("input", sa.JSON(), nullable=True),
        sa.Column("by", sa.String(length=16), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["match.id"],
            name=op.f("fk_round_revision_match_id_match"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_round_revision")),
    )
    with op.batch_alter_table("round_revision", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_round_revision_match_id"), ["match_id", "number"], unique=False
        )

    # Rounds entered before history existed start theirs with their current input.
    op.execute(
        "INSERT INTO round_revision (match_id, number, action, type, input, by, recorded_at) "
        "SELECT match_id, number, 'entered', type, input, entered_by, updated_at FROM round"
    )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("round_revision", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_round_revision_match_id"))

    op.drop_table("round_revision")
    with op.batch_alter_table("idempotency_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_key_created_at"))

    op.drop_table("idempotency_key")
