"""Every query the service runs, in SQLAlchemy Core. Functions take the unit of work's
connection and never commit.

Statements are built once, at import, with bound parameters (PostgreSQL's statement
of a change, ``save_change_notifying``, once for each set of columns it writes):
SQLAlchemy compiles each once per process (its compiled cache) and the column types
convert values (JSON, aware UTC timestamps) the same way on SQLite and PostgreSQL.
"""

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    CTE,
    Connection,
    Executable,
    RowMapping,
    Select,
    Table,
    Text,
    bindparam,
    cast,
    delete,
    func,
    insert,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app import metrics
from app.db.models import (
    CREDENTIAL,
    HISTORY,
    IDEMPOTENCY_KEY,
    MATCH,
    MATCH_CHANGE,
    RATE_LIMIT_WINDOW,
    ROUND,
    ROUND_REVISION,
    STREAM_TICKET,
)

_INSERT_MATCH = insert(MATCH)
_INSERT_CREDENTIAL = insert(CREDENTIAL)
_INSERT_HISTORY_ENTRY = insert(HISTORY)
_INSERT_ROUND = insert(ROUND)
_INSERT_ROUND_REVISION = insert(ROUND_REVISION)
_INSERT_MATCH_CHANGE = insert(MATCH_CHANGE)
_INSERT_STREAM_TICKET = insert(STREAM_TICKET)
_GET_MATCH = select(MATCH).where(MATCH.c.id == bindparam("id"))
_LOCK_MATCH = _GET_MATCH.with_for_update()  # SQLite ignores it: a writer holds the database lock
_MATCH_EXISTS = select(MATCH.c.id).where(MATCH.c.id == bindparam("id"))
_UPDATE_MATCH = update(MATCH).where(MATCH.c.id == bindparam("match_id"))

_GET_CREDENTIAL = select(CREDENTIAL).where(CREDENTIAL.c.id == bindparam("id"))
# The match with one of its own credentials: what a reader's poll needs, in one statement.
_GET_MATCH_WITH_CREDENTIAL = (
    select(
        MATCH,
        CREDENTIAL.c.role.label("credential_role"),
        CREDENTIAL.c.seat.label("credential_seat"),
        CREDENTIAL.c.secret_hash.label("credential_secret_hash"),
    )
    .join_from(
        MATCH,
        CREDENTIAL,
        (CREDENTIAL.c.match_id == MATCH.c.id) & (CREDENTIAL.c.id == bindparam("credential_id")),
    )
    .where(MATCH.c.id == bindparam("id"))
)
# The match row, and the credential's: a token re-issued while this waited for the
# match's lock is then read as it is after the re-issue (gone), not as before.
_LOCK_MATCH_WITH_CREDENTIAL = _GET_MATCH_WITH_CREDENTIAL.with_for_update(of=[MATCH, CREDENTIAL])
_DELETE_CREDENTIAL = delete(CREDENTIAL).where(CREDENTIAL.c.id == bindparam("id"))
_DELETE_CREDENTIALS_OF = delete(CREDENTIAL).where(
    CREDENTIAL.c.match_id == bindparam("match_id"),
    CREDENTIAL.c.role == bindparam("role"),
    # "IS NOT DISTINCT FROM": a seat, or no seat (host, viewer)
    CREDENTIAL.c.seat.is_not_distinct_from(bindparam("seat")),
)
_HISTORY_PAGE = (
    select(HISTORY)
    .where(HISTORY.c.match_id == bindparam("match_id"))
    .order_by(HISTORY.c.id)
    .offset(bindparam("after"))
    .limit(bindparam("limit"))
)
_HISTORY_COUNT = (
    select(func.count()).select_from(HISTORY).where(HISTORY.c.match_id == bindparam("match_id"))
)

