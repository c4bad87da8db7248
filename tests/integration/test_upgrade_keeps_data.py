"""Nothing lost on upgrade: a database the deployed code wrote, served by this code.

tests/fixtures/upgrade/v0004.sqlite was written through the HTTP API of commit
51dddeb8d1716d5046e36f5981bd7ddbc8e9593c (migration 0004), and
v0004_expected.json holds what that code answered for it; both come from
scripts/make_upgrade_fixture.py, whose docstring says how to write them again.

On SQLite the file itself is upgraded; on PostgreSQL its rows are copied into a
database migrated to 0004 first, as a deployed PostgreSQL would hold them. Then:

- the upgrade keeps every row and every value (but the dropped ``match.view``);
- the upgraded database answers every recorded read as the old code did (the
  match, its rounds, each round and its history, the sheet as JSON and CSV, the
  ETags; the match with every token: every field the old code answered, the
  same; fields added to a response since, such as the settlement, are allowed; the
  CSV's dealer column is a name since, as the CHANGELOG says),
  and takes a write that continues the sheet as the old code continued it;
- downgrading to 0004 keeps everything, what the new code wrote included, and
  upgrading again works;
- but the kept idempotent answers: from 0009 a key is stored as its SHA-256 and its
  answer sealed with it, so the upgrade changes those rows (a replay still answers
  the same: tests/integration/test_migrations.py), and a downgrade past 0009, which
  cannot open them again, forgets them.

Only the HTTP API and the database are used, not the app's modules: the test
must hold whatever the code behind the API becomes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    MetaData,
    Text,
    cast,
    create_engine,
    inspect,
    null,
    select,
    text,
)

from app.main import create_app
from app.settings import Settings
from tests.conftest import PostgresDatabases, alembic_config, migrate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade"
DEPLOYED = FIXTURES / "v0004.sqlite"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "v0004_expected.json").read_text("utf-8"))
DEPLOYED_REVISION = "0004"  # the migration head of the code that wrote the fixture
TARGET = "head"
# Parents first: the order the rows are copied in.
TABLES = ("match", "round", "credential", "round_revision", "idempotency_key", "rate_limit_window")
TIME_FIELDS = ("created_at", "updated_at", "ended_at", "recorded_at")
MAX_PAGES = 1000
# Read-only: reading the fixture must not leave a journal beside it.
FIXTURE_URL = f"sqlite:///file:{DEPLOYED}?mode=ro&uri=true"

Rows = dict[str, list[dict[str, Any]]]
SQL_NULL = "<SQL NULL>"  # SQL NULL in a JSON column, told apart from a JSON null (None)


# --- the databases ----------------------------------------------------------------


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def deployed_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database at 0004 holding exactly the fixture's rows, as a deployment would."""
    if request.param == "sqlite":
        path = tmp_path / "deployed.sqlite"
        shutil.copyfile(DEPLOYED, path)
        return f"sqlite:///{path}"
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    url = databases.create()
    migrate(url, DEPLOYED_REVISION)
    copy_rows(FIXTURE_URL, url)
    return url


@pytest.fixture(scope="module")
def fixture_rows() -> Rows:
    """The fixture's rows, as the deployed code wrote them."""
    return snapshot(FIXTURE_URL)


def copy_rows(source_url: str, target_url: str) -> None:
    """Every row of every table, from the SQLite fixture into a PostgreSQL database.

    SQLite holds JSON as text and timestamps as UTC text ``YYYY-MM-DD HH:MM:SS.ffffff``:
    both are read as the text stored and converted for the target column's type, SQL
    NULL and a JSON ``null`` kept apart. Then the id sequences go on after the copied ids.
    """
    source, target = create_engine(source_url), create_engine(target_url)
    try:
        source_tables, target_tables = MetaData(), MetaData()
        source_tables.reflect(source, only=TABLES)
        target_tables.reflect(target, only=TABLES)
        with source.connect() as read, target.begin() as write:
            for name in TABLES:
                table, into = source_tables.tables[name], target_tables.tables[name]
                stored = select(*(_as_stored(column) for column in table.c))
                for row in read.execute(stored).mappings():
                    values = {key: _convert(into.c[key], value) for key, value in row.items()}
                    write.execute(into.insert().values(**values))
            for name in TABLES:
                for column in target_tables.tables[name].primary_key:
                    sequence = write.scalar(
                        text("SELECT pg_get_serial_sequence(:table, :column)"),
                        {"table": f'"{name}"', "column": column.name},
                    )
                    if sequence is not None:
                        write.execute(
                            text(f'SELECT setval(:sequence, max("{column.name}")) FROM "{name}"'),
                            {"sequence": sequence},
                        )
    finally:
        source.dispose()
        target.dispose()


