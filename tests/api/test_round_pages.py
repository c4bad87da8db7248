"""GET .../rounds a page at a time, and the cap on a match's rounds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.main import create_app
from app.services.rounds import CHECKPOINT_EVERY
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table

AMOUNTS = [
    [2, -1, -1],
    [-2, 4, -2],
    [6, -3, -3],
    [-5, 10, -5],
    [6, -3, -3],
    [-1, -1, 2],
    [4, -2, -2],
]


@pytest.fixture
def played(table: Table) -> Table:
    for amounts in AMOUNTS:
        entered = table.post("/rounds", {"type": "asszorti_amounts", "amounts": amounts})
        assert entered.status_code == 201, entered.text
    return table


def _pages(table: Table, url: str) -> Iterator[Any]:
    while url:
        response = table.client.get(url, headers=table.auth("viewer"))
        assert response.status_code == 200, response.text
        yield response
        url = response.json()["next"]


def test_following_next_gives_every_round_once_with_the_same_sheet_rows(played: Table) -> None:
    whole = played.get("/rounds", who="viewer").json()
    assert whole["next"] is None and len(whole["items"]) == len(AMOUNTS)
    pages = list(_pages(played, played.url + "/rounds?limit=3"))
    assert [len(page.json()["items"]) for page in pages] == [3, 3, 1]
    items = [item for page in pages for item in page.json()["items"]]
    # Each page folds the sheet from the rounds before it: the rows agree with one page.
    assert items == whole["items"]
    assert pages[0].headers["link"] == f'<{played.url}/rounds?after=3&limit=3>; rel="next"'
    assert "link" not in pages[-1].headers
    assert {page.headers["etag"] for page in pages} == {played.get().headers["etag"]}


def test_a_page_after_the_last_round_is_empty_and_has_no_next(played: Table) -> None:
    page = played.get(f"/rounds?after={len(AMOUNTS)}").json()
    assert page == {"items": [], "next": None}


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "after=-1", "limit=x"])
def test_a_bad_page_query_is_422_naming_the_parameter(played: Table, query: str) -> None:
    response = played.get(f"/rounds?{query}")
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"
    assert response.json()["errors"][0]["loc"] == ["query", query.split("=")[0]]


def test_a_match_holds_at_most_the_configured_rounds(database_url: str) -> None:
    settings = Settings(
        database_url=database_url, rate_limit_matches_per_minute=0, max_rounds_per_match=3
    )
    with TestClient(create_app(settings)) as client:
        table = Table(client, {"game": "asszorti", "players": PLAYERS})
        for amounts in AMOUNTS[:3]:
            assert table.post(
                "/rounds", {"type": "asszorti_amounts", "amounts": amounts}
            ).is_success
        before = table.get()
        full = table.post("/rounds", {"type": "asszorti_amounts", "amounts": AMOUNTS[3]})
        assert full.status_code == 409
        assert full.json()["code"] == "match_full"
        assert table.get().json() == before.json()  # nothing changed
        # Corrections and undo still work on a full match.
        corrected = {"type": "asszorti_amounts", "amounts": [-2, 1, 1]}
        assert table.put("/rounds/3", corrected).status_code == 200
        assert table.delete("/rounds/3").status_code == 204
        assert table.post("/rounds", {"type": "asszorti_amounts", "amounts": [0, 0, 0]}).is_success


def _kept(table: Table) -> dict[int, Any]:
    """The fold's states the match's rounds keep, by round number."""
    db = table.client.app.state.db  # type: ignore[attr-defined]
    query = text("SELECT number, sheet FROM round WHERE match_id = :m AND sheet IS NOT NULL")
    rows = db.run_now(lambda uow: uow.connection.execute(query, {"m": table.id}).all())
    return {
        number: json.loads(sheet) if isinstance(sheet, str) else sheet for number, sheet in rows
    }


def test_a_long_match_keeps_the_folds_state_every_hundred_rounds(table: Table) -> None:
    """Every hundredth round keeps the sheet's state after it, which pages, rounds and
    an undo fold from; a correction drops the states from its round on, and every
    read still agrees with the whole sheet."""
    long = 2 * CHECKPOINT_EVERY + 5
    for k in range(long):
        amounts = AMOUNTS[k % len(AMOUNTS)]
        assert (
            table.post("/rounds", {"type": "asszorti_amounts", "amounts": amounts}).status_code
            == 201
        )
    sheet = table.get("/sheet").json()
    kept = _kept(table)
    assert sorted(kept) == [CHECKPOINT_EVERY, 2 * CHECKPOINT_EVERY]
    for number, state in kept.items():
        assert (
            state["totals"] == sheet["rows"][number - 1]["cells"]
            or state["totals"] == (table.get(f"/rounds/{number}").json()["result"]["totals"])
        )

    def agrees() -> None:
        whole = table.get("/sheet").json()["rows"]
        for after in (0, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, 2 * CHECKPOINT_EVERY + 1):
            page = table.get(f"/rounds?after={after}&limit=3").json()["items"]
            assert [item["result"]["cells"] for item in page] == [
                row["cells"] for row in whole[after : after + 3]
            ], after
        last = table.get(f"/rounds/{len(whole)}").json()
        assert last["result"]["totals"] == table.match()["totals"]

    agrees()
    fixed = table.put(
        f"/rounds/{CHECKPOINT_EVERY + 50}", {"type": "asszorti_amounts", "amounts": [-2, 4, -2]}
    )
    assert fixed.status_code == 200, fixed.text
    assert sorted(_kept(table)) == [CHECKPOINT_EVERY]
    agrees()
    before_undo = table.get(f"/rounds/{long - 1}").json()["result"]["totals"]
    assert (
        table.client.delete(f"{table.url}/rounds/{long}", headers=table.auth()).status_code == 204
    )
    assert table.match()["totals"] == before_undo
    agrees()
