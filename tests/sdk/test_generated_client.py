"""The generated SDKs, used for real.

The Python client is generated from the committed ``openapi/openapi.json`` with
openapi-python-client (a dev dependency) into a temporary directory, imported,
and a short Asszorti and a short Alkort match are played through its typed API
against a live uvicorn server on a fresh SQLite database. The TypeScript types
are generated with openapi-typescript (pinned in ``sdk/typescript``) and
``sdk/typescript/check.ts`` must pass ``tsc --strict`` against them.

Known gaps of the generated client that come from the shape of the document are
pinned as non-strict xfails at the end: they report XPASS once the schema is fixed.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest

from tests.conftest import ROOT, migrate
from tests.live import LiveServer

SPEC = ROOT / "openapi" / "openapi.json"
PYTHON_CONFIG = ROOT / "sdk" / "python-config.yaml"
TYPESCRIPT_DIR = ROOT / "sdk" / "typescript"
PACKAGE = "squarescores_client"
ROUND_BODIES = {
    "AsszortiHand": "asszorti_hand",
    "AsszortiAmounts": "asszorti_amounts",
    "AlkortTricks": "alkort_tricks",
    "AlkortPoints": "alkort_points",
}
GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@dataclass(frozen=True)
class Sdk:
    """The generated package and the operations the tests use."""

    package: Any
    models: Any
    create_match: Any
    get_match: Any
    update_match: Any
    end_match: Any
    create_round: Any
    get_round: Any
    list_rounds: Any
    get_sheet: Any
    base_url: str

    def client(self) -> Any:
        return self.package.Client(base_url=self.base_url, raise_on_unexpected_status=True)

    def authed(self, token: str) -> Any:
        return self.package.AuthenticatedClient(
            base_url=self.base_url, token=token, raise_on_unexpected_status=True
        )


def generate_python_client(output: Path) -> str:
    """Run openapi-python-client on the committed document; return what it printed."""
    run = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(SPEC),
            "--config",
            str(PYTHON_CONFIG),
            "--output-path",
            str(output),
            "--overwrite",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    printed = run.stdout + run.stderr
    assert run.returncode == 0, printed
    return printed


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The client generated into a temporary directory, importable for this module."""
    output = tmp_path_factory.mktemp("sdk") / "python"
    printed = generate_python_client(output)
    sys.path.insert(0, str(output))
    importlib.invalidate_caches()
    try:
        yield output, printed
    finally:
        sys.path.remove(str(output))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One uvicorn worker on a loopback port, against a fresh migrated SQLite file."""
    url = f"sqlite:///{tmp_path_factory.mktemp('sdk-live') / 'sdk.db'}"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


@pytest.fixture(scope="module")
def sdk(generated: tuple[Path, str]) -> Sdk:
    """The generated client, not bound to a server (for the static checks)."""

    def load(name: str) -> Any:
        return importlib.import_module(f"{PACKAGE}.{name}")

    return Sdk(
        package=importlib.import_module(PACKAGE),
        models=load("models"),
        create_match=load("api.matches.create_match"),
        get_match=load("api.matches.get_match"),
        update_match=load("api.matches.update_match"),
        end_match=load("api.matches.end_match"),
        create_round=load("api.rounds.create_round"),
        get_round=load("api.rounds.get_round"),
        list_rounds=load("api.rounds.list_rounds"),
        get_sheet=load("api.sheet.get_sheet"),
        base_url="",
    )


@pytest.fixture(scope="module")
def live(sdk: Sdk, server: LiveServer) -> Sdk:
    """The generated client, talking to the live server."""
    return dataclasses.replace(sdk, base_url=server.url)


def parsed(response: Any, status: int, model: Any) -> Any:
    """The typed body of a generated ``Response``, after checking status and model."""
    assert response.status_code == HTTPStatus(status), response.content
    assert isinstance(response.parsed, model), (type(response.parsed), response.content)
    return response.parsed


def union_members(annotation: Any) -> set[Any]:
    assert typing.get_origin(annotation) in (typing.Union, types.UnionType), annotation
    return set(typing.get_args(annotation))


def model_hints(sdk: Sdk, model: Any) -> dict[str, Any]:
    """Resolved annotations of a generated model (its imports sit under TYPE_CHECKING)."""
    namespace = {**vars(sys.modules[model.__module__]), **vars(sdk.models)}
    return typing.get_type_hints(model, globalns=namespace)


# --- The generated Python client --------------------------------------------------------


def test_the_generator_leaves_nothing_out(generated: tuple[Path, str]) -> None:
    """openapi-python-client exits 0 even when it skips parts it cannot model."""
    output, printed = generated
    assert "warning" not in printed.lower(), printed
    assert (output / PACKAGE / "api" / "rounds" / "create_round.py").is_file()


def test_round_bodies_are_a_typed_discriminated_union(sdk: Sdk) -> None:
    models = sdk.models
    members = {getattr(models, name) for name in ROUND_BODIES}
    for name, tag in ROUND_BODIES.items():
        model = getattr(models, name)
        assert attrs.has(model), f"{name} is not a generated model class"
        hints = model_hints(sdk, model)
        # the discriminator is a one-value Literal on each member
        assert hints["type_"] == typing.Literal[tag], (name, hints["type_"])
        assert model(**minimal_round_fields(models, tag)).to_dict()["type"] == tag

    # The request body of createRound/replaceRound is exactly the union of the four classes.
    body = typing.get_type_hints(sdk.create_round.sync_detailed)["body"]
    assert union_members(body) == members
    # The round as read back carries the same union, not a dict.
    assert union_members(model_hints(sdk, models.RoundRead)["input_"]) == members
    # Enums and nested models are typed too.
    hand = model_hints(sdk, models.AsszortiHand)
    assert hand["contract"] is models.Contract
    assert models.Arrivazs in union_members(hand["arrivazs"])
    # Nullable fields are Optional, not Any.
    result = model_hints(sdk, models.RoundResult)
    assert union_members(result["net"]) == {list[int], type(None)}
    assert union_members(result["owed"]) == {list[int], type(None)}
    assert union_members(model_hints(sdk, models.MatchRead)["winner"]) == {
        models.WinnerRead,
        type(None),
    }


def test_problem_json_errors_parse_to_the_problem_model(sdk: Sdk) -> None:
    """The error model is typed: ``Problem`` with ``code``, ``status`` and ProblemField errors."""
    returned = typing.get_type_hints(sdk.create_round.sync)["return"]
    assert sdk.models.Problem in union_members(returned)
    problem = model_hints(sdk, sdk.models.Problem)
    assert problem["code"] is str
    assert problem["status"] is int
    assert sdk.models.ProblemField in typing.get_args(
        next(a for a in union_members(problem["errors"]) if typing.get_origin(a) is list)
    )


def test_every_documented_error_parses_to_problem(sdk: Sdk) -> None:
    """Each operation's generated parser turns each documented 4xx/5xx into a Problem."""
    assert not hasattr(sdk.models, "HTTPValidationError")
    document = json.loads(SPEC.read_text())
    client = sdk.package.Client(base_url="http://127.0.0.1", raise_on_unexpected_status=True)
    checked = 0
    for operations in document["paths"].values():
        for operation in operations.values():
            name = re.sub(r"(?<!^)(?=[A-Z])", "_", operation["operationId"]).lower()
            module = importlib.import_module(f"{PACKAGE}.api.{operation['tags'][0]}.{name}")
            for status in (int(s) for s in operation["responses"] if s.isdigit() and int(s) >= 400):
                body = {
                    "type": "about:blank",
                    "title": HTTPStatus(status).phrase,
                    "status": status,
                    "detail": "test",
                    "code": f"code_{status}",
                }
                response = httpx.Response(
                    status, json=body, headers={"content-type": "application/problem+json"}
                )
                problem = module._parse_response(client=client, response=response)
                assert isinstance(problem, sdk.models.Problem), (name, status, problem)
                assert problem.code == f"code_{status}"
                checked += 1
    assert checked > 20


