"""The match's change log, for the live stream.

``match_change`` holds each change of a match (a round entered, corrected or
removed; settings or names changed; the match ended; a token re-issued) under the
match version it made, with what a client needs to redraw. A stream that was
dropped resumes from it; the newest changes of each match are kept (older ones are
pruned as new ones come, so a client far behind gets a snapshot instead). Written
in the same transaction as the change.

``stream_ticket`` holds short-lived, read-only tickets that let a browser's
``EventSource`` (which cannot send an Authorization header) open a match's stream.

Downgrade drops both: they are derived, and live only minutes to days.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "match_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["match.id"],
            name=op.f("fk_match_change_match_id_match"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_match_change")),
        sa.UniqueConstraint("match_id", "version", name=op.f("uq_match_change_match_id_version")),
    )
    op.create_table(
        "stream_ticket",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("credential_id", sa.String(length=24), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["match.id"],
            name=op.f("fk_stream_ticket_match_id_match"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stream_ticket")),
    )
    with op.batch_alter_table("stream_ticket", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_stream_ticket_expires_at"), ["expires_at"], unique=False
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("stream_ticket", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stream_ticket_expires_at"))
    op.drop_table("stream_ticket")
    op.drop_table("match_change")
