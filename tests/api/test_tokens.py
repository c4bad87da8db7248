"""Losing a token must not lose a match: re-issue, recovery, join links, history."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _link_token(link: str, match_id: str) -> str:
    """The token a join link carries in its fragment: ``#/m/{id}?t={token}``."""
    fragment = urlsplit(link).fragment
    path, _, query = fragment.partition("?")
    assert path == f"/m/{match_id}"
    return parse_qs(query)["t"][0]


def test_creation_gives_a_recovery_code_and_a_join_link_per_token(table: Table) -> None:
    tokens = table.tokens
    assert tokens["recovery"] and tokens["recovery"] not in (tokens["host"], tokens["viewer"])
    links = tokens["links"]
    assert _link_token(links["host"], table.id) == tokens["host"]
    assert _link_token(links["viewer"], table.id) == tokens["viewer"]
    assert [_link_token(link, table.id) for link in links["players"]] == tokens["players"]
    # The token is in the fragment; without PUBLIC_BASE_URL the link is relative.
    assert links["host"].startswith(f"/#/m/{table.id}?t=")


def test_a_forged_host_header_never_reaches_a_link(table: Table) -> None:
    """Without PUBLIC_BASE_URL, a host's link is not built from the Host header the
    request sent: a stranger's proxy or a forged header cannot point it elsewhere."""
    forged = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
    created = table.client.post(
        "/v1/matches", json={"game": "asszorti", "players": PLAYERS}, headers=forged
    )
    assert created.status_code == 201, created.text
    assert "evil.example" not in created.text
    issued = table.client.post(
        table.url + "/tokens",
        json={"role": "viewer"},
        headers={**forged, **_bearer(table.tokens["host"])},
    )
    assert issued.status_code == 200, issued.text
    assert "evil.example" not in issued.text
    assert issued.json()["link"].startswith(f"/#/m/{table.id}?t=")


def test_join_links_use_the_public_base_url(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        rate_limit_matches_per_minute=0,
        public_base_url="https://scores.example/table/",
    )
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/matches", json={"game": "asszorti", "players": PLAYERS})
    link = created.json()["tokens"]["links"]["viewer"]
    assert link.startswith(f"https://scores.example/table/#/m/{created.json()['id']}?t=")


def test_the_host_reissues_a_seat_s_token_and_the_old_one_stops_at_once(table: Table) -> None:
    old = table.tokens["players"][1]
    response = table.post("/tokens", {"role": "player", "seat": 1})
    assert response.status_code == 200, response.text
    issued = response.json()
    assert (issued["role"], issued["seat"]) == ("player", 1)
    assert _link_token(issued["link"], table.id) == issued["token"] != old
    refused = table.client.get(table.url, headers=_bearer(old))
    assert refused.status_code == 401
    assert refused.json()["code"] == "unauthenticated"
    # The new token is seat 1's: it may enter a round, recorded as seat 1.
    entered = table.client.post(
        table.url + "/rounds",
        json={"type": "asszorti_amounts", "amounts": [2, -1, -1]},
        headers=_bearer(issued["token"]),
    )
    assert entered.status_code == 201
    assert entered.json()["entered_by"] == "seat:1"
    for other in (table.tokens["players"][0], table.tokens["viewer"], table.tokens["host"]):
        assert table.client.get(table.url, headers=_bearer(other)).status_code == 200
    history = table.get("/history", who="viewer").json()["items"]
    assert [(e["action"], e["role"], e["seat"], e["by"]) for e in history] == [
        ("token_reissued", "player", 1, "host")
    ]


