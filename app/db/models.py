"""Tables. Rounds store their input; the match row holds the fold's state (the sheet
after its last round), never a rendered response."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s_%(column_1_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always timezone-aware UTC, SQLite included."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def _json(nullable: bool = False) -> Any:
    return Field(sa_column=Column(JSON, nullable=nullable))


def _utc(nullable: bool = False) -> Any:
    return Field(sa_column=Column(UTCDateTime(), nullable=nullable))


class Match(SQLModel, table=True):
    """A match: its table, settings, status and the sheet as it stands."""

    __tablename__ = "match"
    __table_args__ = (UniqueConstraint("rematch_of", name="uq_match_rematch_of"),)

    id: str = Field(sa_column=Column(String(32), primary_key=True))
    game: str = Field(max_length=32)
    status: str = Field(max_length=16)
    players: list[str] = _json()
    team_names: list[str] | None = _json(nullable=True)
    settings: dict[str, Any] = _json()
    version: int
    round_count: int
    sheet: dict[str, Any] = _json()
    winner: dict[str, Any] | None = _json(nullable=True)
    created_at: datetime = _utc()
    updated_at: datetime = _utc()
    ended_at: datetime | None = _utc(nullable=True)
    ended_by: str | None = Field(default=None, max_length=16)
    recovery_hash: str | None = Field(
        default=None,
        max_length=64,
        description="SHA-256 of the host's recovery code, shown once at creation",
    )
    # A match has at most one rematch: the unique rematch_of says so in the database.
    rematch_id: str | None = Field(default=None, max_length=32)
    rematch_of: str | None = Field(default=None, max_length=32)
    # The seat of the player who holds the host's phone; NULL: the host only keeps
    # score (or has not said). Rounds the host enters are theirs.
    host_seat: int | None = None


class Round(SQLModel, table=True):
    """One round: what the table entered, what it scored, and its sheet row.

    ``points`` is what the game's fold adds to the sheet (nets in Asszorti, the
    deal's points per team in Alkort); a correction refolds later rounds from it.
    ``sheet`` is the fold's state after this round, kept every so many rounds (and
    NULL otherwise), so a page of a long match folds from the nearest one before it
    instead of from round 1 (``app.services.rounds.CHECKPOINT_EVERY``).
    """

    __tablename__ = "round"
    __table_args__ = (UniqueConstraint("match_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(
        sa_column=Column(String(32), ForeignKey("match.id", ondelete="CASCADE"), nullable=False)
    )
    number: int
    type: str = Field(max_length=32)
    input: dict[str, Any] = _json()
    dealer: int
    points: list[int] = _json()
    result: dict[str, Any] = _json()
    # None is SQL NULL (not JSON null): a round without a kept state.
    sheet: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON(none_as_null=True), nullable=True)
    )
    entered_by: str = Field(max_length=16)
    created_at: datetime = _utc()
    updated_at: datetime = _utc()


class Credential(SQLModel, table=True):
    """A bearer token's public id and the hash of its secret, with the role it grants."""

    __tablename__ = "credential"
    __table_args__ = (Index(None, "match_id"),)

    id: str = Field(sa_column=Column(String(24), primary_key=True))
    match_id: str = Field(
        sa_column=Column(String(32), ForeignKey("match.id", ondelete="CASCADE"), nullable=False)
    )
    role: str = Field(max_length=8)
    seat: int | None = None
    secret_hash: str = Field(max_length=64)
    # A host credential's recovery code, sealed with its own token's secret
    # (app/services/recovery.py): the table alone opens none.
    recovery_sealed: bytes | None = Field(
        default=None, sa_column=Column(LargeBinary, nullable=True)
    )


MATCH: Table = Match.__table__  # type: ignore[attr-defined]
ROUND: Table = Round.__table__  # type: ignore[attr-defined]
CREDENTIAL: Table = Credential.__table__  # type: ignore[attr-defined]


