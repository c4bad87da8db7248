"""The seat of the player who holds the host's phone: ``match.host_seat``.

Rounds the host's token enters are recorded as ``host``; a match that knows the host's
seat lets its clients name the player instead. Matches kept from before have none
(NULL: the host only keeps score, or has not said). The events kept for a resumed
stream (``match_change.payload``) carry the match as reads answer it, so the upgrade
adds the field (null) to them, and the downgrade takes it away again with the column;
every other column and row is kept both ways.

Written out here, not imported from the app, so this revision does the same
whatever the app's code becomes.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07

"""

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # rows read at a time: memory stays flat however many are kept
FIELD = "host_seat"

CHANGES = sa.table("match_change", sa.column("id", sa.Integer), sa.column("payload", sa.JSON))


def _seated(payload: dict[str, Any]) -> dict[str, Any]:
    """The event with the host's seat (none, for an event written before it)."""
    match = payload.get("match")
    if isinstance(match, dict):
        match.setdefault(FIELD, None)
    return payload


def _unseated(payload: dict[str, Any]) -> dict[str, Any]:
    """The event as revision 0012 kept it: no host's seat in its match."""
    match = payload.get("match")
    if isinstance(match, dict):
        match.pop(FIELD, None)
    return payload


def _rewrite(change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.select(CHANGES.c.id, CHANGES.c.payload)
            .where(CHANGES.c.id > last)
            .order_by(CHANGES.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        for id_, payload in rows:
            connection.execute(
                CHANGES.update().where(CHANGES.c.id == id_).values(payload=change(payload))
            )
        last = rows[-1].id


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("host_seat", sa.Integer(), nullable=True))
    _rewrite(_seated)


def downgrade() -> None:
    """Downgrade schema."""
    _rewrite(_unseated)
    with op.batch_alter_table("match") as batch:
        batch.drop_column("host_seat")
