"""Properties of Alkort scoring and of the sheet fold (spec/RULES.md §2.2-2.3)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.alkort import GAME, AlkortPoints, AlkortSettings, AlkortTricks
from app.games.base import GameRuleError, Score

nine_tricks = st.lists(st.integers(0, 1), min_size=9, max_size=9)
deal_values = st.sampled_from([1, 5, 6, 7, 8, 9])


def score_list(winners: list[int]) -> Score:
    return GAME.score(AlkortTricks(type="alkort_tricks", tricks=winners), AlkortSettings())


def settled(prefix: list[int]) -> bool:
    """The rule as written: the first run is broken and a team has five tricks."""
    run_broken = any(team != prefix[0] for team in prefix)
    return run_broken and max(prefix.count(0), prefix.count(1)) >= 5


@settings(deadline=None, max_examples=300)
@given(nine_tricks)
def test_a_deal_is_worth_a_legal_value_to_exactly_one_team(winners: list[int]) -> None:
    result = score_list(winners)
    winning = [team for team, p in enumerate(result.points) if p]
    assert len(winning) == 1
    team = winning[0]
    assert result.points[1 - team] == 0
    assert result.points[team] in {1, 5, 6, 7, 8, 9}
    assert result.breakdown["team"] == team
    assert result.breakdown["points"] == result.points[team]
    assert result.net is None


@settings(deadline=None, max_examples=300)
@given(nine_tricks)
def test_every_settled_prefix_scores_like_the_whole_deal(winners: list[int]) -> None:
    whole = score_list(winners)
    for length in range(1, 9):
        prefix = winners[:length]
        if settled(prefix):
            assert score_list(prefix) == whole
        else:
            try:
                score_list(prefix)
            except GameRuleError as error:
                assert error.loc == ("tricks",)
            else:
                raise AssertionError(f"{prefix} is not settled but was accepted")


@settings(deadline=None, max_examples=300)
@given(
    st.lists(
        st.one_of(
            nine_tricks.map(lambda w: AlkortTricks(type="alkort_tricks", tricks=w)),
            st.builds(
                AlkortPoints,
                type=st.just("alkort_points"),
                team=st.integers(0, 1),
                points=deal_values,
            ),
        ),
        max_size=30,
    )
)
def test_totals_are_the_sum_of_each_teams_points(
    deals: list[AlkortTricks | AlkortPoints],
) -> None:
    sheet = GAME.initial_state()
    sums = [0, 0]
    for deal in deals:
        result = GAME.score(deal, AlkortSettings())
        cells, sheet = GAME.apply(sheet, result.points)
        assert cells == result.points
        for team in (0, 1):
            sums[team] += result.points[team]
    assert sheet.totals == tuple(sums)
    assert sheet.owed is None and sheet.net is None
