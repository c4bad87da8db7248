"""The host's seat on the page (Chromium, 360 px): the start form asks which seat is
the host's (the first, shown by name, unless changed), the host's phone says whose it
is, and another phone's history names the host's player for a round the host
entered, as does the notice at a form the host's round overtook; the host changes it,
or says they only keep score, in the table's settings.

Same set-up as ``test_table_page.py``: a real server, headless Chromium, phones at
360 px that may not leave the server's origin (tests/browser/pages.py).
"""

from __future__ import annotations

import json

from playwright.sync_api import Browser, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, PHONE, Phone, api, create, new_phone
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
HU = json.loads((ROOT / "app" / "web" / "i18n" / "hu.json").read_text())


def test_the_history_names_the_host_s_player_and_the_host_s_phone_says_whose_it_is(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    assert page.viewport_size == PHONE
    page.wait_for_selector("#start")
    page.select_option("#game", "asszorti")
    seat = page.locator("#host-seat")
    # Before any name is typed the first seat is chosen, by its place at the table.
    expect(seat).to_be_visible()
    expect(seat).to_have_value("0")
    expect(seat.locator("option:checked")).to_have_text("Player 1")
    names = page.locator("input.player-name")
    for n, name in enumerate(["Anna", "Berta", "Csaba"]):
        names.nth(n).fill(name)
    # The choices follow the names as typed, and "I only keep score" comes last.
    expect(seat.locator("option")).to_have_text(["Anna", "Berta", "Csaba", EN["host_seat_none"]])
    expect(seat.locator("option:checked")).to_have_text("Anna")
    seat.select_option(label="Berta")
    page.click("#create")
    page.wait_for_selector("#links")
    match_id = page.url.split("#/m/")[1].split("/")[0]
    player_href = page.locator('a.join-link[data-role="player"][data-seat="0"]').get_attribute(
        "href"
    )
    assert player_href is not None
    page.click("#open-sheet")
    page.wait_for_selector("#live.on")
    expect(page.locator("#you-are")).to_have_text("You are Berta (host)")

    # The host's phone enters hand 1; Anna's phone opens it from the sheet.
    page.fill('input[name="amount0"]', "-9")
    page.fill('input[name="amount1"]', "18")
    page.fill('input[name="amount2"]', "-9")
    page.click("#add-round")
    anna = new_phone(phones, browser, server, locale="hu-HU")
    theirs = anna.open(player_href)
    theirs.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=LIVE_TIMEOUT_MS)
    expect(theirs.locator("#you-are")).to_have_text("Te vagy Anna")
    theirs.click('#sheet button.round-open[data-round="1"]')
    panel = theirs.locator("#round-panel")
    expect(panel.locator("#round-meta")).to_contain_text("Berta")
    expect(panel.locator("#round-meta")).not_to_contain_text(HU["by_host"])
    who = panel.locator("#round-history li .history-who")
    expect(who).to_have_count(1)
    expect(who).to_contain_text("Berta")
    # The API keeps what it records: the host's token entered it.
    token = page.evaluate(
        "(id) => JSON.parse(localStorage.getItem('squarescores.matches'))[id].token", match_id
    )
    revisions = api(server, "GET", f"/v1/matches/{match_id}/rounds/1/history", token).json()
    assert [item["by"] for item in revisions["items"]] == ["host"]

    # The host says they only keep score, in the table's settings: their phone says
    # "the host" again, and so does the history, read again, on Anna's phone.
    page.click("#host-settings summary")
    settings_seat = page.locator("#host-settings-seat")
    expect(settings_seat).to_have_value("1")
    settings_seat.select_option("")
    page.click("#save-settings")
    expect(page.locator("#settings-note")).to_have_text(EN["saved"])
    expect(page.locator("#you-are")).to_have_text(EN["you_are_host"])
    assert api(server, "GET", f"/v1/matches/{match_id}", token).json()["host_seat"] is None
    theirs.click("#round-close")
    theirs.click('#sheet button.round-open[data-round="1"]')
    expect(panel.locator("#round-history li .history-who")).to_contain_text(
        HU["by_host"], timeout=LIVE_TIMEOUT_MS
    )

    host.check_clean()
    anna.check_clean()


def test_a_form_overtaken_by_the_host_s_round_names_the_host_s_player(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server, {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"], "host_seat": 2}
    )
    page = new_phone(phones, browser, server).open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    # Anna types her amounts; the host's phone (Csaba's) stores a round meanwhile.
    for n, amount in enumerate([4, -2, -2]):
        page.fill(f'input[name="amount{n}"]', str(amount))
    entered = api(
        server,
        "POST",
        f"/v1/matches/{created['id']}/rounds",
        created["tokens"]["host"],
        json={"type": "asszorti_amounts", "amounts": [2, -1, -1]},
    )
    assert entered.status_code == 201 and entered.json()["entered_by"] == "host"
    notice = page.locator("#amounts #same-hand")
    expect(notice).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    stored = notice.locator(".clash-stored")
    expect(stored).to_contain_text("Csaba")
    expect(stored).not_to_contain_text(EN["by_host"])
    for phone in phones:
        phone.check_clean()
