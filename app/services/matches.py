"""Use cases of a match: create, read, change settings, rename a player, end, start a
rematch. One transaction each."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from app.db import repository
from app.db.database import UnitOfWork
from app.errors import (
    FieldError,
    Forbidden,
    InvalidInput,
    MatchNotEnded,
    RematchExists,
    SettingLocked,
)
from app.games import GAMES, Game
from app.games.base import (
    GameRuleError,
    MatchStatus,
    SettingConflict,
    StrictModel,
    check_unique_names,
)
from app.services import changes, ratelimit
from app.services.auth import Caller, Role, new_credentials, new_recovery_code
from app.services.match_state import (
    MatchState,
    state_to_json,
    status_of,
    utcnow,
    winner_of,
)
from app.services.ratelimit import RateLimit
from app.services.recovery import sealed_for
from app.services.scoring import rule_error
from app.services.write_checks import check_expected, check_writable


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A match just created, its tokens (host, players, viewer) and the host's
    recovery code: shown once, only their hashes are stored (and the code sealed
    for the host token, app/services/recovery.py)."""

    match: MatchState
    tokens: dict[str, Any]
    recovery: str


def create_match(
    uow: UnitOfWork,
    body: Any,
    *,
    limits: Iterable[RateLimit] = (),
    rematch_of: str | None = None,
) -> NewMatch:
    """Create a match with its tokens; the tokens are shown in this answer only.

    ``limits`` count the creation against the client's rate limit; ``rematch_of`` is
    the ended match this one is the rematch of.
    """
    players = list(body.players)
    settings = body.settings
    game = GAMES[body.game].for_table(len(players), settings)
    try:
        game.validate_players(players)
    except GameRuleError as error:
        raise rule_error(error) from None
    team_names = getattr(body, "team_names", None)
    if team_names is not None:
        _check_team_names(game, team_names)
    host_seat = body.host_seat
    _check_host_seat(host_seat, len(players))
    sheet = game.initial_state()
    status = status_of(game, settings, sheet, 0)

    ratelimit.count(uow, limits)
    now = utcnow()
    match_id = uuid.uuid4().hex
    row = {
        "id": match_id,
        "game": game.name,
        "status": status.value,
        "players": players,
        "team_names": list(team_names) if team_names is not None else None,
        "settings": settings.model_dump(mode="json"),
        "version": 1,
        "round_count": 0,
        "sheet": state_to_json(sheet),
        "winner": winner_of(game, settings, sheet, status, list),  # no rounds yet
        "created_at": now,
        "updated_at": now,
        "ended_at": None,
        "ended_by": None,
        "rematch_id": None,
        "rematch_of": rematch_of,
        "host_seat": host_seat,
    }
    recovery, row["recovery_hash"] = new_recovery_code()
    repository.insert_match(uow.connection, row)
    tokens, credential_rows = new_credentials(match_id, game.seat_count)
    host_row = next(c for c in credential_rows if c["role"] == Role.HOST.value)
    host_row["recovery_sealed"] = sealed_for(tokens["host"], recovery)
    repository.insert_credentials(uow.connection, credential_rows)
    return NewMatch(MatchState.load(row), tokens, recovery)


class MatchChanges(Protocol):
    """What a change of settings or names sends (each None when not sent)."""

    @property
    def settings(self) -> StrictModel | None: ...
    @property
    def players(self) -> Sequence[str] | None: ...
    @property
    def team_names(self) -> Sequence[str] | None: ...
    @property
    def host_seat(self) -> int | None: ...
    @property
    def host_seat_sent(self) -> bool:
        """Whether ``host_seat`` was sent (null then clears it) or left out."""
        ...