def minimal_round_fields(models: Any, tag: str) -> dict[str, Any]:
    return {
        "asszorti_hand": {
            "type_": tag,
            "declarer": 0,
            "contract": models.Contract.VALUE_0,
            "trumps": models.Trumps.NONE,
            "tricks": [6, 3, 2],
        },
        "asszorti_amounts": {"type_": tag, "amounts": [0, 0, 0]},
        "alkort_tricks": {"type_": tag, "tricks": [0, 0, 0, 0, 0]},
        "alkort_points": {"type_": tag, "team": 0, "points": 1},
    }[tag]


def test_an_asszorti_match_through_the_generated_client(live: Sdk) -> None:
    m = live.models
    with live.client() as anonymous:
        created = parsed(
            live.create_match.sync_detailed(
                client=anonymous,
                body=m.AsszortiMatchCreate(game="asszorti", players=["Anna", "Berta", "Csaba"]),
            ),
            201,
            m.MatchCreated,
        )
    assert created.status is m.MatchStatus.IN_PROGRESS
    assert created.teams is None and created.winner is None and created.ended_at is None
    assert len(created.tokens.players) == 3
    match_id = created.id

    tokens = created.tokens
    with live.authed(tokens.players[0]) as anna, live.authed(tokens.viewer) as viewer:
        # Worked check 8: idegen arrivazs with kontra on a 6:3:2 contract 3.
        hand = parsed(
            live.create_round.sync_detailed(
                match_id,
                client=anna,
                body=m.AsszortiHand(
                    type_="asszorti_hand",
                    declarer=0,
                    contract=m.Contract("3"),
                    trumps=m.Trumps.CLUBS,
                    tricks=[6, 3, 2],
                    kontra=m.Kontra.NONE,
                    arrivazs=m.Arrivazs(won=True, idegen=True, kontra=m.Kontra.KONTRA),
                ),
            ),
            201,
            m.RoundRead,
        )
        assert hand.number == 1 and hand.dealer == 0 and hand.entered_by == "seat:0"
        assert isinstance(hand.input_, m.AsszortiHand)
        assert isinstance(hand.input_.arrivazs, m.Arrivazs)
        assert hand.input_.arrivazs.kontra is m.Kontra.KONTRA
        assert hand.input_.contract is m.Contract.VALUE_0
        assert hand.result.net == [68, -34, -34]
        assert hand.result.cells == [68, 0, 0]
        assert hand.result.owed == [0, 34, 34]
        # breakdown is an untyped mapping (see the xfail below): only item access works.
        assert hand.result.breakdown["basic_game"] == 2
        assert hand.result.breakdown["arrivazs"] == 32

        amounts = parsed(
            live.create_round.sync_detailed(
                match_id,
                client=anna,
                body=m.AsszortiAmounts(type_="asszorti_amounts", amounts=[-20, 40, -20]),
            ),
            201,
            m.RoundRead,
        )
        assert isinstance(amounts.input_, m.AsszortiAmounts)
        # Berta nets +40 and first pays back the 34 she owed.
        assert amounts.result.cells == [0, 6, 0]
        assert amounts.result.totals == [68, 6, 0]
        assert amounts.result.owed == [20, 0, 54]

        match = parsed(live.get_match.sync_detailed(match_id, client=viewer), 200, m.MatchRead)
        assert match.round_count == 2 and match.next_dealer == 2
        assert match.totals == [68, 6, 0]
        assert match.owed == [20, 0, 54]
        assert match.net == [48, 6, -54]
        assert [(s.rank, s.seats, s.total) for s in match.standings] == [
            (1, [0], 68),
            (2, [1], 6),
            (3, [2], 0),
        ]
        assert isinstance(match.settings, m.AsszortiSettings)
        assert match.settings.kontra is True

        rounds = parsed(live.list_rounds.sync_detailed(match_id, client=viewer), 200, m.RoundList)
        assert [type(r.input_) for r in rounds.items] == [m.AsszortiHand, m.AsszortiAmounts]
        again = parsed(live.get_round.sync_detailed(match_id, 1, client=viewer), 200, m.RoundRead)
        assert again.input_.to_dict() == hand.input_.to_dict()

        sheet = parsed(live.get_sheet.sync_detailed(match_id, client=viewer), 200, m.SheetRead)
        assert [row.cells for row in sheet.rows] == [[68, 0, 0], [0, 6, 0]]
        assert [row.net for row in sheet.rows] == [[68, -34, -34], [-20, 40, -20]]
        assert sheet.totals == [68, 6, 0]
        assert sheet.owed == [20, 0, 54]
        assert len(sheet.columns) >= 3

        # 422: amounts that do not sum to zero, as a parsed Problem naming the field.
        invalid = live.create_round.sync_detailed(
            match_id,
            client=anna,
            body=m.AsszortiAmounts(type_="asszorti_amounts", amounts=[1, 1, 1]),
        )
        assert invalid.headers["content-type"].startswith("application/problem+json")
        problem = parsed(invalid, 422, m.Problem)
        assert problem.code == "validation_error" and problem.status == 422
        assert all(isinstance(e, m.ProblemField) for e in problem.errors)
        assert ["body", "amounts"] in [e.loc for e in problem.errors]

        ended = parsed(live.end_match.sync_detailed(match_id, client=anna), 200, m.MatchRead)
        assert ended.status is m.MatchStatus.ENDED
        assert ended.ended_at is not None
        assert isinstance(ended.winner, m.WinnerRead)
        assert ended.winner.seats == [0]

        # 409: the match is over; a typed Problem again.
        for late in (
            live.end_match.sync_detailed(match_id, client=anna),
            live.create_round.sync_detailed(
                match_id,
                client=anna,
                body=m.AsszortiAmounts(type_="asszorti_amounts", amounts=[1, -1, 0]),
            ),
        ):
            conflict = parsed(late, 409, m.Problem)
            assert conflict.code == "match_ended" and conflict.status == 409
            assert conflict.title and conflict.detail