def test_the_viewers_token_and_the_host_s_own_can_be_reissued(table: Table) -> None:
    viewer = table.post("/tokens", {"role": "viewer"}).json()
    assert table.client.get(table.url, headers=_bearer(table.tokens["viewer"])).status_code == 401
    assert table.client.get(table.url, headers=_bearer(viewer["token"])).status_code == 200
    host = table.post("/tokens", {"role": "host"}).json()
    assert table.client.get(table.url, headers=_bearer(table.tokens["host"])).status_code == 401
    patched = table.client.patch(
        table.url, json={"settings": {"kontra": False}}, headers=_bearer(host["token"])
    )
    assert patched.status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"role": "player"},
        {"role": "player", "seat": 3},
        {"role": "viewer", "seat": 0},
        {"role": "host", "seat": 1},
    ],
)
def test_a_reissue_naming_no_such_token_is_422_and_changes_nothing(
    table: Table, body: dict[str, Any]
) -> None:
    response = table.post("/tokens", body)
    assert response.status_code == 422
    assert response.json()["errors"][0]["loc"] == ["body", "seat"]
    for token in (*table.tokens["players"], table.tokens["viewer"], table.tokens["host"]):
        assert table.client.get(table.url, headers=_bearer(token)).status_code == 200
    assert table.get("/history").json()["items"] == []


@pytest.mark.parametrize("who", [0, "viewer"])
def test_only_the_host_reissues_tokens(table: Table, who: str | int) -> None:
    response = table.post("/tokens", {"role": "viewer"}, who=who)
    assert response.status_code == 403
    assert table.client.get(table.url, headers=_bearer(table.tokens["viewer"])).status_code == 200


def test_recovering_gives_a_new_host_token_and_code_and_retires_the_old_ones(
    table: Table,
) -> None:
    code = table.tokens["recovery"]
    recovered = table.client.post(table.url + "/recover", json={"recovery_code": code})
    assert recovered.status_code == 200, recovered.text
    first = recovered.json()
    assert first["role"] == "host" and first["seat"] is None
    assert first["recovery"] and first["recovery"] != code
    assert table.client.get(table.url, headers=_bearer(table.tokens["host"])).status_code == 401
    assert table.client.get(table.url, headers=_bearer(first["token"])).status_code == 200
    # A leaked code takes over a match once, not for good.
    stale = table.client.post(table.url + "/recover", json={"recovery_code": code})
    assert stale.status_code == 401
    assert table.client.get(table.url, headers=_bearer(first["token"])).status_code == 200
    again = table.client.post(table.url + "/recover", json={"recovery_code": first["recovery"]})
    assert again.status_code == 200 and again.json()["recovery"] != first["recovery"]
    assert table.client.get(table.url, headers=_bearer(first["token"])).status_code == 401
    newest = _bearer(again.json()["token"])
    history = table.client.get(table.url + "/history", headers=newest)
    assert [(e["action"], e["by"]) for e in history.json()["items"]] == [
        ("host_token_recovered", "recovery"),
        ("host_token_recovered", "recovery"),
    ]


def test_a_lost_recovery_answer_is_replayed_by_its_idempotency_key(table: Table) -> None:
    """The recovery retires the code it was sent with: a retry after a lost answer gets
    that answer again by its key, and the match is not locked out."""
    key = {"Idempotency-Key": str(uuid.uuid4())}
    body = {"recovery_code": table.tokens["recovery"]}
    first = table.client.post(table.url + "/recover", json=body, headers=key)
    again = table.client.post(table.url + "/recover", json=body, headers=key)
    assert first.status_code == again.status_code == 200, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert again.headers["cache-control"] == "no-store"
    new = first.json()
    assert table.client.get(table.url, headers=_bearer(new["token"])).status_code == 200
    # Only one recovery happened.
    history = table.client.get(table.url + "/history", headers=_bearer(new["token"]))
    assert len(history.json()["items"]) == 1
    # The key cannot be used with another code.
    other = table.client.post(
        table.url + "/recover", json={"recovery_code": new["recovery"]}, headers=key
    )
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


