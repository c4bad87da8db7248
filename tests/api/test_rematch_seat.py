"""Every phone of an ended match takes its own seat in the rematch, with the token it
holds: the same role and seat, never more; a token re-issued meanwhile gets nothing."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import Table


def _ended_with_rematch(table: Table) -> dict[str, Any]:
    assert table.post("/end").status_code == 200
    started = table.post("/rematch")
    assert started.status_code == 201, started.text
    return dict(started.json())


def _take(table: Table, who: str | int) -> Any:
    return table.post("/rematch/seat", who=who)


def _me(client: TestClient, match_id: str, token: str) -> Any:
    return client.get(f"/v1/matches/{match_id}/me", headers={"Authorization": f"Bearer {token}"})


def test_each_token_takes_its_own_role_and_seat_in_the_rematch(table: Table) -> None:
    rematch = _ended_with_rematch(table)
    for who, role, seat in [(1, "player", 1), ("viewer", "viewer", None), ("host", "host", None)]:
        taken = _take(table, who)
        assert taken.status_code == 200, taken.text
        assert taken.headers["cache-control"] == "no-store"
        body = taken.json()
        assert (body["match_id"], body["role"], body["seat"]) == (rematch["id"], role, seat)
        assert body["link"] == f"/#/m/{rematch['id']}?t={body['token']}"
        me = _me(table.client, rematch["id"], body["token"])
        assert me.json() == {"role": role, "seat": seat}
    # The rematch's own tokens, handed out by the host, still work beside them.
    host_link_token = rematch["tokens"]["players"][1]
    assert _me(table.client, rematch["id"], host_link_token).json()["seat"] == 1


def test_a_seat_taken_again_replaces_the_token_taken_before(table: Table) -> None:
    rematch = _ended_with_rematch(table)
    first = _take(table, 2).json()["token"]
    second = _take(table, 2).json()["token"]
    assert first != second
    assert _me(table.client, rematch["id"], first).status_code == 401
    assert _me(table.client, rematch["id"], second).json() == {"role": "player", "seat": 2}
    # Another seat's token is a credential of its own.
    other = _take(table, 0).json()["token"]
    assert _me(table.client, rematch["id"], second).status_code == 200
    assert _me(table.client, rematch["id"], other).json()["seat"] == 0


def test_a_token_re_issued_meanwhile_gets_nothing(table: Table) -> None:
    assert table.post("/end").status_code == 200
    old = table.auth(1)
    assert table.post("/tokens", {"role": "player", "seat": 1}).status_code == 200
    assert table.post("/rematch").status_code == 201
    refused = table.client.post(f"{table.url}/rematch/seat", headers=old)
    assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"


def test_once_the_host_replaced_the_seat_in_the_rematch_the_old_token_gets_nothing(
    table: Table,
) -> None:
    rematch = _ended_with_rematch(table)
    taken = _take(table, 1).json()["token"]
    host = {"Authorization": f"Bearer {rematch['tokens']['host']}"}
    reissued = table.client.post(
        f"/v1/matches/{rematch['id']}/tokens", json={"role": "player", "seat": 1}, headers=host
    )
    assert reissued.status_code == 200
    assert _me(table.client, rematch["id"], taken).status_code == 401  # replaced with the seat
    again = _take(table, 1)
    assert again.status_code == 403 and again.json()["code"] == "forbidden"
    assert _take(table, 2).status_code == 200  # the other seats are not affected


def test_no_rematch_yet_is_a_conflict_and_other_matches_tokens_are_refused(
    table: Table, make_table: Any
) -> None:
    early = _take(table, 0)
    assert early.status_code == 409 and early.json()["code"] == "rematch_not_started"
    assert table.post("/end").status_code == 200
    ended = _take(table, "viewer")
    assert ended.status_code == 409 and ended.json()["code"] == "rematch_not_started"
    other = make_table()
    foreign = table.client.post(f"{table.url}/rematch/seat", headers=other.auth(0))
    assert foreign.status_code == 403
    anonymous = table.client.post(f"{table.url}/rematch/seat")
    assert anonymous.status_code == 401


def test_an_invalid_past_end_is_refused_after_the_caller_is_checked(table: Table) -> None:
    path = f"{table.url}/events?past_end=maybe"
    assert table.client.get(path).status_code == 401  # the caller first, as everywhere
    refused = table.client.get(path, headers=table.auth("viewer"))
    assert refused.status_code == 422
    assert [e["loc"] for e in refused.json()["errors"]] == [["query", "past_end"]]
