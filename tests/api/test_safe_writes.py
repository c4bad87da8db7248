"""Idempotency-Key, If-Match and the round history, through the API."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi import Response
from fastapi.testclient import TestClient

from app.api.deps import PlayerDep
from app.db import repository
from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table, amounts, hand

MATCH_BODY = {"game": "asszorti", "players": PLAYERS}


def test_create_match_replays_the_same_tokens(client: Any) -> None:
    headers = {"Idempotency-Key": "create-7f3a9c1e-4b2d-4e8a-9f6b"}
    first = client.post("/v1/matches", json=MATCH_BODY, headers=headers)
    again = client.post("/v1/matches", json=MATCH_BODY, headers=headers)
    assert first.status_code == again.status_code == 201
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    other = client.post(
        "/v1/matches", json={**MATCH_BODY, "players": ["X", "Y", "Z"]}, headers=headers
    )
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"


def test_round_retry_writes_once(table: Table) -> None:
    key = {"Idempotency-Key": "round-1"}
    first = table.post("/rounds", amounts(2, -1, -1), headers=key)
    retry = table.post("/rounds", amounts(2, -1, -1), headers=key)
    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry.headers["etag"] == first.headers["etag"]
    assert retry.headers["idempotent-replayed"] == "true"
    assert table.match()["round_count"] == 1
    reused = table.post("/rounds", amounts(4, -2, -2), headers=key)
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    assert table.match()["round_count"] == 1


def test_a_kept_response_is_replayed_only_to_a_caller_allowed_to_make_the_write(
    table: Table,
) -> None:
    """A kept response is replayed only once the caller's access is checked: a viewer,
    an unknown token or a token the host re-issued gets its 403 or 401, never the kept
    response; and a refused caller's request with a new key does not take the key."""
    key = {"Idempotency-Key": "round-for-the-table"}
    first = table.post("/rounds", amounts(2, -1, -1), who=1, headers=key)
    assert first.status_code == 201
    old_seat_1 = table.auth(1)
    reissued = table.post("/tokens", {"role": "player", "seat": 1})
    assert reissued.status_code == 200

    viewer = table.post("/rounds", amounts(2, -1, -1), who="viewer", headers=key)
    assert viewer.status_code == 403 and viewer.json()["code"] == "forbidden"
    revoked = table.client.post(
        table.url + "/rounds", json=amounts(2, -1, -1), headers={**old_seat_1, **key}
    )
    assert revoked.status_code == 401 and revoked.json()["code"] == "unauthenticated"
    credential_id = table.tokens["host"].split(".")[0]
    unknown = table.client.post(
        table.url + "/rounds",
        json=amounts(2, -1, -1),
        headers={"Authorization": f"Bearer {credential_id}.{'A' * 43}", **key},
    )
    assert unknown.status_code == 401
    for refused in (viewer, revoked, unknown):
        assert "idempotent-replayed" not in refused.headers
        assert "number" not in refused.json()

    allowed = table.post("/rounds", amounts(2, -1, -1), who=0, headers=key)
    assert allowed.status_code == 201
    assert allowed.headers["idempotent-replayed"] == "true"
    assert allowed.json() == first.json()
    assert table.match()["round_count"] == 1

    # A refused request with a new key leaves the key free: the allowed request
    # with it goes ahead, as the first use of the key.
    fresh = {"Idempotency-Key": "round-after-a-refusal"}
    refused = table.post("/rounds", amounts(2, -1, -1), who="viewer", headers=fresh)
    assert refused.status_code == 403
    went_ahead = table.post("/rounds", amounts(2, -1, -1), who=0, headers=fresh)
    assert went_ahead.status_code == 201 and "idempotent-replayed" not in went_ahead.headers
    assert table.match()["round_count"] == 2


def test_same_key_on_another_match_is_independent(client: Any) -> None:
    one, two = Table(client, MATCH_BODY), Table(client, MATCH_BODY)
    key = {"Idempotency-Key": "shared-key"}
    assert one.post("/rounds", amounts(2, -1, -1), headers=key).status_code == 201
    second = two.post("/rounds", amounts(2, -1, -1), headers=key)
    assert second.status_code == 201 and "idempotent-replayed" not in second.headers


def test_a_state_conflict_is_stored_and_replayed(table: Table) -> None:
    table.post("/end")
    key = {"Idempotency-Key": "late-round"}
    first = table.post("/rounds", amounts(2, -1, -1), headers=key)
    again = table.post("/rounds", amounts(2, -1, -1), headers=key)
    assert first.status_code == again.status_code == 409
    assert again.json() == first.json() and again.json()["code"] == "match_ended"
    assert again.headers["content-type"] == "application/problem+json"
    assert again.headers["idempotent-replayed"] == "true"