_ROUNDS_OF = ROUND.c.match_id == bindparam("match_id")
_GET_ROUND = select(ROUND).where(_ROUNDS_OF, ROUND.c.number == bindparam("number"))
_PAGE_OF_ROUNDS = (
    select(ROUND)
    .where(_ROUNDS_OF, ROUND.c.number > bindparam("after"))
    .order_by(ROUND.c.number)
    .limit(bindparam("limit"))
)
_POINTS_THROUGH = (
    select(ROUND.c.points)
    .where(_ROUNDS_OF, ROUND.c.number <= bindparam("through"))
    .order_by(ROUND.c.number)
)
_POINTS_BETWEEN = (
    select(ROUND.c.points)
    .where(_ROUNDS_OF, ROUND.c.number > bindparam("after"), ROUND.c.number <= bindparam("through"))
    .order_by(ROUND.c.number)
)
_LAST_KEPT_SHEET = (
    select(ROUND.c.number, ROUND.c.sheet)
    .where(_ROUNDS_OF, ROUND.c.number <= bindparam("through"), ROUND.c.sheet.is_not(None))
    .order_by(ROUND.c.number.desc())
    .limit(1)
)
_FORGET_SHEETS_FROM = (
    update(ROUND)
    .where(
        # (An UPDATE's parameters may not share a column's name.)
        ROUND.c.match_id == bindparam("of_match"),
        ROUND.c.number >= bindparam("first"),
        ROUND.c.sheet.is_not(None),
    )
    .values(sheet=None)
)
_SHEET_ROWS = (
    select(ROUND.c.number, ROUND.c.dealer, ROUND.c.points, ROUND.c.result)
    .where(_ROUNDS_OF)
    .order_by(ROUND.c.number)
)
_UPDATE_ROUND = update(ROUND).where(ROUND.c.id == bindparam("round_id"))
_DELETE_ROUND = delete(ROUND).where(_ROUNDS_OF, ROUND.c.number == bindparam("number"))

_OF_ROUND = (
    ROUND_REVISION.c.match_id == bindparam("match_id"),
    ROUND_REVISION.c.number == bindparam("number"),
)
_REVISIONS = (
    select(ROUND_REVISION)
    .where(*_OF_ROUND)
    .order_by(ROUND_REVISION.c.id)
    .offset(bindparam("after"))
    .limit(bindparam("limit"))
)
_REVISION_COUNT = select(func.count()).select_from(ROUND_REVISION).where(*_OF_ROUND)
# A round with the action of its latest revision, in one statement: what a correction,
# an undo and a round's history need to know whether its input is recorded yet.
_ROUND_WITH_LAST_ACTION = select(
    ROUND,
    select(ROUND_REVISION.c.action)
    .where(
        ROUND_REVISION.c.match_id == ROUND.c.match_id,
        ROUND_REVISION.c.number == ROUND.c.number,
    )
    .order_by(ROUND_REVISION.c.id.desc())
    .limit(1)
    .scalar_subquery()
    .label("last_action"),
).where(_ROUNDS_OF, ROUND.c.number == bindparam("number"))

# (Parameters named after a column would be taken for its new value in an UPDATE.)
_KEY = (
    IDEMPOTENCY_KEY.c.scope == bindparam("key_scope"),
    IDEMPOTENCY_KEY.c.key == bindparam("key_key"),
)
_GET_KEY = select(IDEMPOTENCY_KEY).where(*_KEY)
_UPDATE_KEY = update(IDEMPOTENCY_KEY).where(*_KEY)
# Old rows are pruned by whichever request comes along, so two prunes may run at once:
# each takes the rows the other has not locked (SKIP LOCKED; SQLite has one writer),
# and neither waits for the other, which could deadlock (PostgreSQL answers 503).
_OLD_KEYS = (
    select(IDEMPOTENCY_KEY.c.scope, IDEMPOTENCY_KEY.c.key)
    .where(IDEMPOTENCY_KEY.c.created_at < bindparam("cutoff"))
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True)
)
_PRUNE_KEYS = delete(IDEMPOTENCY_KEY).where(
    tuple_(IDEMPOTENCY_KEY.c.scope, IDEMPOTENCY_KEY.c.key).in_(_OLD_KEYS)
)
_OLD_WINDOWS = (
    select(RATE_LIMIT_WINDOW.c.client, RATE_LIMIT_WINDOW.c.window)
    .where(RATE_LIMIT_WINDOW.c.window < bindparam("window"))
    .with_for_update(skip_locked=True)
)
_PRUNE_WINDOWS = delete(RATE_LIMIT_WINDOW).where(
    tuple_(RATE_LIMIT_WINDOW.c.client, RATE_LIMIT_WINDOW.c.window).in_(_OLD_WINDOWS)
)

