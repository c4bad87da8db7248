"""The migrations build, tear down and rebuild the schema, and agree with the models."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from pydantic import TypeAdapter
from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    inspect,
    text,
)
from sqlmodel import SQLModel

import app.db.models  # noqa: F401
from app.main import create_app
from app.schemas import MatchCreate
from app.services.idempotency import IdempotencyClaim
from app.settings import Settings
from tests.conftest import PostgresDatabases, alembic_config


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request: pytest.FixtureRequest, tmp_path: object) -> str:
    """An empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/migrations.db"
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    return databases.create()


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "render_as_batch": True}
            )
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(fresh_url: str) -> None:
    config = alembic_config(fresh_url)
    command.upgrade(config, "head")
    assert {"match", "round", "credential", "alembic_version"} <= _tables(fresh_url)
    command.downgrade(config, "base")
    assert _tables(fresh_url) <= {"alembic_version"}
    command.upgrade(config, "head")
    assert {"match", "round", "credential"} <= _tables(fresh_url)


def test_models_and_migrations_agree(fresh_url: str) -> None:
    command.upgrade(alembic_config(fresh_url), "head")
    assert _diff(fresh_url) == []


def test_0009_seals_the_kept_answers_and_a_replay_answers_the_same(fresh_url: str) -> None:
    """A create's kept answer, written at 0008 in clear, is sealed by the upgrade: the
    table then holds neither the key nor a token, and a retry with the key replays the
    answer as it was. The downgrade forgets the kept answers and keeps the rest."""
    config = alembic_config(fresh_url)
    command.upgrade(config, "0008")
    key, secret = secrets.token_urlsafe(24), "4f1cQm3xY0aB9cDe.host-secret-" + secrets.token_hex(8)
    body = {"game": "asszorti", "players": ["Anna", "Béla", "Cili"]}
    request = TypeAdapter(MatchCreate).validate_python(body).model_dump(mode="json")
    fingerprint = IdempotencyClaim.of(key, scope="", request="POST /v1/matches", body=request)
    kept = {"id": "0" * 32, "tokens": {"host": secret}}
    headers = {"Location": "/v1/matches/" + "0" * 32, "ETag": '"v1"'}
    engine = create_engine(fresh_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                KEPT_AT_0008.insert().values(
                    scope="",
                    key=key,
                    fingerprint=fingerprint.fingerprint,
                    status=201,
                    body=kept,
                    headers=headers,
                    created_at=datetime.now(UTC),
                )
            )
        command.upgrade(config, "head")
        with engine.connect() as connection:
            stored = connection.execute(text("SELECT * FROM idempotency_key")).mappings().all()
        assert len(stored) == 1
        assert key not in repr(stored) and secret not in repr(stored)
        assert secret.encode() not in bytes(stored[0]["sealed"])

        settings = Settings(database_url=fresh_url, rate_limit_matches_per_minute=0)
        with TestClient(create_app(settings)) as client:
            replay = client.post("/v1/matches", json=body, headers={"Idempotency-Key": key})
        assert replay.status_code == 201, replay.text
        assert replay.headers["idempotent-replayed"] == "true"
        assert replay.json() == kept and replay.headers["etag"] == '"v1"'

        command.downgrade(config, "0008")
        with engine.connect() as connection:
            assert connection.execute(text("SELECT count(*) FROM idempotency_key")).scalar() == 0
            columns = {c["name"] for c in inspect(connection).get_columns("idempotency_key")}
        assert {"body", "headers"} <= columns and "sealed" not in columns
        command.upgrade(config, "head")
    finally:
        engine.dispose()


KEPT_AT_0008 = Table(
    "idempotency_key",
    MetaData(),
    Column("scope", String),
    Column("key", String),
    Column("fingerprint", String),
    Column("status", Integer),
    Column("body", JSON),
    Column("headers", JSON),
    Column("created_at", DateTime(timezone=True)),
)


