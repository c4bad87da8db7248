"""What an outside probe tried: bad ids, forged log lines, odd encodings, look-alike
names, duplicate keys. Each is a 4xx problem with a stable code, and nothing changes."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest

from app.observability import PlainFormatter, log_access
from tests.api.helpers import Table

AMOUNTS = {"type": "asszorti_amounts", "amounts": [2, -1, -1]}
JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("match_id", ["abc%00def", "%00", "x" * 300, "ABCDEF" * 5 + "00"])
def test_a_path_id_no_match_can_have_is_404_on_both_databases(table: Table, match_id: str) -> None:
    response = table.client.get(f"/v1/matches/{match_id}", headers=table.auth())
    assert response.status_code == 404
    assert response.json()["code"] == "match_not_found"


@pytest.mark.parametrize("token", ["ab\x00c.def", "abc.d\x00ef", "abc.d%ef", "a b.c"])
def test_a_token_with_characters_no_token_has_is_401(table: Table, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}".encode("latin-1")}
    response = table.client.get(table.url, headers=headers)  # type: ignore[arg-type]
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_a_plain_log_line_cannot_be_forged_through_a_path() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(PlainFormatter())
    log = logging.getLogger("squarescores.access")
    log.addHandler(handler)
    old_level = log.level
    log.setLevel(logging.INFO)
    try:
        path = "/v1/x\r\nCRITICAL squarescores admin token leaked\u2028" + "y" * 1000
        log_access({"method": "GET", "path": path}, 404, 0.0)
    finally:
        log.removeHandler(handler)
        log.setLevel(old_level)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert "\\r\\nCRITICAL squarescores" in lines[0]
    assert "\\u2028" in lines[0]
    assert len(lines[0]) < 400  # the path is cut


def test_a_utf16_body_is_malformed_json_and_nothing_is_written(table: Table) -> None:
    body = b'{"type": "asszorti_amounts", "amounts": [2, -1, -1]}'
    for encoding in ("utf-16", "utf-16-le", "utf-32"):
        response = table.client.post(
            table.url + "/rounds",
            content=body.decode().encode(encoding),
            headers={**JSON, **table.auth()},
        )
        assert response.status_code == 422, encoding
        assert response.json()["code"] == "malformed_json"
    assert "UTF-8" in response.json()["detail"]  # UTF-32's byte-order mark is not UTF-8
    assert table.get().json()["round_count"] == 0
    with_bom = table.client.post(
        table.url + "/rounds", content=b"\xef\xbb\xbf" + body, headers={**JSON, **table.auth()}
    )
    assert with_bom.status_code == 201


def test_a_duplicate_key_is_malformed_json(table: Table) -> None:
    body = b'{"type": "asszorti_amounts", "amounts": [2, -1, -1], "amounts": [-2, 1, 1]}'
    response = table.client.post(
        table.url + "/rounds", content=body, headers={**JSON, **table.auth()}
    )
    assert response.status_code == 422
    assert response.json()["code"] == "malformed_json"
    assert "'amounts' appears twice" in response.json()["detail"]
    nested = (
        b'{"game": "asszorti", "players": ["A", "B", "C"],'
        b' "settings": {"kontra": true, "kontra": false}}'
    )
    assert table.client.post("/v1/matches", content=nested, headers=JSON).status_code == 422
    assert table.get().json()["round_count"] == 0


@pytest.mark.parametrize("number", ["1.0", "+1", "01e0", "%201", "1_0", "\u0661", "01"])
def test_a_round_number_is_digits_only(table: Table, number: str) -> None:
    assert table.post("/rounds", AMOUNTS).status_code == 201
    response = table.client.put(f"{table.url}/rounds/{number}", json=AMOUNTS, headers=table.auth())
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"
    assert response.json()["errors"][0]["loc"] == ["path", "number"]
    assert table.get().json()["version"] == 2  # nothing changed
    paged = table.get("/rounds?limit=5.0")
    assert paged.status_code == 422
    assert paged.json()["errors"][0]["loc"] == ["query", "limit"]


@pytest.mark.parametrize("seat", ["01", "1.0", "%201", "+1", "1_0", "\u0661", "1e0", "00"])
def test_a_seat_is_a_canonical_integer(table: Table, seat: str) -> None:
    url = f"{table.url}/players/{seat}"
    response = table.client.patch(url, json={"name": "Bea"}, headers=table.auth())
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["errors"][0]["loc"] == ["path", "seat"]
    assert table.get().json()["players"][1]["name"] == "Berta"  # nothing changed
    for canonical, name in (("1", "Bea"), ("0", "Ann")):
        url = f"{table.url}/players/{canonical}"
        renamed = table.client.patch(url, json={"name": name}, headers=table.auth())
        assert renamed.status_code == 200, renamed.text
        assert renamed.json()["players"][int(canonical)]["name"] == name


@pytest.mark.parametrize(
    ("players", "seat"),
    [
        (["Zoe\u0301", "Zo\u00e9", "Csaba"], 1),  # the same letter, composed or not
        (["\uff21nna", "anna", "Csaba"], 1),  # a full-width letter, another case
    ],
)
def test_names_that_look_identical_are_one_name(client: Any, players: list[str], seat: int) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": players})
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "players", seat]
    assert "already the name of seat 0" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("bad", ["Anna\u200b", "A\x00", "A\x1b[31m", "\u202eanna", "A\u2028B"])
def test_control_and_invisible_characters_in_a_name_are_refused(client: Any, bad: str) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": [bad, "B", "C"]})
    assert response.status_code == 422
    error = response.json()["errors"][0]
    assert error["loc"] == ["body", "players", 0]
    assert error["message"].startswith("a name cannot hold")


def test_names_are_kept_nfc_normalised(client: Any) -> None:
    response = client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["Zoe\u0301", "B", "C"]}
    )
    assert response.status_code == 201
    assert response.json()["players"][0]["name"] == "Zo\u00e9"


def test_a_number_of_5001_digits_is_malformed_json_that_says_so(table: Table) -> None:
    body = b'{"type": "asszorti_amounts", "amounts": [' + b"1" * 5001 + b", -1, -1]}"
    response = table.client.post(
        table.url + "/rounds", content=body, headers={**JSON, **table.auth()}
    )
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "malformed_json"
    assert "a number has more than 4300 digits" in problem["detail"]
    assert "appears twice" not in problem["detail"] and "sys." not in problem["detail"]
    assert table.get().json()["round_count"] == 0


@pytest.mark.parametrize(
    ("blank", "words"),
    [
        ("\u3164", "cannot hold the invisible or control character U+3164"),
        ("\u2800", "cannot hold the invisible or control character U+2800"),
        ("\u115f\u1160", "cannot hold the invisible or control character U+115F"),
        ("\u0301\u0301", "must show"),
        ("\uffa0 \u3164", "cannot hold the invisible or control character U+FFA0"),
    ],
)
def test_a_name_that_shows_nothing_is_refused(client: Any, blank: str, words: str) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": [blank, "B", "C"]})
    assert response.status_code == 422, response.text
    error = response.json()["errors"][0]
    assert error["loc"] == ["body", "players", 0]
    assert words in error["message"]


def test_a_name_longer_than_40_characters_as_kept_is_refused(client: Any) -> None:
    """U+0958 is one character that NFC writes as two: 25 of them are 50 as kept."""
    response = client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["\u0958" * 25, "B", "C"]}
    )
    assert response.status_code == 422, response.text
    assert "at most 40 characters" in response.json()["errors"][0]["message"]


def test_40_characters_typed_decomposed_are_a_name(client: Any) -> None:
    """Forty é typed as e + U+0301: 80 code points sent, 40 characters kept."""
    name = "e\u0301" * 40
    response = client.post("/v1/matches", json={"game": "asszorti", "players": [name, "B", "C"]})
    assert response.status_code == 201, response.text
    assert response.json()["players"][0]["name"] == "\u00e9" * 40
    longer = client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["e\u0301" * 41, "B", "C"]}
    )
    assert longer.status_code == 422
    assert "at most 40 characters, got 41" in longer.json()["errors"][0]["message"]


def test_table_rules_typed_decomposed_are_counted_as_kept(client: Any) -> None:
    rules = "e\u0301" * 500  # 1,000 code points sent, 500 characters kept
    body = {"game": "own_table", "players": ["A", "B"], "settings": {"table_rules": rules}}
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["settings"]["table_rules"] == "\u00e9" * 500


@pytest.mark.parametrize(
    "name",
    [
        "\U0001f469\u200d\U0001f9b0",  # 👩‍🦰
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # 🏳️‍🌈
        "\U0001fa77",  # 🩷, newer than Python 3.11's tables
        "\U0001f426\u200d\U0001f525",  # 🐦‍🔥
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland
        "\U0001f642\u200d\u2194\ufe0f",  # 🙂‍↔️
    ],
)
def test_an_emoji_joined_by_a_zero_width_joiner_is_a_name(client: Any, name: str) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": [name, "B", "C"]})
    assert response.status_code == 201, response.text
    assert response.json()["players"][0]["name"] == name
    joined = client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["A\u200dB", "B", "C"]}
    )
    assert joined.status_code == 422  # a joiner between letters hides nothing good


@pytest.mark.parametrize(
    "bad", ["rules\u202e", "a\u200bb", "one\u2028two", "a\x1b[2Jb", "a\u3164b", "a\ufe00"]
)
def test_the_table_s_rules_follow_the_names_character_rules(client: Any, bad: str) -> None:
    body = {"game": "own_table", "players": ["A", "B"], "settings": {"table_rules": bad}}
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["loc"][-1] == "table_rules"
    lines = {**body, "settings": {"table_rules": "line one\nline two"}}
    assert client.post("/v1/matches", json=lines).status_code == 201


@pytest.mark.parametrize(
    ("players", "seat"),
    [
        (["Anna", "\u0410nna", "Csaba"], 1),  # a Cyrillic A for the Latin one
        (["Csaba", "Anna", "\u0391nna"], 2),  # a Greek Alpha
        (["Rita", "Ildi", "\u0406ldi"], 2),  # a Ukrainian I
    ],
)
def test_names_that_only_look_alike_are_one_name(
    client: Any, players: list[str], seat: int
) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": players})
    assert response.status_code == 422, response.text
    error = response.json()["errors"][0]
    assert error["loc"] == ["body", "players", seat]
    assert "looks like" in error["message"]
    alkort = {
        "game": "alkort",
        "players": ["A", "B", "C", "D"],
        "team_names": ["Anna", "\u0410nna"],
    }
    assert client.post("/v1/matches", json=alkort).status_code == 422
