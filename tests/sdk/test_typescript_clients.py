"""The TypeScript clients, generated on their default flags and used for real.

In a temporary copy of ``sdk/typescript`` (``npm ci`` once), the committed OpenAPI
document is turned into a client by @hey-api/openapi-ts (``generated/hey-api``, its
default fetch client) and by openapi-generator's typescript-fetch
(``generated/typescript-fetch``, run on java), and both, with ``play.ts`` and
``roundtrip.ts``, are compiled once with ``tsc --strict``. Then, against one live server
on a fresh SQLite file:

- ``play.js`` plays a match of each game through hey-api's client while two
  EventSource streams (the eventsource package: the browser's API) follow it with stream
  tickets, each event's data narrowed as the generated ``MatchEvent`` union;
- real responses of every kind, captured here with httpx, go through typescript-fetch's
  ``XFromJSON`` and back through ``XToJSON`` in ``roundtrip.js``: nothing may be lost,
  changed or made up, but for the one difference typescript-fetch makes by design
  (date-times become ``Date``, see ``DATE_TIMES``).

The TypeScript event loop in docs/client-guide.md is the one ``play.ts`` runs, character
for character.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import ServerSentEvent, connect_sse

from tests.conftest import ROOT, migrate
from tests.live import LiveServer
from tests.sdk.generators import OPENAPI_GENERATOR, SPEC

TYPESCRIPT_DIR = ROOT / "sdk" / "typescript"
GUIDE = ROOT / "docs" / "client-guide.md"
SOURCES = (
    "package.json",
    "package-lock.json",
    "tsconfig.clients.json",
    "node-globals.d.ts",
    "play.ts",
    "roundtrip.ts",
)
GAMES = ("asszorti", "alkort", "own_table")
EVENT_KINDS = (
    "snapshot",
    "round_entered",
    "round_corrected",
    "round_removed",
    "match_updated",
    "token_reissued",
    "ended",
    "resync",
    "revoked",
)
# openapi-generator exits 0 whatever it warns of; this one warning leaves nothing out.
KNOWN_WARNINGS = ("OpenAPI 3.1 support is still in beta",)
# typescript-fetch's default `dateLibrary=date` reads every date-time into a JS Date
# (millisecond precision) and writes it back with toISOString(): the server's
# microseconds come back cut to milliseconds. The same instant, another text: the
# generator's choice, not the document's (which says `format: date-time`, as it
# should). `--additional-properties=dateLibrary=string` keeps the text as sent.
DATE_TIMES = "typescript-fetch's default dateLibrary=date"


@dataclass(frozen=True)
class Clients:
    """The temporary copy of sdk/typescript with both clients generated and compiled."""

    work: Path
    build: Path
    node: str
    npx: str
    typescript_fetch_log: str


def tool(name: str) -> str:
    """A command the TypeScript clients need; missing, it fails the test under CI."""
    found = shutil.which(name)
    if found is None:
        message = f"{name} not found: the TypeScript clients cannot be generated or run"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def run(work: Path, *command: str, timeout: float = 180, printed: bool = False) -> str:
    """Run a command in ``work``; its stdout (``printed``: stdout and stderr)."""
    done = subprocess.run(
        command, cwd=work, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{output}"
    return output if printed else done.stdout


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Clients:
    """npm ci, both generators on their default flags, and one tsc --strict compile."""
    npm, npx, node = tool("npm"), tool("npx"), tool("node")
    tool("java")  # openapi-generator is a jar
    work = tmp_path_factory.mktemp("sdk-ts-clients") / "typescript"
    work.mkdir()
    for name in SOURCES:
        shutil.copy2(TYPESCRIPT_DIR / name, work / name)
    run(work, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
    run(work, npx, "--no-install", "openapi-ts", "-i", str(SPEC), "-o", "generated/hey-api")
    generate = (str(OPENAPI_GENERATOR), "generate", "-g", "typescript-fetch", "-i", str(SPEC))
    printed = run(work, *generate, "-o", "generated/typescript-fetch", printed=True)
    # Inside the copy, so that node finds node_modules (eventsource) from the output.
    run(work, npx, "--no-install", "tsc", "-p", "tsconfig.clients.json", "--outDir", "build")
    return Clients(
        work=work, build=work / "build", node=node, npx=npx, typescript_fetch_log=printed
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One uvicorn worker on a loopback port, against a fresh migrated SQLite file."""
    url = f"sqlite:///{tmp_path_factory.mktemp('sdk-ts-live') / 'sdk.db'}"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