def test_0010_tags_the_kept_events_and_its_downgrade_untags_them(fresh_url: str) -> None:
    """The events a resumed stream replays (``match_change.payload``), as 0009 kept them,
    get the ``game`` tags the reads now carry: after an upgrade they are what this
    code writes, and a downgrade takes the tags away again."""
    config = alembic_config(fresh_url)
    command.upgrade(config, "head")
    settings = Settings(database_url=fresh_url, rate_limit_matches_per_minute=0)
    with TestClient(create_app(settings)) as client:
        body = {"game": "alkort", "players": ["Anna", "Bela", "Cili", "Dani"]}
        created = client.post("/v1/matches", json=body).json()
        auth = {"Authorization": f"Bearer {created['tokens']['host']}"}
        path = f"/v1/matches/{created['id']}"
        deal = {"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 0, 1]}
        assert client.post(f"{path}/rounds", json=deal, headers=auth).status_code == 201
        patch = {"settings": {"target": 15}}
        assert client.patch(path, json=patch, headers=auth).status_code == 200
    engine = create_engine(fresh_url)

    def kept() -> list[dict[str, object]]:
        with engine.connect() as connection:
            query = text("SELECT payload FROM match_change ORDER BY version")
            rows = connection.execute(query).scalars().all()
        return [row if isinstance(row, dict) else json.loads(row) for row in rows]

    try:
        written = kept()
        assert [event["kind"] for event in written] == ["round_entered", "match_updated"]
        assert all(event["match"]["settings"]["game"] == "alkort" for event in written)
        assert written[0]["round"]["result"]["breakdown"]["game"] == "alkort"

        command.downgrade(config, "0009")
        untagged = kept()
        assert all("game" not in event["match"]["settings"] for event in untagged)
        assert "game" not in untagged[0]["round"]["result"]["breakdown"]
        assert untagged[0]["round"]["result"]["breakdown"]["kind"] == "muk"

        command.upgrade(config, "head")
        assert kept() == written
    finally:
        engine.dispose()


def test_0011_links_rematches_and_its_downgrade_keeps_the_matches(fresh_url: str) -> None:
    """An ended match and its rematch, with rounds and kept events: the downgrade drops
    the links (and takes them out of the kept events) and keeps every match, round and
    event; the upgrade, on those rows, gives every match and kept event null links, and
    the matches read and play on."""
    config = alembic_config(fresh_url)
    command.upgrade(config, "head")
    settings = Settings(database_url=fresh_url, rate_limit_matches_per_minute=0)
    with TestClient(create_app(settings)) as client:
        body = {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
        created = client.post("/v1/matches", json=body).json()
        auth = {"Authorization": f"Bearer {created['tokens']['host']}"}
        path = f"/v1/matches/{created['id']}"
        deal = {"type": "asszorti_amounts", "amounts": [-9, 18, -9]}
        assert client.post(f"{path}/rounds", json=deal, headers=auth).status_code == 201
        assert client.post(f"{path}/end", headers=auth).status_code == 200
        rematch = client.post(f"{path}/rematch", headers=auth).json()
    engine = create_engine(fresh_url)

    def rows(query: str) -> list[dict[str, object]]:
        with engine.connect() as connection:
            return [dict(row) for row in connection.execute(text(query)).mappings()]

    def kept() -> list[dict[str, object]]:
        payloads = [row["payload"] for row in rows("SELECT payload FROM match_change")]
        return [p if isinstance(p, dict) else json.loads(str(p)) for p in payloads]

    try:
        links = rows("SELECT id, rematch_id, rematch_of FROM match ORDER BY created_at")
        assert links == [
            {"id": created["id"], "rematch_id": rematch["id"], "rematch_of": None},
            {"id": rematch["id"], "rematch_id": None, "rematch_of": created["id"]},
        ]
        before = (rows("SELECT id, players, version FROM match"), rows("SELECT * FROM round"))
        assert kept()[-1]["match"]["rematch_id"] == rematch["id"]  # type: ignore[index]

        command.downgrade(config, "0010")
        with engine.connect() as connection:
            columns = {c["name"] for c in inspect(connection).get_columns("match")}
        assert not {"rematch_id", "rematch_of"} & columns
        after = (rows("SELECT id, players, version FROM match"), rows("SELECT * FROM round"))
        assert after == before
        assert all("rematch_id" not in event["match"] for event in kept())  # type: ignore[operator]

        command.upgrade(config, "head")
        assert (
            rows("SELECT rematch_id, rematch_of FROM match")
            == [{"rematch_id": None, "rematch_of": None}] * 2
        )
        assert all(event["match"]["rematch_id"] is None for event in kept())  # type: ignore[index]
        with TestClient(create_app(settings)) as client:
            read = client.get(path, headers=auth)
            assert read.status_code == 200 and read.json()["rematch_id"] is None
            again = client.post(f"{path}/rematch", headers=auth)
            assert again.status_code == 201 and again.json()["rematch_of"] == created["id"]
    finally:
        engine.dispose()


def test_0012_keeps_credentials_both_ways_and_old_host_keys_hold_no_code(fresh_url: str) -> None:
    """A match's host key holds its recovery code sealed; the downgrade drops only that
    column (every credential kept, every token still working), and the upgrade gives
    the kept credentials none: their host is told so, and a re-issue seals a new one."""
    config = alembic_config(fresh_url)
    command.upgrade(config, "head")
    settings = Settings(database_url=fresh_url, rate_limit_matches_per_minute=0)
    body = {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/matches", json=body).json()
    path, tokens = f"/v1/matches/{created['id']}", created["tokens"]
    auth = {"Authorization": f"Bearer {tokens['host']}"}
    engine = create_engine(fresh_url)

    def credentials() -> list[dict[str, object]]:
        query = text("SELECT id, match_id, role, seat, secret_hash FROM credential ORDER BY id")
        with engine.connect() as connection:
            return [dict(row) for row in connection.execute(query).mappings()]

    try:
        before = credentials()
        command.downgrade(config, "0011")
        with engine.connect() as connection:
            columns = {c["name"] for c in inspect(connection).get_columns("credential")}
        assert "recovery_sealed" not in columns
        assert credentials() == before

        command.upgrade(config, "head")
        assert credentials() == before
        with TestClient(create_app(settings)) as client:
            none = client.get(f"{path}/recovery", headers=auth)
            assert none.status_code == 409 and none.json()["code"] == "recovery_not_kept"
            viewer = {"Authorization": f"Bearer {tokens['viewer']}"}
            assert client.get(path, headers=viewer).status_code == 200
            recovered = client.post(f"{path}/recover", json={"recovery_code": tokens["recovery"]})
            assert recovered.status_code == 200  # the code kept as a hash still recovers
            new = recovered.json()
            shown = client.get(
                f"{path}/recovery", headers={"Authorization": f"Bearer {new['token']}"}
            )
            assert shown.json() == {"recovery_code": new["recovery"]}
    finally:
        engine.dispose()


def test_0013_adds_the_host_seat_and_its_downgrade_keeps_the_matches(fresh_url: str) -> None:
    """A match with a host's seat, its rounds and kept events: the downgrade drops the
    seat (and takes it out of the kept events) and keeps every match, round and event;
    the upgrade, on those rows, gives every match and kept event a null seat, and the
    matches read, take a seat and play on."""
    config = alembic_config(fresh_url)
    command.upgrade(config, "head")
    settings = Settings(database_url=fresh_url, rate_limit_matches_per_minute=0)
    with TestClient(create_app(settings)) as client:
        body = {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"], "host_seat": 1}
        created = client.post("/v1/matches", json=body).json()
        auth = {"Authorization": f"Bearer {created['tokens']['host']}"}
        path = f"/v1/matches/{created['id']}"
        deal = {"type": "asszorti_amounts", "amounts": [-9, 18, -9]}
        assert client.post(f"{path}/rounds", json=deal, headers=auth).status_code == 201
    engine = create_engine(fresh_url)

    def rows(query: str) -> list[dict[str, object]]:
        with engine.connect() as connection:
            return [dict(row) for row in connection.execute(text(query)).mappings()]

    def kept() -> list[dict[str, object]]:
        payloads = [row["payload"] for row in rows("SELECT payload FROM match_change")]
        return [p if isinstance(p, dict) else json.loads(str(p)) for p in payloads]

    try:
        assert rows("SELECT host_seat FROM match") == [{"host_seat": 1}]
        assert [event["match"]["host_seat"] for event in kept()] == [1]  # type: ignore[index]
        before = (rows("SELECT id, players, version FROM match"), rows("SELECT * FROM round"))
        events = len(kept())

        command.downgrade(config, "0012")
        with engine.connect() as connection:
            columns = {c["name"] for c in inspect(connection).get_columns("match")}
        assert "host_seat" not in columns and "rematch_of" in columns
        after = (rows("SELECT id, players, version FROM match"), rows("SELECT * FROM round"))
        assert after == before
        assert len(kept()) == events
        assert all("host_seat" not in event["match"] for event in kept())  # type: ignore[operator]

        command.upgrade(config, "head")
        assert rows("SELECT host_seat FROM match") == [{"host_seat": None}]
        assert all(event["match"]["host_seat"] is None for event in kept())  # type: ignore[index]
        with TestClient(create_app(settings)) as client:
            read = client.get(path, headers=auth)
            assert read.status_code == 200 and read.json()["host_seat"] is None
            seated = client.patch(path, json={"host_seat": 0}, headers=auth)
            assert seated.status_code == 200 and seated.json()["host_seat"] == 0
            assert client.post(f"{path}/rounds", json=deal, headers=auth).status_code == 201
    finally:
        engine.dispose()
