"""The host sees the recovery code again, with the host key: the code kept sealed for
that key, current through recoveries, re-issues and rematches, and for no other key."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from tests.api.helpers import Table


def _code(client: TestClient, match_id: str, token: str) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    return client.get(f"/v1/matches/{match_id}/recovery", headers=headers)


def _recover(client: TestClient, match_id: str, code: str) -> Any:
    return client.post(f"/v1/matches/{match_id}/recover", json={"recovery_code": code})


def test_the_host_sees_the_code_it_was_given_and_it_recovers_the_match(table: Table) -> None:
    shown = _code(table.client, table.id, table.tokens["host"])
    assert shown.status_code == 200, shown.text
    assert shown.headers["cache-control"] == "no-store"
    assert shown.json() == {"recovery_code": table.tokens["recovery"]}
    recovered = _recover(table.client, table.id, shown.json()["recovery_code"])
    assert recovered.status_code == 200
    # The old host key and its code are gone; the new key shows the new code.
    assert _code(table.client, table.id, table.tokens["host"]).status_code == 401
    new = recovered.json()
    again = _code(table.client, table.id, new["token"])
    assert again.json() == {"recovery_code": new["recovery"]}


def test_a_host_token_re_issued_shows_its_new_code(table: Table) -> None:
    reissued = table.post("/tokens", {"role": "host"})
    assert reissued.status_code == 200
    new = reissued.json()
    assert _code(table.client, table.id, new["token"]).json()["recovery_code"] == new["recovery"]
    assert _recover(table.client, table.id, table.tokens["recovery"]).status_code == 401


def test_only_the_host_sees_the_code(table: Table) -> None:
    for who in (0, "viewer"):
        refused = table.get("/recovery", who=who)
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert table.client.get(f"{table.url}/recovery").status_code == 401


def test_a_rematch_s_host_sees_its_own_code_a_host_seat_taken_in_it_holds_none(
    table: Table,
) -> None:
    assert table.post("/end").status_code == 200
    rematch = table.post("/rematch").json()
    mine = _code(table.client, rematch["id"], rematch["tokens"]["host"])
    assert mine.json() == {"recovery_code": rematch["tokens"]["recovery"]}
    taken = table.post("/rematch/seat").json()
    none = _code(table.client, rematch["id"], taken["token"])
    assert none.status_code == 409 and none.json()["code"] == "recovery_not_kept"


def test_the_table_keeps_no_code_in_the_clear(table: Table, database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT role, recovery_sealed FROM credential WHERE match_id = :m"),
                {"m": table.id},
            ).all()
    finally:
        engine.dispose()
    sealed = [bytes(row[1]) for row in rows if row[1] is not None]
    assert [row[0] for row in rows if row[1] is not None] == ["host"]
    assert table.tokens["recovery"].encode() not in sealed[0]


def test_a_code_sealed_under_another_key_is_409_not_kept(table: Table, database_url: str) -> None:
    """A row that no longer opens with its host key (restored from elsewhere, say) is a
    clear 409, not a 500, and the code still recovers the match."""
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "UPDATE credential SET recovery_sealed = :other "
                    "WHERE match_id = :m AND role = 'host'"
                ),
                {"other": bytes(40), "m": table.id},
            )
    finally:
        engine.dispose()
    refused = _code(table.client, table.id, table.tokens["host"])
    assert refused.status_code == 409, refused.text
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["code"] == "recovery_not_kept"
    assert _recover(table.client, table.id, table.tokens["recovery"]).status_code == 200
