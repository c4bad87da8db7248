"""The fold's state kept with every so many rounds.

``round.sheet`` holds the sheet's state after the round for every hundredth round
(NULL for the others), so a page of a long match, one of its rounds or an undo folds
from the nearest kept state instead of from round 1. Rounds entered before this
revision keep none: their pages fold from the start, as before, and answer the same.

Downgrade drops the column: it is derived from the rounds' points.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("round") as batch:
        batch.add_column(sa.Column("sheet", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("round") as batch:
        batch.drop_column("sheet")
