"""Each game's one-pass ``refold`` (what a correction runs) against the definition:
folding with ``apply`` and asking ``is_decided`` after every round."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.games.alkort import GAME as ALKORT
from app.games.asszorti import GAME as ASSZORTI
from app.games.base import Game, refold_by_apply

small = st.integers(min_value=-40, max_value=40)


@st.composite
def asszorti_cases(draw: Any) -> tuple[list[list[int]], int, Any]:
    points = draw(st.lists(st.lists(small, min_size=3, max_size=3), min_size=1, max_size=60))
    number = draw(st.integers(min_value=1, max_value=len(points)))
    planned = draw(st.none() | st.integers(min_value=1, max_value=len(points) + 3))
    settings = ASSZORTI.settings_model.model_validate({"planned_deals": planned})
    return points, number, settings


@st.composite
def alkort_cases(draw: Any) -> tuple[list[list[int]], int, Any]:
    points = draw(
        st.lists(st.lists(st.integers(0, 9), min_size=2, max_size=2), min_size=1, max_size=60)
    )
    number = draw(st.integers(min_value=1, max_value=len(points)))
    target = draw(st.integers(min_value=1, max_value=120))
    return points, number, ALKORT.settings_model.model_validate({"target": target})


@given(asszorti_cases())
def test_asszorti_refold_is_the_fold(case: tuple[list[list[int]], int, Any]) -> None:
    points, number, settings = case
    assert ASSZORTI.refold(points, number, settings) == refold_by_apply(
        ASSZORTI, points, number, settings
    )


@given(alkort_cases())
def test_alkort_refold_is_the_fold(case: tuple[list[list[int]], int, Any]) -> None:
    points, number, settings = case
    assert ALKORT.refold(points, number, settings) == refold_by_apply(
        ALKORT, points, number, settings
    )


@pytest.mark.parametrize(("game", "seats"), [(ASSZORTI, 3), (ALKORT, 2)])
def test_a_round_that_is_not_there_is_an_error(game: Game, seats: int) -> None:
    settings = game.settings_model.model_validate({})
    points = [[1] * seats, [2] * seats]
    for number in (0, 3):
        with pytest.raises(ValueError):
            game.refold(points, number, settings)
        with pytest.raises(ValueError):
            refold_by_apply(game, points, number, settings)
