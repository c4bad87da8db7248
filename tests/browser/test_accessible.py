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


# Every visible thing a finger taps, with its box when it is under 44 x 44 CSS pixels.
SMALL_TARGETS = """() => [...document.querySelectorAll(
    'button, a[href], input[type=checkbox], input[type=radio], [role=radio], summary, select')]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => [el, el.getBoundingClientRect()])
  .filter(([, box]) => box.width < 44 || box.height < 44)
  .map(([el, box]) => `${el.outerHTML.slice(0, 80)} ${box.width}x${box.height}`)"""

# Every laid-out text node whose computed font size is under 14 CSS pixels.
SMALL_TEXT = """() => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (![...range.getClientRects()].some((rect) => rect.width && rect.height)) continue;
    const style = getComputedStyle(node.parentElement);
    if (style.visibility === 'hidden') continue;
    const size = parseFloat(style.fontSize);
    if (size < 14) small.push(`${node.textContent.trim().slice(0, 40)} ${size}px`);
  }
  return small;
}"""


def too_small(page: Page) -> tuple[list[str], list[str]]:
    """(targets under 44 x 44 px, texts under 14 px) on the page as it is now."""
    assert page.locator("button, a[href]").count() >= 2  # there is something to measure
    return list(page.evaluate(SMALL_TARGETS)), list(page.evaluate(SMALL_TEXT))


def test_touch_targets_and_text_are_big_enough_on_the_main_screens(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    page.wait_for_selector("#start")
    assert too_small(page) == ([], [])

    # The start form, then the join links with their QR codes.
    page.select_option("#game", "asszorti")
    for seat, name in enumerate(["Anna", "Berta", "Csaba"]):
        page.locator("input.player-name").nth(seat).fill(name)
    page.click("#create")
    page.wait_for_selector("#links")
    assert too_small(page) == ([], [])

    # The sheet with a round, the hand form (its checkbox), the live label.
    page.click("#open-sheet")
    page.wait_for_selector("#live.on")
    page.wait_for_selector("#hand")
    match_id = page.evaluate("location.hash").split("/m/")[1].split("?")[0]
    entry = page.evaluate(f"JSON.parse(localStorage.getItem('squarescores.matches'))['{match_id}']")
    response = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        entry["token"],
        json={"type": "asszorti_amounts", "amounts": [18, -9, -9]},
    )
    assert response.status_code == 201, response.text
    page.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=LIVE_TIMEOUT_MS)
    page.check("#arrivazs")
    assert too_small(page) == ([], [])

    # A round opened from its number, and a refusal with the server's detail under it.
    page.click('#sheet button.round-open[data-round="1"]')
    page.wait_for_selector(".round-panel")
    for seat, amount in enumerate(["3", "-1", "-2"]):
        page.fill(f'input[name="amount{seat}"]', amount)
    page.click("#add-round")
    page.wait_for_selector("#message .problem-detail")
    assert too_small(page) == ([], [])

    # Alkort's trick buttons, and an own table's points.
    for body in (
        {"game": "alkort", "players": ["Anna", "Berta", "Csaba", "Dora"]},
        {"game": "own_table", "players": ["Anna", "Berta", "Csaba", "Dora", "Ede"]},
    ):
        created = create(server, body)
        player = new_phone(phones, browser, server)
        theirs = player.open(created["tokens"]["links"]["players"][0])
        theirs.wait_for_selector("#live.on")
        assert too_small(theirs) == ([], [])
        player.check_clean()
    host.check_clean()
