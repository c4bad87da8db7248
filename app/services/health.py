"""Readiness: the database answers and its schema is at the migrations' head."""

from functools import lru_cache
from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.exc import SQLAlchemyError

from app.db.engine import Database

ROOT = Path(__file__).resolve().parents[2]


@lru_cache
def head_revision() -> str | None:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return ScriptDirectory.from_config(config).get_current_head()


def readiness(db: Database) -> tuple[bool, str]:
    """(ready, why) for /readyz."""
    try:
        with db.read() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    except SQLAlchemyError as error:
        return False, f"database unreachable: {type(error).__name__}"
    head = head_revision()
    if current != head:
        return False, f"schema at {current}, expected {head}"
    return True, f"schema at {head}"
