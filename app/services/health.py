"""Readiness: the database answers and its schema is at the migrations' head."""

from functools import lru_cache
from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.exc import SQLAlchemyError

from app.db.database import Database
from app.errors import NotReady

ROOT = Path(__file__).resolve().parents[2]


@lru_cache
def head_revision() -> str | None:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return ScriptDirectory.from_config(config).get_current_head()


def readiness(db: Database) -> str:
    """Ready when the database answers and its schema is at head (its revision);
    NotReady otherwise. Blocking: the API runs it in a worker thread."""
    try:
        with db.engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    except SQLAlchemyError as error:
        raise NotReady(f"database unreachable: {type(error).__name__}") from None
    head = head_revision()
    if current != head:
        raise NotReady(f"schema at {current}, expected {head}: run `alembic upgrade head`")
    assert head is not None
    return head
