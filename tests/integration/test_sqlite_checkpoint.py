"""SQLite's write-ahead log is copied into the database file by the Checkpointer's
thread, not by whichever commit happens to take the log past 1000 pages."""

import shutil
import sqlite3
import time
from pathlib import Path

from app.db.engine import Checkpointer, Database
from app.settings import Settings


def test_commits_leave_checkpoints_to_the_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    db = Database(Settings(database_url=f"sqlite:///{path}"))
    try:
        with db.write() as tx:
            pages = tx.driver.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
            tx.driver.execute("CREATE TABLE t (n INTEGER)")
        assert pages == Checkpointer.BACKSTOP_PAGES
        for n in range(50):
            with db.write() as tx:
                tx.driver.execute("INSERT INTO t VALUES (?)", (n,))
        deadline = time.monotonic() + 10
        copied = 0
        while time.monotonic() < deadline:
            # The database file alone, without its log: what a checkpoint has copied.
            shutil.copy(path, tmp_path / "copy.db")
            with sqlite3.connect(tmp_path / "copy.db") as copy:
                tables = copy.execute("SELECT count(*) FROM sqlite_master WHERE name='t'")
                if tables.fetchone()[0]:
                    copied = copy.execute("SELECT count(*) FROM t").fetchone()[0]
            if copied == 50:
                break
            time.sleep(0.1)
        assert copied == 50
    finally:
        db.dispose()


def test_dispose_stops_the_thread(tmp_path: Path) -> None:
    db = Database(Settings(database_url=f"sqlite:///{tmp_path / 'd.db'}"))
    checkpointer = db._checkpointer
    assert checkpointer is not None and checkpointer._thread.is_alive()
    db.dispose()
    assert not checkpointer._thread.is_alive()


def test_no_checkpointer_for_an_in_memory_database() -> None:
    db = Database(Settings(database_url="sqlite://"))
    assert db._checkpointer is None
    db.dispose()


def test_a_missing_database_file_is_not_created_by_the_checkpointer(tmp_path: Path) -> None:
    path = tmp_path / "missing.db"
    checkpointer = Checkpointer(str(path), interval=0.01)
    time.sleep(0.1)
    checkpointer.stop()
    assert not path.exists()