def test_an_alkort_match_through_the_generated_client(live: Sdk) -> None:
    m = live.models
    with live.client() as anonymous:
        created = parsed(
            live.create_match.sync_detailed(
                client=anonymous,
                body=m.AlkortMatchCreate(
                    game="alkort",
                    players=["Anna", "Bela", "Cili", "Dani"],
                    team_names=["Us", "Them"],
                    settings=m.AlkortSettings(target=11),
                ),
            ),
            201,
            m.MatchCreated,
        )
    assert [(t.team, t.name, t.seats) for t in created.teams] == [
        (0, "Us", [0, 2]),
        (1, "Them", [1, 3]),
    ]
    assert created.owed is None and created.net is None
    match_id = created.id

    with live.authed(created.tokens.host) as host, live.authed(created.tokens.players[1]) as bela:
        muk = parsed(
            live.create_round.sync_detailed(
                match_id,
                client=host,
                body=m.AlkortTricks(type_="alkort_tricks", tricks=[0, 0, 0, 0, 0, 1]),
            ),
            201,
            m.RoundRead,
        )
        assert isinstance(muk.input_, m.AlkortTricks)
        assert muk.result.net is None and muk.result.owed is None
        assert muk.result.cells == [5, 0]
        assert muk.result.breakdown.to_dict() == {"kind": "muk", "run": 5, "team": 0, "points": 5}

        stroke = parsed(
            live.create_round.sync_detailed(
                match_id,
                client=bela,
                body=m.AlkortPoints(type_="alkort_points", team=1, points=7),
            ),
            201,
            m.RoundRead,
        )
        assert isinstance(stroke.input_, m.AlkortPoints)
        assert stroke.dealer == 1 and stroke.entered_by == "seat:1"
        assert stroke.result.totals == [5, 7]
        assert stroke.result.breakdown["kind"] == "stroke"
        assert stroke.result.breakdown["run"] is None

        # 403: a player may not change the settings, and says so as a Problem.
        forbidden = live.update_match.sync_detailed(
            match_id,
            client=bela,
            body=m.MatchUpdate(settings=m.SettingsUpdate(target=7)),
        )
        assert parsed(forbidden, 403, m.Problem).status == 403

        # The host moves the target below team 1's total: the match is decided.
        decided = parsed(
            live.update_match.sync_detailed(
                match_id,
                client=host,
                body=m.MatchUpdate(settings=m.SettingsUpdate(target=7)),
            ),
            200,
            m.MatchRead,
        )
        assert decided.status is m.MatchStatus.DECIDED
        assert decided.totals == [5, 7]
        assert decided.winner.team == 1

        # 409: a decided match takes no new round.
        conflict = parsed(
            live.create_round.sync_detailed(
                match_id,
                client=bela,
                body=m.AlkortPoints(type_="alkort_points", team=0, points=1),
            ),
            409,
            m.Problem,
        )
        assert conflict.code == "match_decided"

        # 422: a target of 0 is out of range; the Problem names the field.
        invalid = parsed(
            live.update_match.sync_detailed(
                match_id,
                client=host,
                body=m.MatchUpdate(settings=m.SettingsUpdate(target=0)),
            ),
            422,
            m.Problem,
        )
        assert invalid.code == "validation_error"
        assert invalid.errors and all(isinstance(e, m.ProblemField) for e in invalid.errors)

        ended = parsed(live.end_match.sync_detailed(match_id, client=host), 200, m.MatchRead)
        assert ended.status is m.MatchStatus.ENDED
        assert ended.winner.team == 1
        assert ended.ended_by == "host"

        rounds = parsed(live.list_rounds.sync_detailed(match_id, client=bela), 200, m.RoundList)
        assert [type(r.input_) for r in rounds.items] == [m.AlkortTricks, m.AlkortPoints]
        sheet = parsed(live.get_sheet.sync_detailed(match_id, client=bela), 200, m.SheetRead)
        assert sheet.totals == [5, 7]
        assert sheet.owed is None and sheet.net is None


