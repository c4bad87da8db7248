"""GET .../rounds a page at a time, and the cap on a match's rounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
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
