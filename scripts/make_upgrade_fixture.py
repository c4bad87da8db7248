"""Write the upgrade fixture: a database as deployed code leaves it, and what it served.

tests/integration/test_upgrade_keeps_data.py upgrades this database with the
current migrations, serves it with the current app and checks that every
response recorded here comes back the same ("nothing lost on upgrade").

The fixture must be written by the code that wrote the deployed databases:
commit 51dddeb8d1716d5046e36f5981bd7ddbc8e9593c, migration head "0004" (whose
``match`` table still has the rendered ``view`` column). So run this script
from a git worktree of that commit, never from the current checkout (it
refuses to run when the migration head of the code it imports is not 0004).
From the main checkout (/work/main here)::

    git worktree add /tmp/squarescores-51dddeb 51dddeb8d1716d5046e36f5981bd7ddbc8e9593c
    cd /tmp/squarescores-51dddeb
    PYTHONPATH=/tmp/squarescores-51dddeb /work/main/.venv/bin/python \\
        /work/main/scripts/make_upgrade_fixture.py /work/main/tests/fixtures/upgrade
    cd /work/main
    git worktree remove /tmp/squarescores-51dddeb

It writes, into the directory given (default ``tests/fixtures/upgrade`` under
the current directory):

- ``v0004.sqlite``: a SQLite file migrated to 0004 by that code's alembic, then
  written through that code's HTTP API (FastAPI TestClient): an ended Asszorti
  match (hands with kontra and arrivázs, a hand scored as amounts, a
  correction, an undone last round, Idempotency-Keys), an Alkort match with
  team names whose target the host moved (decided, then in progress again),
  and a fresh match without rounds. Vacuumed, in rollback-journal mode, with
  no -wal or -shm file beside it.
- ``v0004_expected.json``: each match's tokens, and for each match every read
  the test repeats (the match, its rounds, each round, the sheet as JSON and
  CSV, each round number's history, the match read with every token) with its
  status, ETag, media type and body; and one write (a round added to the
  in-progress match) as that code answered it on a copy of the database, so
  the test can check the new code continues the sheet the same way.

Tokens, ids and timestamps are random or the time of the run, so running it
again writes a different (equally valid) fixture: regenerate both files together.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PINNED_COMMIT = "51dddeb8d1716d5046e36f5981bd7ddbc8e9593c"
PINNED_REVISION = "0004"
DATABASE_NAME = "v0004.sqlite"
EXPECTED_NAME = "v0004_expected.json"
TABLES = ("match", "round", "credential", "round_revision", "idempotency_key", "rate_limit_window")
# Fields of a write's answer that hold the time the write was made.
TIME_FIELDS = ("created_at", "updated_at", "ended_at", "recorded_at")

ASSZORTI = ["Anna", "Berta", "Csaba"]
ALKORT = ["Anna", "Bela", "Cili", "Dani"]


def hand(
    declarer: int,
    tricks: list[int],
    contract: str = "1",
    trumps: str = "diamonds",
    kontra: str = "none",
    arrivazs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "asszorti_hand",
        "declarer": declarer,
        "contract": contract,
        "trumps": trumps,
        "tricks": tricks,
        "kontra": kontra,
    }
    if arrivazs is not None:
        body["arrivazs"] = arrivazs
    return body


def amounts(*values: int) -> dict[str, Any]:
    return {"type": "asszorti_amounts", "amounts": list(values)}


def tricks(*winners: int) -> dict[str, Any]:
    return {"type": "alkort_tricks", "tricks": list(winners)}


def points(team: int, value: int) -> dict[str, Any]:
    return {"type": "alkort_points", "team": team, "points": value}


# The round added after the upgrade: to the Alkort match, the one left in progress.
WRITE_BODY = tricks(1, 1, 1, 1, 1, 1, 0)


class Table:
    """A match created through the old API, with its tokens."""

    def __init__(self, client: Any, body: dict[str, Any], key: str | None = None) -> None:
        headers = {"Idempotency-Key": key} if key else {}
        created = client.post("/v1/matches", json=body, headers=headers)
        assert created.status_code == 201, created.text
        self.client = client
        self.id: str = created.json()["id"]
        self.game: str = body["game"]
        self.tokens: dict[str, Any] = created.json()["tokens"]
        self.url = f"/v1/matches/{self.id}"

    def token(self, who: str | int) -> str:
        return str(self.tokens["players"][who] if isinstance(who, int) else self.tokens[who])

    def auth(self, who: str | int, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(who)}", **extra}

    def version(self) -> int:
        response = self.client.get(self.url, headers=self.auth("viewer"))
        assert response.status_code == 200, response.text
        return int(response.json()["version"])

    def add(self, body: dict[str, Any], who: str | int = "host", **headers: str) -> dict[str, Any]:
        response = self.client.post(
            f"{self.url}/rounds", json=body, headers=self.auth(who, **headers)
        )
        assert response.status_code == 201, response.text
        return dict(response.json())

    def correct(self, number: int, body: dict[str, Any], who: str | int = "host") -> None:
        response = self.client.put(f"{self.url}/rounds/{number}", json=body, headers=self.auth(who))
        assert response.status_code == 200, response.text

    def undo(self, number: int, who: str | int = "host") -> None:
        # If-Match as a careful client sends it: only if nothing changed since it read.
        headers = self.auth(who, **{"If-Match": f'"v{self.version()}"'})
        response = self.client.delete(f"{self.url}/rounds/{number}", headers=headers)
        assert response.status_code == 204, response.text

    def patch(self, body: dict[str, Any]) -> dict[str, Any]:
        response = self.client.patch(self.url, json=body, headers=self.auth("host"))
        assert response.status_code == 200, response.text
        return dict(response.json())

    def end(self, who: str | int, key: str) -> dict[str, Any]:
        headers = self.auth(who, **{"Idempotency-Key": key})
        response = self.client.post(f"{self.url}/end", headers=headers)
        assert response.status_code == 200, response.text
        return dict(response.json())


def play(client: Any) -> list[Table]:
    """Three matches as tables play them."""
    # An Asszorti evening, ended. Its creation and two of its writes carry keys.
    evening = Table(client, {"game": "asszorti", "players": ASSZORTI}, key="create-evening-1")
    evening.add(hand(1, [2, 7, 2]), who=1)  # Berta, contract 1 in diamonds: she wins 9 each
    evening.add(amounts(18, -9, -9), who=0)  # a hand the table scored itself
    evening.add(hand(2, [2, 2, 7], contract="2", trumps="hearts", kontra="kontra"), who=2)
    evening.add(
        hand(
            0, [6, 3, 2], "3", "clubs", arrivazs={"won": True, "idegen": True, "kontra": "kontra"}
        ),
        who=0,
    )
    evening.add(
        hand(1, [4, 5, 2], "1", "spades", kontra="rekontra"),
        who=1,
        **{"Idempotency-Key": "evening-round-5"},
    )
    evening.add(hand(2, [3, 2, 6], "hand", "none", kontra="kontra"), who="host")
    evening.add(amounts(-4, 8, -4), who=2)  # entered by mistake ...
    evening.undo(7, who=2)  # ... and undone
    # Round 3 was really a contract 1 with a rekontra: correct it, later rows are refolded.
    evening.correct(3, hand(2, [2, 2, 7], contract="1", trumps="hearts", kontra="rekontra"), who=1)
    evening.end(who=0, key="end-evening-1")

    # An Alkort match with team names; the host moves the target down (decided)
    # and back up (in progress again), and renames a team.
    alkort = Table(
        client,
        {
            "game": "alkort",
            "players": ALKORT,
            "team_names": ["Us", "Them"],
            "settings": {"target": 11},
        },
    )
    alkort.add(tricks(0, 0, 0, 0, 0, 1))  # muk: 5 to team 0
    alkort.add(points(1, 7), who=1)
    decided = alkort.patch({"settings": {"target": 7}})
    assert decided["status"] == "decided", decided
    alkort.patch({"settings": {"target": 21}, "team_names": ["Us", "The Others"]})
    alkort.add(tricks(1, 0, 1, 0, 1, 0, 1, 0, 1), who=2)  # a plain win: 1 to team 1
    alkort.add(tricks(0, 0, 0, 0, 0, 0, 1, 1, 0), who=3)  # a run of 6: 6 to team 0
    assert client.get(alkort.url, headers=alkort.auth("viewer")).json()["status"] == "in_progress"

    # Created and never played: no rounds, table rules not the defaults.
    fresh = Table(
        client,
        {
            "game": "asszorti",
            "players": ["Dora", "Emese", "Ferenc"],
            "settings": {"kontra": False, "planned_deals": 12, "first_dealer": 2},
        },
    )
    return [evening, alkort, fresh]


def read(table: Table, kind: str, path: str, who: str | int = "viewer") -> dict[str, Any]:
    """One GET as the test repeats it, with what the old code answered."""
    response = table.client.get(table.url + path, headers=table.auth(who))
    media_type = response.headers.get("content-type", "").split(";")[0].strip()
    recorded: dict[str, Any] = {
        "kind": kind,
        "path": table.url + path,
        "who": who,
        "status": response.status_code,
        "etag": response.headers.get("etag"),
        "media_type": media_type,
    }
    if response.status_code >= 400:
        recorded["code"] = response.json()["code"]  # the problem's stable code, not its wording
    elif media_type.endswith("json"):
        recorded["body"] = response.json()
    else:
        recorded["body"] = response.text
    return recorded


def record(table: Table, revised: list[int]) -> dict[str, Any]:
    """Every read of one match, with the viewer's token unless said otherwise.

    ``revised``: the round numbers with a recorded revision (an undone round has a
    history but no round any more).
    """
    match = read(table, "match", "")
    assert match["status"] == 200
    reads = [match]
    for who in ["host", *range(len(table.tokens["players"]))]:
        reads.append(read(table, "match", "", who))  # every credential still opens the match
    rounds = read(table, "rounds", "/rounds")
    reads.append(rounds)
    numbers = [item["number"] for item in rounds["body"]["items"]]
    for number in sorted({*numbers, *revised}):
        reads.append(read(table, "round", f"/rounds/{number}"))
        reads.append(read(table, "history", f"/rounds/{number}/history"))
    reads.append(read(table, "sheet", "/sheet"))
    reads.append(read(table, "sheet_csv", "/sheet.csv"))
    return {
        "id": table.id,
        "game": table.game,
        "tokens": table.tokens,
        "round_numbers": numbers,
        "reads": reads,
    }


def without_times(body: Any) -> Any:
    """A write's answer without the time it was made at (the test's write is later)."""
    if isinstance(body, dict):
        return {k: without_times(v) for k, v in body.items() if k not in TIME_FIELDS}
    if isinstance(body, list):
        return [without_times(v) for v in body]
    return body


def old_code_root() -> Path:
    import app

    return Path(app.__file__).resolve().parents[1]


def check_old_code(root: Path, force: bool) -> str:
    """The commit of the code imported as ``app``; refuse anything but 0004's code."""
    from alembic.script import ScriptDirectory

    heads = ScriptDirectory(str(root / "migrations")).get_heads()
    if heads != [PINNED_REVISION]:
        sys.exit(
            f"the code imported from {root} has migration heads {heads}, not "
            f"['{PINNED_REVISION}']: run this from a worktree of {PINNED_COMMIT} (see --help)"
        )
    commit = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if commit != PINNED_COMMIT and not force:
        sys.exit(
            f"{root} is at {commit or 'no git commit'}, not {PINNED_COMMIT} (--force to go on)"
        )
    return commit