# INSERT ... ON CONFLICT, by dialect (both spell it the same, each with its own insert).
_UPSERT_INSERTS: dict[str, Any] = {"sqlite": sqlite_insert, "postgresql": pg_insert}
_CLAIM_KEY = {
    name: dialect_insert(IDEMPOTENCY_KEY).on_conflict_do_nothing().returning(IDEMPOTENCY_KEY.c.key)
    for name, dialect_insert in _UPSERT_INSERTS.items()
}
_COUNT_IN_WINDOW = {
    name: dialect_insert(RATE_LIMIT_WINDOW)
    .on_conflict_do_update(
        index_elements=[RATE_LIMIT_WINDOW.c.client, RATE_LIMIT_WINDOW.c.window],
        set_={"count": RATE_LIMIT_WINDOW.c.count + 1},
    )
    .returning(RATE_LIMIT_WINDOW.c.count)
    for name, dialect_insert in _UPSERT_INSERTS.items()
}


def insert_match(connection: Connection, values: Mapping[str, Any]) -> None:
    connection.execute(_INSERT_MATCH, [dict(values)])


def get_match(
    connection: Connection, match_id: str, *, for_update: bool = False
) -> RowMapping | None:
    """The match row; ``for_update`` locks it until the transaction ends (PostgreSQL)."""
    if for_update:
        return _locking(connection, _LOCK_MATCH, {"id": match_id})
    return connection.execute(_GET_MATCH, {"id": match_id}).mappings().first()


def get_match_with_credential(
    connection: Connection, match_id: str, credential_id: str, *, for_update: bool = False
) -> RowMapping | None:
    """The match row with the credential's ``credential_role``, ``credential_seat`` and
    ``credential_secret_hash``; None unless the credential is one of this match's.
    ``for_update`` locks the match row until the transaction ends (PostgreSQL)."""
    params = {"id": match_id, "credential_id": credential_id}
    if for_update:
        return _locking(connection, _LOCK_MATCH_WITH_CREDENTIAL, params)
    return connection.execute(_GET_MATCH_WITH_CREDENTIAL, params).mappings().first()


def _locking(
    connection: Connection, statement: Executable, params: Mapping[str, Any]
) -> RowMapping | None:
    """The row a locking read returns, its wait counted (PostgreSQL: SQLite ignores FOR
    UPDATE; its writer waited at BEGIN IMMEDIATE, counted there)."""
    started = time.perf_counter()
    try:
        return connection.execute(statement, params).mappings().first()
    finally:  # a wait that ends in an error (a lock timeout) counts too
        if connection.dialect.name == "postgresql":
            metrics.LOCK_WAIT_SECONDS.observe(time.perf_counter() - started)


def match_exists(connection: Connection, match_id: str) -> bool:
    return connection.execute(_MATCH_EXISTS, {"id": match_id}).first() is not None


def update_match(connection: Connection, match_id: str, values: Mapping[str, Any]) -> None:
    connection.execute(_UPDATE_MATCH, {"match_id": match_id, **values})


