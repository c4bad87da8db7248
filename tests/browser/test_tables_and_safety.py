"""The start screen's tables, the steps that keep a tap from losing something, the
screen kept awake, and a long evening on a phone (issue #31):

- "Your tables" names the game, the players, when it was last played (in the page's
  language) and how it stands, and learns what it does not know from the API lazily;
- Forget and Undo ask first (Forget warns when it drops a host key); a double tap on
  an Alkort points button makes one deal;
- the screen is kept awake while the match is in play, and let go when switched off;
- after fifteen rounds at 360 x 740, a saved round says "Saved" and comes into view.

The browser and the server are ``tests/browser/conftest.py``'s.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Request, expect

from tests.browser.pages import Phone, api, create, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

I18N = {
    lang: json.loads((ROOT / "app" / "web" / "i18n" / f"{lang}.json").read_text())
    for lang in ("en", "hu")
}
EN = I18N["en"]
STORE = "squarescores.matches"
# A test run writes where git ignores it.
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR", ROOT / "build" / "screenshots"))
NAMES = ["Anna", "Berta", "Csaba"]
TEAMS = ["Anna", "Bela", "Cili", "Dani"]

# The Screen Wake Lock API, recorded: headless Chromium may refuse the real one.
WAKE_LOCK = """
window.wakeCalls = [];
Object.defineProperty(navigator, "wakeLock", {
  configurable: true,
  value: {
    request: async (type) => {
      window.wakeCalls.push("request:" + type);
      const listeners = [];
      // What the browser does when the page is hidden: the lock goes by itself.
      window.dropLock = () => listeners.forEach((listener) => listener());
      return {
        released: false,
        addEventListener: (name, listener) => listeners.push(listener),
        release: async function () {
          window.wakeCalls.push("release");
          this.released = true;
          listeners.forEach((listener) => listener());
        },
      };
    },
  },
});
"""


def shoot(page: Page, name: str, *, full_page: bool = False) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")
    assert path.stat().st_size > 0


def stored(page: Page) -> dict[str, Any]:
    return dict(json.loads(page.evaluate(f"localStorage.getItem('{STORE}') || '{{}}'")))


def keep_keys(page: Page, keys: dict[str, str]) -> None:
    """Keys as an older page kept them: a token per match, nothing else known."""
    value = {match_id: {"token": token, "saved": 1} for match_id, token in keys.items()}
    page.evaluate(f"localStorage.setItem('{STORE}', JSON.stringify({json.dumps(value)}))")


def item(page: Page, match_id: str) -> Any:
    return page.locator(f'#tables li.table-item[data-id="{match_id}"]')


def test_your_tables_name_the_game_players_date_and_status(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    playing = create(server, {"game": "asszorti", "players": NAMES})
    ended = create(server, {"game": "alkort", "players": TEAMS, "team_names": ["Us", "Them"]})
    entered = api(
        server,
        "POST",
        f"/v1/matches/{ended['id']}/rounds",
        ended["tokens"]["host"],
        json={"type": "alkort_points", "team": 1, "points": 6},
    )
    assert entered.status_code == 201, entered.text
    assert (
        api(server, "POST", f"/v1/matches/{ended['id']}/end", ended["tokens"]["host"]).status_code
        == 200
    )
    finished = api(server, "GET", f"/v1/matches/{ended['id']}", ended["tokens"]["host"]).json()

    phone = new_phone(phones, browser, server, locale="hu-HU")
    looked_up: list[str] = []

    def record(request: Request) -> None:
        if request.method == "GET" and "/v1/matches/" in request.url:
            looked_up.append(request.url)

    phone.page.on("request", record)
    page = phone.open("/")
    page.wait_for_selector("#start")
    keep_keys(
        page, {playing["id"]: playing["tokens"]["players"][1], ended["id"]: ended["tokens"]["host"]}
    )
    page.reload()

    # What the keys alone did not say comes from the API, in the page's language.
    hu = I18N["hu"]
    expect(item(page, ended["id"]).locator(".table-game")).to_have_text(hu["table_game_alkort"])
    expect(item(page, ended["id"]).locator(".table-players")).to_have_text(", ".join(TEAMS))
    expect(item(page, ended["id"]).locator(".table-meta")).to_contain_text(hu["status_ended"])
    expect(item(page, ended["id"]).locator(".table-meta")).to_contain_text(
        hu["winner"].replace("{names}", "Them")
    )
    expect(item(page, playing["id"]).locator(".table-game")).to_have_text(hu["table_game_asszorti"])
    expect(item(page, playing["id"]).locator(".table-meta")).to_contain_text(
        hu["status_in_progress"]
    )
    played = item(page, ended["id"]).locator("time.table-played")
    date = page.evaluate(
        "(iso) => new Intl.DateTimeFormat('hu', {dateStyle: 'medium', timeStyle: 'short'})"
        ".format(new Date(iso))",
        finished["updated_at"],
    )
    expect(played).to_have_text(hu["table_played"].replace("{date}", date))
    assert "own_table" not in page.locator("#tables").inner_text()
    shoot(page, "your-tables", full_page=True)
    assert stored(page)[ended["id"]]["status"] == "ended"

    # Known a moment ago: the start screen does not ask again.
    asked = len(looked_up)
    assert asked == 2
    page.reload()
    expect(item(page, playing["id"]).locator(".table-meta")).to_contain_text(
        hu["status_in_progress"]
    )
    page.wait_for_timeout(300)
    assert len(looked_up) == asked
    phone.check_clean()


def test_forget_asks_first_and_warns_about_a_host_key(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    hosted = create(server, {"game": "asszorti", "players": NAMES})
    joined = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server)
    page = phone.open(hosted["tokens"]["links"]["host"])
    page.wait_for_selector("#hand")
    link = joined["tokens"]["links"]["players"][0]
    page.evaluate("(hash) => { location.hash = hash; }", link.split("#", 1)[1])
    page.wait_for_selector("#hand")
    page.click('a[href="#/"]')
    expect(page.locator("#tables li.table-item")).to_have_count(2)

    # The host's table: a warning, and Cancel keeps it.
    item(page, hosted["id"]).locator("button.forget").click()
    dialog = page.locator("dialog#confirm")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#confirm-warning")).to_have_text(EN["forget_host_warning"])
    shoot(page, "forget-host")
    page.click("#confirm-no")
    expect(dialog).to_have_count(0)
    assert hosted["id"] in stored(page)
    expect(page.locator("#tables li.table-item")).to_have_count(2)

    # Escape keeps it too; Forget drops it.
    item(page, hosted["id"]).locator("button.forget").click()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    assert hosted["id"] in stored(page)
    item(page, hosted["id"]).locator("button.forget").click()
    page.click("#confirm-yes")
    expect(item(page, hosted["id"])).to_have_count(0)
    assert hosted["id"] not in stored(page)

    # A player's key: asked, without the host's warning.
    item(page, joined["id"]).locator("button.forget").click()
    expect(dialog.locator("#confirm-question")).to_contain_text(", ".join(NAMES))
    expect(dialog.locator("#confirm-warning")).to_have_count(0)
    page.click("#confirm-yes")
    expect(page.locator("#tables li.table-item")).to_have_count(0)
    phone.check_clean()


def test_undo_asks_first(browser: Browser, server: LiveServer, phones: list[Phone]) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    for amounts in ([18, -9, -9], [-9, 18, -9]):
        body = {"type": "asszorti_amounts", "amounts": amounts}
        assert (
            api(server, "POST", f"/v1/matches/{match_id}/rounds", host_token, json=body).status_code
            == 201
        )
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    expect(page.locator("#sheet tbody tr")).to_have_count(2)

    page.click("#undo")
    dialog = page.locator("dialog#confirm")
    expect(dialog.locator("#confirm-question")).to_have_text(
        EN["undo_question"].replace("{n}", "2")
    )
    page.click("#confirm-no")
    page.wait_for_timeout(300)
    expect(page.locator("#sheet tbody tr")).to_have_count(2)
    assert api(server, "GET", f"/v1/matches/{match_id}", host_token).json()["round_count"] == 2

    page.click("#undo")
    page.click("#confirm-yes")
    expect(page.locator("#sheet tbody tr")).to_have_count(1)
    assert api(server, "GET", f"/v1/matches/{match_id}", host_token).json()["round_count"] == 1
    phone.check_clean()


def test_a_double_tap_on_a_points_button_makes_one_deal(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server,
        {
            "game": "alkort",
            "players": TEAMS,
            "team_names": ["Us", "Them"],
            "settings": {"target": 50},
        },
    )
    match_id, host_token = created["id"], created["tokens"]["host"]
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    five = page.locator('button.point[data-team="0"][data-points="5"]')
    expect(five).to_be_enabled()

    five.click()
    page.wait_for_timeout(400)
    five.click(force=True)  # the second tap of a double tap, whatever the button's state
    expect(page.locator("#sheet tbody tr")).to_have_count(1)
    page.wait_for_timeout(1000)
    assert rows(page) == [["1", "5", "0"]]
    assert api(server, "GET", f"/v1/matches/{match_id}", host_token).json()["round_count"] == 1

    # A moment later the buttons take the next deal.
    expect(five).to_be_enabled()
    five.click()
    expect(page.locator("#sheet tbody tr")).to_have_count(2)
    phone.check_clean()


def test_the_screen_stays_awake_in_play_and_the_toggle_lets_it_sleep(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server)
    phone.context.add_init_script(WAKE_LOCK)
    page = phone.open(created["tokens"]["links"]["host"])
    toggle = page.locator("#wake-lock")
    expect(toggle).to_be_visible()
    expect(toggle).to_be_checked()  # on by default during a match in play
    page.wait_for_function("window.wakeCalls.length === 1")
    assert page.evaluate("window.wakeCalls") == ["request:screen"]

    # The browser let it go while the page was hidden: asked for again when it is back.
    page.evaluate("window.dropLock(); document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_function("window.wakeCalls.length === 2")
    assert page.evaluate("window.wakeCalls") == ["request:screen", "request:screen"]
    page.evaluate("window.wakeCalls = []")

    toggle.uncheck()
    page.wait_for_function("window.wakeCalls.length === 1")
    assert page.evaluate("window.wakeCalls") == ["release"]
    assert page.evaluate("localStorage.getItem('squarescores.wakeLock')") == "off"

    # Remembered: after a reload the screen is left to sleep until switched on.
    page.reload()
    expect(page.locator("#wake-lock")).not_to_be_checked()
    page.wait_for_timeout(300)
    assert page.evaluate("window.wakeCalls") == []
    page.locator("#wake-lock").check()
    page.wait_for_function("window.wakeCalls.length === 1")

    # The match ends: the lock is let go and the toggle goes.
    page.click("#end")
    page.click("#confirm-yes")
    expect(page.locator(".status.ended")).to_have_count(1)
    page.wait_for_function("window.wakeCalls.length === 2")
    assert page.evaluate("window.wakeCalls") == ["request:screen", "release"]
    expect(page.locator("#wake-lock")).to_be_hidden()
    phone.check_clean()


def test_without_the_api_there_is_no_toggle(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server)
    phone.context.add_init_script(
        "Object.defineProperty(navigator, 'wakeLock', {configurable: true, value: undefined});"
    )
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#hand")
    expect(page.locator("#wake-lock")).to_be_hidden()
    phone.check_clean()


def test_after_fifteen_rounds_a_saved_round_says_so_and_comes_into_view(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    for number in range(15):
        amounts = [[18, -9, -9], [-9, 18, -9], [-9, -9, 18]][number % 3]
        body = {"type": "asszorti_amounts", "amounts": amounts}
        assert (
            api(server, "POST", f"/v1/matches/{match_id}/rounds", host_token, json=body).status_code
            == 201
        )
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    expect(page.locator("#sheet tbody tr")).to_have_count(15)

    # The totals and the way to the form are on screen wherever the page is scrolled.
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.locator("#reach-totals")).to_be_in_viewport()
    totals = page.locator("#sheet tfoot tr.totals td").all_inner_texts()
    expect(page.locator("#reach-totals .reach-total")).to_have_text(
        [f"{name} {total}" for name, total in zip(NAMES, totals, strict=True)]
    )
    expect(page.locator("#jump-entry")).to_be_in_viewport()
    page.click("#jump-entry")
    expect(page.locator("#hand")).to_be_in_viewport()

    for seat, amount in enumerate(["-9", "-9", "18"]):
        page.fill(f'input[name="amount{seat}"]', amount)
    page.click("#add-round")
    expect(page.locator("#sheet tbody tr")).to_have_count(16)
    expect(page.locator("#saved-status")).to_have_text(EN["round_saved"])
    expect(page.locator('#sheet tbody tr[data-round="16"]')).to_be_in_viewport()
    shoot(page, "long-evening")
    assert api(server, "GET", f"/v1/matches/{match_id}", host_token).json()["round_count"] == 16
    phone.check_clean()