class IdempotencyKey(SQLModel, table=True):
    """The first response to a POST sent with an Idempotency-Key, for replays.

    ``scope`` is the match id (empty for match creation); ``key`` the SHA-256 of the
    Idempotency-Key, never the key. The row is inserted in the same transaction as
    the write it guards, so a key and its effect commit or vanish together.
    ``sealed`` is the response (body and headers), encrypted with a key derived from
    the Idempotency-Key (``app.services.idempotency``); NULL while the write runs.
    """

    __tablename__ = "idempotency_key"
    __table_args__ = (Index(None, "created_at"),)

    scope: str = Field(sa_column=Column(String(32), primary_key=True))
    key: str = Field(sa_column=Column(String(255), primary_key=True))
    fingerprint: str = Field(max_length=64)
    status: int
    sealed: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    created_at: datetime = _utc()


class RoundRevision(SQLModel, table=True):
    """Every input a round number has held: entered, corrected, removed. Never updated."""

    __tablename__ = "round_revision"
    __table_args__ = (Index(None, "match_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(
        sa_column=Column(String(32), ForeignKey("match.id", ondelete="CASCADE"), nullable=False)
    )
    number: int
    action: str = Field(max_length=16)
    type: str | None = Field(default=None, max_length=32)
    input: dict[str, Any] | None = _json(nullable=True)
    by: str = Field(max_length=16)
    recorded_at: datetime = _utc()


IDEMPOTENCY_KEY: Table = IdempotencyKey.__table__  # type: ignore[attr-defined]
ROUND_REVISION: Table = RoundRevision.__table__  # type: ignore[attr-defined]


class RateLimitWindow(SQLModel, table=True):
    """How many limited requests one client made in one fixed window.

    Kept in the database so the limit holds across workers and machines.
    """

    __tablename__ = "rate_limit_window"

    client: str = Field(sa_column=Column(String(64), primary_key=True))
    window: int = Field(sa_column=Column(Integer, primary_key=True, autoincrement=False))
    count: int


RATE_LIMIT_WINDOW: Table = RateLimitWindow.__table__  # type: ignore[attr-defined]


class HistoryEntry(SQLModel, table=True):
    """One entry of a match's history: a token re-issued, the host token recovered or a
    player renamed, in order. Never updated. (The table keeps its first name,
    ``match_event``; the API serves its rows as `MatchEventRead`.)"""

    __tablename__ = "match_event"
    __table_args__ = (Index(None, "match_id"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(
        sa_column=Column(String(32), ForeignKey("match.id", ondelete="CASCADE"), nullable=False)
    )
    action: str = Field(max_length=32)
    detail: dict[str, Any] | None = _json(nullable=True)
    by: str = Field(max_length=16)
    recorded_at: datetime = _utc()


HISTORY: Table = HistoryEntry.__table__  # type: ignore[attr-defined]


class MatchChange(SQLModel, table=True):
    """One change of a match under the version it made, with the event a live stream
    sends for it (``payload``). The newest of each match are kept."""

    __tablename__ = "match_change"
    __table_args__ = (UniqueConstraint("match_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(
        sa_column=Column(String(32), ForeignKey("match.id", ondelete="CASCADE"), nullable=False)
    )
    version: int
    kind: str = Field(max_length=32)
    payload: dict[str, Any] = _json()
    created_at: datetime = _utc()


class StreamTicket(SQLModel, table=True):
    """A short-lived, read-only ticket to open one match's stream, bound to the
    credential that asked for it (it stops working with that credential)."""

    __tablename__ = "stream_ticket"
    __table_args__ = (Index(None, "expires_at"),)

    id: str = Field(sa_column=Column(String(64), primary_key=True))
    match_id: str = Field(
        sa_column=Column(String(32), ForeignKey("match.id", ondelete="CASCADE"), nullable=False)
    )
    credential_id: str = Field(max_length=24)
    expires_at: datetime = _utc()


MATCH_CHANGE: Table = MatchChange.__table__  # type: ignore[attr-defined]
STREAM_TICKET: Table = StreamTicket.__table__  # type: ignore[attr-defined]