def update_match(
    caller: Caller, body: MatchChanges, *, expected: frozenset[int] | None = None
) -> MatchState:
    """Change settings or names; the status is re-evaluated against the new settings.
    ``expected``: the versions If-Match names (None: any)."""
    uow, state = caller.uow, MatchState.load(caller.match)
    game = state.game
    values: dict[str, Any] = {}
    settings = None
    if body.settings is not None:
        settings = _validated_settings(state, body.settings)
    if body.players is not None:
        try:
            game.validate_players(body.players)
        except GameRuleError as error:
            raise rule_error(error) from None
        values["players"] = list(body.players)
    if body.team_names is not None:
        _check_team_names(game, body.team_names)
        values["team_names"] = list(body.team_names)
    if body.host_seat_sent:
        seats = len(values.get("players", state.row["players"]))
        _check_host_seat(body.host_seat, seats)
        values["host_seat"] = body.host_seat
    check_writable(state, expected)
    if settings is not None:
        _check_settings_change(state, settings)
        values["settings"] = settings.model_dump(mode="json")
        status = status_of(game, settings, state.sheet, state.round_count)
        values["status"] = status.value
        values["winner"] = winner_of(
            game, settings, state.sheet, status, lambda: _points(uow, state)
        )
    changed = {k: v for k, v in values.items() if v != state.row[k]}
    if not changed:  # a PATCH that changes nothing leaves the version (and ETag) alone
        return state
    now = utcnow()
    if "players" in changed:
        _record_renames(uow, state, changed["players"], by=caller.who.label, now=now)
    changed.update(version=state.version + 1, updated_at=now)
    return changes.save(uow, state, changed, "match_updated")


def rename_player(
    caller: Caller, seat: int, name: str, *, expected: frozenset[int] | None = None
) -> MatchState:
    """Give the player at ``seat`` a new name, checked as at creation (unique at the
    table, look-alikes too). The host renames any seat, a player only their own; an
    ended match too, so a typo can be fixed after the evening. The match's history
    records old and new name; the sheet, rounds and live streams show the new one."""
    uow, who, state = caller.uow, caller.who, MatchState.load(caller.match)
    players = list(state.row["players"])
    if who.role is Role.PLAYER and who.seat != seat:
        raise Forbidden("a player may rename only their own seat; the host renames any")
    if not 0 <= seat < len(players):
        message = f"no seat {seat} at this table: seats are 0 to {len(players) - 1}"
        raise InvalidInput(message, errors=[FieldError(("path", "seat"), message)])
    others = [other for other in range(len(players)) if other != seat]
    try:
        # The new name last, so a clash names the seat that holds the name already.
        check_unique_names(
            [*(players[other] for other in others), name],
            field="name",
            holder="seat",
            numbers=[*others, seat],
        )
        state.game.validate_players([*players[:seat], name, *players[seat + 1 :]])
    except GameRuleError as error:
        raise InvalidInput(
            error.message, errors=[FieldError(("body", "name"), error.message)]
        ) from None
    check_expected(state, expected)
    if players[seat] == name:  # a rename to the same name changes nothing, as a PATCH
        return state
    players[seat] = name
    now = utcnow()
    _record_renames(uow, state, players, by=who.label, now=now)
    changed = {"players": players, "version": state.version + 1, "updated_at": now}
    return changes.save(uow, state, changed, "match_updated")


def _record_renames(
    uow: UnitOfWork, state: MatchState, players: Sequence[str], *, by: str, now: datetime
) -> None:
    """A history event for each seat whose name ``players`` changes."""
    for seat, (old, new) in enumerate(zip(state.row["players"], players, strict=True)):
        if old != new:
            detail = {"seat": seat, "old_name": old, "new_name": new}
            repository.insert_history_entry(
                uow.connection,
                {
                    "match_id": state.row["id"],
                    "action": "player_renamed",
                    "detail": detail,
                    "by": by,
                    "recorded_at": now,
                },
            )


@dataclass(frozen=True, slots=True)
class _Table:
    """What a rematch takes from the match before it, in a create's shape."""

    game: str
    players: list[str]
    settings: StrictModel
    team_names: list[str] | None
    host_seat: int | None


