"""Schemathesis fuzzes the app from its own OpenAPI document, with every default check,
on SQLite and on PostgreSQL (a database error caused by what a client sent must never
surface as a 500 on either).

Runs in-process (ASGI) against migrated databases. Half the generated cases carry
a valid token of a real match (and that match's id) so the fuzzing reaches past
authentication; the rest keep whatever schemathesis generated, so the
``ignored_auth`` check still sees unauthenticated requests. The PostgreSQL half
skips when no server answers, except under CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import atexit
import os
import tempfile
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from app.db.database import Database
from app.main import create_app
from app.settings import Settings
from tests.conftest import POSTGRES_ADMIN_URL, PostgresDatabases, migrate

# positive_data_acceptance expects every schema-valid body to be accepted, but the
# scoring rules are not all expressible in JSON Schema (tricks summing to 11,
# amounts summing to 0, names unique ignoring case, an Alkort list stopping only
# once decided): such bodies are rightly 422 with the field named. Every other
# default check runs.
EXCLUDED = [schemathesis.checks.positive_data_acceptance]
SETTINGS = hypothesis.settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
    derandomize=True,
)


def _fuzzed_app(url: str) -> tuple[FastAPI, dict[str, Any]]:
    """The app on ``url``, and a match of each game to send the cases to."""
    settings = Settings(database_url=url, rate_limit_matches_per_minute=0, log_level="warning")
    app = create_app(settings)
    app.state.db = Database(settings)
    with TestClient(app) as client:
        tables = {
            game: client.post("/v1/matches", json=body).json()
            for game, body in {
                "asszorti": {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
                "alkort": {"game": "alkort", "players": ["Anna", "Bela", "Cili", "Dani"]},
            }.items()
        }
    return app, tables


def _schema(app: FastAPI, tables: dict[str, Any]) -> Any:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)

    def table_for(path_parameters: dict[str, Any]) -> dict[str, Any]:
        number = path_parameters.get("number", 0)
        return tables["alkort" if isinstance(number, int) and number % 2 else "asszorti"]

    @schema.auth()
    class HostToken:
        """A valid host token, of the match the case is sent to; schemathesis strips or
        mangles it itself for its authentication checks."""

        def get(self, case: Any, context: Any) -> str:
            return str(table_for(case.path_parameters or {})["tokens"]["host"])

        def set(self, case: Any, data: str, context: Any) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    @schema.hook
    def map_path_parameters(context: Any, path_parameters: dict[str, Any] | None) -> Any:
        """Send every case to a real match (of either game), so fuzzing reaches past
        the 404."""
        if path_parameters and "match_id" in path_parameters:
            path_parameters["match_id"] = table_for(path_parameters)["id"]
        return path_parameters

    return schema


_DIR = Path(tempfile.mkdtemp(prefix="squarescores-fuzz-"))
_SQLITE_URL = f"sqlite:///{_DIR / 'fuzz.db'}"
migrate(_SQLITE_URL)
sqlite_schema = _schema(*_fuzzed_app(_SQLITE_URL))


def _postgres_url() -> str | None:
    databases = PostgresDatabases(POSTGRES_ADMIN_URL)
    try:
        url = databases.create()
    except OperationalError:
        databases.admin.dispose()
        return None
    atexit.register(databases.drop_all)
    migrate(url)
    return url


_POSTGRES_URL = _postgres_url()
# No server: a schema of the SQLite app stands in, so the test is collected, then skipped.
postgres_schema = (
    _schema(*_fuzzed_app(_POSTGRES_URL)) if _POSTGRES_URL is not None else sqlite_schema
)


@sqlite_schema.parametrize()
@SETTINGS
def test_api_conforms_to_its_schema_on_sqlite(case: Any) -> None:
    case.call_and_validate(excluded_checks=EXCLUDED)


@postgres_schema.parametrize()
@SETTINGS
def test_api_conforms_to_its_schema_on_postgresql(case: Any) -> None:
    if _POSTGRES_URL is None:
        if os.environ.get("CI"):
            pytest.fail(
                f"PostgreSQL is required under CI and did not answer at {POSTGRES_ADMIN_URL}"
            )
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}")
    case.call_and_validate(excluded_checks=EXCLUDED)