def _as_stored(column: Column[Any]) -> Any:
    """JSON and timestamps as the text SQLite stores, the rest as it is."""
    if isinstance(column.type, JSON | DateTime):
        return cast(column, Text).label(column.name)
    return column


def _convert(column: Column[Any], value: Any) -> Any:
    if isinstance(column.type, JSON):
        if value is None:
            return null()
        decoded = json.loads(value)
        return JSON.NULL if decoded is None else decoded
    if isinstance(column.type, DateTime) and value is not None:
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return value


def snapshot(url: str) -> Rows:
    """Every row of every table, in primary-key order, comparable across databases.

    JSON is read as the text stored and decoded here, so SQL NULL and a JSON ``null``
    stay apart; timestamps become aware UTC datetimes.
    """
    engine = create_engine(url)
    try:
        tables = MetaData()
        tables.reflect(engine, only=TABLES)
        rows: Rows = {}
        with engine.connect() as conn:
            for name in TABLES:
                table = tables.tables[name]
                query = select(*(_as_stored(column) for column in table.c)).order_by(
                    *table.primary_key.columns
                )
                rows[name] = [
                    {key: _normal(table.c[key], value) for key, value in row.items()}
                    for row in conn.execute(query).mappings()
                ]
        return rows
    finally:
        engine.dispose()


def _normal(column: Column[Any], value: Any) -> Any:
    if isinstance(column.type, JSON):
        return SQL_NULL if value is None else json.loads(value)
    if isinstance(column.type, DateTime) and value is not None:
        moment = datetime.fromisoformat(value)  # SQLite's text, or PostgreSQL's "...+00"
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return value


def columns_of(url: str) -> dict[str, set[str]]:
    engine = create_engine(url)
    try:
        inspector = inspect(engine)
        return {name: {c["name"] for c in inspector.get_columns(name)} for name in TABLES}
    finally:
        engine.dispose()


def project(rows: Rows, columns: dict[str, set[str]]) -> Rows:
    """The rows with only the given columns of each table."""
    return {
        name: [{k: v for k, v in row.items() if k in columns[name]} for row in table_rows]
        for name, table_rows in rows.items()
    }


def both(one: dict[str, set[str]], other: dict[str, set[str]]) -> dict[str, set[str]]:
    return {name: one[name] & other[name] for name in TABLES}


# --- the HTTP API -----------------------------------------------------------------


@contextmanager
def serve(url: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=url, rate_limit_matches_per_minute=0))
    with TestClient(app) as client:
        yield client


def auth(tokens: dict[str, Any], who: str | int) -> dict[str, str]:
    token = tokens["players"][who] if isinstance(who, int) else tokens[who]
    return {"Authorization": f"Bearer {token}"}


def _next_link(response: Any) -> str | None:
    """The next page of a list, if the answer names one (in the body or a Link header)."""
    found = response.json().get("next") or response.links.get("next", {}).get("url")
    if isinstance(found, dict):
        found = found.get("href")
    if found is None:
        return None
    assert isinstance(found, str) and (found.startswith("/") or "://" in found), (
        f"the rounds list names its next page as {found!r}, not a link: teach this test"
    )
    return found


def _all_items(client: TestClient, path: str, headers: dict[str, str]) -> tuple[Any, list[Any]]:
    """The first page's answer and the items of every page, in order."""
    first = response = client.get(path, headers=headers)
    items: list[Any] = []
    for _ in range(MAX_PAGES):
        if response.status_code != 200:
            break
        body = _json_or_text(response)
        if not isinstance(body, dict) or "items" not in body:
            return first, [body]  # shown as the difference
        items.extend(body["items"])
        link = _next_link(response)
        if link is None:
            break
        response = client.get(link, headers=headers)
        assert response.status_code == 200, (link, response.text)
    else:
        pytest.fail(f"{path}: more than {MAX_PAGES} pages")
    return first, items


