"""Databases for the tests: a migrated SQLite file and a fresh PostgreSQL database.

The schema is always built by ``alembic upgrade head``, never ``create_all``.
PostgreSQL tests skip when no server answers, except under CI (``CI=true``),
where a missing server fails the run instead of hiding behind a skip.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

ROOT = Path(__file__).resolve().parents[1]
# The suite re-issues tokens, takes stream tickets and reads sheets and histories from
# one address far more often than a table does: those limits are off unless a test sets
# them (the servers it starts inherit this). Match creation's limit is set by each test
# that builds an app.
os.environ.setdefault("RATE_LIMIT_TOKENS_PER_MINUTE", "0")
os.environ.setdefault("RATE_LIMIT_TICKETS_PER_MINUTE", "0")
os.environ.setdefault("RATE_LIMIT_READS_PER_MINUTE", "0")
POSTGRES_ADMIN_URL = os.environ.get(
    "SQUARESCORES_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def alembic_config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    return config


def migrate(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("sqlite") / "squarescores.db"
    url = f"sqlite:///{path}"
    migrate(url)
    return url


class PostgresDatabases:
    """Creates throwaway databases on the local PostgreSQL server and drops them after."""

    def __init__(self, admin_url: str) -> None:
        self.admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        self.admin_url = make_url(admin_url)
        self.created: list[str] = []

    def create(self) -> str:
        name = f"squarescores_test_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        self.created.append(name)
        return self.admin_url.set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        with self.admin.connect() as conn:
            for name in self.created:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self.admin.dispose()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(POSTGRES_ADMIN_URL)
    try:
        with databases.admin.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as error:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required under CI and did not answer: {error}")
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}")
    yield databases
    databases.drop_all()


@pytest.fixture(scope="session")
def postgres_url(postgres: PostgresDatabases) -> str:
    url = postgres.create()
    migrate(url)
    return url


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each test that asks for it runs once per supported database."""
    return str(request.getfixturevalue(f"{request.param.replace('postgresql', 'postgres')}_url"))
