"""Kept live events carry the game tags: ``settings.game`` and ``breakdown.game``.

From this revision a match's ``settings`` and a round's ``result.breakdown`` say
which game they are of (``game``), so a client picks the union member by it. Reads
add the tag as they answer; the events kept for a resumed stream
(``match_change.payload``) were written whole before, so the upgrade adds the tag
to them, and the downgrade takes it away again. Nothing else is stored with it.

Written out here, not imported from the app, so this revision does the same
whatever the app's code becomes.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04

"""

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # rows read at a time: memory stays flat however many are kept

CHANGES = sa.table(
    "match_change",
    sa.column("id", sa.Integer),
    sa.column("match_id", sa.String),
    sa.column("payload", sa.JSON),
)
MATCHES = sa.table("match", sa.column("id", sa.String), sa.column("game", sa.String))


def _tagged(payload: dict[str, Any], game: str) -> dict[str, Any]:
    """The event with ``game`` in its match's settings and its round's breakdown."""
    match, round_ = payload.get("match"), payload.get("round")
    if isinstance(match, dict) and isinstance(match.get("settings"), dict):
        match["settings"] = {"game": game, **match["settings"]}
    if isinstance(round_, dict) and isinstance(round_.get("result"), dict):
        result = round_["result"]
        if isinstance(result.get("breakdown"), dict):
            result["breakdown"] = {"game": game, **result["breakdown"]}
    return payload


def _untagged(payload: dict[str, Any], game: str) -> dict[str, Any]:
    """The event as revision 0009 kept it: no ``game`` in settings or breakdown."""
    match, round_ = payload.get("match"), payload.get("round")
    if isinstance(match, dict) and isinstance(match.get("settings"), dict):
        match["settings"].pop("game", None)
    if isinstance(round_, dict) and isinstance(round_.get("result"), dict):
        breakdown = round_["result"].get("breakdown")
        if isinstance(breakdown, dict):
            breakdown.pop("game", None)
    return payload


def _rewrite(change: Callable[[dict[str, Any], str], dict[str, Any]]) -> None:
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.select(CHANGES.c.id, CHANGES.c.payload, MATCHES.c.game)
            .join(MATCHES, MATCHES.c.id == CHANGES.c.match_id)
            .where(CHANGES.c.id > last)
            .order_by(CHANGES.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        for id_, payload, game in rows:
            connection.execute(
                CHANGES.update().where(CHANGES.c.id == id_).values(payload=change(payload, game))
            )
        last = rows[-1].id


def upgrade() -> None:
    """Upgrade schema."""
    _rewrite(_tagged)


def downgrade() -> None:
    """Downgrade schema."""
    _rewrite(_untagged)
