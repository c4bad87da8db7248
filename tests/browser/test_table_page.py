"""The web page at / (app/web): start a table, join it from a link, follow the sheet live.

As in ``test_docs_pages.py``: a real ``uvicorn app.main:app`` (``tests/live.py``)
serves the page, headless Chromium (Debian's ``chromium``, driven by Playwright, no
browser download) opens it as phones would, and every request that tries to leave
the server's origin is aborted and recorded.

The browser and the server are ``tests/browser/conftest.py``'s.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from app.api.routes.web import CONTENT_SECURITY_POLICY
from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

WEB = ROOT / "app" / "web"
XSS_NAME = "<img src=x onerror=alert(1)>"


def create_via_page(page: Page, players: list[str]) -> None:
    """Start an Asszorti table on the page; it lands on the join links."""
    page.wait_for_selector("#start")
    page.select_option("#game", "asszorti")
    names = page.locator("input.player-name")
    assert names.count() == 3
    for seat, name in enumerate(players):
        names.nth(seat).fill(name)
    page.click("#create")
    page.wait_for_selector("#links")


def test_a_round_entered_on_one_phone_shows_on_the_other(
    browser: Browser, server: LiveServer, phones: list[Phone], tmp_path: Path
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    create_via_page(page, ["Anna", "Berta", "Csaba"])
    link = page.locator('a.join-link[data-role="player"][data-seat="0"]')
    href = link.get_attribute("href")
    assert href is not None and href.startswith(server.url + "/#/m/") and "?t=" in href
    assert link.inner_text() == href  # the link as text too, beside its QR code
    assert page.locator("a.join-link").count() == 4  # three players, viewer
    page.click("#show-host-link")  # the host's own link only after its step
    assert page.locator("a.join-link").count() == 5
    page.click("#open-sheet")
    page.wait_for_selector("#live.on")
    assert page.locator("#sheet thead th").all_inner_texts()[1:] == ["Anna", "Berta", "Csaba"]

    player = new_phone(phones, browser, server)
    theirs = player.open(href)
    theirs.wait_for_selector("#amounts")
    assert "?t=" not in theirs.url  # the token left the address bar...
    match_id = href.split("#/m/")[1].split("?")[0]
    assert theirs.url.endswith(f"#/m/{match_id}")
    stored = json.loads(theirs.evaluate("localStorage.getItem('squarescores.matches')"))
    assert stored[match_id]["token"] == href.split("?t=")[1]  # ...into localStorage
    assert stored[match_id]["role"] == "player"

    theirs.fill('input[name="amount0"]', "18")
    theirs.fill('input[name="amount1"]', "-9")
    theirs.fill('input[name="amount2"]', "-9")
    theirs.click("#add-round")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=LIVE_TIMEOUT_MS)
    assert rows(page) == [["1", "18", "0", "0"]]
    assert page.locator("#sheet tfoot tr.owed td").all_inner_texts() == ["0", "9", "9"]
    assert page.locator("#undo").is_visible()

    page.screenshot(path=str(tmp_path / "sheet-360.png"), full_page=True)
    assert (tmp_path / "sheet-360.png").stat().st_size > 0

    theirs.wait_for_selector("#undo")
    theirs.click("#undo")
    theirs.click("#confirm-yes")  # Undo asks first
    page.wait_for_selector("#sheet tbody tr", state="detached", timeout=LIVE_TIMEOUT_MS)
    assert rows(page) == []
    assert page.locator("#sheet tfoot tr.totals td").all_inner_texts() == ["0", "0", "0"]

    host.check_clean()
    player.check_clean()


def test_names_are_text_and_the_page_is_locked_down(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    create_via_page(page, [XSS_NAME, "Kiss, Berta", "Csaba"])
    labels = page.locator("#links .link-label")
    assert labels.nth(0).inner_text().endswith(XSS_NAME)
    assert labels.nth(1).inner_text().endswith("Kiss, Berta")  # a comma splits no name
    page.click("#open-sheet")
    page.wait_for_selector("#sheet")
    assert page.locator("#sheet thead th").nth(1).inner_text() == XSS_NAME
    assert page.locator('label.field span:text-is("' + XSS_NAME + '")').count() == 1
    assert page.locator("main img").count() == 0
    page.wait_for_timeout(300)  # an onerror handler would have fired by now
    host.check_clean()

    for path in ("/", "/app/app.js", "/app/app.css", "/app/i18n/hu.json"):
        response = httpx.get(server.url + path, timeout=10)
        assert response.status_code == 200, path
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "no-referrer", path
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY
    assert (
        httpx.get(server.url + "/app/app.js", timeout=10)
        .headers["content-type"]
        .startswith(("text/javascript", "application/javascript"))
    )
    html = (WEB / "index.html").read_text()
    assert "<style" not in html and " style=" not in html
    assert re.findall(r"<script[^>]*>", html) == [  # no inline script: each is a file
        '<script async src="/app/table-prefetch.js">',
        '<script type="module" src="/app/app.js">',
    ]
    assert "/" not in httpx.get(server.url + "/openapi.json", timeout=10).json()["paths"]


def test_every_language_has_the_same_keys() -> None:
    en = json.loads((WEB / "i18n" / "en.json").read_text())
    placeholders = re.compile(r"\{(\w+)\}")
    for lang in ("hu", "fr", "ru"):
        other = json.loads((WEB / "i18n" / f"{lang}.json").read_text())
        assert set(en) == set(other), (lang, sorted(set(en) ^ set(other)))
        for key, text in en.items():
            expected = set(placeholders.findall(text))
            assert set(placeholders.findall(other[key])) == expected, (lang, key)
    used = set()
    for source in WEB.glob("*.js"):
        used |= set(re.findall(r"\bt\(\"(\w+)\"", source.read_text()))
    used |= set(re.findall(r'data-i18n="(\w+)"', (WEB / "index.html").read_text()))
    assert used <= set(en), sorted(used - set(en))


def test_a_viewer_link_shows_no_write_controls(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = httpx.post(
        server.url + "/v1/matches",
        json={"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
        timeout=10,
    ).json()
    host_token = created["tokens"]["host"]
    entered = httpx.post(
        f"{server.url}/v1/matches/{created['id']}/rounds",
        headers={"Authorization": f"Bearer {host_token}"},
        json={"type": "asszorti_amounts", "amounts": [-9, 18, -9]},
        timeout=10,
    )
    assert entered.status_code == 201

    viewer = new_phone(phones, browser, server, locale="hu-HU")
    page = viewer.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#viewer-note")
    hu = json.loads((WEB / "i18n" / "hu.json").read_text())
    assert page.locator("#viewer-note").inner_text() == hu["viewer_note"]
    assert page.evaluate("document.documentElement.lang") == "hu"
    assert rows(page) == [["1", "0", "18", "0"]]
    # The tablet in the middle of the table: a big sheet.
    assert page.locator(".table-view.viewer-mode").count() == 1
    assert (
        page.evaluate("parseFloat(getComputedStyle(document.querySelector('#sheet')).fontSize)")
        >= 24
    )
    # The screen-awake toggle is the viewer's too (the tablet in the middle of the table).
    for control in (
        "#amounts",
        "#points",
        "#undo",
        "#end",
        "#add-round",
        "input:not(#wake-lock)",
        "form",
    ):
        assert page.locator(control).count() == 0, control
    page.select_option("#lang", "en")  # switched by hand, and remembered
    en = json.loads((WEB / "i18n" / "en.json").read_text())
    expect(page.locator("#viewer-note")).to_have_text(en["viewer_note"])
    page.reload()
    page.wait_for_selector("#viewer-note")
    assert page.locator("#viewer-note").inner_text() == en["viewer_note"]

    # The same match through a player's link does show them.
    player = new_phone(phones, browser, server)
    theirs = player.open(created["tokens"]["links"]["players"][2])
    theirs.wait_for_selector("#amounts")
    assert theirs.locator("#undo").is_visible() and theirs.locator("#end").is_visible()
    assert theirs.locator(".viewer-mode").count() == 0
    viewer.check_clean()
    player.check_clean()


def test_an_alkort_table_scores_points_and_ends(
    browser: Browser, server: LiveServer, phones: list[Phone], tmp_path: Path
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    page.wait_for_selector("#start")
    page.select_option("#game", "alkort")
    names = page.locator("input.player-name")
    assert names.count() == 4
    for seat, name in enumerate(["Anna", "Bela", "Cili", "Dani"]):
        names.nth(seat).fill(name)
    page.locator("input.team-name").nth(0).fill("Us")
    page.locator("input.team-name").nth(1).fill("Them")
    page.click("#create")
    page.click("#open-sheet")
    page.wait_for_selector("#points")
    teams = ["Us: Anna & Cili", "Them: Bela & Dani"]  # named teams show who plays too
    assert page.locator("#sheet thead th").all_inner_texts()[1:] == teams
    page.click('button.point[data-team="1"][data-points="5"]')
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')
    assert rows(page) == [["1", "0", "5"]]
    page.screenshot(path=str(tmp_path / "alkort-360.png"), full_page=True)

    page.click("#end")  # it asks first: Cancel keeps the match going
    page.click("#confirm-no")
    assert page.locator(".status.ended").count() == 0
    page.click("#end")
    page.click("#confirm-yes")
    page.wait_for_selector("#points", state="detached")
    assert page.locator(".status.ended").count() == 1
    assert page.locator("#end, #undo").count() == 0
    host.check_clean()


def test_an_error_shows_the_problem_detail(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    player = new_phone(phones, browser, server)
    created = httpx.post(
        server.url + "/v1/matches",
        json={"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
        timeout=10,
    ).json()
    page = player.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#amounts")
    for seat, amount in enumerate(["3", "-1", "-2"]):  # sums to 0, but no hand's amounts
        page.fill(f'input[name="amount{seat}"]', amount)
    page.click("#add-round")
    page.wait_for_selector("#message:not([hidden])")
    # The page's own sentence first; the server's detail on a line of its own below.
    en = json.loads((WEB / "i18n" / "en.json").read_text())
    said = page.locator("#message .problem-text").inner_text()
    assert said == f"{en['problem_field_amounts']}. {en['hint_validation_error']}", said
    detail = page.locator("#message .problem-detail").inner_text()
    assert "amounts [3, -1, -2] are not a hand's" in detail, detail
    assert rows(page) == []
    player.check_clean()
