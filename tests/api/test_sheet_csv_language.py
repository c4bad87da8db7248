"""The CSV sheet in the language asked for (``?lang=``): its headings only, English
when nothing is asked, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import Table, amounts, hand

CSV = {"Accept": "text/csv"}


@pytest.mark.parametrize(
    ("lang", "heading", "total", "owed"),
    [
        ("hu", "leosztás,osztó,Anna,Berta,Csaba", "összesen,,9,18,0", "tartozás,,0,9,18"),
        ("fr", "donne,donneur,Anna,Berta,Csaba", "total,,9,18,0", "dû,,0,9,18"),
        ("ru", "сдача,сдающий,Anna,Berta,Csaba", "итого,,9,18,0", "долг,,0,9,18"),
    ],
)
def test_csv_headings_follow_the_language_asked_for(
    table: Table, lang: str, heading: str, total: str, owed: str
) -> None:
    table.round(hand(declarer=1, tricks=[2, 7, 2]))
    table.round(amounts(18, -9, -9))
    expected = [heading, "1,Anna,0,18,0", "2,Berta,9,0,0", total, owed]
    by_path = table.get(f"/sheet.csv?lang={lang}", who="viewer")
    assert by_path.status_code == 200
    assert by_path.headers["content-type"] == "text/csv; charset=utf-8"
    assert by_path.text.splitlines() == expected
    by_accept = table.get(f"/sheet?lang={lang}", who=0, headers=CSV)
    assert by_accept.text.splitlines() == expected


def test_csv_is_english_when_no_language_is_asked_for(table: Table) -> None:
    table.round(amounts(18, -9, -9))
    plain = table.get("/sheet.csv").text
    assert plain.splitlines()[0] == "round,dealer,Anna,Berta,Csaba"
    assert table.get("/sheet.csv?lang=en").text == plain


def test_an_own_tables_rules_row_is_named_in_the_language(client: Any) -> None:
    rules = "Highest total wins"
    table = Table(
        client,
        {"game": "own_table", "players": ["Anna", "Bela"], "settings": {"table_rules": rules}},
    )
    csv = table.get("/sheet.csv?lang=fr").text.splitlines()
    assert csv[:2] == [f"règles,{rules}", "donne,donneur,Anna,Bela"]


@pytest.mark.parametrize(
    ("lang", "heading", "total"),
    [
        ("en", "round,dealer,Team 1 (Anna & Cili),Team 2 (Bela & Dani)", "total"),
        ("hu", "leosztás,osztó,1. csapat (Anna és Cili),2. csapat (Bela és Dani)", "összesen"),
        ("fr", "donne,donneur,Équipe 1 (Anna et Cili),Équipe 2 (Bela et Dani)", "total"),
        ("ru", "сдача,сдающий,Команда 1 (Anna и Cili),Команда 2 (Bela и Dani)", "итого"),
    ],
)
def test_unnamed_teams_are_headed_in_the_language(
    client: Any, lang: str, heading: str, total: str
) -> None:
    four = ["Anna", "Bela", "Cili", "Dani"]
    table = Table(client, {"game": "alkort", "players": four})
    table.round({"type": "alkort_points", "team": 1, "points": 5})
    csv = table.get(f"/sheet.csv?lang={lang}").text.splitlines()
    assert csv == [heading, "1,Anna,0,5", f"{total},,0,5"]
    # The JSON sheet keeps the API's English headings whatever is asked.
    english = ["Team 1 (Anna & Cili)", "Team 2 (Bela & Dani)"]
    assert table.get(f"/sheet?lang={lang}").json()["columns"] == english
    # An own table in teams heads them alike.
    own = Table(client, {"game": "own_table", "players": four, "settings": {"teams": 2}})
    assert own.get(f"/sheet.csv?lang={lang}").text.splitlines()[0] == heading


def test_each_language_has_its_own_etag(table: Table) -> None:
    english = table.get("/sheet.csv")
    hungarian = table.get("/sheet.csv?lang=hu")
    assert english.headers["etag"] == '"v1-csv"'
    assert hungarian.headers["etag"] == '"v1-csv-hu"'
    # The English file's tag does not answer for the Hungarian one, nor the other way.
    other = table.get("/sheet.csv?lang=hu", headers={"If-None-Match": '"v1-csv"'})
    assert other.status_code == 200 and other.text == hungarian.text
    same = table.get("/sheet?lang=hu", headers={**CSV, "If-None-Match": '"v1-csv-hu"'})
    assert same.status_code == 304 and same.headers["etag"] == '"v1-csv-hu"'
    assert table.get("/sheet.csv", headers={"If-None-Match": '"v1-csv-hu"'}).status_code == 200


def test_the_json_sheet_is_the_same_in_every_language(table: Table) -> None:
    table.round(amounts(18, -9, -9))
    plain = table.get("/sheet")
    asked = table.get("/sheet?lang=ru")
    assert asked.headers["etag"] == plain.headers["etag"] == '"v2"'
    assert asked.json() == plain.json()


@pytest.mark.parametrize("path", ["/sheet.csv?lang=de", "/sheet?lang=HU"])
def test_an_unknown_language_is_refused_naming_the_field(table: Table, path: str) -> None:
    response = table.get(path, headers=CSV)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["code"] == "validation_error"
    assert [error["loc"] for error in problem["errors"]] == [["query", "lang"]]
