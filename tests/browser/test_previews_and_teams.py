"""Previews by the match's own settings, and teams labelled on the web page (app/web).

The page previews a round through the match (POST /v1/matches/{id}/score), never the
calculator's defaults: at a table without kontra, or an own table without negatives
or zero-sum, what the preview shows is what entering the round then stores, and what
the table refuses is refused before it is sent. Teams are counted from 1 in the page's
language and shown with their players, named or not.

As in ``test_table_evening.py``: a real server, headless Chromium (Debian's), phones
at 360 px that may not leave the server's origin (tests/browser/pages.py).
"""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, Page, Request, expect

from tests.browser.pages import Phone, api, create, new_phone, rows
from tests.browser.test_table_evening import enter_hand, signed, tap, wait_live
from tests.conftest import ROOT
from tests.live import LiveServer

EN = json.loads((ROOT / "app" / "web" / "i18n" / "en.json").read_text())
NAMES = ["Anna", "Berta", "Csaba"]
FOUR = ["Anna", "Bela", "Cili", "Dani"]


def previews_asked(page: Page) -> list[str]:
    """The paths of the previews the page asks for, as it asks them."""
    asked: list[str] = []

    def record(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/score"):
            asked.append(request.url.split("://", 1)[1].split("/", 1)[1])

    page.on("request", record)
    return asked


def stored_round(server: LiveServer, created: dict[str, Any], number: int) -> dict[str, Any]:
    path = f"/v1/matches/{created['id']}/rounds/{number}"
    response = api(server, "GET", path, created["tokens"]["host"])
    assert response.status_code == 200, response.text
    return dict(response.json())


def own_preview(columns: list[str], cells: list[int]) -> str:
    listed = ", ".join(
        f"{name} {signed(value)}" for name, value in zip(columns, cells, strict=True)
    )
    return str(EN["own_preview"]).replace("{list}", listed)


def fill_points(page: Page, points: dict[int, int]) -> None:
    for index, value in points.items():
        page.fill(f'#own-round input[name="points{index}"]', str(value))


def test_a_hand_previewed_at_a_table_without_kontra_is_the_hand_stored(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES, "settings": {"kontra": False}})
    phone = new_phone(phones, browser, server)
    asked = previews_asked(phone.page)
    page = phone.open(created["tokens"]["links"]["players"][1])
    page.wait_for_selector("#hand")
    wait_live(page)
    enter_hand(page, declarer=1, contract="1", trumps="hearts", tricks={0: 2, 1: 7})
    preview = page.locator("#hand-preview li.net strong")
    expect(preview).to_have_count(3)
    expect(page.locator("#hand-preview .preview-title")).to_have_text(EN["preview_title"])
    shown = {
        int(str(item.get_attribute("data-seat"))): item.locator("strong").inner_text()
        for item in page.locator("#hand-preview li.net").all()
    }

    page.click("#add-hand")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')

    stored = stored_round(server, created, 1)
    assert stored["input"]["kontra"] == "none"
    assert shown == {seat: signed(net) for seat, net in enumerate(stored["result"]["net"])}
    assert asked and set(asked) == {f"v1/matches/{created['id']}/score"}
    phone.check_clean()


def test_an_own_table_without_negatives_refuses_in_the_preview_and_stores_what_it_showed(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server, {"game": "own_table", "players": NAMES, "settings": {"negatives": False}}
    )
    phone = new_phone(phones, browser, server)
    asked = previews_asked(phone.page)
    page = phone.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#own-round")
    preview = page.locator("#own-preview")

    fill_points(page, {0: 3, 1: -1, 2: 0})
    # The page's own sentence for the field at fault; the server's detail below it.
    expect(preview.locator(".preview-error .problem-text")).to_contain_text(
        EN["problem_field_points"]
    )
    expect(preview.locator(".preview-error .problem-detail")).to_contain_text(
        "this table has no negative points, got -1"
    )
    fill_points(page, {1: 1})
    expect(preview).to_have_text(own_preview(NAMES, [3, 1, 0]))

    page.click("#add-own")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')
    assert stored_round(server, created, 1)["result"]["cells"] == [3, 1, 0]
    assert rows(page) == [["1", "3", "1", "0"]]
    expect(preview).to_be_empty()  # the fields are cleared, and their preview with them
    assert asked and set(asked) == {f"v1/matches/{created['id']}/score"}
    phone.check_clean()


