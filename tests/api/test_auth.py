"""The 401/403/404 matrix of API.md: authenticate, find, authorize, in that order."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import PLAYERS, Table, amounts

# (method, path under the match, body, roles allowed)
OPERATIONS = [
    ("GET", "", None, {"host", "player", "viewer"}),
    ("PATCH", "", {"settings": {"kontra": False}}, {"host"}),
    ("POST", "/rounds", amounts(2, -1, -1), {"host", "player"}),
    ("GET", "/rounds", None, {"host", "player", "viewer"}),
    ("GET", "/rounds/1", None, {"host", "player", "viewer"}),
    ("PUT", "/rounds/1", amounts(4, -2, -2), {"host", "player"}),
    ("GET", "/sheet", None, {"host", "player", "viewer"}),
    ("GET", "/sheet.csv", None, {"host", "player", "viewer"}),
    ("GET", "/rounds/1/history", None, {"host", "player", "viewer"}),
    ("DELETE", "/rounds/1", None, {"host", "player"}),
    ("POST", "/end", None, {"host", "player"}),
    ("POST", "/score", amounts(2, -1, -1), {"host", "player"}),  # a preview: as entering
]
SUCCESS = {"GET": 200, "PATCH": 200, "POST": 200, "PUT": 200, "DELETE": 204}


def _call(table: Table, method: str, path: str, body: Any, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return table.client.request(method, table.url + path, json=body, headers=headers)


def _token(table: Table, role: str) -> str:
    return str(table.tokens["players"][1] if role == "player" else table.tokens[role])


@pytest.mark.parametrize(("method", "path", "body", "allowed"), OPERATIONS)
@pytest.mark.parametrize("role", ["host", "player", "viewer"])
def test_roles(
    client: Any, method: str, path: str, body: Any, allowed: set[str], role: str
) -> None:
    table = Table(client, {"game": "asszorti", "players": PLAYERS})
    table.round(amounts(2, -1, -1))
    before = table.snapshot()
    response = _call(table, method, path, body, _token(table, role))
    if role in allowed:
        expected = 201 if (method, path) == ("POST", "/rounds") else SUCCESS[method]
        assert response.status_code == expected, response.text
    else:
        assert response.status_code == 403, response.text
        assert response.json()["code"] == "forbidden"
        assert table.snapshot() == before


@pytest.mark.parametrize(("method", "path", "body", "allowed"), OPERATIONS)
def test_missing_malformed_and_foreign_tokens(
    client: Any, method: str, path: str, body: Any, allowed: set[str]
) -> None:
    table = Table(client, {"game": "asszorti", "players": PLAYERS})
    other = Table(client, {"game": "asszorti", "players": PLAYERS})
    table.round(amounts(2, -1, -1))
    before = table.snapshot()
    for token in (None, "", "garbage", "a.b", "x" * 500, table.tokens["host"] + "x"):
        response = _call(table, method, path, body, token)
        assert response.status_code == 401, (token, response.text)
        assert response.json()["code"] == "unauthenticated"
        assert response.headers["www-authenticate"] == "Bearer"
    foreign = _call(table, method, path, body, other.tokens["host"])
    assert foreign.status_code == 403
    assert table.id not in foreign.text or foreign.json()["code"] == "forbidden"
    assert "totals" not in foreign.json()
    assert table.snapshot() == before


@pytest.mark.parametrize(("method", "path", "body", "allowed"), OPERATIONS)
def test_unknown_match_with_a_valid_token_is_404(
    client: Any, method: str, path: str, body: Any, allowed: set[str]
) -> None:
    table = Table(client, {"game": "asszorti", "players": PLAYERS})
    response = client.request(
        method,
        "/v1/matches/doesnotexist" + path,
        json=body,
        headers={"Authorization": f"Bearer {table.tokens['viewer']}"},
    )
    assert response.status_code == 404
    assert response.json()["code"] == "match_not_found"


def test_unauthenticated_comes_before_validation(table: Table) -> None:
    response = table.client.post(table.url + "/rounds", json={"type": "nonsense"})
    assert response.status_code == 401


def test_forbidden_comes_before_validation(table: Table) -> None:
    response = table.post("/rounds", {"type": "nonsense"}, who="viewer")
    assert response.status_code == 403


def test_token_in_query_string_is_not_accepted(table: Table) -> None:
    response = table.client.get(table.url, params={"token": table.tokens["host"]})
    assert response.status_code == 401


def test_no_response_contains_a_token_hash(table: Table) -> None:
    import hashlib

    secret = table.tokens["host"].split(".")[1]
    digest = hashlib.sha256(secret.encode()).hexdigest()
    for path in ("", "/rounds", "/sheet"):
        assert digest not in table.get(path).text
    assert table.tokens["host"] not in table.get("").text


def test_malformed_json_still_answers_401_403_404_first(table: Table) -> None:
    garbage = b'{"type": "asszorti_amounts", '
    json_header = {"content-type": "application/json"}
    no_token = table.client.post(table.url + "/rounds", content=garbage, headers=json_header)
    assert no_token.status_code == 401
    viewer = table.client.post(
        table.url + "/rounds", content=garbage, headers={**json_header, **table.auth("viewer")}
    )
    assert viewer.status_code == 403
    player_patch = table.client.patch(
        table.url, content=garbage, headers={**json_header, **table.auth(0)}
    )
    assert player_patch.status_code == 403
    missing = table.client.post(
        "/v1/matches/nope/rounds", content=garbage, headers={**json_header, **table.auth()}
    )
    assert missing.status_code == 404
    allowed = table.client.post(
        table.url + "/rounds", content=garbage, headers={**json_header, **table.auth(1)}
    )
    assert allowed.status_code == 422 and allowed.json()["code"] == "malformed_json"


def test_a_wrong_secret_fails_every_time_and_the_right_one_still_works(table: Table) -> None:
    """Every request reads its credential and checks the secret against its hash: no
    secret, and no credential, is kept between requests."""
    token = table.tokens["viewer"]
    credential_id, secret = token.split(".")
    wrong = f"{credential_id}.{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}"
    for _ in range(3):
        assert table.get(who="viewer").status_code == 200
        response = table.client.get(table.url, headers={"Authorization": f"Bearer {wrong}"})
        assert response.status_code == 401
    assert not hasattr(table.client.app.state, "credentials")  # type: ignore[attr-defined]


def test_a_token_with_a_non_ascii_secret_is_401_not_500(table: Table) -> None:
    credential_id = table.tokens["viewer"].split(".")[0]
    assert table.get(who="viewer").status_code == 200  # its secret is now kept
    for secret in ("é", "\u00ff" * 10):
        token = f"{credential_id}.{secret}"
        response = table.client.get(
            table.url, headers={"Authorization": f"Bearer {token}".encode("latin-1")}
        )
        assert response.status_code == 401, response.text


def test_a_match_s_credential_ids_share_its_prefix_and_are_otherwise_random(
    table: Table,
) -> None:
    tokens = [table.tokens["host"], table.tokens["viewer"], *table.tokens["players"]]
    ids = [token.split(".")[0] for token in tokens]
    assert len(set(ids)) == len(ids) == 5
    for credential_id in ids:
        assert len(credential_id) == 16
        assert credential_id.startswith(table.id[:4])
    for who in ("host", "viewer", 0, 1, 2):
        assert table.get(who=who).status_code == 200


# Requests FastAPI or the route refuses before the use case (and its access check) runs.
REFUSED_EARLY = [
    pytest.param("POST", "/rounds", {"type": "nonsense"}, {}, "validation_error", id="body"),
    pytest.param("GET", "/rounds/1.0", None, {}, "validation_error", id="path"),
    pytest.param("GET", "/rounds?limit=0", None, {}, "validation_error", id="query"),
    pytest.param(
        "POST", "/end", None, {"If-Match": 'W/"v1"'}, "invalid_header", id="if-match-header"
    ),
    pytest.param(
        "POST",
        "/rounds",
        amounts(2, -1, -1),
        {"Idempotency-Key": "x" * 300},
        "invalid_header",
        id="idempotency-key-header",
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "code"), REFUSED_EARLY)
def test_requests_refused_before_the_use_case_still_answer_401_404_403_first(
    client: Any, method: str, path: str, body: Any, headers: dict[str, str], code: str
) -> None:
    table = Table(client, {"game": "asszorti", "players": PLAYERS})
    other = Table(client, {"game": "asszorti", "players": PLAYERS})
    host = table.tokens["host"]
    credential_id = host.split(".")[0]

    def call(url: str, token: str) -> Any:
        auth = {"Authorization": f"Bearer {token}", **headers}
        return client.request(method, url + path, json=body, headers=auth)

    before = table.snapshot()
    # A token of the right shape whose secret is wrong: only the database can tell.
    unknown = call(table.url, f"{credential_id}.{'A' * 43}")
    assert unknown.status_code == 401, unknown.text
    assert unknown.json()["code"] == "unauthenticated"
    missing = call("/v1/matches/" + "0" * 32, host)
    assert missing.status_code == 404, missing.text
    assert missing.json()["code"] == "match_not_found"
    foreign = call(other.url, host)
    assert foreign.status_code == 403, foreign.text
    assert foreign.json()["code"] == "forbidden"
    allowed = call(table.url, host)
    assert allowed.status_code == 422, allowed.text
    assert allowed.json()["code"] == code
    assert table.snapshot() == before
