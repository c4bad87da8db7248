"""Request ids, JSON logs, CORS, rate limiting, method and content-type edges."""

from __future__ import annotations

import gc
import json
import logging
import time
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.observability import JsonFormatter
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table

MATCH_BODY = {"game": "asszorti", "players": PLAYERS}


def test_request_id_is_echoed_or_generated(client: Any) -> None:
    echoed = client.get("/healthz", headers={"X-Request-ID": "phone-42.abc"})
    assert echoed.headers["x-request-id"] == "phone-42.abc"
    generated = client.get("/healthz").headers["x-request-id"]
    again = client.get("/healthz").headers["x-request-id"]
    assert again != generated
    for request_id in (generated, again):  # random UUIDs (version 4), not a counter
        assert uuid.UUID(request_id).version == 4
    twice = client.get("/healthz", headers=[("X-Request-ID", "first"), ("X-Request-ID", "last")])
    assert twice.headers["x-request-id"] == "last"
    unsafe = client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"})
    assert unsafe.headers["x-request-id"] != "bad id\twith spaces"
    for response in (
        client.get("/v1/matches/nope"),
        client.post("/v1/matches", json={}),
        client.get("/nowhere"),
    ):
        assert response.headers["x-request-id"]


def test_every_log_line_is_json_with_the_request_id(
    client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="squarescores.access"):
        client.get("/healthz", headers={"X-Request-ID": "trace-me"})
    records = [r for r in caplog.records if r.name == "squarescores.access"]
    assert records
    line = json.loads(JsonFormatter().format(records[-1]))
    assert line["request_id"] == "trace-me"
    assert line["path"] == "/healthz" and line["status"] == 200
    assert line["level"] == "info" and "duration_ms" in line


def test_cors_exposes_the_headers_clients_need(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        cors_origins=["https://app.example"],
        rate_limit_matches_per_minute=0,
    )
    with TestClient(create_app(settings)) as cors_client:
        preflight = cors_client.options(
            "/v1/matches",
            headers={
                "Origin": "https://app.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "Idempotency-Key, Content-Type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
        created = cors_client.post(
            "/v1/matches", json=MATCH_BODY, headers={"Origin": "https://app.example"}
        )
        exposed = {
            h.strip().lower() for h in created.headers["access-control-expose-headers"].split(",")
        }
        assert {"etag", "location", "idempotent-replayed", "x-request-id"} <= exposed
        stranger = cors_client.get("/healthz", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in stranger.headers


def _clear_of_a_window_edge(margin_s: float = 10.0) -> None:
    """Wait, near the end of a rate limit's fixed minute, for the next one to start, so
    the requests a test makes next are counted in one window."""
    into = time.time() % 60
    if into > 60 - margin_s:
        time.sleep(60 - into + 0.1)


def test_match_creation_is_rate_limited(database_url: str) -> None:
    _clear_of_a_window_edge()
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=3)
    with TestClient(create_app(settings), client=("203.0.113.7", 5000)) as limited:
        answers = [limited.post("/v1/matches", json=MATCH_BODY) for _ in range(4)]
        assert [a.status_code for a in answers] == [201, 201, 201, 429]
        refused = answers[-1]
        assert refused.json()["code"] == "rate_limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
    with TestClient(create_app(settings), client=("203.0.113.8", 5000)) as other:
        assert other.post("/v1/matches", json=MATCH_BODY).status_code == 201


def test_wrong_method_is_405_with_allow(table: Table) -> None:
    response = table.client.delete(table.url + "/sheet", headers=table.auth())
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert "GET" in response.headers["allow"]


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/app/app.js",
        "/app/i18n/hu.json",
        "/docs",
        "/docs/oauth2-redirect",
        "/redoc",
        "/static/docs/swagger-ui.css",
        "/openapi.json",
    ],
)
def test_head_is_served_wherever_a_page_is(client: Any, path: str) -> None:
    # Uncompressed: GZipMiddleware (the page's assets) compresses a body, and HEAD has none.
    plain = {"Accept-Encoding": "identity"}
    got = client.get(path, headers=plain)
    head = client.head(path, headers=plain)
    assert got.status_code == head.status_code == 200, head.text
    assert head.content == b""
    for name in ("content-type", "content-length", "content-security-policy"):
        assert head.headers.get(name) == got.headers.get(name), name


