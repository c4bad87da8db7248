"""Fixtures of the tests that serve the app for real: a database on each engine."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import migrate


@pytest.fixture
def sqlite_file_url(tmp_path: Any) -> str:
    """A migrated SQLite file of its own (a file: a live server reads it from threads)."""
    url = f"sqlite:///{tmp_path}/served.db"
    migrate(url)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest) -> str:
    """The test's database URL, once on each engine."""
    name = "sqlite_file_url" if request.param == "sqlite" else "postgres_url"
    return str(request.getfixturevalue(name))
