"""Reads whose size grows with the match (the sheet, its CSV, the histories): rendered
once per match version and served from that, and limited per client address; on
SQLite and PostgreSQL."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.services import rounds, sheet, tokens
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table, amounts
from tests.api.test_operational import _clear_of_a_window_edge

CSV = {"Accept": "text/csv"}


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times each renderer ran: the sheet, a round's and the match's history."""
    counts = {"sheet": 0, "round_history": 0, "history": 0}

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(sheet, "get_sheet", counting("sheet", sheet.get_sheet))
    monkeypatch.setattr(rounds, "round_history", counting("round_history", rounds.round_history))
    monkeypatch.setattr(tokens, "history", counting("history", tokens.history))
    return counts


def test_a_second_read_at_the_same_version_is_not_rendered_again(
    table: Table, renders: dict[str, int]
) -> None:
    table.round(amounts(18, -9, -9))
    for path, headers, renderer in [
        ("/sheet", {}, "sheet"),
        ("/sheet.csv", {}, "sheet"),
        ("/rounds/1/history", {}, "round_history"),
        ("/history", {}, "history"),
    ]:
        before = renders[renderer]
        first, second = table.get(path, headers=headers), table.get(path, "viewer", headers)
        assert first.status_code == second.status_code == 200, first.text
        assert renders[renderer] == before + 1, path
        assert second.content == first.content
        assert second.headers["etag"] == first.headers["etag"]
        assert second.headers["content-type"] == first.headers["content-type"]


def test_a_change_is_read_at_once_and_the_old_body_never_again(
    table: Table, renders: dict[str, int]
) -> None:
    table.round(amounts(18, -9, -9))
    old_sheet, old_csv = table.get("/sheet"), table.get("/sheet.csv")
    old_history = table.get("/rounds/1/history")
    table.put("/rounds/1", amounts(-9, 18, -9))
    for _ in range(2):  # the first read renders the new version, the second is kept
        new_sheet, new_csv = table.get("/sheet"), table.get("/sheet.csv")
        new_history = table.get("/rounds/1/history")
        assert new_sheet.json()["rows"][0]["cells"] != old_sheet.json()["rows"][0]["cells"]
        assert new_csv.text.splitlines()[1] != old_csv.text.splitlines()[1]
        (total,) = [line for line in new_csv.text.splitlines() if line.startswith("total,")]
        assert [int(cell) for cell in total.split(",")[2:]] == new_sheet.json()["totals"]
        assert len(new_history.json()["items"]) == len(old_history.json()["items"]) + 1
        for old, new in [(old_sheet, new_sheet), (old_csv, new_csv), (old_history, new_history)]:
            assert new.headers["etag"] != old.headers["etag"]
    assert renders["sheet"] == 4  # JSON and CSV, once before the change and once after


def test_the_match_history_follows_its_changes(table: Table, renders: dict[str, int]) -> None:
    before = table.get("/history")
    renamed = table.client.patch(
        f"{table.url}/players/1", json={"name": "Bori"}, headers=table.auth()
    )
    assert renamed.status_code == 200, renamed.text
    after = table.get("/history")
    assert before.json()["items"] == []
    assert [item["new_name"] for item in after.json()["items"]] == ["Bori"]
    assert after.headers["etag"] == f'"v{renamed.json()["version"]}"' != before.headers["etag"]
    assert table.get("/history").content == after.content
    assert renders["history"] == 2


def test_each_csv_language_is_kept_apart(table: Table, renders: dict[str, int]) -> None:
    table.round(amounts(18, -9, -9))
    answers = {lang: table.get(f"/sheet.csv?lang={lang}") for lang in ("en", "hu", "fr")}
    again = {lang: table.get(f"/sheet?lang={lang}", headers=CSV) for lang in ("en", "hu", "fr")}
    assert renders["sheet"] == 3
    assert answers["en"].text.startswith("round,")
    assert answers["hu"].text.startswith("leosztás,")
    assert answers["fr"].text.startswith("donne,")
    for lang, answer in answers.items():
        assert again[lang].content == answer.content
        assert again[lang].headers["etag"] == answer.headers["etag"]
    assert len({answer.headers["etag"] for answer in answers.values()}) == 3


@pytest.mark.parametrize(
    ("path", "renderer"),
    [
        ("/sheet", "sheet"),
        ("/sheet.csv?lang=hu", "sheet"),
        ("/rounds/1/history", "round_history"),
        ("/history", "history"),
    ],
)
def test_a_conditional_read_of_the_current_version_is_304_without_rendering(
    table: Table, renders: dict[str, int], path: str, renderer: str
) -> None:
    table.round(amounts(18, -9, -9))
    etag = table.get(path).headers["etag"]
    rendered = renders[renderer]
    unchanged = table.get(path, "viewer", {"If-None-Match": etag})
    assert unchanged.status_code == 304
    assert unchanged.headers["etag"] == etag
    assert unchanged.content == b""
    if renderer != "round_history":  # its 304 asks whether the round exists (one row)
        assert renders[renderer] == rendered
    table.round(amounts(-9, 18, -9))
    changed = table.get(path, "viewer", {"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag


def test_a_round_that_never_was_is_404_even_when_the_tag_matches(table: Table) -> None:
    table.round(amounts(18, -9, -9))
    etag = table.get("/rounds/1/history").headers["etag"]
    assert table.get("/rounds/2/history", headers={"If-None-Match": etag}).status_code == 404


@pytest.fixture
def limited(database_url: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Two clients of one app (one process) at two addresses, three heavy reads a minute."""
    _clear_of_a_window_edge()
    settings = Settings(
        database_url=database_url,
        rate_limit_matches_per_minute=0,
        rate_limit_reads_per_minute=3,
    )
    app = create_app(settings)
    address = f"198.51.100.{secrets.randbelow(250) + 1}"
    with TestClient(app, client=(address, 5000)) as one:
        # The same app, already started by ``one``: another address, the same process.
        yield one, TestClient(app, client=("192.0.2.7", 5000))


def test_heavy_reads_are_limited_per_address(limited: tuple[TestClient, TestClient]) -> None:
    one, other = limited
    table = Table(one, {"game": "asszorti", "players": PLAYERS})
    table.round(amounts(18, -9, -9))
    served = [table.get(path) for path in ("/sheet", "/sheet.csv?lang=hu", "/history")]
    assert [answer.status_code for answer in served] == [200, 200, 200]
    refused = table.get("/rounds/1/history")
    assert refused.status_code == 429, refused.text
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["code"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert table.get("/sheet").status_code == 429
    # A 304 is not counted, nor refused: it sends nothing and costs one indexed read.
    etag = served[0].headers["etag"]
    assert table.get("/sheet", headers={"If-None-Match": etag}).status_code == 304
    # Small reads are not limited.
    assert table.get("").status_code == 200
    # Another address still reads the same match.
    elsewhere = other.get(table.url + "/sheet", headers=table.auth("viewer"))
    assert elsewhere.status_code == 200
    assert elsewhere.content == served[0].content
