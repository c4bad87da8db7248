"""LeanRoute (app/api/routing.py): valid requests skip FastAPI's general handler,
and every other request gets exactly what FastAPI's own handler answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import fastapi.routing
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel
from starlette.responses import JSONResponse

from app.api import routing
from app.api.deps import get_db
from app.api.routes import games, health, matches, rounds, sheet
from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table, amounts

Probe = tuple[str, str, Any, dict[str, str]]


def _routes() -> dict[str, APIRoute]:
    modules = (matches, rounds, sheet, games, health)
    return {r.name: r for m in modules for r in m.router.routes if isinstance(r, APIRoute)}


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths FastAPI's own handler resolved dependencies for."""
    calls: list[str] = []
    original = fastapi.routing.solve_dependencies

    async def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["request"].url.path)
        return await original(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counting)
    return calls


def test_the_hot_routes_have_a_plan_and_the_others_fall_back() -> None:
    routes = _routes()
    assert all(isinstance(route, routing.LeanRoute) for route in routes.values())
    for name in ("getMatch", "createRound", "replaceRound", "createMatch", "getSheet"):
        assert routing._plan(routes[name]) is not None, name
    # listRounds takes FastAPI's `response: Response` parameter: not a signature we know.
    assert routing._plan(routes["listRounds"]) is None


def test_valid_requests_skip_fastapis_dependency_solving(table: Table, solved: list[str]) -> None:
    table.round(amounts(2, -1, -1))
    assert table.get().status_code == 200
    assert table.put("/rounds/1", amounts(-1, 2, -1)).status_code == 200
    assert solved == []
    assert table.get("/rounds").status_code == 200  # listRounds: FastAPI's handler
    assert solved == [f"/v1/matches/{table.id}/rounds"]


def _probes(table: Table) -> list[Probe]:
    auth = table.auth()
    json = {**auth, "content-type": "application/json"}
    base = f"/v1/matches/{table.id}"
    body = b'{"type": "asszorti_amounts", "amounts": [2, -1, -1]}'
    return [
        ("POST", f"{base}/rounds", b'{"type": "asszorti_amounts", "amounts": [1]}', json),
        ("POST", f"{base}/rounds", b'{"type": "nope"}', json),
        ("POST", f"{base}/rounds", b"{not json", json),
        ("POST", f"{base}/rounds", b"", json),
        ("POST", f"{base}/rounds", body, {**auth, "content-type": "text/plain"}),
        ("POST", f"{base}/rounds", body, auth),  # no content type
        ("POST", f"{base}/rounds", body, {**auth, "content-type": "application/a/b+json"}),
        ("POST", f"{base}/rounds", b'{"type": "asszorti_amounts", "amounts": NaN}', json),
        ("POST", f"{base}/rounds", body, {"content-type": "application/json"}),  # no token
        ("PUT", f"{base}/rounds/0", body, json),
        ("PUT", f"{base}/rounds/x", body, json),
        ("PUT", f"{base}/rounds/99", body, json),
        ("GET", f"{base}/rounds/99", None, auth),
        ("POST", "/v1/matches", b'{"game": "asszorti", "players": ["A"]}', json),
        ("POST", f"{base}/rounds", body, {**json, "Idempotency-Key": " spaced "}),
        ("POST", f"{base}/rounds", body, {**json, "If-Match": "v1"}),
        ("POST", f"{base}/rounds", body, {**json, "If-Match": '"v99"'}),
        ("GET", "/v1/matches/unknown", None, auth),
    ]


def _answers(app: FastAPI, database_url: str) -> Iterator[tuple[int, Any]]:
    with TestClient(app) as client:
        table = Table(client, {"game": "asszorti", "players": PLAYERS})
        for method, path, content, headers in _probes(table):
            response = client.request(
                method, path.replace("{id}", table.id), content=content, headers=headers
            )
            yield response.status_code, response.json()


def test_every_other_request_gets_fastapis_own_answer(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(database_url=database_url, rate_limit_matches_per_minute=0)
    lean = list(_answers(create_app(settings), database_url))
    monkeypatch.setattr(routing, "_plan", lambda route: None)  # FastAPI's handler everywhere
    standard = list(_answers(create_app(settings), database_url))
    assert lean == standard
    statuses = [status for status, _ in lean]
    assert 200 not in statuses and 201 not in statuses
    assert {401, 404, 412, 422} <= set(statuses)


def test_a_dependency_override_is_resolved_by_fastapi(database_url: str, solved: list[str]) -> None:
    app = create_app(Settings(database_url=database_url, rate_limit_matches_per_minute=0))
    with TestClient(app) as client:
        app.dependency_overrides[get_db] = lambda: app.state.db
        assert client.get("/readyz").status_code == 200
        table = Table(client, {"game": "asszorti", "players": PLAYERS})
        assert table.get().status_code == 200
    assert f"/v1/matches/{table.id}" in solved


class _Amounts(BaseModel):
    type: str
    amounts: list[int]


async def _echo(body: _Amounts) -> JSONResponse:
    return JSONResponse({"type": body.type})


def test_a_route_s_own_body_limit_still_applies() -> None:
    """A route given its own max_body_size is answered by FastAPI's app, which applies
    it (the lean path would not)."""
    app = FastAPI()
    app.router.add_api_route(
        "/echo", _echo, methods=["POST"], route_class_override=routing.LeanRoute, max_body_size=20
    )
    app.router.add_api_route(
        "/free", _echo, methods=["POST"], route_class_override=routing.LeanRoute
    )
    body = b'{"type": "asszorti_amounts", "amounts": [2, -1, -1]}'
    headers = {"content-type": "application/json"}
    with TestClient(app) as client:
        assert client.post("/echo", content=body, headers=headers).status_code == 413
        assert client.post("/free", content=body, headers=headers).status_code == 200
