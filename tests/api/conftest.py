"""An app and an HTTP client per database, and a helper that plays a table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table


@pytest.fixture(scope="session")
def client(database_url: str) -> Iterator[TestClient]:
    app = create_app(Settings(database_url=database_url, rate_limit_matches_per_minute=0))
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client, {"game": "asszorti", "players": PLAYERS})


@pytest.fixture
def make_table(client: TestClient) -> Any:
    def make(**body: Any) -> Table:
        return Table(client, {"game": "asszorti", "players": PLAYERS, **body})

    return make
