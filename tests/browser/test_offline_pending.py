"""Rounds entered offline go on the sheet at once, as rows marked pending, and the entry
form moves on past them (the hand's number and whose deal it is); once sent, the real
rows take their place, and a round the server refuses shows why in its row and gives
its deal back.

A real server and headless Chromium, as in ``test_table_evening.py``; the phone of the
first test runs the page's service worker, so it can reload with no network.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.pages import (
    PHONE,
    RENDER_TIMEOUT_MS,
    Phone,
    api,
    create,
    go_offline,
    new_phone,
    rows,
)
from tests.conftest import ROOT
from tests.live import LiveServer

SEND_TIMEOUT_MS = 10_000  # a kept round is sent this soon after the connection returns
EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
NAMES = ["Anna", "Berta", "Csaba"]
OUTBOX = "squarescores.outbox"
PENDING = "#sheet tbody tr.pending-round"


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A phone whose service worker runs (the shared Phone blocks them): it reloads offline."""
    opened = browser.new_context(service_workers="allow", viewport=PHONE, is_mobile=True)
    opened.set_default_timeout(RENDER_TIMEOUT_MS)
    yield opened
    opened.close()


def outbox(page: Page) -> dict[str, Any]:
    return dict(json.loads(page.evaluate(f"localStorage.getItem('{OUTBOX}') || '{{}}'")))


def server_rounds(server: LiveServer, match_id: str, token: str) -> list[dict[str, Any]]:
    response = api(server, "GET", f"/v1/matches/{match_id}/rounds", token)
    assert response.status_code == 200, response.text
    body = response.json()
    return list(body["items"] if isinstance(body, dict) else body)


def enter_amounts(page: Page, amounts: list[int]) -> None:
    for seat, amount in enumerate(amounts):
        page.fill(f'input[name="amount{seat}"]', str(amount))
    page.click("#add-round")


def expect_form_at(page: Page, number: int, dealer: int) -> None:
    """The entry form is at hand `number`, dealt by seat `dealer` (and the status says so)."""
    expect(page.locator("#hand .panel-head h2")).to_have_text(EN["enter_hand"].format(n=number))
    line = page.locator("#dealer-line")
    expect(line).to_have_attribute("data-dealer", str(dealer))
    expect(line).to_have_text(EN["deals_now"].format(name=NAMES[dealer]))
    expect(page.locator(".status")).to_contain_text(EN["next_dealer"].format(name=NAMES[dealer]))


def expect_pending(page: Page, inputs: list[str]) -> None:
    """The sheet's pending rows, after its real ones: numbered on, each with what was
    entered and the words that say it waits."""
    real = page.locator("#sheet tbody tr[data-round]").count()
    pending = page.locator(PENDING)
    expect(pending).to_have_count(len(inputs))
    for index, text in enumerate(inputs):
        row = pending.nth(index)
        expect(row).to_have_attribute("data-state", "pending")
        expect(row.locator("th")).to_have_text(str(real + index + 1))
        expect(row.locator(".pending-input")).to_have_text(text)
        expect(row.locator(".pending-state")).to_have_text(EN["pending_waiting"])


def amounts_text(amounts: list[int]) -> str:
    signed = [f"+{a}" if a > 0 else f"\u2212{-a}" if a < 0 else "0" for a in amounts]
    return EN["amounts_line"].format(
        amounts=", ".join(f"{name} {each}" for name, each in zip(NAMES, signed, strict=True))
    )