def start_rematch(
    caller: Caller, *, expected: frozenset[int] | None = None, limits: Iterable[RateLimit] = ()
) -> NewMatch:
    """A new match with the ended match's players, game, settings, team names and host's
    seat, its first dealer the seat after the last deal's dealer; each match links to
    the other.
    New tokens for every role, as a create's. A match has one rematch at most."""
    uow, state = caller.uow, MatchState.load(caller.match)
    check_expected(state, expected)
    if state.status is not MatchStatus.ENDED:
        raise MatchNotEnded("end the match before its rematch")
    match_id = state.row["id"]
    if state.row["rematch_id"] is not None:
        raise RematchExists(
            f"the match's rematch is {state.row['rematch_id']}: "
            "its tokens were in the answer that started it"
        )
    settings = state.settings
    if "first_dealer" in type(settings).model_fields:
        next_dealer = state.dealer_of(state.round_count + 1)
        settings = settings.model_copy(update={"first_dealer": next_dealer})
    team_names = state.row["team_names"]
    table = _Table(
        game=state.row["game"],
        players=list(state.row["players"]),
        settings=settings,
        team_names=list(team_names) if team_names is not None else None,
        host_seat=state.row["host_seat"],  # the same players: the host holds the same seat
    )
    new = create_match(uow, table, limits=limits, rematch_of=match_id)
    linked = {
        "rematch_id": new.match.row["id"],
        "version": state.version + 1,
        "updated_at": utcnow(),
    }
    changes.save(uow, state, linked, "match_updated")
    return new


def _check_host_seat(seat: int | None, seats: int) -> None:
    """The host's seat, when one is named, is a seat of the table."""
    if seat is not None and not 0 <= seat < seats:
        message = f"no seat {seat} at this table: seats are 0 to {seats - 1}"
        raise InvalidInput(message, errors=[FieldError(("body", "host_seat"), message)])


def _check_team_names(game: Game, names: Sequence[str]) -> None:
    """One name per team of the table (a table of its own may have no teams), each
    unique by the players' rule."""
    if len(names) != game.team_count:
        if game.team_count:
            message = f"{game.title} has {game.team_count} teams, got {len(names)} names"
        else:
            message = "this table plays without teams: send no team names"
        raise InvalidInput(message, errors=[FieldError(("body", "team_names"), message)])
    try:
        check_unique_names(names, field="team_names", holder="team")
    except GameRuleError as error:
        raise rule_error(error) from None


def _validated_settings(state: MatchState, patch: StrictModel) -> StrictModel:
    game, old = state.game, state.settings
    sent = patch.model_dump(exclude_unset=True)
    unknown = sorted(set(sent) - set(game.settings_model.model_fields))
    if unknown:
        message = f"{unknown[0]!r} is not a setting of {game.title}"
        raise InvalidInput(message, errors=[FieldError(("body", "settings", unknown[0]), message)])
    try:
        return game.settings_model.model_validate({**old.model_dump(), **sent})
    except ValidationError as error:
        raise InvalidInput(
            "invalid settings",
            errors=[FieldError(("body", "settings", *e["loc"]), e["msg"]) for e in error.errors()],
        ) from None


def _check_settings_change(state: MatchState, new: StrictModel) -> None:
    old = state.settings
    first_dealer = getattr(new, "first_dealer", None)
    if first_dealer != getattr(old, "first_dealer", None) and state.round_count > 0:
        raise SettingLocked("first_dealer can only change before round 1")
    try:
        state.game.check_settings_change(old, new, state.sheet, state.round_count)
    except SettingConflict as error:
        raise SettingLocked(error.message, code=error.code) from None
    except GameRuleError as error:  # settings that do not fit the table: bad input
        raise rule_error(error) from None


def _points(uow: UnitOfWork, state: MatchState) -> list[list[int]]:
    """The points of every round of the match, in order."""
    return repository.list_points(uow.connection, state.row["id"], through=state.round_count)


def end_match(caller: Caller, *, expected: frozenset[int] | None = None) -> MatchState:
    """End match: bank the sheet as it stands, name the winner, record who ended it."""
    uow, who, state = caller.uow, caller.who, MatchState.load(caller.match)
    check_writable(state, expected)
    now = utcnow()
    ended = {
        "status": MatchStatus.ENDED.value,
        "winner": winner_of(
            state.game,
            state.settings,
            state.sheet,
            MatchStatus.ENDED,
            lambda: _points(uow, state),
        ),
        "ended_at": now,
        "ended_by": who.label,
        "updated_at": now,
        "version": state.version + 1,
    }
    return changes.save(uow, state, ended, "ended")
