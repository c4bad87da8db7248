"""The settlement: who pays whom, in the fewest payments, from the final nets."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.own_table import OwnTableGame, OwnTableSettings
from app.games.settlement import Payment, groups, settle


def partitions(seats: list[int]) -> Iterator[list[list[int]]]:
    """Every way to split ``seats`` into groups (brute force: Bell(8) = 4,140 of them)."""
    if not seats:
        yield []
        return
    first, rest = seats[0], seats[1:]
    for split in partitions(rest):
        yield [[first], *split]
        for index in range(len(split)):
            yield [*split[:index], [first, *split[index]], *split[index + 1 :]]


def fewest_payments(net: list[int]) -> int:
    """By brute force: a set of payments links the seats into groups that each settle
    among themselves (nets summing to zero), and a group of g seats needs g - 1."""
    seats = [seat for seat, value in enumerate(net) if value]
    most = max(
        len(split)
        for split in partitions(seats)
        if all(sum(net[seat] for seat in group) == 0 for group in split)
    )
    return len(seats) - most


def fewest_by_search(net: list[int]) -> int:
    """A second, independent brute force over the payments themselves: some debtor pays
    some creditor, and some settlement with the fewest payments clears one side with
    each, so every such payment is tried, deepest first."""

    @cache
    def search(balance: tuple[int, ...]) -> int:
        if not any(balance):
            return 0
        best = len(balance)
        for payer, owes in enumerate(balance):
            for payee, due in enumerate(balance):
                if owes < 0 < due:
                    after = list(balance)
                    amount = min(-owes, due)
                    after[payer] += amount
                    after[payee] -= amount
                    best = min(best, 1 + search(tuple(sorted(after))))
        return best

    return search(tuple(sorted(net)))


def check_pays_out(net: list[int], payments: list[Payment]) -> None:
    balance = [0] * len(net)
    for payer, payee, amount in payments:
        assert amount > 0 and payer != payee
        assert net[payer] < 0 < net[payee]  # debtors pay, creditors are paid
        balance[payer] -= amount
        balance[payee] += amount
    assert balance == net


# Small values make groups that sum to zero common: the cases the old method missed.
nets = (
    st.integers(2, 8)
    .flatmap(lambda size: st.lists(st.integers(-6, 6), min_size=size - 1, max_size=size - 1))
    .map(lambda values: [*values, -sum(values)])
)


@settings(max_examples=400)
@given(nets)
def test_the_payments_are_the_fewest_that_bring_every_seat_to_its_net(net: list[int]) -> None:
    payments = settle(net)
    check_pays_out(net, payments)
    assert len(payments) == fewest_payments(net)
    assert payments == sorted(payments)  # listed by payer, then payee


small_tables = (
    st.integers(2, 6)
    .flatmap(lambda size: st.lists(st.integers(-5, 5), min_size=size - 1, max_size=size - 1))
    .map(lambda values: [*values, -sum(values)])
)


@settings(max_examples=150, deadline=None)
@given(small_tables)
def test_no_sequence_of_payments_is_shorter(net: list[int]) -> None:
    assert len(settle(net)) == fewest_by_search(net)


@given(st.lists(st.integers(-10_000, 10_000), min_size=1, max_size=7))
def test_large_nets_settle_too(values: list[int]) -> None:
    net = [*values, -sum(values)]
    payments = settle(net)
    check_pays_out(net, payments)
    assert len(payments) == fewest_payments(net)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([(2, 2), (2, 3), (2, 4), (3, 2), (4, 2)]), st.data())
def test_teams_settle_in_the_fewest_payments(shape: tuple[int, int], data: st.DataObject) -> None:
    teams, size = shape
    game = OwnTableGame(teams * size, OwnTableSettings(teams=teams, zero_sum=True))
    sheet = game.initial_state()
    for _ in range(data.draw(st.integers(1, 4))):
        points = data.draw(st.lists(st.integers(-9, 9), min_size=teams - 1, max_size=teams - 1))
        _, sheet = game.apply(sheet, [*points, -sum(points)])
    assert sheet.net is not None and len(sheet.net) == teams
    payments = settle(sheet.net)
    check_pays_out(list(sheet.net), payments)
    assert len(payments) == fewest_payments(list(sheet.net))


def test_five_seats_settle_in_three_payments_not_four() -> None:
    # The largest debt to the largest credit first needs four payments here.
    assert settle([-4, -3, 2, 2, 3]) == [Payment(0, 2, 2), Payment(0, 3, 2), Payment(1, 4, 3)]


def test_eight_seats_pair_the_seventy_off() -> None:
    net = [-153, -73, -70, 108, 194, -109, 70, 33]
    payments = settle(net)
    assert len(payments) == 6
    assert Payment(2, 6, 70) in payments
    check_pays_out(net, payments)


def test_the_split_puts_the_lowest_seat_in_its_smallest_group() -> None:
    # Seat 0 could settle with seat 1 or with seats 2 and 3 (both leave two groups):
    # the smaller group is taken.
    assert groups([-2, 2, 1, 1, -2]) == [(0, 1), (2, 3, 4)]
    # Of groups of one size, the lexicographically first (lowest seat, then the next).
    assert groups([-1, 1, 1, -1]) == [(0, 1), (2, 3)]
    assert groups([2, 3, 2, -3, 1, 3, -3, -5])[0] == (0, 1, 7)  # before (0, 3, 4)
    assert settle([-1, 1, 1, -1]) == [Payment(0, 1, 1), Payment(3, 2, 1)]


def test_three_seats_settle_in_at_most_two_payments() -> None:
    assert settle([-9, 18, -9]) == [Payment(0, 1, 9), Payment(2, 1, 9)]
    assert settle([10, 5, -15]) == [Payment(2, 0, 10), Payment(2, 1, 5)]
    assert settle([4, -4, 0]) == [Payment(1, 0, 4)]
    assert settle([0, 0, 0]) == []


@pytest.mark.parametrize("call", [settle, groups])
def test_nets_that_do_not_sum_to_zero_are_an_error(call: Callable[[list[int]], object]) -> None:
    with pytest.raises(ValueError, match="sum to zero"):
        call([1, 0, 0])