def test_a_zero_sum_own_table_previews_the_balanced_round_it_then_stores(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server, {"game": "own_table", "players": NAMES, "settings": {"zero_sum": True}}
    )
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#own-round")
    preview = page.locator("#own-preview")

    fill_points(page, {0: 5, 1: -3})  # the third is filled in: -2
    expect(page.locator('#own-round input[name="points2"]')).to_have_value("-2")
    expect(preview).to_have_text(own_preview(NAMES, [5, -3, -2]))
    fill_points(page, {2: -1})  # typed over: the round no longer balances
    # The page's own sentence for the field at fault; the server's detail below it.
    expect(preview.locator(".preview-error .problem-text")).to_contain_text(
        EN["problem_field_points"]
    )
    expect(preview.locator(".preview-error .problem-detail")).to_contain_text(
        "at a zero-sum table a round's points sum to 0, these sum to 1"
    )
    fill_points(page, {2: -2})
    expect(preview).to_have_text(own_preview(NAMES, [5, -3, -2]))

    page.click("#add-own")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')
    assert stored_round(server, created, 1)["result"]["cells"] == [5, -3, -2]
    phone.check_clean()


def test_unnamed_alkort_teams_count_from_one_in_the_page_s_language_with_their_players(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "alkort", "players": FOUR})
    phone = new_phone(phones, browser, server, locale="hu-HU")
    asked = previews_asked(phone.page)
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#tricks")
    wait_live(page)
    teams = ["1. csapat: Anna és Cili", "2. csapat: Bela és Dani"]
    assert page.locator("#sheet thead th").all_inner_texts()[1:] == teams
    for team, label in enumerate(teams):
        expect(page.locator(f'button.take[data-team="{team}"]')).to_have_text(label)
    expect(page.locator("#points .points-row").nth(1)).to_contain_text(teams[1])

    tap(page, [1] * 9)  # a stroke of nine to the second team
    result = page.locator("#trick-result .deal")
    expect(result).to_have_attribute("data-kind", "stroke")
    expect(result).to_contain_text("2. csapat")
    page.click("#add-deal")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')
    stored = stored_round(server, created, 1)
    assert stored["result"]["breakdown"]["team"] == 1
    assert stored["result"]["breakdown"]["kind"] == "stroke"
    assert rows(page) == [["1", "0", str(stored["result"]["cells"][1])]]
    assert asked and set(asked) == {f"v1/matches/{created['id']}/score"}
    phone.check_clean()


def test_named_teams_show_their_players_too(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "alkort", "players": FOUR, "team_names": ["Us", "Them"]})
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#tricks")
    teams = ["Us: Anna & Cili", "Them: Bela & Dani"]
    assert page.locator("#sheet thead th").all_inner_texts()[1:] == teams
    expect(page.locator('button.take[data-team="0"]')).to_have_text(teams[0])
    phone.check_clean()


def test_own_table_teams_count_from_one_with_their_players(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server,
        {"game": "own_table", "players": [*FOUR, "Ede", "Flora"], "settings": {"teams": 3}},
    )
    phone = new_phone(phones, browser, server, locale="fr-FR")
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#own-round")
    # French puts a narrow no-break space before ":" (i18n.js).
    teams = [
        "Équipe 1\u202f: Anna et Dani",
        "Équipe 2\u202f: Bela et Ede",
        "Équipe 3\u202f: Cili et Flora",
    ]
    assert page.locator("#sheet thead th").all_inner_texts()[1:] == teams
    labels = page.locator("#own-round .own-points label span").all_inner_texts()
    assert labels == teams
    phone.check_clean()