# --- Gaps that come from the shape of the OpenAPI document (see the schema notes) ---------


def known_gap(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(reason=reason, raises=AssertionError, strict=False)


@known_gap(
    "MatchRead/MatchCreated.settings is a plain anyOf of two all-optional models: the "
    "client takes the first that parses, so an Alkort match's settings come out as "
    "AsszortiSettings and `target` is dropped"
)
def test_gap_alkort_settings_parse_as_alkort_settings(live: Sdk) -> None:
    m = live.models
    with live.client() as anonymous:
        created = live.create_match.sync_detailed(
            client=anonymous,
            body=m.AlkortMatchCreate(
                game="alkort",
                players=["Anna", "Bela", "Cili", "Dani"],
                settings=m.AlkortSettings(target=15),
            ),
        )
    match = parsed(created, 201, m.MatchCreated)
    assert json.loads(created.content)["settings"]["target"] == 15  # the server sends it
    assert isinstance(match.settings, m.AlkortSettings), type(match.settings)
    assert match.settings.target == 15


@known_gap("RoundResult/ScoreRead.breakdown is a free-form object: an additional_properties bag")
def test_gap_breakdown_is_a_typed_model(sdk: Sdk) -> None:
    breakdown = model_hints(sdk, sdk.models.RoundResult)["breakdown"]
    candidates = union_members(breakdown) if typing.get_origin(breakdown) else {breakdown}
    named = [c for c in candidates if attrs.has(c) and len(attrs.fields(c)) > 1]
    assert len(named) >= 2, f"breakdown is {breakdown}"


@known_gap("MatchRead.game and RoundRead.type are plain strings, not the GameName/round enums")
def test_gap_tags_on_reads_are_enums(sdk: Sdk) -> None:
    assert model_hints(sdk, sdk.models.MatchRead)["game"] is not str
    assert model_hints(sdk, sdk.models.RoundRead)["type_"] is not str


# --- The TypeScript types ----------------------------------------------------------------


def test_typescript_types_generate_and_type_check(tmp_path: Path) -> None:
    """npm ci, openapi-typescript, ``tsc --strict`` on check.ts: in a copy of sdk/typescript."""
    npm = shutil.which("npm")
    npx = shutil.which("npx")
    if npm is None or npx is None:
        message = "npm/npx not found: the TypeScript SDK cannot be generated"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    work = tmp_path / "typescript"
    work.mkdir()
    for name in ("package.json", "package-lock.json", "tsconfig.json", "check.ts"):
        shutil.copy2(TYPESCRIPT_DIR / name, work / name)

    def run(*command: str) -> str:
        done = subprocess.run(
            command, cwd=work, capture_output=True, text=True, timeout=180, check=False
        )
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"{' '.join(command)} failed:\n{output}"
        return output

    run(npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
    run(npx, "--no-install", "openapi-typescript", str(SPEC), "-o", "generated/types.ts")
    generated = (work / "generated" / "types.ts").read_text()
    assert '"application/problem+json": components["schemas"]["Problem"]' in generated
    run(npx, "--no-install", "tsc", "--noEmit", "--strict")
