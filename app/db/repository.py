"""Every query the service runs. Functions take a transaction and never commit.

The SQL goes to the driver (app/db/driver.py says why); the tables and their
columns are the ones app/db/models.py declares and the migrations create.
"""

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import orjson

from app.db.driver import DriverTable, Sql, Tx
from app.db.models import (
    CREDENTIAL,
    IDEMPOTENCY_KEY,
    MATCH,
    RATE_LIMIT_WINDOW,
    ROUND,
    ROUND_REVISION,
)

_MATCH = DriverTable(MATCH)
_ROUND = DriverTable(ROUND)
_ROUND_REVISION = DriverTable(ROUND_REVISION)
_CREDENTIAL = DriverTable(CREDENTIAL)
_IDEMPOTENCY_KEY = DriverTable(IDEMPOTENCY_KEY)

# The match row without its rendered view, which only GET /v1/matches/{id} reads.
_MATCH_COLUMNS = tuple(name for name in _MATCH.columns if name != "view")
_ROUND_COLUMNS = ", ".join(f'"{name}"' for name in _ROUND.columns)

_GET_MATCH_VIEW = Sql('SELECT "view", "version" FROM "match" WHERE "id" = ?')
_STAMP = ("version", "updated_at")
_GET_MATCH_STAMP = Sql('SELECT "version", "updated_at" FROM "match" WHERE "id" = ?')
_LIST_ROUNDS = Sql(
    f'SELECT {_ROUND_COLUMNS} FROM "round" WHERE "match_id" = ? AND "number" >= ? ORDER BY "number"'
)
# JSON columns as text, decoded in one go: cheaper than one decode a row.
_LIST_POINTS = Sql(
    'SELECT CAST("points" AS TEXT) FROM "round" WHERE "match_id" = ? AND "number" <= ? '
    'ORDER BY "number"'
)
_SHEET_ROWS = Sql(
    'SELECT "number", "dealer", CAST("points" AS TEXT), CAST("result" AS TEXT) '
    'FROM "round" WHERE "match_id" = ? ORDER BY "number"'
)
_CLAIM_KEY = Sql(
    'INSERT INTO "idempotency_key" ("scope", "key", "fingerprint", "status", "body", '
    '"headers", "created_at") VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING '
    'RETURNING "key"'
)
_PRUNE_KEYS = Sql(
    'DELETE FROM "idempotency_key" WHERE ("scope", "key") IN (SELECT "scope", "key" '
    'FROM "idempotency_key" WHERE "created_at" < ? LIMIT ?)'
)
_COUNT_IN_WINDOW = Sql(
    'INSERT INTO "rate_limit_window" ("client", "window", "count") VALUES (?, ?, 1) '
    'ON CONFLICT ("client", "window") DO UPDATE SET "count" = "rate_limit_window"."count" + 1 '
    'RETURNING "count"'
)
_LAST_REVISION_ACTION = Sql(
    'SELECT "action" FROM "round_revision" WHERE "match_id" = ? AND "number" = ? '
    'ORDER BY "id" DESC LIMIT 1'
)
_PRUNE_WINDOWS = Sql('DELETE FROM "rate_limit_window" WHERE "window" < ?')

assert {c.name for c in RATE_LIMIT_WINDOW.c} == {"client", "window", "count"}


def insert_match(tx: Tx, values: Mapping[str, Any]) -> None:
    _MATCH.insert(tx, values)


def get_match(tx: Tx, match_id: str, *, for_update: bool = False) -> dict[str, Any] | None:
    """The match row without its rendered view; ``for_update`` locks it until the
    transaction ends (PostgreSQL)."""
    where = {"id": match_id}
    return _MATCH.select_one(tx, where, columns=_MATCH_COLUMNS, for_update=for_update)


def get_match_stamp(tx: Tx, match_id: str) -> tuple[int, Any] | None:
    """The match's version and when it was last changed, without the rest of the row."""
    found = tx.one(_GET_MATCH_STAMP, (match_id,))
    if found is None:
        return None
    stamp = _MATCH.decode(_STAMP, found, tx.sqlite)
    return int(stamp["version"]), stamp["updated_at"]


def get_match_view(tx: Tx, match_id: str) -> tuple[str | None, int] | None:
    """The rendered match and its version, without the rest of the row: the hottest
    read of all (every phone polls it), two plain columns, nothing to convert."""
    found = tx.one(_GET_MATCH_VIEW, (match_id,))
    return None if found is None else (found[0], found[1])