def test_a_host_re_issuing_its_own_token_replaces_the_recovery_code(table: Table) -> None:
    """A new host token comes with a new recovery code, and the old code stops working;
    a retry after a lost answer gets the same token and code again, by its key."""
    code = table.tokens["recovery"]
    player = table.post("/tokens", {"role": "player", "seat": 0})
    assert player.status_code == 200 and player.json()["recovery"] is None
    old_field = table.post("/tokens", {"role": "host", "recovery_code": code})
    assert old_field.status_code == 422
    assert old_field.json()["errors"][0]["loc"] == ["body", "recovery_code"]
    key = {"Idempotency-Key": str(uuid.uuid4())}
    host = table.post("/tokens", {"role": "host"}, headers=key)
    assert host.status_code == 200, host.text
    new_code = host.json()["recovery"]
    assert new_code and new_code != code
    # A retry after a lost answer, with the token it was sent with (now replaced): the
    # same answer, by the key. The key is bound to that whole token.
    replay = table.post("/tokens", {"role": "host"}, headers=key)
    assert replay.status_code == 200, replay.text
    assert replay.headers["idempotent-replayed"] == "true" and replay.json() == host.json()
    assert replay.headers["cache-control"] == "no-store"
    credential_id = table.tokens["host"].split(".")[0]
    forged = {"Authorization": f"Bearer {credential_id}.{'A' * 43}", **key}
    stolen_key = table.client.post(table.url + "/tokens", json={"role": "host"}, headers=forged)
    assert stolen_key.status_code == 401
    assert table.client.get(table.url, headers=_bearer(table.tokens["host"])).status_code == 401
    assert (
        table.client.post(table.url + "/recover", json={"recovery_code": code}).status_code == 401
    )
    recovered = table.client.post(table.url + "/recover", json={"recovery_code": new_code})
    assert recovered.status_code == 200


@pytest.mark.parametrize("code", ["wrong", "é", "x" * 128])
def test_a_wrong_recovery_code_is_401_and_changes_nothing(table: Table, code: str) -> None:
    response = table.client.post(table.url + "/recover", json={"recovery_code": code})
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    assert table.get().status_code == 200


def test_recovering_a_match_that_is_not_there_is_404(table: Table) -> None:
    for match_id in ("0" * 32, "abc%00def"):
        response = table.client.post(
            f"/v1/matches/{match_id}/recover", json={"recovery_code": table.tokens["recovery"]}
        )
        assert response.status_code == 404
        assert response.json()["code"] == "match_not_found"


def test_a_token_says_whom_it_stands_for(table: Table) -> None:
    assert table.get("/me").json() == {"role": "host", "seat": None}
    assert table.get("/me", who=2).json() == {"role": "player", "seat": 2}
    assert table.get("/me", who="viewer").json() == {"role": "viewer", "seat": None}
    assert table.client.get(table.url + "/me").status_code == 401


def test_the_match_history_comes_a_page_at_a_time(table: Table) -> None:
    """Every re-issue adds an event, so the history is answered in pages: numbered
    events, each once and in order, following ``next`` (also the Link header)."""
    for seat in (0, 1, 2, 0, 1):
        assert table.post("/tokens", {"role": "player", "seat": seat}).status_code == 200
    viewer = _bearer(table.tokens["viewer"])
    whole = table.client.get(table.url + "/history", headers=viewer).json()
    assert whole["next"] is None
    assert [(e["event"], e["seat"]) for e in whole["items"]] == [
        (1, 0),
        (2, 1),
        (3, 2),
        (4, 0),
        (5, 1),
    ]
    response = table.client.get(table.url + "/history?limit=2", headers=viewer)
    pages = [response]
    while (next_url := response.json()["next"]) is not None:
        assert response.headers["link"] == f'<{next_url}>; rel="next"'
        response = table.client.get(next_url, headers=viewer)
        pages.append(response)
    assert [len(page.json()["items"]) for page in pages] == [2, 2, 1]
    assert [e for page in pages for e in page.json()["items"]] == whole["items"]
    assert pages[0].json()["next"] == f"{table.url}/history?after=2&limit=2"
    assert "link" not in pages[-1].headers
    past = table.client.get(table.url + "/history?after=5", headers=viewer)
    assert past.status_code == 200 and past.json() == {"items": [], "next": None}
    bad = table.client.get(table.url + "/history?after=-1", headers=viewer)
    assert bad.status_code == 422 and "after" in bad.text
