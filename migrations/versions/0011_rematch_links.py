"""A match's rematch and its predecessor: ``match.rematch_id`` and ``match.rematch_of``.

An ended match links to the match started as its rematch, and the rematch back to it;
``rematch_of`` is unique, so a match has at most one rematch. Matches kept from before
have neither (NULL). The events kept for a resumed stream (``match_change.payload``)
carry the match as reads answer it, so the upgrade adds the two fields (null) to them,
and the downgrade takes them away again with the columns; every other column and row
is kept both ways.

Written out here, not imported from the app, so this revision does the same
whatever the app's code becomes.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04

"""

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # rows read at a time: memory stays flat however many are kept
FIELDS = ("rematch_id", "rematch_of")

CHANGES = sa.table("match_change", sa.column("id", sa.Integer), sa.column("payload", sa.JSON))


def _linked(payload: dict[str, Any]) -> dict[str, Any]:
    """The event with the match's links (none, for an event written before them)."""
    match = payload.get("match")
    if isinstance(match, dict):
        for name in FIELDS:
            match.setdefault(name, None)
    return payload


def _unlinked(payload: dict[str, Any]) -> dict[str, Any]:
    """The event as revision 0010 kept it: no links in its match."""
    match = payload.get("match")
    if isinstance(match, dict):
        for name in FIELDS:
            match.pop(name, None)
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
        batch.add_column(sa.Column("rematch_id", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("rematch_of", sa.String(length=32), nullable=True))
        batch.create_unique_constraint("uq_match_rematch_of", ["rematch_of"])
    _rewrite(_linked)


def downgrade() -> None:
    """Downgrade schema."""
    _rewrite(_unlinked)
    with op.batch_alter_table("match") as batch:
        batch.drop_constraint("uq_match_rematch_of", type_="unique")
        batch.drop_column("rematch_of")
        batch.drop_column("rematch_id")