def answered(
    client: TestClient, tokens: dict[str, Any], recorded: dict[str, Any]
) -> dict[str, Any]:
    """The new code's answer to a recorded read, in the recorded shape."""
    headers = auth(tokens, recorded["who"])
    if recorded["kind"] == "rounds":
        response, items = _all_items(client, recorded["path"], headers)
    else:
        response = client.get(recorded["path"], headers=headers)
    media_type = response.headers.get("content-type", "").split(";")[0].strip()
    got: dict[str, Any] = {
        "status": response.status_code,
        "etag": response.headers.get("etag"),
        "media_type": media_type,
    }
    if response.status_code >= 400:
        got["code"] = _json_or_text(response).get("code")
    elif recorded["kind"] == "rounds":
        got["body"] = {"items": items}  # pagination may add fields: compare the rounds
    elif media_type.endswith("json"):
        got["body"] = _json_or_text(response)
    else:
        got["body"] = response.text
    return got


def _json_or_text(response: Any) -> Any:
    """The JSON body, or what was sent instead, to be shown as a difference."""
    try:
        return response.json()
    except ValueError:
        return {"not JSON": response.text}


def recorded_fields(got: Any, recorded: Any) -> Any:
    """``got`` with only the fields the recorded answer has: a field added to a response
    since (the settlement, say) is allowed; every field the old code answered must be
    there and the same."""
    if isinstance(got, dict) and isinstance(recorded, dict):
        return {
            k: recorded_fields(got[k], recorded[k]) if k in got else got.get(k, "<missing>")
            for k in recorded
        }
    if isinstance(got, list) and isinstance(recorded, list) and len(got) == len(recorded):
        return [recorded_fields(g, r) for g, r in zip(got, recorded, strict=True)]
    return got


def recorded_answer(recorded: dict[str, Any]) -> dict[str, Any]:
    want: dict[str, Any] = {
        k: recorded[k] for k in ("status", "etag", "media_type", "code") if k in recorded
    }
    if "body" in recorded:
        body = recorded["body"]
        want["body"] = {"items": body["items"]} if recorded["kind"] == "rounds" else body
    return want


def as_changed_since(match: dict[str, Any], want: dict[str, Any]) -> dict[str, Any]:
    """A recorded answer with the changes since that the CHANGELOG owns up to: the CSV's
    ``dealer`` column names the dealer where it gave the seat."""
    if not isinstance(want.get("body"), str) or not want["body"].startswith("round,dealer,"):
        return want
    players = next(r["body"]["players"] for r in match["reads"] if r["kind"] == "match")
    names = {str(player["seat"]): player["name"] for player in players}
    rows = list(csv.reader(io.StringIO(want["body"], newline="")))
    for row in rows[1:]:
        if row[0].isdigit():
            row[1] = names[row[1]]
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return {**want, "body": out.getvalue()}


def without_times(body: Any) -> Any:
    """An answer without the times it was written at (the recorded write was earlier)."""
    if isinstance(body, dict):
        return {k: without_times(v) for k, v in body.items() if k not in TIME_FIELDS}
    if isinstance(body, list):
        return [without_times(v) for v in body]
    return body


def take_the_write(client: TestClient, *, as_recorded: bool) -> None:
    """A round added to the in-progress match with the host's token: 201, the version
    rises, and (``as_recorded``) the answer is the one the old code gave."""
    write = EXPECTED["write"]
    match = next(m for m in EXPECTED["matches"] if m["id"] == write["match_id"])
    headers = auth(match["tokens"], write["who"])
    url = f"/v1/matches/{write['match_id']}"
    before = client.get(url, headers=headers)
    assert before.status_code == 200, before.text
    assert before.headers["etag"] == write["etag_before"]
    response = client.post(f"{url}/rounds", json=write["body"], headers=headers)
    assert response.status_code == 201, response.text
    after = client.get(url, headers=headers)
    assert after.status_code == 200, after.text
    assert after.json()["version"] == before.json()["version"] + 1
    assert after.json()["round_count"] == before.json()["round_count"] + 1
    if as_recorded:
        assert response.headers["etag"] == write["etag"]
        assert (
            recorded_fields(without_times(response.json()), write["response"]) == write["response"]
        )
        match_after = write["match_after"]
        assert recorded_fields(without_times(after.json()), match_after) == match_after


# --- the tests ----------------------------------------------------------------------


