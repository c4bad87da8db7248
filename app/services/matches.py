"""Use cases of a match: create, read, change settings, end. One transaction each."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import ValidationError

from app.db import repository
from app.db.engine import Database
from app.errors import FieldError, InvalidInput, MatchEnded, SettingLocked
from app.games import GAMES
from app.games.base import GameRuleError, SettingConflict, StrictModel
from app.schemas import MatchCreated, MatchRead, MatchStatus, MatchUpdate, Tokens
from app.services.auth import Principal, found, new_credentials
from app.services.state import MatchState, match_read, state_to_json, status_of, utcnow, winner_of


def rule_error(error: GameRuleError, *prefix: str | int) -> InvalidInput:
    """A game's rule error as a 422 naming the field."""
    return InvalidInput(
        error.message, errors=[FieldError(("body", *prefix, *error.loc), error.message)]
    )


def create_match(db: Database, body: Any) -> MatchCreated:
    """Create a match with its tokens; the tokens are never shown again."""
    game = GAMES[body.game]
    players = list(body.players)
    try:
        game.validate_players(players)
    except GameRuleError as error:
        raise rule_error(error) from None
    team_names = getattr(body, "team_names", None)
    now = utcnow()
    match_id = uuid.uuid4().hex
    settings = body.settings
    sheet = game.initial_state()
    status = status_of(game, settings, sheet, 0)
    values = {
        "id": match_id,
        "game": game.name,
        "status": status.value,
        "players": players,
        "team_names": list(team_names) if team_names is not None else None,
        "settings": settings.model_dump(mode="json"),
        "version": 1,
        "round_count": 0,
        "sheet": state_to_json(sheet),
        "winner": winner_of(game, settings, sheet, status),
        "created_at": now,
        "updated_at": now,
        "ended_at": None,
        "ended_by": None,
    }
    tokens, credential_rows = new_credentials(match_id, game.seat_count)
    with db.write() as conn:
        repository.insert_match(conn, values)
        repository.insert_credentials(conn, credential_rows)
        row = repository.get_match(conn, match_id)
    assert row is not None
    match = match_read(MatchState.load(row))
    return MatchCreated(**dict(match), tokens=Tokens(**tokens))


def get_match(db: Database, who: Principal, match_id: str) -> MatchRead:
    with db.read() as conn:
        row = found(repository.get_match(conn, match_id), match_id)
    return match_read(MatchState.load(row))


def update_match(db: Database, who: Principal, match_id: str, body: MatchUpdate) -> MatchRead:
    """Change settings or names; the status is re-evaluated against the new settings."""
    with db.write() as conn:
        row = repository.get_match(conn, match_id, for_update=True)
        state = MatchState.load(found(row, match_id))
        if state.status is MatchStatus.ENDED:
            raise MatchEnded("an ended match cannot change")
        game = state.game
        values: dict[str, Any] = {}
        if body.settings is not None:
            settings = _changed_settings(state, body.settings)
            values["settings"] = settings.model_dump(mode="json")
            status = status_of(game, settings, state.sheet, state.round_count)
            values["status"] = status.value
            values["winner"] = winner_of(game, settings, state.sheet, status)
        if body.players is not None:
            try:
                game.validate_players(body.players)
            except GameRuleError as error:
                raise rule_error(error) from None
            values["players"] = list(body.players)
        if body.team_names is not None:
            if len(body.team_names) != game.team_count:
                message = (
                    f"{game.title} has {game.team_count} teams, got {len(body.team_names)} names"
                )
                raise InvalidInput(message, errors=[FieldError(("body", "team_names"), message)])
            values["team_names"] = list(body.team_names)
        values.update(version=state.row["version"] + 1, updated_at=utcnow())
        repository.update_match(conn, match_id, values)
        row = repository.get_match(conn, match_id)
    assert row is not None
    return match_read(MatchState.load(row))


def _changed_settings(state: MatchState, patch: StrictModel) -> StrictModel:
    game, old = state.game, state.settings
    sent = patch.model_dump(exclude_unset=True)
    unknown = sorted(set(sent) - set(game.settings_model.model_fields))
    if unknown:
        message = f"{unknown[0]!r} is not a setting of {game.title}"
        raise InvalidInput(message, errors=[FieldError(("body", "settings", unknown[0]), message)])
    try:
        new = game.settings_model.model_validate({**old.model_dump(), **sent})
    except ValidationError as error:
        raise InvalidInput(
            "invalid settings",
            errors=[FieldError(("body", "settings", *e["loc"]), e["msg"]) for e in error.errors()],
        ) from None
    first_dealer = getattr(new, "first_dealer", None)
    if first_dealer != getattr(old, "first_dealer", None) and state.round_count > 0:
        raise SettingLocked("first_dealer can only change before round 1")
    try:
        game.check_settings_change(old, new, state.sheet, state.round_count)
    except SettingConflict as error:
        raise SettingLocked(error.message, code=error.code) from None
    return new


def end_match(db: Database, who: Principal, match_id: str) -> MatchRead:
    """End match: bank the sheet as it stands and name the winner."""
    with db.write() as conn:
        row = repository.get_match(conn, match_id, for_update=True)
        state = MatchState.load(found(row, match_id))
        if state.status is MatchStatus.ENDED:
            raise MatchEnded("the match has already ended")
        now = utcnow()
        repository.update_match(
            conn,
            match_id,
            {
                "status": MatchStatus.ENDED.value,
                "winner": winner_of(state.game, state.settings, state.sheet, MatchStatus.ENDED),
                "ended_at": now,
                "ended_by": who.label,
                "updated_at": now,
                "version": state.row["version"] + 1,
            },
        )
        row = repository.get_match(conn, match_id)
    assert row is not None
    return match_read(MatchState.load(row))
