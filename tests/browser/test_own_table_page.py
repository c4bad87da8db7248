"""An own table on the web page (app/web): started from the start form with its own
rules, rounds entered from two phones, the host moving the target, and a zero-sum
table in teams that balances each round and ends with the API's settlement.

Same set-up as ``test_table_page.py``: a real server, headless Chromium (Debian's),
phones at 360 px that may not leave the server's origin (tests/browser/pages.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
XSS = "<img src=x onerror=alert(1)>"
RULES = f"Hearts, our way:\nthe queen of spades is 13\n{XSS}"


def start_own_table(page: Page, players: list[str], **settings: Any) -> None:
    """Fill the start form for an own table (players first: it redraws the fields)."""
    page.wait_for_selector("#start")
    page.select_option("#game", "own_table")
    page.select_option("#own-players", str(len(players)))
    if settings.get("teams"):
        page.select_option("#own-teams", str(settings["teams"]))
    names = page.locator("input.player-name")
    expect(names).to_have_count(len(players))
    for seat, name in enumerate(players):
        names.nth(seat).fill(name)
    if settings.get("zero_sum"):
        page.check("#own-zero-sum")
    if "target" in settings:
        page.fill("#own-target", str(settings["target"]))
    if "table_rules" in settings:
        page.fill("#own-table-rules", settings["table_rules"])


def link_of(page: Page, role: str, seat: int | None = None) -> tuple[str, str, str]:
    """A join link's (href, match id, token); the host's is shown after its step."""
    if role == "host" and page.locator("#show-host-link").count():
        page.click("#show-host-link")
    selector = f'a.join-link[data-role="{role}"]'
    if seat is not None:
        selector += f'[data-seat="{seat}"]'
    href = page.locator(selector).get_attribute("href")
    assert href is not None
    found = re.search(r"#/m/([A-Za-z0-9_-]+)\?t=(.+)$", href)
    assert found, href
    return href, found.group(1), found.group(2)


def enter_points(page: Page, points: list[int]) -> None:
    for index, value in enumerate(points):
        page.fill(f'#own-round input[name="points{index}"]', str(value))
    page.click("#add-own")


def match_of(server: LiveServer, match_id: str, token: str) -> dict[str, Any]:
    response = api(server, "GET", f"/v1/matches/{match_id}", token)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_an_own_table_from_the_start_form_to_a_moved_target(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    # Teams: only the counts that split the players into teams of two or more.
    page.select_option("#game", "own_table")
    page.select_option("#own-players", "6")
    teams = page.locator("#own-teams option").evaluate_all("(os) => os.map((o) => o.value)")
    assert teams == ["0", "2", "3"]
    page.select_option("#own-teams", "3")
    expect(page.locator("input.team-name")).to_have_count(3)
    start_own_table(page, ["Anna", "Berta"], target=11, table_rules=RULES)
    expect(page.locator("input.team-name")).to_have_count(0)  # 2 players: no teams
    expect(page.locator("#first-dealer option")).to_have_count(2)
    page.click("#create")
    page.wait_for_selector("#links")
    _, match_id, host_token = link_of(page, "host")
    player_href, _, _ = link_of(page, "player", 1)
    match = match_of(server, match_id, host_token)
    assert match["game"] == "own_table"
    assert match["settings"]["target"] == 11
    assert match["settings"]["table_rules"] == RULES
    page.click("#open-sheet")
    page.wait_for_selector("#sheet")

    # The rules, as text, line breaks kept.
    rules = page.locator("#table-rules")
    expect(rules).to_have_text(RULES)
    assert rules.inner_text() == RULES  # pre-line keeps the line breaks
    assert page.locator("#own-rules img").count() == 0
    assert rules.evaluate("(el) => getComputedStyle(el).whiteSpace") == "pre-line"

    player = new_phone(phones, browser, server)
    ppage = player.open(player_href)
    ppage.wait_for_selector("#own-round")
    expect(ppage.locator("#own-round label span").first).to_have_text("Anna")
    expect(ppage.locator("#own-sum")).to_be_hidden()  # not zero-sum

    page.wait_for_selector("#live.on")
    enter_points(page, [5, 3])
    expect(ppage.locator("#sheet tbody tr")).to_have_count(1, timeout=LIVE_TIMEOUT_MS)
    enter_points(ppage, [2, 6])
    expect(page.locator("#sheet tbody tr")).to_have_count(2, timeout=LIVE_TIMEOUT_MS)
    assert rows(page) == [["1", "5", "3"], ["2", "2", "6"]]

    # A correction opens the same card, filled in.
    page.click('button.round-open[data-round="1"]')
    page.click("#round-correct")
    expect(page.locator('#own-round input[name="points0"]')).to_have_value("5")
    expect(page.locator('#own-round input[name="points1"]')).to_have_value("3")
    expect(page.locator("#add-own")).to_have_text(EN["save_correction"])
    page.fill('#own-round input[name="points1"]', "2")
    page.click("#add-own")
    expect(page.locator('#sheet tbody tr[data-round="1"] td').nth(1)).to_have_text("2")
    expect(page.locator("#round-input")).to_have_text("Points: Anna +5, Berta +2")

    enter_points(ppage, [4, 0])  # Anna 11: the target
    expect(page.locator("p.status.decided")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#winner")).to_have_text(EN["winner"].replace("{names}", "Anna"))
    assert match_of(server, match_id, host_token)["status"] == "decided"

    # The host moves the target: the match is open again.
    page.click("#host-settings summary")
    expect(page.locator("#host-target")).to_have_value("11")
    page.fill("#host-target", "20")
    page.fill("#host-planned-rounds", "10")
    page.click("#save-settings")
    expect(page.locator("#settings-note")).to_have_text(EN["settings_reopened"])
    match = match_of(server, match_id, host_token)
    assert match["status"] == "in_progress"
    assert (match["settings"]["target"], match["settings"]["planned_rounds"]) == (20, 10)
    expect(ppage.locator("#own-round")).to_be_visible(timeout=LIVE_TIMEOUT_MS)

    # A refused setting shows the problem's detail, and its hint when it has one.
    page.fill("#host-target", "1")
    page.click("#save-settings")
    # (Anna 11, Berta 8: both reach 1 at a highest-wins table.)
    expect(page.locator("#settings-note.error")).to_contain_text(EN["hint_target_already_reached"])
    expect(page.locator("#settings-note.error[role=alert]")).to_be_in_viewport()
    host.check_clean()
    player.check_clean()


def test_a_zero_sum_table_in_teams_balances_and_settles(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    start_own_table(page, ["Anna", "Berta", "Csaba", "Dora"], teams=2, zero_sum=True)
    expect(page.locator("input.team-name")).to_have_count(2)
    # Zero-sum without negative points: the server refuses, the page says why.
    page.uncheck("#own-negatives")
    page.click("#create")
    expect(page.locator("#message")).to_contain_text("negatives")
    page.check("#own-negatives")
    page.click("#create")
    page.wait_for_selector("#links")
    _, match_id, token = link_of(page, "host")
    page.click("#open-sheet")
    page.wait_for_selector("#own-round")
    labels = page.locator("#own-round .own-points label span").all_inner_texts()
    # Seat s plays in team s % 2; the page counts teams from 1 and says who plays in each.
    assert labels == ["Team 1: Anna & Csaba", "Team 2: Berta & Dora"]
    teams = ["Team 1", "Team 2"]  # as sentences name them

    # One number typed: the other balances it; the sum shows.
    page.fill('#own-round input[name="points0"]', "7")
    expect(page.locator('#own-round input[name="points1"]')).to_have_value("-7")
    expect(page.locator("#own-sum")).to_have_text(EN["own_sum"].replace("{sum}", "0"))
    page.click("#add-own")
    expect(page.locator("#sheet tbody tr")).to_have_count(1)

    # Typed over, the round no longer sums to 0: the server's 422 shows.
    page.fill('#own-round input[name="points1"]', "3")
    expect(page.locator('#own-round input[name="points0"]')).to_have_value("-3")
    page.fill('#own-round input[name="points0"]', "-2")
    expect(page.locator("#own-sum.off")).to_be_visible()
    page.click("#add-own")
    expect(page.locator("#message")).to_be_visible()
    assert page.locator("#sheet tbody tr").count() == 1
    page.fill('#own-round input[name="points0"]', "-3")
    page.click("#add-own")
    expect(page.locator("#sheet tbody tr")).to_have_count(2)
    assert rows(page)[1] == ["2", "-3", "3"]

    page.click("#end")
    page.click("#confirm-yes")
    expect(page.locator("#result")).to_be_visible()
    match = match_of(server, match_id, token)
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", token).json()
    settlement = sheet.get("settlement") or match.get("settlement")
    assert settlement, (match, sheet)
    shown = page.locator("#settlement li")
    expect(shown).to_have_count(len(settlement))
    for index, payment in enumerate(settlement):
        item = shown.nth(index)
        assert item.get_attribute("data-payer") == str(payment["payer"])
        assert item.get_attribute("data-payee") == str(payment["payee"])
        expect(item).to_have_text(
            EN["pays"]
            .replace("{payer}", teams[payment["payer"]])
            .replace("{payee}", teams[payment["payee"]])
            .replace("{amount}", str(payment["amount"]))
        )
    expect(page.locator("#winner")).to_have_text(
        EN["winner"].replace("{names}", teams[match["winner"]["team"]])
    )
    host.check_clean()
