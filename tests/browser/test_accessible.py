"""The table page by keyboard and for a screen reader, at 360 px and on a desktop:
every control has a name, a round can be entered with the keyboard alone, and the
page never scrolls sideways (the sheet scrolls in its own box)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.pages import Phone, api, create, new_phone, rows
from tests.live import LiveServer

LIVE_TIMEOUT_MS = 5_000

# What a screen reader would call each control: its label, aria-label or
# aria-labelledby, its text (buttons, links, summaries), or its title.
UNNAMED_CONTROLS = """() => [...document.querySelectorAll(
    'input:not([type=hidden]), select, textarea, button, a[href], summary')]
  .filter((el) => el.offsetParent !== null || el.getClientRects().length)
  .filter((el) => {
    const labelled = el.labels && el.labels.length
      && [...el.labels].some((l) => l.textContent.trim());
    const aria = (el.getAttribute('aria-label') || '').trim();
    const by = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
      .some((id) => (document.getElementById(id)?.textContent || '').trim());
    const text = ['BUTTON', 'A', 'SUMMARY'].includes(el.tagName) && el.textContent.trim();
    return !(labelled || aria || by || text || (el.title || '').trim());
  })
  .map((el) => el.outerHTML.slice(0, 120))"""


def unnamed(page: Page) -> list[str]:
    assert page.locator("input, select, button").count() >= 3  # there is something to name
    return list(page.evaluate(UNNAMED_CONTROLS))


def sideways(page: Page) -> int:
    """How far the page itself scrolls sideways, in CSS pixels."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("width", [360, 1280])
def test_every_control_is_named_and_a_round_goes_in_by_keyboard(
    browser: Browser, server: LiveServer, phones: list[Phone], width: int
) -> None:
    phone = new_phone(phones, browser, server)
    phone.page.set_viewport_size({"width": width, "height": 800})
    page = phone.open("/")
    page.wait_for_selector("#start")
    assert unnamed(page) == [] and sideways(page) <= 0

    created = create(
        server,
        {"game": "asszorti", "players": ["Anna Kovácsné Szabó", "Berta", "Csaba"]},
    )
    player = new_phone(phones, browser, server)
    player.page.set_viewport_size({"width": width, "height": 800})
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#amounts")
    assert unnamed(page) == [] and sideways(page) <= 0

    # The amounts by keyboard alone: focus the first field, type, Tab on, Enter saves.
    page.focus('input[name="amount0"]')
    page.keyboard.type("18")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "amount1"
    page.keyboard.type("-9")
    page.keyboard.press("Tab")
    page.keyboard.type("-9")
    page.keyboard.press("Enter")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=LIVE_TIMEOUT_MS)
    assert rows(page) == [["1", "18", "0", "0"]]
    match = api(server, "GET", f"/v1/matches/{created['id']}", created["tokens"]["host"])
    assert match.json()["round_count"] == 1
    assert unnamed(page) == [] and sideways(page) <= 0
    phone.check_clean()
    player.check_clean()
