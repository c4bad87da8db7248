"""The settlement: who pays whom, in the fewest payments, from the final nets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.games.base import Payment, settle


@given(st.lists(st.integers(-10_000, 10_000), min_size=1, max_size=7))
def test_the_payments_bring_every_seat_to_its_net(values: list[int]) -> None:
    net = [*values, -sum(values)]  # nets sum to zero
    payments = settle(net)
    balance = [0] * len(net)
    for payer, payee, amount in payments:
        assert amount > 0 and payer != payee
        assert net[payer] < 0 < net[payee]  # debtors pay, creditors are paid
        balance[payer] -= amount
        balance[payee] += amount
    assert balance == net
    assert len(payments) <= max(0, sum(1 for n in net if n) - 1)


def test_three_seats_settle_in_at_most_two_payments() -> None:
    assert settle([-9, 18, -9]) == [Payment(0, 1, 9), Payment(2, 1, 9)]
    assert settle([10, 5, -15]) == [Payment(2, 0, 10), Payment(2, 1, 5)]
    assert settle([4, -4, 0]) == [Payment(1, 0, 4)]
    assert settle([0, 0, 0]) == []