def test_a_validation_error_stores_nothing(table: Table) -> None:
    key = {"Idempotency-Key": "fix-and-retry"}
    bad = table.post("/rounds", amounts(2, -1, 0), headers=key)
    assert bad.status_code == 422
    fixed = table.post("/rounds", amounts(2, -1, -1), headers=key)
    assert fixed.status_code == 201 and "idempotent-replayed" not in fixed.headers


def test_end_match_replay(table: Table) -> None:
    key = {"Idempotency-Key": "end-once"}
    first = table.post("/end", who=1, headers=key)
    again = table.post("/end", who=1, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"
    plain = table.post("/end", who=1)
    assert plain.status_code == 409 and plain.json()["code"] == "match_ended"


@pytest.mark.parametrize("key", ["", "x" * 256, "tab\there", "caf\u00e9", " leading"])
def test_bad_idempotency_keys_are_422(table: Table, key: str) -> None:
    response = table.client.post(
        table.url + "/rounds",
        json=amounts(2, -1, -1),
        headers={**table.auth(), "Idempotency-Key": key.encode("utf-8")},  # type: ignore[dict-item]
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "invalid_header"
    assert problem["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    assert table.match()["round_count"] == 0


def test_a_255_character_key_is_fine(table: Table) -> None:
    response = table.post("/rounds", amounts(2, -1, -1), headers={"Idempotency-Key": "k" * 255})
    assert response.status_code == 201


def test_if_match_current_and_stale(table: Table) -> None:
    etag = table.get().headers["etag"]
    ok = table.post("/rounds", amounts(2, -1, -1), headers={"If-Match": etag})
    assert ok.status_code == 201
    before = table.snapshot()
    writes = [
        table.post("/rounds", amounts(2, -1, -1), headers={"If-Match": etag}),
        table.put("/rounds/1", amounts(4, -2, -2), headers={"If-Match": etag}),
        table.delete("/rounds/1", headers={"If-Match": etag}),
        table.client.patch(
            table.url,
            json={"settings": {"kontra": False}},
            headers={**table.auth(), "If-Match": etag},
        ),
        table.post("/end", headers={"If-Match": etag}),
    ]
    assert [w.status_code for w in writes] == [412] * 5
    assert {w.json()["code"] for w in writes} == {"precondition_failed"}
    assert table.snapshot() == before
    current = ok.headers["etag"]
    listed = f'"v999", {current}'
    assert table.post("/rounds", amounts(0, 0, 0), headers={"If-Match": listed}).status_code == 201
    assert table.post("/rounds", amounts(0, 0, 0), headers={"If-Match": "*"}).status_code == 201


@pytest.mark.parametrize("value", ['W/"v1"', "v1", '"v1', "", '"v1" "v2"'])
def test_weak_or_malformed_if_match_is_422(table: Table, value: str) -> None:
    response = table.post("/rounds", amounts(2, -1, -1), headers={"If-Match": value})
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["loc"] == ["header", "If-Match"]
    assert table.match()["round_count"] == 0


def test_if_match_on_a_missing_match_is_404(table: Table) -> None:
    response = table.client.post(
        "/v1/matches/nope/rounds",
        json=amounts(2, -1, -1),
        headers={**table.auth(), "If-Match": '"v1"'},
    )
    assert response.status_code == 404 and response.json()["code"] == "match_not_found"


def test_replay_comes_before_the_precondition(table: Table) -> None:
    etag = table.get().headers["etag"]
    headers = {"Idempotency-Key": "k-etag", "If-Match": etag}
    first = table.post("/rounds", amounts(2, -1, -1), headers=headers)
    again = table.post("/rounds", amounts(2, -1, -1), headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"


def test_history_keeps_every_version(table: Table) -> None:
    table.round(hand(1, [2, 7, 2]), who=1)
    table.round(amounts(2, -1, -1), who=0)
    assert table.put("/rounds/2", amounts(4, -2, -2), who=2).status_code == 200
    assert table.delete("/rounds/2", who=0).status_code == 204
    table.round(amounts(6, -3, -3), who=1)
    history = table.get("/rounds/2/history", who="viewer").json()
    assert history["number"] == 2
    items = history["items"]
    assert [(i["revision"], i["action"], i["by"]) for i in items] == [
        (1, "entered", "seat:0"),
        (2, "corrected", "seat:2"),
        (3, "removed", "seat:0"),
        (4, "entered", "seat:1"),
    ]
    assert [i["input"]["amounts"] if i["input"] else None for i in items] == [
        [2, -1, -1],
        [4, -2, -2],
        None,
        [6, -3, -3],
    ]
    assert table.get("/rounds/1/history").json()["items"][0]["input"]["declarer"] == 1
    missing = table.get("/rounds/9/history")
    assert missing.status_code == 404 and missing.json()["code"] == "round_not_found"
    ended = table.post("/end", who=2).json()
    assert ended["ended_by"] == "seat:2"


def test_history_of_rounds_removed_or_corrected_twice(table: Table) -> None:
    table.round(amounts(2, -1, -1), who=0)
    assert table.put("/rounds/1", amounts(4, -2, -2), who=1).status_code == 200
    assert table.put("/rounds/1", amounts(6, -3, -3), who=2).status_code == 200
    table.round(amounts(-2, 1, 1), who=1)
    assert table.delete("/rounds/2", who=2).status_code == 204
    first = table.get("/rounds/1/history").json()["items"]
    assert [(i["action"], i["by"], i["input"]["amounts"]) for i in first] == [
        ("entered", "seat:0", [2, -1, -1]),
        ("corrected", "seat:1", [4, -2, -2]),
        ("corrected", "seat:2", [6, -3, -3]),
    ]
    times = [i["recorded_at"] for i in first]
    assert times == sorted(times)
    second = table.get("/rounds/2/history").json()["items"]
    assert [(i["action"], i["by"]) for i in second] == [
        ("entered", "seat:1"),
        ("removed", "seat:2"),
    ]
    assert second[0]["input"]["amounts"] == [-2, 1, 1] and second[1]["input"] is None


def _history_pages(table: Table, number: int, limit: int) -> list[Any]:
    """Every page of a round's history, following ``next`` from the first."""
    response = table.client.get(
        f"{table.url}/rounds/{number}/history?limit={limit}", headers=table.auth()
    )
    pages = [response]
    while (next_url := response.json()["next"]) is not None:
        assert response.headers["link"] == f'<{next_url}>; rel="next"'
        response = table.client.get(next_url, headers=table.auth())
        pages.append(response)
    assert all(page.status_code == 200 for page in pages)
    assert "link" not in pages[-1].headers
    return pages


def test_history_comes_a_page_at_a_time_and_following_next_gives_each_input_once(
    table: Table,
) -> None:
    """A round corrected again and again has a history as long: it is answered in
    pages, like the rounds, each revision once and in order; the input the round
    holds now, never replaced, is the last revision of the last page."""
    table.round(amounts(2, -1, -1), who=0)
    for k in range(1, 6):
        assert table.put("/rounds/1", amounts(2 * k, -k, -k), who=k % 3).status_code == 200
    table.round(amounts(-2, 1, 1), who=1)  # round 2: entered, never replaced
    whole = table.get("/rounds/1/history").json()
    assert whole["next"] is None and len(whole["items"]) == 6

    pages = _history_pages(table, 1, limit=4)
    assert [len(page.json()["items"]) for page in pages] == [4, 2]
    items = [item for page in pages for item in page.json()["items"]]
    assert items == whole["items"]
    assert [item["revision"] for item in items] == [1, 2, 3, 4, 5, 6]
    assert pages[0].json()["next"].endswith("/rounds/1/history?after=4&limit=4")
    assert len({page.headers["etag"] for page in pages}) == 1

    two = [page.json()["items"] for page in _history_pages(table, 2, limit=1)]
    assert [(item["revision"], item["action"]) for page in two for item in page] == [(1, "entered")]
    table.delete("/rounds/2", who=2)
    table.round(amounts(4, -2, -2), who=0)  # entered again after its removal
    again = [page.json()["items"] for page in _history_pages(table, 2, limit=2)]
    assert [[(i["revision"], i["action"], i["by"]) for i in page] for page in again] == [
        [(1, "entered", "seat:1"), (2, "removed", "seat:2")],
        [(3, "entered", "seat:0")],
    ]
    # A correction between two page reads: the next page goes on where the first
    # stopped, and ends with it.
    first = table.get("/rounds/1/history?limit=4").json()
    assert table.put("/rounds/1", amounts(-2, 1, 1), who=2).status_code == 200
    rest = table.client.get(first["next"], headers=table.auth()).json()
    assert [i["revision"] for i in first["items"] + rest["items"]] == list(range(1, 8))
    assert rest["items"][:2] == whole["items"][4:] and rest["next"] is None
    assert rest["items"][-1]["input"]["amounts"] == [-2, 1, 1]
    past = table.get("/rounds/2/history?after=3")
    assert past.status_code == 200 and past.json() == {"number": 2, "items": [], "next": None}
    bad = table.get("/rounds/1/history?limit=0")
    assert bad.status_code == 422 and "limit" in bad.text


def test_a_route_that_fails_after_writing_commits_nothing(table: Table, database_url: str) -> None:
    """A route's unit of work (``slot.unit_as_caller()`` of its ``PlayerDep``) commits only when
    its block ends: one that writes and then fails is rolled back, answered as a
    problem+json 500, and the match is unchanged."""
    table.round(amounts(2, -1, -1))
    before = table.match()
    app = create_app(Settings(database_url=database_url, rate_limit_matches_per_minute=0))

    @app.post("/test/{match_id}/fails")
    def write_then_fail(slot: PlayerDep, match_id: str) -> Response:
        with slot.unit_as_caller() as caller:
            version = caller.match["version"] + 1
            repository.update_match(caller.uow.connection, match_id, {"version": version})
            raise RuntimeError("a bug after the write")

    @app.post("/test/{match_id}/writes")
    def write(slot: PlayerDep, match_id: str) -> Response:
        with slot.unit_as_caller() as caller:
            version = caller.match["version"] + 1
            repository.update_match(caller.uow.connection, match_id, {"version": version})
        return Response(status_code=204)

    with TestClient(app, raise_server_exceptions=False) as client:
        failed = client.post(f"/test/{table.id}/fails", headers=table.auth(1))
        assert failed.status_code == 500
        assert failed.headers["content-type"] == "application/problem+json"
        assert failed.json()["code"] == "internal_error"
        assert table.match() == before
        refused = client.post(f"/test/{table.id}/writes", headers=table.auth("viewer"))
        assert refused.status_code == 403 and table.match() == before
        assert client.post(f"/test/{table.id}/writes", headers=table.auth(1)).status_code == 204
    assert table.match()["version"] == before["version"] + 1


def test_one_hand_from_two_phones_against_one_version_is_stored_once(table: Table) -> None:
    """What the page relies on when two phones add the same hand together: each sends
    If-Match of the sheet it shows and a key of its own. One is stored; the other is
    412 with nothing kept under its key, so the rounds stored meanwhile (with who
    entered them) are what it reads next, and adding its hand after all is a new
    request against the current version, which its own key may still make."""
    for race in range(1, 6):
        etag = table.get().headers["etag"]
        barrier = threading.Barrier(2)

        def send(
            seat: int, etag: str = etag, barrier: threading.Barrier = barrier, race: int = race
        ) -> Any:
            headers = {"If-Match": etag, "Idempotency-Key": f"race-{race}-seat-{seat}"}
            barrier.wait()
            return table.post("/rounds", amounts(2, -1, -1), who=seat, headers=headers)

        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(send, [0, 1]))
        assert sorted(a.status_code for a in answers) == [201, 412], [a.text for a in answers]
        winner = next(seat for seat, a in enumerate(answers) if a.status_code == 201)
        refused = answers[1 - winner]
        assert refused.json()["code"] == "precondition_failed"
        assert answers[winner].json()["number"] == race
        assert table.match()["round_count"] == race
        since = table.get(f"/rounds?after={race - 1}").json()["items"]
        assert [(r["number"], r["entered_by"]) for r in since] == [(race, f"seat:{winner}")]

    # The last loser says "add mine as the next round": its key, the current version.
    loser = 1 - winner
    again = table.post(
        "/rounds",
        amounts(2, -1, -1),
        who=loser,
        headers={
            "If-Match": table.get().headers["etag"],
            "Idempotency-Key": f"race-5-seat-{loser}",
        },
    )
    assert again.status_code == 201 and again.json()["number"] == 6
    assert again.json()["entered_by"] == f"seat:{loser}"
    replay = table.post(
        "/rounds",
        amounts(2, -1, -1),
        who=loser,
        headers={"Idempotency-Key": f"race-5-seat-{loser}"},
    )
    assert replay.status_code == 201 and replay.headers["idempotent-replayed"] == "true"
    assert replay.json() == again.json()
    assert table.match()["round_count"] == 6
