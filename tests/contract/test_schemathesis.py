"""Schemathesis fuzzes the app from its own OpenAPI document, with every default check.

Runs in-process (ASGI) against a migrated SQLite database. Half the generated
cases carry a valid token of a real match (and that match's id) so the fuzzing
reaches past authentication; the rest keep whatever schemathesis generated, so
the ``ignored_auth`` check still sees unauthenticated requests.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import hypothesis
import schemathesis
from fastapi.testclient import TestClient

from app.db.database import Database
from app.main import create_app
from app.settings import Settings
from tests.conftest import migrate

_DIR = Path(tempfile.mkdtemp(prefix="squarescores-fuzz-"))
_URL = f"sqlite:///{_DIR / 'fuzz.db'}"
migrate(_URL)
_SETTINGS = Settings(database_url=_URL, rate_limit_matches_per_minute=0, log_level="warning")
app = create_app(_SETTINGS)
app.state.db = Database(_SETTINGS)

with TestClient(app) as _client:
    _tables = {
        game: _client.post("/v1/matches", json=body).json()
        for game, body in {
            "asszorti": {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
            "alkort": {"game": "alkort", "players": ["Anna", "Bela", "Cili", "Dani"]},
        }.items()
    }

schema = schemathesis.openapi.from_asgi("/openapi.json", app)

# positive_data_acceptance expects every schema-valid body to be accepted, but the
# scoring rules are not all expressible in JSON Schema (tricks summing to 11,
# amounts summing to 0, names unique ignoring case, an Alkort list stopping only
# once decided): such bodies are rightly 422 with the field named. Every other
# default check runs.
EXCLUDED = [schemathesis.checks.positive_data_acceptance]


def _table_for(path_parameters: dict[str, Any]) -> dict[str, Any]:
    number = path_parameters.get("number", 0)
    return _tables["alkort" if isinstance(number, int) and number % 2 else "asszorti"]


@schema.auth()
class HostToken:
    """A valid host token, of the match the case is sent to; schemathesis strips or
    mangles it itself for its authentication checks."""

    def get(self, case: Any, context: Any) -> str:
        return str(_table_for(case.path_parameters or {})["tokens"]["host"])

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schema.hook
def map_path_parameters(context: Any, path_parameters: dict[str, Any] | None) -> Any:
    """Send every case to a real match (of either game), so fuzzing reaches past the 404."""
    if path_parameters and "match_id" in path_parameters:
        path_parameters["match_id"] = _table_for(path_parameters)["id"]
    return path_parameters


@schema.parametrize()
@hypothesis.settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
    derandomize=True,
)
def test_api_conforms_to_its_schema(case: Any) -> None:
    case.call_and_validate(excluded_checks=EXCLUDED)
