"""Liveness and readiness probes."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.conftest import migrate


def test_healthz(client: Any) -> None:
    assert client.get("/healthz").json()["status"] == "ok"


def test_readyz_when_migrated(client: Any) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["detail"].startswith("schema at ")


def test_readyz_fails_until_the_schema_is_at_head(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path}/ready.db"
    with TestClient(create_app(Settings(database_url=url))) as unmigrated:
        response = unmigrated.get("/readyz")
        assert response.status_code == 503
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "not_ready"
        assert response.headers["retry-after"] == "5"
        migrate(url)
        assert unmigrated.get("/readyz").status_code == 200


def test_the_served_app_object_exists() -> None:
    """`uvicorn app.main:app` (make run, the Dockerfile) needs this module attribute."""
    from fastapi import FastAPI

    import app.main

    assert isinstance(app.main.app, FastAPI)
