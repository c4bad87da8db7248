"""Matches, rounds and credentials.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "match",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("team_names", sa.JSON(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("round_count", sa.Integer(), nullable=False),
        sa.Column("sheet", sa.JSON(), nullable=False),
        sa.Column("winner", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_by", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match")),
    )
    op.create_table(
        "credential",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["match.id"],
            name=op.f("fk_credential_match_id_match"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_credential")),
    )
    with op.batch_alter_table("credential", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_credential_match_id"), ["match_id"], unique=False)

    op.create_table(
        "round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("input", sa.JSON(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("points", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("entered_by", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["match.id"], name=op.f("fk_round_match_id_match"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_round")),
        sa.UniqueConstraint("match_id", "number", name=op.f("uq_round_match_id_number")),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("round")
    with op.batch_alter_table("credential", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_credential_match_id"))

    op.drop_table("credential")
    op.drop_table("match")
