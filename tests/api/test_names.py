"""A name is what one sees (issue #40): what renders as nothing is refused at every
place a name is set, runs of spaces fold into one, and emoji keep their joiners."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from tests.api.helpers import Table

# Each renders exactly as "Anna" would, or as a blank: refused, 422 at the field.
INVISIBLE = {
    "combining grapheme joiner": "Anna\u034f",
    "variation selector 1": "Anna\ufe00",
    "emoji variation selector after a letter": "Anna\ufe0f",
    "ideographic variation selector after a letter": "Anna\U000e0100",
    "Mongolian variation selector after a letter": "Anna\u180b",
    "Khmer inherent vowel": "Anna\u17b4",
    "Hangul filler": "Anna\u3164",
    "Hangul choseong filler": "Anna\u115f",
    "Hangul jungseong filler": "Anna\u1160",
    "halfwidth Hangul filler": "Anna\uffa0",
    "braille blank": "Anna\u2800",
    "39 marks on one letter": "An" + "\u0301" * 39 + "na",
    "five marks on one letter": "An\u0301\u0302\u0303\u0304\u0305na",
}
CASES = pytest.mark.parametrize("name", list(INVISIBLE.values()), ids=list(INVISIBLE))
# Names one sees as they are: kept as sent (in NFC).
SEEN = [
    "\U0001f469\u200d\U0001f9b0",  # 👩‍🦰
    "\u2764\ufe0f",  # ❤️
    "Ildi \u2764\ufe0f",
    "Nguy\u1ec5n",  # Vietnamese, composed
    "\u845b\U000e0100",  # 葛 with its ideographic variant, as Japanese family names have
    "A\u0301\u0302\u0303\u0304",  # four marks, the most one letter may carry
]


def _refused(response: Any, loc: list[Any]) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["errors"][0]
    assert error["loc"] == loc
    assert error["message"].startswith("a name cannot")


def _rename(table: Table, seat: int, name: str) -> Any:
    return table.client.patch(
        f"{table.url}/players/{seat}", json={"name": name}, headers=table.auth()
    )


@CASES
def test_an_invisible_character_in_a_player_s_name_is_refused_at_creation(
    client: Any, name: str
) -> None:
    response = client.post("/v1/matches", json={"game": "asszorti", "players": ["B", name, "C"]})
    _refused(response, ["body", "players", 1])


@CASES
def test_an_invisible_character_in_a_team_s_name_is_refused(client: Any, name: str) -> None:
    body = {"game": "alkort", "players": ["A", "B", "C", "D"], "team_names": ["Us", name]}
    _refused(client.post("/v1/matches", json=body), ["body", "team_names", 1])


@CASES
def test_an_invisible_character_is_refused_in_every_rename(table: Table, name: str) -> None:
    _refused(_rename(table, 1, name), ["body", "name"])
    _refused(table.patch({"players": ["Ede", name, "Csaba"]}), ["body", "players", 1])
    assert table.match()["version"] == 1  # nothing changed


@CASES
def test_an_invisible_character_is_refused_in_a_team_rename(client: Any, name: str) -> None:
    table = Table(client, {"game": "alkort", "players": ["A", "B", "C", "D"]})
    _refused(table.patch({"team_names": [name, "Them"]}), ["body", "team_names", 0])
    assert table.match()["version"] == 1


@pytest.mark.parametrize("name", SEEN)
def test_emoji_ideograph_variants_and_vietnamese_are_names(table: Table, name: str) -> None:
    created = table.client.post(
        "/v1/matches", json={"game": "asszorti", "players": [name, "B", "C"]}
    )
    assert created.status_code == 201, created.text
    kept = unicodedata.normalize("NFC", name)
    assert created.json()["players"][0]["name"] == kept
    renamed = _rename(table, 1, name)
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["players"][1]["name"] == kept


def test_vietnamese_typed_decomposed_is_kept_composed(client: Any) -> None:
    decomposed = "Nguye\u0302\u0303n"  # ễ as e, circumflex, tilde: two marks on one letter
    response = client.post(
        "/v1/matches", json={"game": "asszorti", "players": [decomposed, "B", "C"]}
    )
    assert response.status_code == 201, response.text
    assert response.json()["players"][0]["name"] == "Nguy\u1ec5n"


def test_runs_of_spaces_fold_into_one_and_then_clash(client: Any) -> None:
    created = client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["Anna  B", "Anna\u3000\u00a0C", "D"]}
    )
    assert created.status_code == 201, created.text
    assert [p["name"] for p in created.json()["players"]] == ["Anna B", "Anna C", "D"]
    clash = client.post(
        "/v1/matches", json={"game": "asszorti", "players": ["Anna B", "Anna  B", "D"]}
    )
    assert clash.status_code == 422, clash.text
    error = clash.json()["errors"][0]
    assert error["loc"] == ["body", "players", 1]
    assert "'Anna B' is already the name of seat 0" in error["message"]


def test_a_rename_folds_spaces_and_then_clashes(client: Any) -> None:
    table = Table(client, {"game": "asszorti", "players": ["Anna B", "Berta", "Csaba"]})
    clash = _rename(table, 1, " Anna   B ")
    assert clash.status_code == 422, clash.text
    assert clash.json()["errors"][0]["loc"] == ["body", "name"]
    assert "already the name of seat 0" in clash.json()["errors"][0]["message"]
    patched = table.patch({"players": ["Anna B", "Anna  B", "Csaba"]})
    assert patched.status_code == 422
    assert table.match()["version"] == 1
    folded = _rename(table, 1, "Berta  Kiss")
    assert folded.status_code == 200
    assert folded.json()["players"][1]["name"] == "Berta Kiss"
    assert table.get("/history").json()["items"][0]["new_name"] == "Berta Kiss"