def test_upgrade_keeps_every_row(deployed_url: str, fixture_rows: Rows) -> None:
    assert snapshot(deployed_url) == fixture_rows, "the deployed database is not the fixture"
    command.upgrade(alembic_config(deployed_url), TARGET)
    upgraded = columns_of(deployed_url)
    if TARGET != DEPLOYED_REVISION:
        assert "view" not in upgraded["match"]
    shared = both(upgraded, columns_of(FIXTURE_URL))
    upgraded_rows = snapshot(deployed_url)
    # Each kept answer's key is its SHA-256 from 0009 on, and its answer sealed.
    keys = [row.pop("key") for row in upgraded_rows["idempotency_key"]]
    fixture_keys = [row["key"] for row in fixture_rows["idempotency_key"]]
    assert sorted(keys) == sorted(hashlib.sha256(k.encode()).hexdigest() for k in fixture_keys)
    shared["idempotency_key"] -= {"key"}
    by_fingerprint = sorted(upgraded_rows["idempotency_key"], key=lambda row: row["fingerprint"])
    upgraded_rows["idempotency_key"] = by_fingerprint
    fixture_kept = {
        **fixture_rows,
        "idempotency_key": sorted(
            fixture_rows["idempotency_key"], key=lambda row: row["fingerprint"]
        ),
    }
    assert project(upgraded_rows, shared) == project(fixture_kept, shared)


def test_upgraded_database_answers_as_before(deployed_url: str) -> None:
    command.upgrade(alembic_config(deployed_url), TARGET)
    with serve(deployed_url) as client:
        differences = []
        for match in EXPECTED["matches"]:
            for recorded in match["reads"]:
                got = answered(client, match["tokens"], recorded)
                want = as_changed_since(match, recorded_answer(recorded))
                if "body" in got and "body" in want:
                    got["body"] = recorded_fields(got["body"], want["body"])
                if got != want:
                    differences.append(
                        f"GET {recorded['path']} as {recorded['who']}:\n"
                        f"  recorded {json.dumps(want, sort_keys=True)}\n"
                        f"  answered {json.dumps(got, sort_keys=True)}"
                    )
        reads = sum(len(m["reads"]) for m in EXPECTED["matches"])
        assert not differences, f"{len(differences)} of {reads} reads differ:\n" + "\n".join(
            differences
        )
        take_the_write(client, as_recorded=True)


def test_downgrade_keeps_what_both_versions_wrote(deployed_url: str, fixture_rows: Rows) -> None:
    config = alembic_config(deployed_url)
    command.upgrade(config, TARGET)
    with serve(deployed_url) as client:
        take_the_write(client, as_recorded=False)
    at_target = snapshot(deployed_url)
    target_columns = columns_of(deployed_url)

    command.downgrade(config, DEPLOYED_REVISION)
    downgraded_columns = columns_of(deployed_url)
    assert "view" in downgraded_columns["match"]
    downgraded = snapshot(deployed_url)
    if TARGET != DEPLOYED_REVISION:
        # Added back empty: the old code renders a match whose view is NULL when read.
        assert [row["view"] for row in downgraded["match"]] == [None] * len(downgraded["match"])
    shared = both(target_columns, downgraded_columns)
    # The kept idempotent answers are forgotten (0009 cannot open them again); the rest
    # is kept.
    assert downgraded["idempotency_key"] == []
    at_target_kept = {**at_target, "idempotency_key": []}
    assert {n: len(r) for n, r in downgraded.items()} == {
        n: len(r) for n, r in at_target_kept.items()
    }
    assert project(downgraded, shared) == project(at_target_kept, shared)

    # And every row the old code wrote is still there as it wrote it, but the
    # match row the write changed, and the views (rendered again when read).
    counts = {name: len(rows) for name, rows in downgraded.items()}
    assert counts == {
        **EXPECTED["row_counts"],
        "idempotency_key": 0,
        "round": EXPECTED["row_counts"]["round"] + 1,
        "round_revision": counts["round_revision"],  # the new code may record entries
    }
    assert counts["round_revision"] >= EXPECTED["row_counts"]["round_revision"]
    shared = both(shared, columns_of(FIXTURE_URL))
    kept = project(downgraded, shared)
    for name, rows in project(fixture_rows, shared).items():
        if name == "idempotency_key":
            continue
        for row in rows:
            if name == "match" and row["id"] == EXPECTED["write"]["match_id"]:
                continue
            assert row in kept[name], f"{name} row lost or changed by the round trip: {row}"

    command.upgrade(config, TARGET)
    assert project(snapshot(deployed_url), target_columns) == at_target_kept
