"""openapi-generator's python client, generated on its default flags, used for real; and
every response the server sends, read back through both generated Python clients.

The client is generated from the committed ``openapi/openapi.json`` with
``openapi-generator-cli generate -g python`` and nothing else (its package is then
``openapi_client``), imported, and a match of each game is played through its typed
API against a live uvicorn server on a fresh SQLite database.

The round trip: a match of each game is played over plain HTTP, keeping every
response as the raw JSON the server sent, one of each kind (the table
``ROUND_TRIPS``), and the live events as a stream sends them. Each is parsed through
the generated model of its schema, in openapi-python-client's client and in
openapi-generator's, and written back: the JSON must come back exactly, and every
union on the way (match settings, round input, breakdown, the event itself) must
have parsed as the member the server sent.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from httpx_sse import connect_sse
from packaging.requirements import Requirement

from tests.conftest import migrate
from tests.live import LiveServer
from tests.sdk.generators import (
    OPENAPI_GENERATOR_PACKAGE,
    SPEC,
    generate_openapi_generator_python,
    generate_python_client,
    importable,
)

DOCUMENT = json.loads(SPEC.read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]
GAMES = ("asszorti", "alkort", "own_table")
# The unions whose member is the match's game's: their tag must name the same member.
GAME_MEMBERS = {
    "GameSettings": {
        "asszorti": "AsszortiSettingsRead",
        "alkort": "AlkortSettingsRead",
        "own_table": "OwnTableSettingsRead",
    },
    "Breakdown": {
        "asszorti": "AsszortiBreakdown",
        "alkort": "AlkortBreakdown",
        "own_table": "OwnTableBreakdown",
    },
}
# What the generators print that is no gap in the client: 3.1 support is called beta,
# and a nullable reference (anyOf [$ref, null]) logs a name it looked up as null.
KNOWN_WARNINGS = (
    "OpenAPI 3.1 support is still in beta",
    "Failed to get the schema name: null",
)


# --- The generated clients and the live server ------------------------------------------


@pytest.fixture(scope="module")
def openapi_generator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """openapi-generator's python client in a temporary directory, importable for this module."""
    output = tmp_path_factory.mktemp("openapi-generator") / "python"
    printed = generate_openapi_generator_python(output)
    with importable(output, OPENAPI_GENERATOR_PACKAGE):
        yield output, printed


@pytest.fixture(scope="module")
def og(openapi_generator: tuple[Path, str]) -> Any:
    """The generated ``openapi_client`` package: its APIs and models, all at the top."""
    return importlib.import_module(OPENAPI_GENERATOR_PACKAGE)


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """openapi-python-client's models, generated as test_generated_client.py does."""
    output = tmp_path_factory.mktemp("openapi-python-client") / "python"
    generate_python_client(output)
    with importable(output, "squarescores_client"):
        yield importlib.import_module("squarescores_client.models")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One uvicorn worker on a loopback port, against a fresh migrated SQLite file."""
    url = f"sqlite:///{tmp_path_factory.mktemp('og-live') / 'sdk.db'}"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


def test_the_generator_warns_of_nothing_missing(openapi_generator: tuple[Path, str]) -> None:
    """openapi-generator exits 0 whatever it could not model; its warnings say what."""
    output, printed = openapi_generator
    warnings = [line for line in printed.splitlines() if " WARN " in line or " ERROR " in line]
    unknown = [w for w in warnings if not any(known in w for known in KNOWN_WARNINGS)]
    assert not unknown, "\n".join(unknown)
    package = output / OPENAPI_GENERATOR_PACKAGE
    assert (package / "api" / "rounds_api.py").is_file()
    assert (package / "models" / "match_event.py").is_file()


def test_the_generated_package_needs_only_what_is_installed(
    openapi_generator: tuple[Path, str],
) -> None:
    """What the generated package requires at run time is installed, in a version it takes."""
    output, _ = openapi_generator
    lines = (output / "requirements.txt").read_text().splitlines()
    requirements = [Requirement(line) for line in lines if line.strip()]
    assert {r.name.replace("_", "-").lower() for r in requirements} >= {"pydantic", "urllib3"}
    missing = []
    for requirement in requirements:
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(f"{requirement} (not installed)")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{requirement} (installed: {version})")
    assert not missing, f"the generated client needs: {', '.join(missing)}"


# --- A match of each game through openapi-generator's typed API -------------------------


@dataclass(frozen=True)
class Apis:
    """openapi-generator's API classes on one client, with one token (or none)."""

    games: Any
    matches: Any
    rounds: Any
    sheet: Any