# --- Generated and compiled ----------------------------------------------------------------


def test_both_clients_compile_with_strict(clients: Clients) -> None:
    """hey-api's client, typescript-fetch's, and the two programs: one tsc --strict run."""
    warnings = [
        line
        for line in clients.typescript_fetch_log.splitlines()
        if (" WARN " in line or " ERROR " in line)
        and not any(known in line for known in KNOWN_WARNINGS)
    ]
    assert not warnings, "typescript-fetch may have left parts out:\n" + "\n".join(warnings)
    hey_api = (clients.work / "generated" / "hey-api" / "types.gen.ts").read_text()
    # MatchEvent comes out as a union narrowed by `kind`, as play.ts's switch needs.
    assert "export type MatchEvent = ({\n    kind: 'snapshot';\n} & SnapshotEvent)" in hey_api
    fetch_models = clients.work / "generated" / "typescript-fetch" / "models"
    assert "export function MatchEventFromJSON(" in (fetch_models / "MatchEvent.ts").read_text()
    for program in ("play.js", "roundtrip.js"):
        assert (clients.build / program).is_file(), program


def test_a_new_event_kind_fails_to_compile(clients: Clients) -> None:
    """play.ts's listeners and its switch are exhaustive: a MatchEvent member it does not
    handle is a compile error in both places."""
    mutant = clients.work / "mutant"
    shutil.copytree(clients.work / "generated" / "hey-api", mutant / "generated" / "hey-api")
    for name in ("play.ts", "node-globals.d.ts"):
        shutil.copy2(clients.work / name, mutant / name)
    config = json.loads((clients.work / "tsconfig.clients.json").read_text())
    config["files"] = ["node-globals.d.ts", "play.ts"]
    (mutant / "tsconfig.json").write_text(json.dumps(config))
    types = mutant / "generated" / "hey-api" / "types.gen.ts"
    union = "export type MatchEvent = ("
    text = types.read_text()
    assert union in text
    added = "({ kind: 'round_tipped'; version: number; match: MatchRead }) | ("
    types.write_text(text.replace(union, f"export type MatchEvent = {added}", 1))
    checked = subprocess.run(
        [clients.npx, "--no-install", "tsc", "--noEmit", "-p", "tsconfig.json"],
        cwd=mutant,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    errors = checked.stdout
    assert checked.returncode != 0, errors
    assert re.search(r"play\.ts\(\d+,\d+\): error TS2741: Property 'round_tipped'", errors), errors
    assert re.search(r"play\.ts\(\d+,\d+\): error TS2322: .*'never'", errors), errors
    assert errors.count("error TS") == 2, errors


# --- A match of each game through hey-api's client, followed live --------------------------


def played(clients: Clients, server: LiveServer, game: str) -> dict[str, Any]:
    command = [clients.node, str(clients.build / "play.js"), server.url, game]
    return json.loads(run(clients.work, *command, timeout=60))


def kinds_and_versions(events: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(event["kind"], event["version"]) for event in events]


# What every match goes through: two rounds, the second corrected, a third entered and
# removed, a player renamed, the viewers' token re-issued, the match ended by the host.
HOST_EVENTS = [
    ("snapshot", 1),
    ("round_entered", 2),
    ("round_entered", 3),
    ("round_corrected", 4),
    ("round_entered", 5),
    ("round_removed", 6),
    ("match_updated", 7),
    ("token_reissued", 8),
    ("ended", 9),
]
# The viewer's stream sees the same until its own token is re-issued; then it is told so.
VIEWER_EVENTS = [*HOST_EVENTS[:-1], ("revoked", 8)]
ROUNDS_OF_EVENTS = [None, 1, 2, 2, 3, 3, None, None, None]

PLAYED = {
    "asszorti": {
        "players": ["Anna B.", "Berta", "Csaba"],
        "decided": "when ended",
        "scored": ["basic game 2", "amounts", "amounts", "amounts"],
        # Round 2 corrected from -20/+40/-20 to -4/+8/-4: Berta's +8 pays back 8 of the
        # 34 she owed, so the totals stay and the owed amounts move.
        "totals": [68, 0, 0],
        "owed": [4, 26, 38],
        "net": [64, -26, -38],
        "winner": {"seats": [0], "team": None},
        "event_totals": [
            [0, 0, 0],
            [68, 0, 0],
            [68, 6, 0],
            [68, 0, 0],
            [68, 0, 0],
            [68, 0, 0],
            [68, 0, 0],
            [68, 0, 0],
            [68, 0, 0],
        ],
    },
    "alkort": {
        "players": ["Anna B.", "Bela", "Cili", "Dani"],
        "decided": "at 15",
        "scored": ["muk of 5", "stroke of 7", "stroke of 6", "plain of 1"],
        # A muk of 5 for team 0, then team 1's stroke of 7 corrected to 6.
        "totals": [5, 6],
        "owed": None,
        "net": None,
        "winner": {"seats": None, "team": 1},
        "event_totals": [[0, 0], [5, 0], [5, 7], [5, 6], [6, 6], [5, 6], [5, 6], [5, 6], [5, 6]],
    },
    "own_table": {
        "players": ["Anna B.", "Bela", "Cili", "Dani"],
        "decided": "when ended",
        "scored": ["sum 0"] * 4,
        "totals": [10, -10],
        "owed": None,
        "net": [10, -10],
        "winner": {"seats": None, "team": 0},
        "event_totals": [
            [0, 0],
            [12, -12],
            [8, -8],
            [10, -10],
            [11, -11],
            [10, -10],
            [10, -10],
            [10, -10],
            [10, -10],
        ],
    },
}


@pytest.mark.parametrize("game", GAMES)
def test_a_match_through_hey_api_followed_with_event_source(
    clients: Clients, server: LiveServer, game: str
) -> None:
    summary = played(clients, server, game)
    expected = PLAYED[game]
    assert summary["game"] == game
    assert summary["status"] == summary["ended_status"] == "ended"
    assert summary["ended_by"] == "host"
    assert summary["players"] == expected["players"]
    # Settings and breakdowns narrowed by their `game` tag, as each game's member.
    assert summary["decided"] == expected["decided"]
    scored = [event["scored"] for event in summary["host"]["events"]]
    assert scored == [None, *expected["scored"], None, None, None, None]
    assert summary["round_count"] == 2
    assert (summary["totals"], summary["owed"], summary["net"]) == (
        expected["totals"],
        expected["owed"],
        expected["net"],
    )
    assert summary["winner"] == expected["winner"]

    host, viewer = summary["host"], summary["viewer"]
    assert host["last"] == "ended" and viewer["last"] == "revoked"
    assert kinds_and_versions(host["events"]) == HOST_EVENTS
    assert kinds_and_versions(viewer["events"]) == VIEWER_EVENTS
    assert host["events"][-1]["version"] == summary["version"]
    # Each event carries the match after its change (revoked carries none).
    assert [event["totals"] for event in host["events"]] == expected["event_totals"]
    assert [event["totals"] for event in viewer["events"]] == [
        *expected["event_totals"][:-1],
        None,
    ]
    assert [event["round"] for event in host["events"]] == ROUNDS_OF_EVENTS


# --- The client guide's TypeScript is play.ts's ---------------------------------------------


def guide_typescript_block() -> str:
    """The one ```ts block in the guide's "Follow a match live" section."""
    text = GUIDE.read_text()
    section = re.search(r"^## Follow a match live\n(.*?)^## ", text, re.MULTILINE | re.DOTALL)
    assert section, "docs/client-guide.md has no 'Follow a match live' section"
    blocks = re.findall(r"^```ts\n(.*?)^```$", section.group(1), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"{len(blocks)} TypeScript blocks in 'Follow a match live'"
    return str(blocks[0])


def test_the_guide_follows_a_match_with_play_ts_code() -> None:
    block = guide_typescript_block()
    assert "switch (event.kind)" in block and "const unknown: never = event;" in block
    assert "createStreamTicket" in block and "new EventSource(" in block
    assert block in (TYPESCRIPT_DIR / "play.ts").read_text(), (
        "the guide's TypeScript event loop is not play.ts's, character for character"
    )


# --- Real responses round-tripped through typescript-fetch's models ------------------------

Case = dict[str, Any]
Add = Callable[[str, str, Any], None]

MATCHES: dict[str, dict[str, Any]] = {
    "asszorti": {
        "create": {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
        "rounds": [
            {
                "type": "asszorti_hand",
                "declarer": 0,
                "contract": "3",
                "trumps": "clubs",
                "tricks": [6, 3, 2],
                "arrivazs": {"won": True, "idegen": True, "kontra": "kontra"},
            },
            {"type": "asszorti_amounts", "amounts": [-20, 40, -20]},
        ],
        "correction": {"type": "asszorti_amounts", "amounts": [-4, 8, -4]},
    },
    "alkort": {
        "create": {
            "game": "alkort",
            "players": ["Anna", "Bela", "Cili", "Dani"],
            "team_names": ["Us", "Them"],
            "settings": {"target": 15},
        },
        "rounds": [
            {"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 0, 1]},
            {"type": "alkort_points", "team": 1, "points": 7},
        ],
        "correction": {"type": "alkort_points", "team": 1, "points": 6},
    },
    "own_table": {
        "create": {
            "game": "own_table",
            "players": ["Anna", "Bela", "Cili", "Dani"],
            "settings": {"teams": 2, "zero_sum": True, "planned_rounds": 8, "table_rules": "Ulti"},
        },
        "rounds": [
            {"type": "own_points", "points": [12, -12]},
            {"type": "own_points", "points": [-4, 4]},
        ],
        "correction": {"type": "own_points", "points": [-2, 2]},
    },
}


def body(response: httpx.Response, status: int) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def events_until(stream: Iterator[ServerSentEvent], last: str) -> list[dict[str, Any]]:
    """Each event's data, as JSON, up to and including the first of kind ``last``."""
    data = []
    for sse in stream:
        if not sse.data:
            continue  # a comment (heartbeat)
        data.append(sse.json())
        if sse.event == last:
            return data
    raise AssertionError(f"the stream closed before {last}: {data}")


def capture_match(http: httpx.Client, game: str, add: Add) -> None:
    """A match of ``game`` from start to end; every response body, and every event two
    streams receive, added as a case."""
    script = MATCHES[game]
    created = body(http.post("/v1/matches", json=script["create"]), 201)
    add(f"{game} createMatch", "MatchCreated", created)
    add(f"{game} settings", "GameSettings", created["settings"])
    path = f"/v1/matches/{created['id']}"
    tokens = created["tokens"]
    host, viewer, player = (
        bearer(tokens["host"]),
        bearer(tokens["viewer"]),
        bearer(tokens["players"][1]),
    )
    # The viewer's stream sees the match to its end; seat 1's is revoked on the way.
    with (
        connect_sse(http, "GET", f"{path}/events", headers=viewer) as viewer_stream,
        connect_sse(http, "GET", f"{path}/events", headers=player) as player_stream,
    ):
        watching, playing = viewer_stream.iter_sse(), player_stream.iter_sse()
        # Read each snapshot first: what happens before a stream opens is not sent.
        snapshots = [next(watching).json(), next(playing).json()]
        for number, round_body in enumerate(script["rounds"], start=1):
            entered = body(http.post(f"{path}/rounds", json=round_body, headers=host), 201)
            kind = round_body["type"]
            add(f"{game} createRound {kind}", "RoundRead", entered)
            add(f"{game} input {kind}", "RoundInputRead", entered["input"])
            add(f"{game} breakdown {kind}", "Breakdown", entered["result"]["breakdown"])
            assert entered["number"] == number
            scored = http.post(f"/v1/games/{game}/score", json=round_body)
            add(f"{game} scoreRound {kind}", "ScoreRead", body(scored, 200))
        last = len(script["rounds"])
        corrected = http.put(f"{path}/rounds/{last}", json=script["correction"], headers=host)
        add(f"{game} replaceRound", "RoundRead", body(corrected, 200))
        body(http.post(f"{path}/rounds", json=script["correction"], headers=host), 201)
        assert http.delete(f"{path}/rounds/{last + 1}", headers=host).status_code == 204
        renamed = [seat["name"] + " B." for seat in created["players"]]
        updated = http.patch(path, json={"players": renamed}, headers=host)
        add(f"{game} updateMatch", "MatchRead", body(updated, 200))
        rounds = body(http.get(f"{path}/rounds", headers=viewer), 200)
        add(f"{game} listRounds", "RoundList", rounds)
        for number in (last, last + 1):  # corrected; removed (its input null)
            history = body(http.get(f"{path}/rounds/{number}/history", headers=viewer), 200)
            add(f"{game} getRoundHistory {number}", "RoundHistory", history)
        add(f"{game} getSheet", "SheetRead", body(http.get(f"{path}/sheet", headers=viewer), 200))
        for who, token in (("host", host), ("player", player)):
            add(f"{game} /me {who}", "TokenOwner", body(http.get(f"{path}/me", headers=token), 200))
        ticket = http.post(f"{path}/events/tickets", headers=viewer)
        add(f"{game} createStreamTicket", "StreamTicket", body(ticket, 201))
        reissued = http.post(f"{path}/tokens", json={"role": "player", "seat": 1}, headers=host)
        add(f"{game} reissueToken player", "IssuedToken", body(reissued, 200))
        if game == "asszorti":  # a host's re-issue carries a new recovery code
            issued = body(http.post(f"{path}/tokens", json={"role": "host"}, headers=host), 200)
            add(f"{game} reissueToken host", "IssuedToken", issued)
            host = bearer(issued["token"])
        ended = body(http.post(f"{path}/end", headers=host), 200)
        add(f"{game} endMatch", "MatchRead", ended)
        # After the evening: a typo fixed, and the rematch (linked from the ended match).
        fixed = http.patch(f"{path}/players/0", json={"name": "Anikó"}, headers=host)
        add(f"{game} updatePlayer", "MatchRead", body(fixed, 200))
        add(
            f"{game} startRematch",
            "MatchCreated",
            body(http.post(f"{path}/rematch", headers=host), 201),
        )
        add(f"{game} getMatch ended", "MatchRead", body(http.get(path, headers=viewer), 200))
        history = body(http.get(f"{path}/history", headers=viewer), 200)
        add(f"{game} getMatchHistory", "MatchHistory", history)
        events = [snapshots[0], *events_until(watching, "ended")]
        events += [snapshots[1], *events_until(playing, "revoked")]
    for event in events:
        add(f"{game} event {event['kind']}", "MatchEvent", event)


def capture_problems(http: httpx.Client, add: Add) -> None:
    """Problem bodies: a 422 naming its fields, a 409, a 404, a 401."""
    created = body(http.post("/v1/matches", json=MATCHES["alkort"]["create"]), 201)
    path, host = f"/v1/matches/{created['id']}", bearer(created["tokens"]["host"])
    bad_round = {"type": "alkort_points", "team": 0, "points": 99}
    invalid = http.post(f"{path}/rounds", json=bad_round, headers=host)
    add("problem 422", "Problem", body(invalid, 422))
    body(http.post(f"{path}/end", headers=host), 200)
    add("problem 409", "Problem", body(http.post(f"{path}/end", headers=host), 409))
    add("problem 404", "Problem", body(http.get("/v1/matches/" + "0" * 32, headers=host), 404))
    add("problem 401", "Problem", body(http.get(path, headers=bearer("not-a-token")), 401))


@pytest.fixture(scope="module")
def responses(server: LiveServer) -> list[Case]:
    """Real responses of every kind, as the server sent them."""
    cases: list[Case] = []

    def add(name: str, schema: str, raw: Any) -> None:
        cases.append({"name": name, "schema": schema, "raw": raw})

    with httpx.Client(base_url=server.url, timeout=10) as http:
        add("listGames", "GameList", body(http.get("/v1/games"), 200))
        for game in GAMES:
            capture_match(http, game, add)
        capture_problems(http, add)
    # A stream sends `resync` only when its client falls behind by a queue's worth
    # of changes that the sockets' buffers did not absorb: the document's example stands in.
    example = json.loads(SPEC.read_text())["components"]["schemas"]["ResyncEvent"]["examples"][0]
    add("event resync (the document's example)", "MatchEvent", example)
    return cases


@pytest.fixture(scope="module")
def round_trips(clients: Clients, responses: list[Case]) -> list[dict[str, Any]]:
    """roundtrip.js's report on every captured response."""
    cases = clients.work / "cases.json"
    cases.write_text(json.dumps(responses))
    command = [clients.node, str(clients.build / "roundtrip.js"), str(cases)]
    report: list[dict[str, Any]] = json.loads(run(clients.work, *command, timeout=60))
    assert [r["name"] for r in report] == [c["name"] for c in responses]
    return report


def date_time_fields() -> set[str]:
    """The names of the document's date-time properties."""
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for name, schema in node.get("properties", {}).items():
                formats = [schema, *schema.get("anyOf", [])]
                if any(isinstance(f, dict) and f.get("format") == "date-time" for f in formats):
                    names.add(name)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(SPEC.read_text())["components"]["schemas"])
    return names


def optional_response_fields() -> set[str]:
    """The properties a response may leave out (Problem's ``errors``), snake_case: a model
    may hold them as ``undefined``."""
    document = json.loads(SPEC.read_text())
    schemas = document["components"]["schemas"]
    reachable: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.rsplit("/", 1)[-1] not in reachable:
                reachable.add(ref.rsplit("/", 1)[-1])
                walk(schemas[ref.rsplit("/", 1)[-1]])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for operations in document["paths"].values():
        for operation in operations.values():
            walk(operation["responses"])
    return {
        name
        for schema in map(schemas.__getitem__, reachable)
        for name in schema.get("properties", {})
        if name not in schema.get("required", [])
    }


def snake(name: str | int) -> str:
    """typescript-fetch's camelCase property name, back in the document's snake_case."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", str(name)).lower()


def is_date_time_rewrite(diff: dict[str, Any], fields: set[str]) -> bool:
    """A date-time written back as the same instant at millisecond precision."""
    raw, back = diff.get("raw"), diff.get("back")
    if diff["path"][-1] not in fields or not isinstance(raw, str) or not isinstance(back, str):
        return False
    sent, returned = datetime.fromisoformat(raw), datetime.fromisoformat(back)
    return returned == sent.replace(microsecond=sent.microsecond // 1000 * 1000)


def test_every_response_and_event_kind_is_round_tripped(responses: list[Case]) -> None:
    schemas = {case["schema"] for case in responses}
    assert schemas >= {
        "GameList",
        "ScoreRead",
        "MatchCreated",
        "MatchRead",
        "RoundRead",
        "RoundList",
        "RoundHistory",
        "SheetRead",
        "TokenOwner",
        "IssuedToken",
        "MatchHistory",
        "StreamTicket",
        "Problem",
        "MatchEvent",
    }
    for game in GAMES:
        kinds = {c["raw"]["kind"] for c in responses if c["name"].startswith(f"{game} event ")}
        assert kinds == set(EVENT_KINDS) - {"resync"}, (game, kinds)
        rounds = {c["raw"]["type"] for c in responses if c["name"].startswith(f"{game} input ")}
        assert rounds == {r["type"] for r in MATCHES[game]["rounds"]}
    removed = next(c for c in responses if c["name"] == "asszorti getRoundHistory 3")
    assert [r["input"] for r in removed["raw"]["items"]][-1] is None


def test_typescript_fetch_models_lose_change_and_invent_nothing(
    round_trips: list[dict[str, Any]],
) -> None:
    """``XToJSON(XFromJSON(raw))`` is raw again, and the parsed model has no field the
    JSON lacks (a union parsed as the wrong member, or merged into one, would)."""
    fields, optional = date_time_fields(), optional_response_fields()
    assert optional == {"errors"}  # only a 422's problem names fields
    failures = {}
    for result in round_trips:
        other = [d for d in result["diffs"] if not is_date_time_rewrite(d, fields)]
        phantoms = [
            ".".join(map(str, path))
            for path in result["phantoms"]
            if snake(path[-1]) not in optional
        ]
        if other or phantoms:
            failures[result["name"]] = {"diffs": other, "phantoms": phantoms}
    assert not failures, "\n".join(f"{name}: {found}" for name, found in failures.items())


def test_typescript_fetch_rewrites_date_times_by_design(
    round_trips: list[dict[str, Any]],
) -> None:
    """The one difference allowed above, pinned so that it stays known: every date-time
    comes back as the same instant cut to milliseconds (DATE_TIMES)."""
    fields = date_time_fields()
    assert {"created_at", "updated_at", "ended_at", "recorded_at", "expires_at"} <= fields
    rewritten = [
        d for result in round_trips for d in result["diffs"] if is_date_time_rewrite(d, fields)
    ]
    assert {d["path"][-1] for d in rewritten} == fields, DATE_TIMES
    for diff in rewritten:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", diff["back"]), diff


# --- A gap that still comes from the shape of the document ----------------------------------


def test_typescript_fetch_types_where_a_problem_points(clients: Clients) -> None:
    models = clients.work / "generated" / "typescript-fetch" / "models"
    assert "loc: Array<LocInner>;" in (models / "ProblemField.ts").read_text()
    assert "export type LocInner = number | string;" in (models / "LocInner.ts").read_text()