def migrate(root: Path, url: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config(str(root / "alembic.ini"))
    config.set_main_option("script_location", str(root / "migrations"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


@contextmanager
def serve(url: str) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings

    app = create_app(
        Settings(database_url=url, rate_limit_matches_per_minute=0, log_level="warning")
    )
    with TestClient(app) as client:
        yield client


def settle(path: Path) -> None:
    """Fold the WAL into the file, leave WAL mode, and vacuum: one file, small."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        conn.execute("PRAGMA journal_mode=DELETE").fetchall()
        conn.execute("VACUUM")
    finally:
        conn.close()
    for suffix in ("-wal", "-shm", "-journal"):
        leftover = path.with_name(path.name + suffix)
        assert not leftover.exists(), f"{leftover} is left over"


def revised_numbers(path: Path, match_id: str) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            'SELECT DISTINCT "number" FROM "round_revision" WHERE "match_id" = ? ORDER BY 1',
            (match_id,),
        )
        return [number for (number,) in rows]
    finally:
        conn.close()


def row_counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def write_after(path: Path, target: dict[str, Any]) -> dict[str, Any]:
    """The old code's answer to the test's write, made on a throwaway copy."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "copy.sqlite"
        shutil.copyfile(path, copy)
        with serve(f"sqlite:///{copy}") as client:
            url = f"/v1/matches/{target['id']}"
            auth = {"Authorization": f"Bearer {target['tokens']['host']}"}
            before = client.get(url, headers=auth)
            response = client.post(f"{url}/rounds", json=WRITE_BODY, headers=auth)
            after = client.get(url, headers=auth)
    assert response.status_code == 201, response.text
    return {
        "match_id": target["id"],
        "who": "host",
        "body": WRITE_BODY,
        "etag_before": before.headers["etag"],
        "status": response.status_code,
        "etag": response.headers["etag"],
        "response": without_times(response.json()),
        "match_after": without_times(after.json()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default="tests/fixtures/upgrade", type=Path)
    parser.add_argument("--force", action="store_true", help="accept another commit of 0004")
    args = parser.parse_args()

    root = old_code_root()
    commit = check_old_code(root, args.force)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / DATABASE_NAME
        url = f"sqlite:///{path}"
        migrate(root, url)
        with serve(url) as client:
            tables = play(client)
            matches = [record(t, revised_numbers(path, t.id)) for t in tables]
        settle(path)
        write = write_after(path, next(m for m in matches if m["game"] == "alkort"))
        counts = row_counts(path)
        shutil.copyfile(path, out / DATABASE_NAME)

    expected = {
        "written_by": {"commit": commit, "alembic_revision": PINNED_REVISION},
        "row_counts": counts,
        "matches": matches,
        "write": write,
    }
    text = json.dumps(expected, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    (out / EXPECTED_NAME).write_text(text, encoding="utf-8")
    for name in (DATABASE_NAME, EXPECTED_NAME):
        print(f"{out / name}: {(out / name).stat().st_size} bytes")
    print("rows:", counts)


if __name__ == "__main__":
    main()