def insert_credentials(connection: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    connection.execute(_INSERT_CREDENTIAL, [dict(row) for row in rows])


def get_credential(connection: Connection, credential_id: str) -> RowMapping | None:
    return connection.execute(_GET_CREDENTIAL, {"id": credential_id}).mappings().first()


def delete_credential(connection: Connection, credential_id: str) -> None:
    """Revoke one token, by its credential id."""
    connection.execute(_DELETE_CREDENTIAL, {"id": credential_id})


def delete_credentials_of(
    connection: Connection, match_id: str, role: str, seat: int | None
) -> int:
    """Revoke every token of one role (and seat) at a match; how many there were."""
    params = {"match_id": match_id, "role": role, "seat": seat}
    return connection.execute(_DELETE_CREDENTIALS_OF, params).rowcount


def insert_history_entry(connection: Connection, values: Mapping[str, Any]) -> None:
    connection.execute(_INSERT_HISTORY_ENTRY, [dict(values)])


def list_history(
    connection: Connection, match_id: str, *, after: int, limit: int
) -> Sequence[RowMapping]:
    """Up to ``limit`` entries of a match's history, oldest first, after the first
    ``after``."""
    params = {"match_id": match_id, "after": after, "limit": limit}
    return connection.execute(_HISTORY_PAGE, params).mappings().all()


def tokens_replaced(
    connection: Connection, match_id: str, *, actions: Iterable[str], role: str, seat: int | None
) -> bool:
    """Whether the match's history holds one of ``actions`` (a re-issue, a recovery) for
    the tokens of ``role`` at ``seat``: one indexed lookup, however long the history."""
    detail = HISTORY.c.detail
    held = detail["seat"].as_integer()
    query = select(
        select(HISTORY.c.id)
        .where(
            HISTORY.c.match_id == match_id,
            HISTORY.c.action.in_(list(actions)),
            detail["role"].as_string() == role,
            held.is_(None) if seat is None else held == seat,
        )
        .exists()
    )
    return bool(connection.execute(query).scalar_one())


def count_history(connection: Connection, match_id: str) -> int:
    """How many entries a match's history holds."""
    return int(connection.execute(_HISTORY_COUNT, {"match_id": match_id}).scalar_one())


def insert_round(connection: Connection, values: Mapping[str, Any]) -> None:
    connection.execute(_INSERT_ROUND, [dict(values)])


def get_round(connection: Connection, match_id: str, number: int) -> RowMapping | None:
    found = connection.execute(_GET_ROUND, {"match_id": match_id, "number": number})
    return found.mappings().first()


def page_of_rounds(
    connection: Connection, match_id: str, *, after: int, limit: int
) -> Sequence[RowMapping]:
    """Up to ``limit`` rounds numbered after ``after``, in order."""
    params = {"match_id": match_id, "after": after, "limit": limit}
    return connection.execute(_PAGE_OF_ROUNDS, params).mappings().all()


def list_points(connection: Connection, match_id: str, *, through: int) -> list[list[int]]:
    """The points of rounds 1..``through`` in order: all the sheet's fold needs."""
    params = {"match_id": match_id, "through": through}
    return list(connection.execute(_POINTS_THROUGH, params).scalars())


def points_between(
    connection: Connection, match_id: str, *, after: int, through: int
) -> list[list[int]]:
    """The points of rounds ``after`` + 1 .. ``through`` in order."""
    params = {"match_id": match_id, "after": after, "through": through}
    return list(connection.execute(_POINTS_BETWEEN, params).scalars())


def last_kept_sheet(connection: Connection, match_id: str, *, through: int) -> Any:
    """(number, sheet) of the latest round at or before ``through`` that keeps the
    fold's state; None when none does."""
    params = {"match_id": match_id, "through": through}
    return connection.execute(_LAST_KEPT_SHEET, params).first()


def forget_sheets_from(connection: Connection, match_id: str, first: int) -> None:
    """Drop the fold's states kept by round ``first`` and every later one."""
    connection.execute(_FORGET_SHEETS_FROM, {"of_match": match_id, "first": first})


def sheet_rows(connection: Connection, match_id: str) -> Sequence[Any]:
    """(number, dealer, points, result) of every round, in order."""
    return connection.execute(_SHEET_ROWS, {"match_id": match_id}).all()


def update_round(connection: Connection, round_id: int, values: Mapping[str, Any]) -> None:
    connection.execute(_UPDATE_ROUND, {"round_id": round_id, **values})


def delete_round(connection: Connection, match_id: str, number: int) -> None:
    connection.execute(_DELETE_ROUND, {"match_id": match_id, "number": number})


def claim_idempotency_key(connection: Connection, values: Mapping[str, Any]) -> bool:
    """Insert the key if it is new; False when it exists (PostgreSQL waits for a concurrent
    claim of the same key to commit or roll back before answering)."""
    statement = _CLAIM_KEY[connection.dialect.name]
    return connection.execute(statement, dict(values)).first() is not None


def get_idempotency_key(connection: Connection, scope: str, key: str) -> RowMapping | None:
    return connection.execute(_GET_KEY, {"key_scope": scope, "key_key": key}).mappings().first()


def update_idempotency_key(
    connection: Connection, scope: str, key: str, values: Mapping[str, Any]
) -> None:
    connection.execute(_UPDATE_KEY, {"key_scope": scope, "key_key": key, **values})


def delete_idempotency_keys_before(connection: Connection, cutoff: datetime, *, limit: int) -> None:
    """Forget up to ``limit`` keys created before ``cutoff``."""
    connection.execute(_PRUNE_KEYS, {"cutoff": cutoff, "limit": limit})


def insert_revision(connection: Connection, values: Mapping[str, Any]) -> None:
    connection.execute(_INSERT_ROUND_REVISION, [dict(values)])


def list_revisions(
    connection: Connection, match_id: str, number: int, *, after: int, limit: int
) -> Sequence[RowMapping]:
    """Up to ``limit`` recorded inputs of round ``number``, oldest first, after the
    first ``after``."""
    params = {"match_id": match_id, "number": number, "after": after, "limit": limit}
    return connection.execute(_REVISIONS, params).mappings().all()


def count_revisions(connection: Connection, match_id: str, number: int) -> int:
    """How many inputs of round ``number`` are recorded."""
    params = {"match_id": match_id, "number": number}
    return int(connection.execute(_REVISION_COUNT, params).scalar_one())


def get_round_with_last_action(
    connection: Connection, match_id: str, number: int
) -> RowMapping | None:
    """The round, with ``last_action``: the action of its latest revision (None when
    it has none)."""
    params = {"match_id": match_id, "number": number}
    return connection.execute(_ROUND_WITH_LAST_ACTION, params).mappings().first()


def count_in_window(connection: Connection, client: str, window: int) -> int:
    """Add one to the client's count for ``window`` and return the new count."""
    statement = _COUNT_IN_WINDOW[connection.dialect.name]
    params = {"client": client, "window": window, "count": 1}
    return int(connection.execute(statement, params).scalar_one())


def delete_windows_before(connection: Connection, window: int) -> None:
    connection.execute(_PRUNE_WINDOWS, {"window": window})


_CHANGES_AFTER = (
    select(MATCH_CHANGE.c.version, MATCH_CHANGE.c.payload)
    .where(MATCH_CHANGE.c.match_id == bindparam("match_id"))
    .where(MATCH_CHANGE.c.version > bindparam("after"))
    .order_by(MATCH_CHANGE.c.version)
    .limit(bindparam("limit"))
)
_PRUNE_CHANGES = delete(MATCH_CHANGE).where(
    MATCH_CHANGE.c.match_id == bindparam("match_id"),
    MATCH_CHANGE.c.version < bindparam("before"),
)
_CHANGED_SINCE = (
    select(MATCH_CHANGE.c.id, MATCH_CHANGE.c.match_id, MATCH_CHANGE.c.version)
    .where(MATCH_CHANGE.c.id > bindparam("cursor"))
    .order_by(MATCH_CHANGE.c.id)
    .limit(bindparam("limit"))
)
_LAST_CHANGE_ID = select(func.coalesce(func.max(MATCH_CHANGE.c.id), 0))
_TAKE_TICKET = (
    delete(STREAM_TICKET)
    .where(STREAM_TICKET.c.id == bindparam("id"))
    .returning(STREAM_TICKET.c.match_id, STREAM_TICKET.c.credential_id, STREAM_TICKET.c.expires_at)
)
_PRUNE_TICKETS = delete(STREAM_TICKET).where(STREAM_TICKET.c.expires_at < bindparam("now"))


def insert_change(connection: Connection, values: Mapping[str, Any]) -> None:
    connection.execute(_INSERT_MATCH_CHANGE, [dict(values)])


def prune_changes(connection: Connection, match_id: str, *, before: int) -> None:
    """Forget a match's changes older than version ``before``."""
    connection.execute(_PRUNE_CHANGES, {"match_id": match_id, "before": before})


def changes_after(
    connection: Connection, match_id: str, after: int, *, limit: int
) -> Sequence[Any]:
    """(version, payload) of a match's changes after version ``after``, in order."""
    params = {"match_id": match_id, "after": after, "limit": limit}
    return connection.execute(_CHANGES_AFTER, params).all()


def changed_since(connection: Connection, cursor: int, *, limit: int) -> Sequence[Any]:
    """(id, match_id, version) of the changes logged after ``cursor`` (SQLite: in commit
    order)."""
    return connection.execute(_CHANGED_SINCE, {"cursor": cursor, "limit": limit}).all()


def last_change_id(connection: Connection) -> int:
    return int(connection.execute(_LAST_CHANGE_ID).scalar_one())


@dataclass(frozen=True, slots=True)
class RoundWrite:
    """What a change of a match writes to one of its rounds, with the change itself:
    a round entered (``entered``: its row), corrected (``corrected``: its id and new
    values) or removed (``removed``: its number), and the revision that records it
    (``revision``: a row of ``round_revision``). Written by ``write_round``, or on
    PostgreSQL within ``save_change_notifying``'s one statement."""

    entered: Mapping[str, Any] | None = None
    corrected: tuple[int, Mapping[str, Any]] | None = None
    removed: int | None = None
    revision: Mapping[str, Any] | None = None

    @property
    def shape(self) -> tuple[Any, ...]:
        """The columns each part writes: statements are built once per shape."""
        return (
            None if self.entered is None else frozenset(self.entered),
            None if self.corrected is None else frozenset(self.corrected[1]),
            self.removed is not None,
            None if self.revision is None else frozenset(self.revision),
        )


def write_round(connection: Connection, match_id: str, rounds: RoundWrite) -> None:
    """The statements of ``rounds``, one by one: the round, then its revision."""
    if rounds.entered is not None:
        insert_round(connection, rounds.entered)
    if rounds.corrected is not None:
        update_round(connection, *rounds.corrected)
    if rounds.removed is not None:
        delete_round(connection, match_id, rounds.removed)
    if rounds.revision is not None:
        insert_revision(connection, rounds.revision)


_CHANGED_TABLES = (MATCH, MATCH_CHANGE, ROUND, ROUND_REVISION)  # what a change writes


@cache
def _save_change_notifying(
    columns: frozenset[str], change_columns: frozenset[str], rounds: tuple[Any, ...] | None
) -> Select[Any]:
    """The statement of ``save_change_notifying`` for a change of these match columns,
    logged with these columns (and a round written as ``RoundWrite.shape`` says),
    built once for each shape of change a use case makes. Its parameters are named
    ``set_<column>`` for the match, ``log_<column>`` for the change, ``round_<column>``
    for a round entered, ``corrected_<column>`` (and ``corrected_id``) for a round
    corrected, ``removed_number`` for a round removed and ``revised_<column>`` for the
    revision: a parameter named after a column of the table a statement writes would
    be taken for that column's new value.

    SQLAlchemy computes Python-side column defaults for one DML statement only, so
    every value is passed explicitly: these tables have no ``default`` or
    ``onupdate`` of SQLAlchemy's (keep it so, or pass the value here too). The parts
    are data-modifying CTEs, which PostgreSQL runs exactly once each, on one
    snapshot. (A revision an earlier statement of the transaction recorded stays
    before the one inserted here: its id was taken from the sequence first.)"""
    updated = (
        update(MATCH)
        .where(MATCH.c.id == bindparam("log_match_id"))
        .values({name: bindparam(f"set_{name}") for name in sorted(columns)})
        .returning(MATCH.c.id)
        .cte("updated")
    )
    logged = _inserted(
        MATCH_CHANGE,
        change_columns,
        "log",
        "logged",
        (MATCH_CHANGE.c.match_id + " " + cast(MATCH_CHANGE.c.version, Text)).label("payload"),
    )
    # The payload is "<match id> <version>": a process skips its own changes' notices.
    statement = select(func.pg_notify(bindparam("channel"), logged.c.payload)).add_cte(updated)
    if rounds is None:
        return statement
    entered, corrected, removed, revision = rounds
    if entered is not None:
        statement = statement.add_cte(_inserted(ROUND, entered, "round", "entered"))
    if corrected is not None:
        statement = statement.add_cte(
            update(ROUND)
            .where(ROUND.c.id == bindparam("corrected_id"))
            .values({name: bindparam(f"corrected_{name}") for name in sorted(corrected)})
            .returning(ROUND.c.id)
            .cte("corrected")
        )
    if removed:
        statement = statement.add_cte(
            delete(ROUND)
            .where(ROUND.c.match_id == bindparam("log_match_id"))
            .where(ROUND.c.number == bindparam("removed_number"))
            .returning(ROUND.c.id)
            .cte("removed")
        )
    if revision is not None:
        statement = statement.add_cte(_inserted(ROUND_REVISION, revision, "revised", "revised"))
    return no_parameter_named_as_a_column(statement)


def no_parameter_named_as_a_column(statement: Select[Any]) -> Select[Any]:
    """``statement``, once it is known that none of its parameters is named after a
    column of the tables it writes: SQLAlchemy would take such a parameter for that
    column's new value in an UPDATE or INSERT, in a CTE too."""
    written = {column.name for table in _CHANGED_TABLES for column in table.c}
    clash = written.intersection(statement.compile().params)
    if clash:
        raise ValueError(f"parameters named after columns: {sorted(clash)}")
    return statement


def _inserted(
    table: Table, columns: frozenset[str], prefix: str, name: str, returning: Any = None
) -> CTE:
    """A data-modifying CTE ``name`` that inserts one row of ``table`` with these
    columns, each from the parameter ``<prefix>_<column>``; it returns ``returning``
    (the row's id by default)."""
    return (
        insert(table)
        .values({column: bindparam(f"{prefix}_{column}") for column in sorted(columns)})
        .returning(table.c.id if returning is None else returning)
        .cte(name)
    )


def save_change_notifying(
    connection: Connection,
    values: Mapping[str, Any],
    change: Mapping[str, Any],
    *,
    channel: str,
    rounds: RoundWrite | None = None,
) -> None:
    """PostgreSQL: ``update_match`` with ``values``, ``insert_change`` of ``change``
    (whose match it is) and ``write_round`` of ``rounds`` if there are any, in one
    statement, one round trip, which also tells every process listening on
    ``channel``, when this transaction commits, which match changed (the
    notification's payload is "<match id> <version>": a listener skips a version it
    has already offered and reads the others)."""
    params = {**_prefixed("set", values), **_prefixed("log", change), "channel": channel}
    if rounds is not None:
        if rounds.entered is not None:
            params.update(_prefixed("round", rounds.entered))
        if rounds.corrected is not None:
            round_id, corrected = rounds.corrected
            params.update(_prefixed("corrected", {**corrected, "id": round_id}))
        if rounds.removed is not None:
            params["removed_number"] = rounds.removed
        if rounds.revision is not None:
            params.update(_prefixed("revised", rounds.revision))
    shape = rounds.shape if rounds is not None else None
    statement = _save_change_notifying(frozenset(values), frozenset(change), shape)
    connection.execute(statement, params)


def _prefixed(prefix: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as the parameters ``<prefix>_<column>`` of ``_save_change_notifying``."""
    return {f"{prefix}_{name}": value for name, value in values.items()}


def insert_ticket(connection: Connection, values: Mapping[str, Any]) -> None:
    connection.execute(_INSERT_STREAM_TICKET, [dict(values)])


def take_ticket(connection: Connection, ticket_id: str) -> RowMapping | None:
    """Delete a ticket and return it. Of two takers, one gets the row: the other waits
    for its lock (PostgreSQL) or for the write lock (SQLite), then finds none."""
    return connection.execute(_TAKE_TICKET, {"id": ticket_id}).mappings().first()


def delete_expired_tickets(connection: Connection, now: datetime) -> None:
    connection.execute(_PRUNE_TICKETS, {"now": now})