def test_rounds_entered_offline_show_as_pending_rows_and_the_form_moves_on(
    context: BrowserContext, server: LiveServer
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    posts: list[str] = []
    page.on(
        "requestfinished",  # answered: not one refused while offline
        lambda request: (
            posts.append(request.headers.get("idempotency-key", ""))
            if request.method == "POST" and request.url.endswith("/rounds")
            else None
        ),
    )
    page.goto(server.url + created["tokens"]["links"]["players"][0])
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.wait_for_selector("#live.on")
    expect_form_at(page, 1, 0)

    # Offline: two rounds; each is a pending row at once, and the form moves on twice.
    go_offline(context, page)
    enter_amounts(page, [-9, 18, -9])
    expect_pending(page, [amounts_text([-9, 18, -9])])
    expect_form_at(page, 2, 1)
    enter_amounts(page, [24, -12, -12])
    expect_pending(page, [amounts_text([-9, 18, -9]), amounts_text([24, -12, -12])])
    expect_form_at(page, 3, 2)
    expect(page.locator("#sheet tfoot tr.totals td")).to_have_text(["0", "0", "0"])
    expect(page.locator(".no-rounds")).to_be_hidden()

    # A reload, still offline: the rows come back from the outbox.
    page.reload()
    page.wait_for_selector("#sheet")
    expect_pending(page, [amounts_text([-9, 18, -9]), amounts_text([24, -12, -12])])
    expect_form_at(page, 3, 2)
    # (Not asserted: that nothing reached the server meanwhile. Chromium's emulated
    # offline can let a reloaded page's first request out while the page reads
    # navigator.onLine as true. Its answer never reaches the page, which sends the
    # round again with the same key: stored once, as below.)

    # Back online: each is sent once; the real rows replace the pending ones.
    context.set_offline(False)
    page.wait_for_selector('#sheet tbody tr[data-round="2"]', timeout=SEND_TIMEOUT_MS)
    expect(page.locator(PENDING)).to_have_count(0)
    assert outbox(page) == {}
    stored = server_rounds(server, match_id, host_token)
    assert [each["input"]["amounts"] for each in stored] == [[-9, 18, -9], [24, -12, -12]]
    assert len(set(posts)) == 2  # each round its own key (a resend after a lost answer reuses it)
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", host_token).json()
    assert rows(page) == [[str(row["number"]), *map(str, row["cells"])] for row in sheet["rows"]]
    expect_form_at(page, 3, 2)
    assert errors == []


def test_a_queued_round_the_server_refuses_shows_why_in_its_row_and_gives_its_deal_back(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][1])
    page.wait_for_selector("#live.on")

    # Offline, a good round and one whose amounts do not sum to zero (only the server
    # says so): both wait as pending rows, and the form is two deals on.
    go_offline(player.context, page)
    enter_amounts(page, [-9, 18, -9])
    enter_amounts(page, [5, 1, 1])
    expect_pending(page, [amounts_text([-9, 18, -9]), amounts_text([5, 1, 1])])
    expect_form_at(page, 3, 2)

    # Back online: the first is stored; the second is refused, its row says why, and
    # its deal goes back: the form is at the hand it would have been.
    player.context.set_offline(False)
    page.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=SEND_TIMEOUT_MS)
    held = page.locator(f"{PENDING}.held")
    expect(held).to_have_attribute("data-state", "refused", timeout=SEND_TIMEOUT_MS)
    expect(page.locator(PENDING)).to_have_count(1)
    expect(held.locator("th")).to_have_text("!")
    expect(held.locator(".pending-input")).to_have_text(amounts_text([5, 1, 1]))
    expect(held.locator(".pending-state")).to_contain_text(EN["outbox_refused"])
    expect(held.locator(".pending-state")).to_have_text(
        page.locator("#outbox li.outbox-item .outbox-state").inner_text()
    )
    expect_form_at(page, 2, 1)
    assert [each["input"]["amounts"] for each in server_rounds(server, match_id, host_token)] == [
        [-9, 18, -9]
    ]

    # Discarded: its row goes, and nothing more is sent.
    page.click("#outbox button.outbox-discard")
    expect(page.locator(PENDING)).to_have_count(0)
    expect_form_at(page, 2, 1)
    assert len(server_rounds(server, match_id, host_token)) == 1
    player.check_clean()


@pytest.mark.parametrize(
    ("body", "title"),
    [
        ({"game": "alkort", "players": ["Anna", "Berta", "Csaba", "Dani"]}, "enter_deal"),
        (
            {
                "game": "own_table",
                "players": ["Anna", "Berta", "Csaba", "Dani", "Emil"],
                "settings": {"first_dealer": 3},
            },
            "enter_own_round",
        ),
    ],
    ids=["alkort", "own_table"],
)
def test_the_deal_passes_round_the_whole_table_past_queued_rounds(
    browser: Browser, server: LiveServer, phones: list[Phone], body: dict[str, Any], title: str
) -> None:
    created = create(server, body)
    match_id, host_token = created["id"], created["tokens"]["host"]
    seats = len(body["players"])
    first = body.get("settings", {}).get("first_dealer", 0)
    player = new_phone(phones, browser, server)
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    line = page.locator("#dealer-line")
    heading = page.locator(".card.entry .panel-head h2")
    expect(line).to_have_attribute("data-dealer", str(first))

    go_offline(player.context, page)
    for played in range(1, 3):
        if body["game"] == "alkort":
            page.click('button.point[data-team="0"][data-points="5"]')
            page.wait_for_timeout(1600)  # a double tap is one deal: the buttons wait a moment
        else:
            for seat in range(seats):
                page.fill(f'input[name="points{seat}"]', str(seat - 2))
            page.click("#add-own")
        expect(page.locator(PENDING)).to_have_count(played)
        expect(line).to_have_attribute("data-dealer", str((first + played) % seats))
        expect(heading).to_have_text(EN[title].format(n=played + 1))
    shots = ROOT / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"offline-pending-{body['game']}.png"), full_page=True)

    player.context.set_offline(False)
    page.wait_for_selector('#sheet tbody tr[data-round="2"]', timeout=SEND_TIMEOUT_MS)
    expect(page.locator(PENDING)).to_have_count(0)
    assert len(server_rounds(server, match_id, host_token)) == 2
    match = api(server, "GET", f"/v1/matches/{match_id}", host_token).json()
    expect(line).to_have_attribute("data-dealer", str(match["next_dealer"]))
    assert match["next_dealer"] == (first + 2) % seats
    player.check_clean()


def test_a_forgotten_table_leaves_no_last_read_behind(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    kept = json.loads(page.evaluate("localStorage.getItem('squarescores.lastread')"))
    assert kept["id"] == created["id"] and "tokens" not in kept["match"]
    page.click('a[href="#/"]')
    page.locator(f'#tables li.table-item[data-id="{created["id"]}"] button.forget').click()
    page.click("#confirm-yes")
    expect(page.locator("#tables li.table-item")).to_have_count(0)
    assert page.evaluate("localStorage.getItem('squarescores.lastread')") is None
    phone.check_clean()
