"""Who pays whom at the end of a money game, in the fewest payments.

A group of seats whose nets sum to zero can settle among itself, and a group of
g seats needs at least g - 1 payments (each payment links two seats). So the
fewest payments is the number of seats with a non-zero net minus the largest
number of groups they split into, each summing to zero. Tables have at most
eight seats (or four teams), so every split can be tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations
from typing import NamedTuple


class Payment(NamedTuple):
    """One payment that settles a sheet: ``payer`` gives ``payee`` ``amount``."""

    payer: int
    payee: int
    amount: int


def settle(net: Sequence[int]) -> list[Payment]:
    """Who pays whom, in the fewest payments, so that every seat ends at its net (the
    nets sum to zero). Payments are listed by payer, then payee.

    The choice among settlements with the fewest payments, in two steps:

    1. ``groups``: the seats split into the most groups that settle among themselves.
    2. In each group the largest debt pays the largest credit, again and again (the
       lower seat first where two are equal); each payment clears one side.

    >>> settle([-9, 18, -9])
    [Payment(payer=0, payee=1, amount=9), Payment(payer=2, payee=1, amount=9)]
    >>> for payment in settle([-4, -3, 2, 2, 3]):
    ...     print(payment)
    Payment(payer=0, payee=2, amount=2)
    Payment(payer=0, payee=3, amount=2)
    Payment(payer=1, payee=4, amount=3)
    >>> settle([0, 0, 0])
    []
    """
    if sum(net) != 0:
        raise ValueError(f"nets must sum to zero, got {list(net)}")
    payments: list[Payment] = []
    for group in groups(net):
        payments.extend(_pay_within(net, group))
    return sorted(payments)


def groups(net: Sequence[int]) -> list[tuple[int, ...]]:
    """The seats with a non-zero net, split into the most groups whose nets each sum
    to zero. Of the splits with the most groups: the lowest seat goes into the
    smallest group it can (of those, the lexicographically first: the lowest second
    seat, then third, ...), then the lowest seat left, and so on.

    >>> groups([-153, -73, -70, 108, 194, -109, 70, 33])
    [(0, 1, 3, 4, 5, 7), (2, 6)]
    """
    seats = [seat for seat, value in enumerate(net) if value]
    if sum(net[seat] for seat in seats) != 0:
        raise ValueError(f"nets must sum to zero, got {list(net)}")
    # Every group that sums to zero, smallest first, then by its seats.
    zero = [
        group
        for size in range(2, len(seats) + 1)
        for group in combinations(seats, size)
        if sum(net[seat] for seat in group) == 0
    ]

    @cache
    def split(left: frozenset[int]) -> tuple[tuple[int, ...], ...]:
        # ``left`` sums to zero, so it is itself one of the groups: there is a split.
        if not left:
            return ()
        first = min(left)
        best: tuple[tuple[int, ...], ...] = ()
        for group in zero:
            if group[0] == first and left.issuperset(group):
                option = (group, *split(left.difference(group)))
                if len(option) > len(best):  # strictly more: ties keep the earlier group
                    best = option
        return best

    return list(split(frozenset(seats)))


def _pay_within(net: Sequence[int], group: tuple[int, ...]) -> list[Payment]:
    """Settle one group (its nets sum to zero): the largest debt pays the largest
    credit first. Each payment clears one side, so g seats make at most g - 1."""
    balance = {seat: net[seat] for seat in group}
    payments: list[Payment] = []
    while any(balance.values()):
        payer = min(group, key=lambda seat: (balance[seat], seat))
        payee = max(group, key=lambda seat: (balance[seat], -seat))
        amount = min(-balance[payer], balance[payee])
        payments.append(Payment(payer, payee, amount))
        balance[payer] += amount
        balance[payee] -= amount
    return payments