def test_unknown_path_is_problem_404(client: Any) -> None:
    response = client.get("/v2/everything")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"game=asszorti", "application/x-www-form-urlencoded"),
        (b'{"game": "asszorti"}', "text/plain"),
        (b"<match/>", "application/xml"),
    ],
)
def test_wrong_content_types_are_rejected(client: Any, content: bytes, content_type: str) -> None:
    response = client.post("/v1/matches", content=content, headers={"content-type": content_type})
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "validation_error"
    assert response.json()["errors"][0]["loc"] == ["body"]


def test_deeply_nested_json_is_rejected_without_a_500(client: Any) -> None:
    body = b'{"game": "asszorti", "players": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    response = client.post(
        "/v1/matches", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["code"] == "malformed_json"


def test_ten_thousand_players_and_a_megabyte_name(client: Any) -> None:
    many = client.post("/v1/matches", json={"game": "asszorti", "players": ["x"] * 10_000})
    assert many.status_code == 422
    assert many.json()["code"] == "validation_error"
    assert many.json()["errors"][0]["loc"] == ["body", "players"]
    huge = client.post("/v1/matches", json={"game": "asszorti", "players": ["x" * 1_000_000] * 3})
    assert huge.status_code == 413


def test_an_unexpected_error_is_a_500_problem_with_a_request_id(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, rate_limit_matches_per_minute=0))

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("bug")

    with TestClient(app, raise_server_exceptions=False) as broken:
        response = broken.get("/boom", headers={"X-Request-ID": "oops-1"})
    assert response.status_code == 500
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "internal_error"
    assert response.headers["x-request-id"] == "oops-1"


def test_an_idempotent_replay_is_not_rate_limited(database_url: str) -> None:
    _clear_of_a_window_edge()
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=1)
    with TestClient(create_app(settings), client=("203.0.113.9", 5000)) as limited:
        key = {"Idempotency-Key": str(uuid.uuid4())}
        first = limited.post("/v1/matches", json=MATCH_BODY, headers=key)
        replay = limited.post("/v1/matches", json=MATCH_BODY, headers=key)
        assert first.status_code == replay.status_code == 201
        assert replay.headers["idempotent-replayed"] == "true"
        invalid = limited.post("/v1/matches", json={"game": "asszorti", "players": []})
        assert invalid.status_code == 422  # not counted, not limited
        assert limited.post("/v1/matches", json=MATCH_BODY).status_code == 429


def test_an_unreachable_database_is_503(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/missing/dir/nothing.db"
    with TestClient(create_app(Settings(database_url=url, rate_limit_matches_per_minute=0))) as c:
        response = c.post("/v1/matches", json=MATCH_BODY)
    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"
    assert response.headers["retry-after"]


def test_a_streamed_body_over_the_limit_is_413(client: Any) -> None:
    def chunks() -> Any:
        for _ in range(100):
            yield b"x" * 10_000

    response = client.post(
        "/v1/matches", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"


def test_an_unmigrated_postgresql_database_is_503(postgres: Any) -> None:
    url = postgres.create()  # created, never migrated
    settings = Settings(database_url=url, rate_limit_matches_per_minute=0)
    with TestClient(create_app(settings)) as unmigrated:
        response = unmigrated.post("/v1/matches", json=MATCH_BODY)
    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"


def test_startup_objects_are_frozen_out_of_garbage_collection_while_serving(
    database_url: str,
) -> None:
    gc.unfreeze()
    with TestClient(create_app(Settings(database_url=database_url))) as serving:
        assert serving.get("/healthz").status_code == 200
        assert gc.get_freeze_count() > 10_000
    assert gc.get_freeze_count() == 0
