"""Previewing a round with the match's own settings (scoreMatchRound), on SQLite and
PostgreSQL: it scores as entering the round would, refuses what entering would, and
stores nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.helpers import PLAYERS, Table, hand


def own(*values: int) -> dict[str, Any]:
    return {"type": "own_points", "points": list(values)}


def test_preview_is_what_entering_the_round_stores(table: Table) -> None:
    body = hand(declarer=1, tricks=[2, 7, 2], kontra="kontra")
    before = table.snapshot()
    etag = table.get().headers["etag"]

    preview = table.post("/score", body, who=0)

    assert preview.status_code == 200, preview.text
    assert table.snapshot() == before
    assert table.get().headers["etag"] == etag
    entered = table.round(body)
    assert preview.json() == {
        "net": entered["result"]["net"],
        "cells": None,
        "breakdown": entered["result"]["breakdown"],
    }


def test_preview_on_a_table_without_kontra_is_refused_as_entering_would_be(
    make_table: Any,
) -> None:
    table = make_table(settings={"kontra": False})
    body = hand(declarer=0, tricks=[7, 2, 2], kontra="kontra")

    preview = table.post("/score", body)
    entered = table.post("/rounds", body)

    assert preview.status_code == entered.status_code == 422
    assert preview.json()["code"] == entered.json()["code"] == "validation_error"
    assert preview.json()["errors"] == entered.json()["errors"]
    assert preview.json()["errors"][0]["loc"] == ["body", "kontra"]
    # The calculator, with the default settings, would have scored it.
    assert table.client.post("/v1/games/asszorti/score", json=body).status_code == 200


def test_preview_of_a_zero_sum_own_table_refuses_a_round_that_does_not_sum_to_zero(
    client: TestClient,
) -> None:
    table = Table(client, {"game": "own_table", "players": PLAYERS, "settings": {"zero_sum": True}})
    refused = table.post("/score", own(5, -2, -2))
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["loc"][0] == "body"

    scored = table.post("/score", own(5, -3, -2))
    assert scored.status_code == 200, scored.text
    assert scored.json()["cells"] == [5, -3, -2]
    assert scored.json()["breakdown"]["game"] == "own_table"
    assert table.match()["round_count"] == 0


def test_preview_of_an_own_table_without_negatives_names_the_point(client: TestClient) -> None:
    table = Table(
        client, {"game": "own_table", "players": PLAYERS, "settings": {"negatives": False}}
    )
    preview = table.post("/score", own(3, -1, 0))
    assert preview.status_code == 422
    assert preview.json()["errors"][0]["loc"] == ["body", "points", 1]
    # The calculator's defaults allow negatives: only the match's settings refuse it.
    calculator = client.post("/v1/games/own_table/score", json=own(3, -1, 0))
    assert calculator.status_code == 200, calculator.text


def test_preview_scores_for_the_match_s_players(client: TestClient) -> None:
    table = Table(client, {"game": "own_table", "players": ["Anna", "Bela"]})
    assert table.post("/score", own(4, 1)).json()["cells"] == [4, 1]
    # Three points for a table of two: the seat count is the match's.
    refused = table.post("/score", own(4, 1, 0))
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["loc"][:2] == ["body", "points"]


@pytest.mark.parametrize("who", ["host", 0, 2])
def test_players_and_the_host_may_preview(table: Table, who: str | int) -> None:
    assert table.post("/score", hand(declarer=0, tricks=[7, 2, 2]), who=who).status_code == 200


def test_a_viewer_cannot_preview_as_a_viewer_cannot_enter_rounds(table: Table) -> None:
    response = table.post("/score", hand(declarer=0, tricks=[7, 2, 2]), who="viewer")
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_a_viewer_is_refused_before_the_body_is_read(table: Table) -> None:
    response = table.post("/score", {"type": "asszorti_hand"}, who="viewer")
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_preview_keeps_no_answer_for_an_idempotency_key(table: Table) -> None:
    # Nothing is written, so there is nothing to replay: each body is scored afresh.
    key = {"Idempotency-Key": "preview-1"}
    first = table.post("/score", hand(declarer=0, tricks=[7, 2, 2]), headers=key)
    second = table.post("/score", hand(declarer=1, tricks=[2, 7, 2]), headers=key)
    assert first.status_code == second.status_code == 200
    assert first.json()["net"] != second.json()["net"]


def test_preview_without_a_known_token_is_401_before_the_body_is_read(table: Table) -> None:
    bad = {"type": "asszorti_hand"}
    assert table.client.post(table.url + "/score", json=bad).status_code == 401
    unknown = {"Authorization": "Bearer abc.def"}
    response = table.client.post(table.url + "/score", json=bad, headers=unknown)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_preview_of_another_or_no_match(client: TestClient, table: Table) -> None:
    other = Table(client, {"game": "asszorti", "players": PLAYERS})
    body = {"type": "asszorti_hand"}  # invalid too: the caller is checked first
    foreign = client.post(other.url + "/score", json=body, headers=table.auth())
    assert foreign.status_code == 403
    missing = client.post("/v1/matches/" + "0" * 32 + "/score", json=body, headers=table.auth())
    assert missing.status_code == 404
    assert missing.json()["code"] == "match_not_found"


def test_preview_of_a_round_of_another_game_names_the_type(table: Table) -> None:
    response = table.post("/score", own(1, 2, 3))
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "type"]


def test_preview_of_a_malformed_hand_names_the_field(table: Table) -> None:
    response = table.post("/score", hand(declarer=5, tricks=[7, 2, 2]))
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"
    assert response.json()["errors"][0]["loc"][:2] == ["body", "declarer"]


def test_preview_on_an_ended_match_is_refused_as_entering_would_be(table: Table) -> None:
    body = hand(declarer=1, tricks=[2, 7, 2])
    table.round(body)
    assert table.post("/end").status_code == 200

    preview = table.post("/score", body)
    entered = table.post("/rounds", body)

    assert preview.status_code == entered.status_code == 409, preview.text
    assert preview.json()["code"] == entered.json()["code"] == "match_ended"
    assert preview.json()["detail"] == entered.json()["detail"]
    # A body entering would refuse is the 422 first, as entering gives it.
    wrong = hand(declarer=1, tricks=[2, 7, 3])
    assert table.post("/score", wrong).status_code == table.post("/rounds", wrong).status_code
    assert table.post("/score", wrong).json()["code"] == "validation_error"
