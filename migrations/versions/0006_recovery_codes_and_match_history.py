"""Recovery codes and the match's history.

``match.recovery_hash`` is the SHA-256 of the host's recovery code, shown once when
the match is created; with it the host re-issues a lost host token. Matches created
before this revision have none (NULL): their host cannot recover a lost token this
way, as before. ``match_event`` records what happens to a match besides its rounds
(a token re-issued, the host token recovered), never updated.

Downgrade drops both; the credentials (the tokens in use) are kept as they are.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("recovery_hash", sa.String(length=64), nullable=True))
    op.create_table(
        "match_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.Column("by", sa.String(length=16), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["match.id"],
            name=op.f("fk_match_event_match_id_match"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_event")),
    )
    with op.batch_alter_table("match_event", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_event_match_id"), ["match_id"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("match_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_event_match_id"))
    op.drop_table("match_event")
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_column("recovery_hash")