def update_match(tx: Tx, match_id: str, values: Mapping[str, Any]) -> None:
    _MATCH.update(tx, {"id": match_id}, values)


def insert_credentials(tx: Tx, rows: Iterable[Mapping[str, Any]]) -> None:
    _CREDENTIAL.insert_many(tx, rows)


def get_credential(tx: Tx, credential_id: str) -> dict[str, Any] | None:
    return _CREDENTIAL.select_one(tx, {"id": credential_id})


def insert_round(tx: Tx, values: Mapping[str, Any]) -> None:
    _ROUND.insert(tx, values)


def get_round(tx: Tx, match_id: str, number: int) -> dict[str, Any] | None:
    return _ROUND.select_one(tx, {"match_id": match_id, "number": number})


def list_rounds(tx: Tx, match_id: str, *, from_number: int = 1) -> list[dict[str, Any]]:
    """Rounds of a match in order, from ``from_number`` on."""
    rows = tx.all(_LIST_ROUNDS, (match_id, from_number))
    return [_ROUND.decode(_ROUND.columns, row, tx.sqlite) for row in rows]


def list_points(tx: Tx, match_id: str, *, through: int) -> list[list[int]]:
    """The points of rounds 1..``through`` in order: all the sheet's fold needs."""
    texts = [row[0] for row in tx.all(_LIST_POINTS, (match_id, through))]
    points: list[list[int]] = orjson.loads("[" + ",".join(texts) + "]")
    return points


def sheet_rows(tx: Tx, match_id: str) -> list[tuple[int, int, list[int], Any]]:
    """(number, dealer, points, result) of every round in order: what the sheet needs,
    with the JSON columns fetched as text and decoded in one go."""
    rows = tx.all(_SHEET_ROWS, (match_id,))
    decoded = orjson.loads("[" + ",".join(f"[{r[2]},{r[3]}]" for r in rows) + "]")
    return [(r[0], r[1], d[0], d[1]) for r, d in zip(rows, decoded, strict=True)]


def update_round(tx: Tx, round_id: int, values: Mapping[str, Any]) -> None:
    _ROUND.update(tx, {"id": round_id}, values)


def delete_round(tx: Tx, match_id: str, number: int) -> None:
    _ROUND.delete(tx, {"match_id": match_id, "number": number})


def claim_idempotency_key(tx: Tx, values: Mapping[str, Any]) -> bool:
    """Insert the key if it is new; False when it exists (PostgreSQL waits for a concurrent
    claim of the same key to commit or roll back before answering)."""
    ordered = {
        name: values[name]
        for name in ("scope", "key", "fingerprint", "status", "body", "headers", "created_at")
    }
    return tx.one(_CLAIM_KEY, _IDEMPOTENCY_KEY.encode(ordered, tx.sqlite)) is not None


def get_idempotency_key(tx: Tx, scope: str, key: str) -> dict[str, Any] | None:
    return _IDEMPOTENCY_KEY.select_one(tx, {"scope": scope, "key": key})


def update_idempotency_key(tx: Tx, scope: str, key: str, values: Mapping[str, Any]) -> None:
    _IDEMPOTENCY_KEY.update(tx, {"scope": scope, "key": key}, values)


def delete_idempotency_keys_before(tx: Tx, cutoff: datetime, *, limit: int) -> None:
    """Forget up to ``limit`` keys created before ``cutoff``."""
    (when,) = _IDEMPOTENCY_KEY.encode({"created_at": cutoff}, tx.sqlite)
    tx.execute(_PRUNE_KEYS, (when, limit)).close()


def insert_revision(tx: Tx, values: Mapping[str, Any]) -> None:
    _ROUND_REVISION.insert(tx, values)


def list_revisions(tx: Tx, match_id: str, number: int) -> list[dict[str, Any]]:
    """Every input round ``number`` has held, oldest first."""
    return _ROUND_REVISION.select(tx, {"match_id": match_id, "number": number}, order_by="id")


def last_revision_action(tx: Tx, match_id: str, number: int) -> str | None:
    """The action of the latest revision of round ``number``; None when it has none."""
    found = tx.one(_LAST_REVISION_ACTION, (match_id, number))
    return None if found is None else str(found[0])


def count_in_window(tx: Tx, client: str, window: int) -> int:
    """Add one to the client's count for ``window`` and return the new count."""
    return int(tx.one(_COUNT_IN_WINDOW, (client, window))[0])


def delete_windows_before(tx: Tx, window: int) -> None:
    tx.execute(_PRUNE_WINDOWS, (window,)).close()
