"""The migrations build, tear down and rebuild the schema, and agree with the models."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect
from sqlmodel import SQLModel

import app.db.models  # noqa: F401
from tests.conftest import PostgresDatabases, alembic_config


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request: pytest.FixtureRequest, tmp_path: object) -> str:
    """An empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/migrations.db"
    databases: PostgresDatabases = request.getfixturevalue("postgres")
    return databases.create()


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "render_as_batch": True}
            )
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(fresh_url: str) -> None:
    config = alembic_config(fresh_url)
    command.upgrade(config, "head")
    assert {"match", "round", "credential", "alembic_version"} <= _tables(fresh_url)
    command.downgrade(config, "base")
    assert _tables(fresh_url) <= {"alembic_version"}
    command.upgrade(config, "head")
    assert {"match", "round", "credential"} <= _tables(fresh_url)


def test_models_and_migrations_agree(fresh_url: str) -> None:
    command.upgrade(alembic_config(fresh_url), "head")
    assert _diff(fresh_url) == []
