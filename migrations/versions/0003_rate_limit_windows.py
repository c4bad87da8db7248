"""Rate limit windows.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "rate_limit_window",
        sa.Column("client", sa.String(length=64), nullable=False),
        sa.Column("window", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("client", "window", name=op.f("pk_rate_limit_window")),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("rate_limit_window")
