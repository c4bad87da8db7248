"""openapi-generator's python client, generated on its default flags, used for real.

The client is generated from the committed ``openapi/openapi.json`` with
``openapi-generator-cli generate -g python`` and nothing else (its package is then
``openapi_client``), imported, and a match of each game is played through its typed
API against a live uvicorn server on a fresh SQLite database.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from tests.conftest import migrate
from tests.live import LiveServer
from tests.sdk.generators import (
    OPENAPI_GENERATOR_PACKAGE,
    generate_openapi_generator_python,
    importable,
)

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