@dataclass(frozen=True)
class Live:
    """The generated package and the live server it talks to."""

    og: Any
    url: str

    @contextmanager
    def apis(self, token: str | None = None) -> Iterator[Apis]:
        configuration = self.og.Configuration(host=self.url, access_token=token)
        with self.og.ApiClient(configuration) as client:
            yield Apis(
                games=self.og.GamesApi(client),
                matches=self.og.MatchesApi(client),
                rounds=self.og.RoundsApi(client),
                sheet=self.og.SheetApi(client),
            )

    def problem(self, status: int, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """The Problem an operation raises with: the generated ApiException carries it parsed."""
        with pytest.raises(self.og.ApiException) as raised:
            call(*args, **kwargs)
        assert raised.value.status == status, raised.value.body
        assert raised.value.headers["content-type"].startswith("application/problem+json")
        problem = raised.value.data
        assert isinstance(problem, self.og.Problem), (type(problem), raised.value.body)
        assert problem.status == status
        return problem


@pytest.fixture(scope="module")
def live(og: Any, server: LiveServer) -> Live:
    return Live(og, server.url)


def member(union: Any) -> Any:
    """The model a generated oneOf/anyOf class parsed the JSON as."""
    return union.actual_instance


def test_the_games_through_openapi_generator(live: Live) -> None:
    og = live.og
    with live.apis() as anonymous:
        games = anonymous.games.list_games()
    assert isinstance(games, og.GameList)
    by_name = {game.name: game for game in games.items}
    assert set(by_name) == {og.GameName.ASSZORTI, og.GameName.ALKORT, og.GameName.OWN_TABLE}
    assert by_name[og.GameName.ALKORT].round_types == [
        og.RoundType.ALKORT_TRICKS,
        og.RoundType.ALKORT_POINTS,
    ]
    assert (by_name[og.GameName.OWN_TABLE].min_players, by_name[og.GameName.OWN_TABLE].players) == (
        2,
        8,
    )


def test_an_asszorti_match_through_openapi_generator(live: Live) -> None:
    og = live.og
    with live.apis() as anonymous:
        created = anonymous.matches.create_match(
            og.MatchCreate(
                og.AsszortiMatchCreate(game="asszorti", players=["Anna", "Berta", "Csaba"])
            )
        )
    assert isinstance(created, og.MatchCreated)
    assert created.game is og.GameName.ASSZORTI and created.status is og.MatchStatus.IN_PROGRESS
    assert isinstance(member(created.settings), og.AsszortiSettingsRead)
    assert member(created.settings).kontra is True
    assert created.teams is None and created.winner is None
    match_id = created.id

    with live.apis(created.tokens.players[0]) as anna, live.apis(created.tokens.host) as host:
        # Worked check 8: idegen arrivazs with kontra on a 6:3:2 contract 3.
        hand = anna.rounds.create_round(
            match_id,
            og.RoundInput(
                og.AsszortiHand(
                    type="asszorti_hand",
                    declarer=0,
                    contract=og.Contract.CONTRACT_3,
                    trumps=og.Trumps.CLUBS,
                    tricks=[6, 3, 2],
                    arrivazs=og.Arrivazs(won=True, idegen=True, kontra=og.Kontra.KONTRA),
                )
            ),
        )
        assert hand.number == 1 and hand.type is og.RoundType.ASSZORTI_HAND
        # Sent without kontra: read back as AsszortiHandRead with the default filled in.
        assert isinstance(member(hand.input), og.AsszortiHandRead)
        assert member(hand.input).kontra is og.Kontra.NONE
        assert member(hand.input).arrivazs.kontra is og.Kontra.KONTRA
        assert hand.result.net == [68, -34, -34] and hand.result.owed == [0, 34, 34]
        breakdown = member(hand.result.breakdown)
        assert isinstance(breakdown, og.AsszortiBreakdown)
        assert (breakdown.basic_game, breakdown.arrivazs, breakdown.manual) == (2, 32, False)

        amounts = anna.rounds.create_round(
            match_id,
            og.RoundInput(og.AsszortiAmounts(type="asszorti_amounts", amounts=[-20, 40, -20])),
        )
        assert isinstance(member(amounts.input), og.AsszortiAmounts)
        assert member(amounts.result.breakdown).manual is True
        assert amounts.result.totals == [68, 6, 0] and amounts.result.owed == [20, 0, 54]

        # The table misheard round 2: the host corrects it, and the sheet follows.
        corrected = host.rounds.replace_round(
            match_id,
            2,
            og.RoundInput(og.AsszortiAmounts(type="asszorti_amounts", amounts=[-4, 8, -4])),
        )
        assert corrected.entered_by == "host"
        assert corrected.result.cells == [0, 0, 0] and corrected.result.totals == [68, 0, 0]

        match = anna.matches.get_match(match_id)
        assert isinstance(match, og.MatchRead)
        assert (match.round_count, match.next_dealer) == (2, 2)
        assert match.totals == [68, 0, 0] and match.owed == [4, 26, 38]
        assert match.net == [64, -26, -38]
        assert isinstance(member(match.settings), og.AsszortiSettingsRead)

        rounds = anna.rounds.list_rounds(match_id)
        assert [type(member(r.input)) for r in rounds.items] == [
            og.AsszortiHandRead,
            og.AsszortiAmounts,
        ]
        assert rounds.next is None
        history = anna.rounds.get_round_history(match_id, 2)
        assert [r.action for r in history.items] == [
            og.RevisionAction.ENTERED,
            og.RevisionAction.CORRECTED,
        ]
        assert [member(r.input).amounts for r in history.items] == [[-20, 40, -20], [-4, 8, -4]]
        sheet = anna.sheet.get_sheet(match_id)
        assert isinstance(sheet, og.SheetRead)
        assert [row.cells for row in sheet.rows] == [[68, 0, 0], [0, 0, 0]]
        assert sheet.totals == [68, 0, 0] and sheet.owed == [4, 26, 38]

        # 422: amounts that do not sum to zero; the Problem names the field.
        invalid = live.problem(
            422,
            anna.rounds.create_round,
            match_id,
            og.RoundInput(og.AsszortiAmounts(type="asszorti_amounts", amounts=[1, 1, 1])),
        )
        assert invalid.code == "validation_error"
        assert [[member(step) for step in e.loc] for e in invalid.errors] == [["body", "amounts"]]

        ended = host.matches.end_match(match_id)
        assert ended.status is og.MatchStatus.ENDED and ended.ended_by == "host"
        assert ended.winner.seats == [0]
        late = live.problem(409, anna.matches.end_match, match_id)
        assert late.code == "match_ended"
    with live.apis("not-a-token") as stranger:
        assert live.problem(401, stranger.matches.get_match, match_id).code == "unauthenticated"


def test_an_alkort_match_through_openapi_generator(live: Live) -> None:
    og = live.og
    with live.apis() as anonymous:
        created = anonymous.matches.create_match(
            og.MatchCreate(
                og.AlkortMatchCreate(
                    game="alkort",
                    players=["Anna", "Bela", "Cili", "Dani"],
                    team_names=["Us", "Them"],
                    settings=og.AlkortSettings(target=11),
                )
            )
        )
    assert created.game is og.GameName.ALKORT
    assert [(t.team, t.name, t.seats) for t in created.teams] == [
        (0, "Us", [0, 2]),
        (1, "Them", [1, 3]),
    ]
    settings = member(created.settings)
    assert isinstance(settings, og.AlkortSettingsRead)
    assert (settings.target, settings.first_dealer) == (11, 0)
    assert created.owed is None and created.net is None
    match_id = created.id

    with live.apis(created.tokens.host) as host, live.apis(created.tokens.players[1]) as bela:
        muk = host.rounds.create_round(
            match_id,
            og.RoundInput(og.AlkortTricks(type="alkort_tricks", tricks=[0, 0, 0, 0, 0, 1])),
        )
        assert isinstance(member(muk.input), og.AlkortTricks)
        assert muk.result.cells == [5, 0] and muk.result.net is None
        breakdown = member(muk.result.breakdown)
        assert isinstance(breakdown, og.AlkortBreakdown)
        assert breakdown.kind is og.DealKind.MUK
        assert (breakdown.run, breakdown.team, breakdown.points) == (5, 0, 5)

        stroke = bela.rounds.create_round(
            match_id, og.RoundInput(og.AlkortPoints(type="alkort_points", team=1, points=7))
        )
        assert stroke.type is og.RoundType.ALKORT_POINTS and stroke.entered_by == "seat:1"
        assert member(stroke.result.breakdown).kind is og.DealKind.STROKE
        assert member(stroke.result.breakdown).run is None
        assert stroke.result.totals == [5, 7]

        corrected = bela.rounds.replace_round(
            match_id, 2, og.RoundInput(og.AlkortPoints(type="alkort_points", team=1, points=1))
        )
        assert corrected.result.totals == [5, 1]

        # A player may not change the settings; the host moves the target below team 0's total.
        update = og.MatchUpdate(settings=og.SettingsUpdate(target=5))
        assert live.problem(403, bela.matches.update_match, match_id, update).code == "forbidden"
        decided = host.matches.update_match(match_id, update)
        assert decided.status is og.MatchStatus.DECIDED and decided.winner.team == 0
        assert isinstance(member(decided.settings), og.AlkortSettingsRead)
        assert member(decided.settings).target == 5

        conflict = live.problem(
            409,
            bela.rounds.create_round,
            match_id,
            og.RoundInput(og.AlkortPoints(type="alkort_points", team=0, points=1)),
        )
        assert conflict.code == "match_decided"

        rounds = bela.rounds.list_rounds(match_id)
        assert [type(member(r.input)) for r in rounds.items] == [og.AlkortTricks, og.AlkortPoints]
        assert [type(member(r.result.breakdown)) for r in rounds.items] == [og.AlkortBreakdown] * 2
        sheet = bela.sheet.get_sheet(match_id)
        assert sheet.totals == [5, 1] and sheet.owed is None and sheet.net is None

        ended = host.matches.end_match(match_id)
        assert ended.status is og.MatchStatus.ENDED and ended.winner.team == 0


def test_an_own_table_through_openapi_generator(live: Live) -> None:
    og = live.og
    with live.apis() as anonymous:
        created = anonymous.matches.create_match(
            og.MatchCreate(
                og.OwnTableMatchCreate(
                    game="own_table",
                    players=["Anna", "Bela", "Cili", "Dani"],
                    settings=og.OwnTableSettings(
                        teams=2, zero_sum=True, planned_rounds=2, table_rules="Ulti, 4 hands"
                    ),
                )
            )
        )
    settings = member(created.settings)
    assert isinstance(settings, og.OwnTableSettingsRead)
    assert (settings.teams, settings.zero_sum, settings.planned_rounds) == (2, True, 2)
    assert settings.table_rules == "Ulti, 4 hands"
    assert [t.seats for t in created.teams] == [[0, 2], [1, 3]]
    match_id = created.id

    with live.apis(created.tokens.players[0]) as anna:
        first = anna.rounds.create_round(
            match_id, og.RoundInput(og.OwnTablePoints(type="own_points", points=[12, -12]))
        )
        assert first.type is og.RoundType.OWN_POINTS
        assert isinstance(member(first.input), og.OwnTablePoints)
        assert isinstance(member(first.result.breakdown), og.OwnTableBreakdown)
        assert member(first.result.breakdown).sum == 0
        anna.rounds.create_round(
            match_id, og.RoundInput(og.OwnTablePoints(type="own_points", points=[-4, 4]))
        )
        # A decided match still takes a correction.
        corrected = anna.rounds.replace_round(
            match_id, 2, og.RoundInput(og.OwnTablePoints(type="own_points", points=[-2, 2]))
        )
        assert corrected.result.totals == [10, -10]

        match = anna.matches.get_match(match_id)
        assert match.status is og.MatchStatus.DECIDED
        assert match.totals == [10, -10] and match.net == [10, -10]
        assert [(p.payer, p.payee, p.amount) for p in match.settlement] == [(1, 0, 10)]
        assert match.winner.team == 0
        assert isinstance(member(match.settings), og.OwnTableSettingsRead)
        sheet = anna.sheet.get_sheet(match_id)
        assert [row.cells for row in sheet.rows] == [[12, -12], [-2, 2]]

        # 422: a zero-sum table's points must sum to zero.
        invalid = live.problem(
            422,
            anna.rounds.replace_round,
            match_id,
            1,
            og.RoundInput(og.OwnTablePoints(type="own_points", points=[3, 3])),
        )
        assert invalid.code == "validation_error" and invalid.errors

        ended = anna.matches.end_match(match_id)
        assert ended.status is og.MatchStatus.ENDED and ended.ended_by == "seat:0"
        history = anna.rounds.get_round_history(match_id, 2)
        assert [r.action for r in history.items] == [
            og.RevisionAction.ENTERED,
            og.RevisionAction.CORRECTED,
        ]
        late = live.problem(
            409,
            anna.rounds.create_round,
            match_id,
            og.RoundInput(og.OwnTablePoints(type="own_points", points=[1, -1])),
        )
        assert late.code == "match_ended"
    with live.apis(created.tokens.viewer) as viewer:
        assert live.problem(404, viewer.matches.get_match, "0" * 32).code == "match_not_found"


# --- The round trip: every response kind, through both generated clients ------------------

# Each kind of response the recorder keeps, by what it answered, and the schema it is.
ROUND_TRIPS = {
    "createMatch": "MatchCreated",
    "getMatch": "MatchRead",
    "updateMatch": "MatchRead",
    "endMatch": "MatchRead",
    "createRound": "RoundRead",
    "replaceRound": "RoundRead",
    "getRound": "RoundRead",
    "listRounds": "RoundList",
    "getRoundHistory": "RoundHistory",
    "getSheet": "SheetRead",
    "scoreRound": "ScoreRead",
    "scoreMatchRound": "ScoreRead",
    "getTokenOwner": "TokenOwner",
    "reissueToken": "IssuedToken",
    "recoverHostToken": "IssuedToken",
    "getRecoveryCode": "RecoveryCode",
    "takeRematchSeat": "RematchSeat",
    "getMatchHistory": "MatchHistory",
    "createStreamTicket": "StreamTicket",
    "listGames": "GameList",
    "healthz": "HealthRead",
    "followMatch": "MatchEvent",
    "401": "Problem",
    "403": "Problem",
    "404": "Problem",
    "409": "Problem",
    "412": "Problem",
    "422": "Problem",
}


@dataclass(frozen=True)
class Play:
    """A short match of one game: what it is created with, and what is entered."""

    create: dict[str, Any]
    rounds: list[dict[str, Any]]  # every round type of the game
    correction: dict[str, Any]  # replaces round 2
    update: dict[str, Any]  # the host's PATCH
    invalid: dict[str, Any]  # a round the server answers 422


PLAYS = {
    "asszorti": Play(
        create={"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
        rounds=[
            {
                "type": "asszorti_hand",
                "declarer": 0,
                "contract": "3",
                "trumps": "clubs",
                "tricks": [6, 3, 2],
                "arrivazs": {"won": True, "idegen": True, "kontra": "kontra"},
            },
            {"type": "asszorti_amounts", "amounts": [-20, 40, -20]},
            {
                "type": "asszorti_hand",
                "declarer": 1,
                "contract": "2",
                "trumps": "diamonds",
                "tricks": [2, 7, 2],
            },
        ],
        correction={"type": "asszorti_amounts", "amounts": [-4, 8, -4]},
        update={"settings": {"kontra": False}},
        invalid={"type": "asszorti_amounts", "amounts": [1, 1, 1]},
    ),
    "alkort": Play(
        create={
            "game": "alkort",
            "players": ["Anna", "Bela", "Cili", "Dani"],
            "team_names": ["Us", "Them"],
            "settings": {"target": 21},
        },
        rounds=[
            {"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 0, 1]},
            {"type": "alkort_points", "team": 1, "points": 7},
            {"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 0, 0, 1, 1, 0]},
        ],
        correction={"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 1, 0, 0, 0, 0]},
        update={"settings": {"target": 15}},
        invalid={"type": "alkort_tricks", "tricks": [0, 0, 0, 0, 0]},
    ),
    "own_table": Play(
        create={
            "game": "own_table",
            "players": ["Anna", "Bela", "Cili", "Dani"],
            "settings": {"teams": 2, "zero_sum": True, "table_rules": "Ulti, 4 hands"},
        },
        rounds=[
            {"type": "own_points", "points": [12, -12]},
            {"type": "own_points", "points": [-4, 4]},
            {"type": "own_points", "points": [6, -6]},
        ],
        correction={"type": "own_points", "points": [-5, 5]},
        update={"settings": {"target": 100}},
        invalid={"type": "own_points", "points": [3, 3]},
    ),
}


@dataclass
class Recorder:
    """Plays a match over plain HTTP and keeps each response body as the server sent it."""

    http: httpx.Client
    samples: dict[str, list[Any]] = field(default_factory=dict)

    def keep(self, label: str, status: int, method: str, url: str, **kwargs: Any) -> Any:
        response = self.http.request(method, url, **kwargs)
        assert response.status_code == status, (label, response.status_code, response.text)
        raw = response.json()
        self.samples.setdefault(label, []).append(raw)
        return raw

    def events(self, url: str, token: str, after: Callable[[], None] | None = None) -> None:
        """Follow ``url`` to its end, keeping each event; ``after`` runs once the first is in."""
        headers = {"Authorization": f"Bearer {token}"}
        with connect_sse(self.http, "GET", url, headers=headers) as source:
            for event in source.iter_sse():
                data = json.loads(event.data)
                assert data["kind"] == event.event
                self.samples.setdefault("followMatch", []).append(data)
                if after is not None:
                    after()
                    after = None


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def record(base_url: str, game: str) -> dict[str, list[Any]]:
    """Every kind of response of a match of ``game``, as raw JSON, by ROUND_TRIPS label."""
    play = PLAYS[game]
    timeout = httpx.Timeout(10.0)
    with httpx.Client(base_url=base_url, timeout=timeout) as http:
        r = Recorder(http)
        created = r.keep("createMatch", 201, "POST", "/v1/matches", json=play.create)
        url = f"/v1/matches/{created['id']}"
        tokens = created["tokens"]
        host, player = bearer(tokens["host"]), bearer(tokens["players"][0])
        r.keep("getTokenOwner", 200, "GET", f"{url}/me", headers=player)

        def play_the_match() -> None:
            """Runs while a viewer's stream is open: its events are every change below."""
            for body in play.rounds:
                # Previewed by the match's settings as they are now (the update changes them).
                r.keep("scoreMatchRound", 200, "POST", f"{url}/score", json=body, headers=player)
                r.keep("createRound", 201, "POST", f"{url}/rounds", json=body, headers=player)
            r.keep(
                "replaceRound", 200, "PUT", f"{url}/rounds/2", json=play.correction, headers=host
            )
            last = len(play.rounds)
            assert http.delete(f"{url}/rounds/{last}", headers=host).status_code == 204
            r.keep("updateMatch", 200, "PATCH", url, json=play.update, headers=host)
            for number in range(1, last):
                r.keep("getRound", 200, "GET", f"{url}/rounds/{number}", headers=player)
            page = r.keep("listRounds", 200, "GET", f"{url}/rounds?limit=1", headers=player)
            r.keep("listRounds", 200, "GET", page["next"], headers=player)
            for number in (2, last):  # entered and corrected; entered and removed
                r.keep(
                    "getRoundHistory", 200, "GET", f"{url}/rounds/{number}/history", headers=player
                )
            r.keep("getSheet", 200, "GET", f"{url}/sheet", headers=player)
            r.keep("getMatch", 200, "GET", url, headers=player)
            r.keep("createStreamTicket", 201, "POST", f"{url}/events/tickets", headers=player)
            r.keep("401", 401, "GET", url, headers=bearer("not-a-token"))
            r.keep("403", 403, "PATCH", url, json=play.update, headers=player)
            r.keep("404", 404, "GET", "/v1/matches/" + "0" * 32, headers=player)
            r.keep("412", 412, "PATCH", url, json=play.update, headers={**host, "If-Match": '"v1"'})
            r.keep("422", 422, "POST", f"{url}/rounds", json=play.invalid, headers=player)
            seat = {"role": "player", "seat": 1}
            r.keep("reissueToken", 200, "POST", f"{url}/tokens", json=seat, headers=host)
            # Re-issuing the viewer's token ends this stream: token_reissued, then revoked.
            viewer = {"role": "viewer"}
            r.keep("reissueToken", 200, "POST", f"{url}/tokens", json=viewer, headers=host)

        r.events(f"{url}/events", tokens["viewer"], after=play_the_match)
        code = {"recovery_code": tokens["recovery"]}
        recovered = r.keep("recoverHostToken", 200, "POST", f"{url}/recover", json=code)
        host = bearer(recovered["token"])
        r.keep("getMatchHistory", 200, "GET", f"{url}/history", headers=player)
        ended = r.keep("endMatch", 200, "POST", f"{url}/end", headers=host)
        r.keep("409", 409, "POST", f"{url}/rounds", json=play.correction, headers=player)
        # The ended match's changes, replayed from its first version to `ended`.
        r.events(f"{url}/events?after=1", tokens["players"][0])
        # A stream falls behind only with 32 changes unread on a full socket: the resync
        # event is built here as the stream builds it, from the match's version.
        r.samples["followMatch"].append({"kind": "resync", "version": ended["version"]})
        r.keep("getRecoveryCode", 200, "GET", f"{url}/recovery", headers=host)
        assert http.post(f"{url}/rematch", headers=host).status_code == 201
        r.keep("takeRematchSeat", 200, "POST", f"{url}/rematch/seat", headers=player)
        for body in play.rounds:
            r.keep("scoreRound", 200, "POST", f"/v1/games/{game}/score", json=body)
        r.keep("listGames", 200, "GET", "/v1/games")
        r.keep("healthz", 200, "GET", "/healthz")
        return r.samples


@pytest.fixture(scope="module")
def recorded(server: LiveServer) -> dict[str, dict[str, list[Any]]]:
    """Each game's responses, recorded once for the module."""
    return {game: record(server.url, game) for game in GAMES}


def test_every_response_kind_is_recorded(recorded: dict[str, dict[str, list[Any]]]) -> None:
    """Each game holds every row of ROUND_TRIPS, every round type of the game and every
    event kind; the table has every schema a response of the document can be."""
    responses = set()
    for operations in DOCUMENT["paths"].values():
        for operation in operations.values():
            for answer in operation["responses"].values():
                for content in answer.get("content", {}).values():
                    ref = content.get("schema", {}).get("$ref")
                    if ref:
                        responses.add(ref.rsplit("/", 1)[-1])
    assert responses - set(ROUND_TRIPS.values()) == set()
    kinds = set(SCHEMAS["MatchEvent"]["discriminator"]["mapping"])
    for game, samples in recorded.items():
        assert set(samples) == set(ROUND_TRIPS), game
        round_types = {body["type"] for body in PLAYS[game].rounds}
        assert {r["type"] for r in samples["createRound"]} == round_types, game
        assert {e["kind"] for e in samples["followMatch"]} == kinds, game


def expected_members(
    node: dict[str, Any], raw: Any, game: str, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Where ``raw`` passes through a union of named schemas, and the member it is there.

    Walks the schema ``node`` alongside the JSON: a union's member is the one its
    discriminator names; for GameSettings and Breakdown, the match's game's as well.
    """
    ref = node.get("$ref")
    if ref is not None:
        name = ref.rsplit("/", 1)[-1]
        schema = SCHEMAS[name]
        options = schema.get("oneOf") or schema.get("anyOf")
        if options and all("$ref" in option for option in options):
            tag = schema.get("discriminator")
            member = GAME_MEMBERS.get(name, {}).get(game)
            if tag is not None:
                tagged = tag["mapping"][raw[tag["propertyName"]]].rsplit("/", 1)[-1]
                assert member in (None, tagged), (name, path, raw)
                member = tagged
            assert member is not None, f"{name} has no tag to tell its members apart"
            yield path, member
            schema = SCHEMAS[member]
        yield from expected_members(schema, raw, game, path)
        return
    if raw is None:
        return
    for option in node.get("anyOf", []) + node.get("oneOf", []):
        yield from expected_members(option, raw, game, path)
    if isinstance(raw, dict):
        properties = node.get("properties", {})
        for key, value in raw.items():
            if key in properties:
                yield from expected_members(properties[key], value, game, (*path, key))
    elif isinstance(raw, list) and "items" in node:
        for index, value in enumerate(raw):
            yield from expected_members(node["items"], value, game, (*path, index))


def utc_as_offset(sent: Any, back: Any) -> bool:
    """openapi-python-client writes a date-time with ``datetime.isoformat()``: the same
    instant, with UTC as ``+00:00`` where the server writes ``Z``. That rewrite only."""
    return (
        isinstance(sent, str)
        and isinstance(back, str)
        and sent.endswith("Z")
        and back == sent.removesuffix("Z") + "+00:00"
    )


def never(sent: Any, back: Any) -> bool:
    return False


@dataclass(frozen=True)
class Reader:
    """How one generated client reads a schema's JSON and writes it back."""

    fixture: str  # the fixture that gives its package
    round_trip: Callable[[Any, str, Any], tuple[Any, Any]]  # (package, schema, raw)
    member_at: Callable[[Any, tuple[str | int, ...]], str]  # (parsed, path) -> class name
    # A value the generator writes back differently by design, unchanged in meaning.
    same_value: Callable[[Any, Any], bool] = never


def og_round_trip(og: Any, schema: str, raw: Any) -> tuple[Any, Any]:
    """openapi-generator: ``from_json`` of the text, ``to_json`` back, as JSON again."""
    parsed = getattr(og, schema).from_json(json.dumps(raw))
    return parsed, json.loads(parsed.to_json())


def og_unwrap(value: Any) -> Any:
    """A oneOf/anyOf class of openapi-generator holds its member in ``actual_instance``."""
    fields = getattr(type(value), "model_fields", {})
    return value.actual_instance if "actual_instance" in fields else value


def og_member_at(parsed: Any, path: tuple[str | int, ...]) -> str:
    value = parsed
    for step in path:
        value = og_unwrap(value)
        if isinstance(step, int):
            value = value[step]
        else:
            fields = type(value).model_fields
            name = next(n for n, f in fields.items() if (f.alias or n) == step)
            value = getattr(value, name)
    return type(og_unwrap(value)).__name__


def opc_round_trip(models: Any, schema: str, raw: Any) -> tuple[Any, Any]:
    """openapi-python-client: ``from_dict`` and ``to_dict``. It makes no class of a
    top-level union (MatchEvent): its user picks the member by the tag."""
    tag = SCHEMAS[schema].get("discriminator")
    if tag is not None:
        schema = tag["mapping"][raw[tag["propertyName"]]].rsplit("/", 1)[-1]
    parsed = getattr(models, schema).from_dict(raw)
    return parsed, parsed.to_dict()


def opc_member_at(parsed: Any, path: tuple[str | int, ...]) -> str:
    value = parsed
    for step in path:
        if isinstance(step, int):
            value = value[step]
        else:
            # A property that shadows a Python builtin or keyword gets a trailing _.
            names = attrs.fields_dict(type(value))
            value = getattr(value, step if step in names else f"{step}_")
    return type(value).__name__


READERS = {
    "openapi-generator": Reader("og", og_round_trip, og_member_at),
    "openapi-python-client": Reader(
        "python_client", opc_round_trip, opc_member_at, same_value=utc_as_offset
    ),
}


def differences(
    raw: Any, back: Any, same: Callable[[Any, Any], bool], path: tuple[str | int, ...] = ()
) -> Iterator[str]:
    """Where the JSON written back differs from what the server sent, one line each."""
    if isinstance(raw, dict) and isinstance(back, dict):
        for key in raw.keys() | back.keys():
            if key not in back:
                yield f"at {[*path, key]}: {raw[key]!r} is lost"
            elif key not in raw:
                yield f"at {[*path, key]}: {back[key]!r} is added"
            else:
                yield from differences(raw[key], back[key], same, (*path, key))
    elif isinstance(raw, list) and isinstance(back, list) and len(raw) == len(back):
        for index, (sent, read) in enumerate(zip(raw, back, strict=True)):
            yield from differences(sent, read, same, (*path, index))
    elif (raw != back or type(raw) is not type(back)) and not same(raw, back):
        yield f"at {list(path)}: {raw!r} comes back as {back!r}"


def member_names(union: str) -> set[str]:
    """The members of a discriminated union of the document, by schema name."""
    return {ref.rsplit("/", 1)[-1] for ref in SCHEMAS[union]["discriminator"]["mapping"].values()}


def read_back(
    generator: str, package: Any, game: str, schema: str, raw: Any
) -> tuple[list[str], set[str]]:
    """``raw`` through the generated model of ``schema`` and back: what went wrong (each
    value changed, each union read as another member), and the union members checked."""
    reader = READERS[generator]
    try:
        parsed, back = reader.round_trip(package, schema, raw)
    except Exception as error:  # reported with the rest, response by response
        return [f"does not parse: {error}"], set()
    wrong = list(differences(raw, back, reader.same_value))
    checked = set()
    for path, member in expected_members({"$ref": f"#/components/schemas/{schema}"}, raw, game):
        actual = reader.member_at(parsed, path)
        if actual != member:
            wrong.append(f"at {list(path)}: read as {actual}, not {member}")
        checked.add(member)
    return wrong, checked


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("generator", READERS)
def test_every_response_reads_back_exactly(
    generator: str,
    game: str,
    recorded: dict[str, dict[str, list[Any]]],
    request: pytest.FixtureRequest,
) -> None:
    """Parsed by its generated model and written back, each response is the JSON the
    server sent: nothing lost, nothing changed, every union read as the right member."""
    package = request.getfixturevalue(READERS[generator].fixture)
    failures, members = [], set()
    for label, schema in ROUND_TRIPS.items():
        for raw in recorded[game][label]:
            wrong, checked = read_back(generator, package, game, schema, raw)
            members |= checked
            failures += [f"{label} as {schema}: {w}\n    {raw}" for w in wrong]
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures)
    # The unions were walked: the game's settings and breakdowns, the inputs, the events.
    assert {members_of[game] for members_of in GAME_MEMBERS.values()} <= members
    inputs = SCHEMAS["RoundInputRead"]["discriminator"]["mapping"]
    assert {inputs[body["type"]].rsplit("/", 1)[-1] for body in PLAYS[game].rounds} <= members
    assert member_names("MatchEvent") <= members


def test_openapi_python_client_writes_utc_as_an_offset(
    python_client: Any, recorded: dict[str, dict[str, list[Any]]]
) -> None:
    """The one rewrite its round trip allows (``utc_as_offset``) is still what it does."""
    raw = recorded["asszorti"]["getMatch"][0]
    back = python_client.MatchRead.from_dict(raw).to_dict()
    assert raw["created_at"].endswith("Z")
    assert back["created_at"] == raw["created_at"].removesuffix("Z") + "+00:00"
