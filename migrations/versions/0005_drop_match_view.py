"""Drop the rendered match view.

Revision 0004 added ``match.view``: the match as GET /v1/matches/{id} answers it,
rendered as JSON text at every write so that a read re-rendered nothing. The
rewrite renders the match from the row itself, so the copy is dropped: it was
derived data only (everything it showed is in the match's other columns), and a
second copy of the same facts is one that can disagree with them.

Downgrade adds the column back, nullable and empty. That is correct, not a loss:
the code of revision 0004 renders a match whose ``view`` is NULL on the fly, and
stores the rendering again at the match's next write.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_column("view")


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("view", sa.Text(), nullable=True))
