"""A match row read back into game terms (``MatchState``), and the sheet folded from
its rounds' points. What clients see of it is ``app.services.answers``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.games import GAMES, Game, decided
from app.games.base import MatchStatus, Score, SheetState, StrictModel, dealer


def utcnow() -> datetime:
    return datetime.now(UTC)


def state_from_json(data: dict[str, Any]) -> SheetState:
    owed, net = data.get("owed"), data.get("net")
    return SheetState(
        totals=tuple(data["totals"]),
        owed=tuple(owed) if owed is not None else None,
        net=tuple(net) if net is not None else None,
    )


def state_to_json(state: SheetState) -> dict[str, Any]:
    return {
        "totals": list(state.totals),
        "owed": list(state.owed) if state.owed is not None else None,
        "net": list(state.net) if state.net is not None else None,
    }


def stored_result(score: Score) -> dict[str, Any]:
    """What a round stores of its score besides its points: the nets and the breakdown.

    The sheet's cells, totals and owed amounts are not stored with the round: they
    are a fold over the rounds' points, so a correction rewrites one round only.
    """
    return {
        "net": list(score.net) if score.net is not None else None,
        "breakdown": dict(score.breakdown),
    }


def fold(
    game: Game, points: Iterable[Sequence[int]], state: SheetState | None = None
) -> Iterator[tuple[tuple[int, ...], SheetState]]:
    """Each round's cells and the sheet after it, from the rounds' points in order."""
    sheet = state if state is not None else game.initial_state()
    for each in points:
        cells, sheet = game.apply(sheet, each)
        yield cells, sheet


@dataclass(frozen=True, slots=True)
class MatchState:
    """The match row with its game, settings and sheet in game terms."""

    row: Mapping[Any, Any]
    game: Game
    settings: StrictModel
    sheet: SheetState

    @classmethod
    def load(cls, row: Mapping[Any, Any]) -> MatchState:
        game = GAMES[row["game"]]
        settings = game.settings_model.model_validate(row["settings"])
        return cls(
            row=row,
            game=game.for_table(len(row["players"]), settings),
            settings=settings,
            sheet=state_from_json(row["sheet"]),
        )

    @property
    def status(self) -> MatchStatus:
        return MatchStatus(self.row["status"])

    @property
    def version(self) -> int:
        """The match's version: its ETag (``"v7"``)."""
        return int(self.row["version"])

    @property
    def round_count(self) -> int:
        return int(self.row["round_count"])

    def changed(self, changes: Mapping[str, Any], *, sheet: SheetState | None = None) -> MatchState:
        """The match with ``changes`` made to its row (not yet written: see
        ``app.services.changes.save``). ``sheet`` is the new sheet when ``changes`` hold
        one (saves decoding it again)."""
        row = {**self.row, **changes}
        if "settings" in changes:
            return MatchState.load(row)
        return MatchState(
            row=row,
            game=self.game,
            settings=self.settings,
            sheet=sheet if sheet is not None else state_from_json(row["sheet"]),
        )

    def dealer_of(self, number: int) -> int:
        first = int(getattr(self.settings, "first_dealer", 0))
        return dealer(first, number, self.game.seat_count)


def status_of(game: Game, settings: Any, sheet: SheetState, round_count: int) -> MatchStatus:
    """in_progress or decided, as the game's rules say for this sheet."""
    decided = game.is_decided(sheet, settings, round_count)
    return MatchStatus.DECIDED if decided else MatchStatus.IN_PROGRESS


def winner_of(
    game: Game,
    settings: Any,
    sheet: SheetState,
    status: MatchStatus,
    points: Callable[[], Sequence[Sequence[int]]],
) -> Any:
    """The stored ``winner`` of a match in this state (``decided.winner``); ``points``
    gives the rounds' points in order, read only where the rule needs their order."""
    if status is MatchStatus.IN_PROGRESS:
        return None
    winner = decided.winner(game, settings, sheet, points)
    if winner is None:
        return None
    return {
        "seats": list(winner.seats) if winner.seats is not None else None,
        "team": winner.team,
    }
