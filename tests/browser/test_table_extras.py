"""The web page's extras (issue #14, part A): QR codes of the join links, table rules
and the host's settings, the end of a match (standings, winner, settlement, CSV,
print), French and Russian, and the screenshots (docs/screenshots/ from `make screenshots`).

Same set-up as ``test_table_page.py``: a real server, headless Chromium (Debian's),
phones at 360 px that may not leave the server's origin. Here every request is also
recorded, to check that no token ever travels in a URL or a request body.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, FloatRect, Page, Request, expect

from tests.browser.pages import Phone, api, create, rows
from tests.conftest import ROOT
from tests.live import LiveServer

WEB = ROOT / "app" / "web"
LANGUAGES = ("en", "hu", "fr", "ru")
VENDOR = WEB / "vendor" / "qrcode.js"
TOOLS_WEB = ROOT / "tools" / "web"
PACKAGE = "qrcode-generator"
PACKAGE_FILE = Path("dist") / "qrcode.mjs"  # the ES module build, vendored unchanged
# A test run writes where git ignores it; `make screenshots` refreshes the committed ones.
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR", ROOT / "build" / "screenshots"))
QUIET = 4  # qr.js's quiet zone, in modules
MODULE = re.compile(r"M(\d+) (\d+)h1v1h-1z")


class RecordingPhone(Phone):
    """A Phone that also keeps every request it makes: URL and body."""

    def __init__(self, browser: Browser, origin: str, **kwargs: Any) -> None:
        super().__init__(browser, origin, **kwargs)
        self.requests: list[tuple[str, str]] = []
        self.page.on("request", self._record)

    def _record(self, request: Request) -> None:
        self.requests.append((request.url, request.post_data or ""))

    def check_no_token_sent(self, tokens: list[str]) -> None:
        """No token in any request's URL or body (the Authorization header is its place)."""
        assert self.requests, "nothing recorded"
        for url, body in self.requests:
            for token in tokens:
                assert token not in url, url
                assert token not in body, url


def new_phone(
    phones: list[Phone], browser: Browser, server: LiveServer, **kwargs: Any
) -> RecordingPhone:
    """A RecordingPhone, closed with the others by conftest.py's ``phones``."""
    phone = RecordingPhone(browser, server.url, **kwargs)
    phones.append(phone)
    return phone


def shoot(page: Page, name: str, *, full_page: bool = True, clip: FloatRect | None = None) -> None:
    """Write {name}.png into SCREENSHOTS (overwritten on every run): the page at 360 px,
    or the part of it in ``clip``.

    The join links hold fresh tokens, so the QR screenshot differs from run to run."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(100)  # let the last paint settle
    page.screenshot(
        path=str(SCREENSHOTS / f"{name}.png"),
        full_page=full_page,
        clip=clip,
        animations="disabled",
    )
    assert (SCREENSHOTS / f"{name}.png").stat().st_size > 0


def stored_entry(page: Page, match_id: str) -> dict[str, Any]:
    entries = json.loads(page.evaluate("localStorage.getItem('squarescores.matches')"))
    return dict(entries[match_id])


def standing_rows(page: Page) -> list[list[str]]:
    return [row.locator("td").all_inner_texts() for row in page.locator("#standings tr").all()]


def all_tokens(created: dict[str, Any]) -> list[str]:
    tokens = created["tokens"]
    return [tokens["host"], tokens["viewer"], tokens["recovery"], *tokens["players"]]


# ---- the vendored QR library ----------------------------------------------------------


def test_the_vendored_qr_library_is_the_pinned_package() -> None:
    manifest = json.loads((TOOLS_WEB / "package.json").read_text())
    lock = json.loads((TOOLS_WEB / "package-lock.json").read_text())
    version = manifest["devDependencies"][PACKAGE]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), "pin an exact version"
    assert lock["packages"][f"node_modules/{PACKAGE}"]["version"] == version
    assert lock["packages"][f"node_modules/{PACKAGE}"]["license"] == "MIT"
    vendored = VENDOR.read_bytes()
    assert b"Copyright (c) 2009 Kazuhiko Arase" in vendored[:1000]
    assert b"Licensed under the MIT license" in vendored[:1000]

    installed = TOOLS_WEB / "node_modules" / PACKAGE
    if not (installed / "package.json").exists() or (
        json.loads((installed / "package.json").read_text())["version"] != version
    ):
        if shutil.which("npm") is None:
            if os.environ.get("CI"):
                pytest.fail("npm is required under CI")
            pytest.skip("npm not installed: cannot fetch the pinned package to compare")
        subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=TOOLS_WEB,
            check=True,
            timeout=300,
        )
    assert json.loads((installed / "package.json").read_text())["version"] == version
    assert vendored == (installed / PACKAGE_FILE).read_bytes(), (
        f"app/web/vendor/qrcode.js differs from {PACKAGE}@{version}'s {PACKAGE_FILE}: "
        f"cp tools/web/node_modules/{PACKAGE}/{PACKAGE_FILE} app/web/vendor/qrcode.js"
    )


# ---- QR codes and table rules at the start -------------------------------------------


def qr_modules(page: Page, svg_index: int) -> tuple[int, set[tuple[int, int]]]:
    """The viewBox side and the dark modules that the indexed SVG draws."""
    svg = page.locator("svg.qr").nth(svg_index)
    # The path first: it waits for the code, drawn once the encoder has loaded.
    path = svg.locator("path.qr-modules").get_attribute("d") or ""
    side = int(svg.get_attribute("viewBox").split()[2])  # type: ignore[union-attr]
    return side, {(int(x), int(y)) for x, y in MODULE.findall(path)}


def library_modules(page: Page, text: str) -> tuple[int, set[tuple[int, int]]]:
    """What the vendored library itself makes of exactly ``text``, placed as qr.js places it."""
    side, dark = page.evaluate(
        """async ([text, quiet]) => {
          const { default: qrcode } = await import("/app/vendor/qrcode.js");
          const code = qrcode(0, "M");
          code.addData(text, "Byte");
          code.make();
          const n = code.getModuleCount();
          const dark = [];
          for (let row = 0; row < n; row += 1)
            for (let col = 0; col < n; col += 1)
              if (code.isDark(row, col)) dark.push([col + quiet, row + quiet]);
          return [n + 2 * quiet, dark];
        }""",
        [text, QUIET],
    )
    return int(side), {(int(x), int(y)) for x, y in dark}


def test_join_links_get_qr_codes_made_on_the_device(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    page.wait_for_selector("#start")
    for seat, name in enumerate(["Anna", "Berta", "Csaba"]):
        page.locator("input.player-name").nth(seat).fill(name)
    # The table rules: kontra off, 12 planned deals, Berta deals first.
    assert page.locator("#kontra").is_checked()
    page.uncheck("#kontra")
    page.fill("#planned-deals", "12")
    assert page.locator("#first-dealer option").all_inner_texts() == ["Anna", "Berta", "Csaba"]
    page.select_option("#first-dealer", "1")
    shoot(page, "start")
    page.click("#create")
    page.wait_for_selector("#links svg.qr")

    page.click("#show-host-link")  # the host's own link only after its step
    links = page.locator("#links a.join-link")
    assert links.count() == 5  # three players, viewer, host
    assert page.locator("#links svg.qr").count() == 5
    hrefs = [str(links.nth(i).get_attribute("href")) for i in range(5)]
    for index, href in enumerate(hrefs):
        item = page.locator("#links li").nth(index)
        assert item.locator("svg.qr").count() == 1 and item.locator("a.join-link").count() == 1
        assert item.locator("svg.qr").get_attribute("role") == "img"
        assert qr_modules(page, index) == library_modules(page, href), href
        assert item.locator("svg.qr").get_attribute("style") is None
    # A QR code is big enough to scan from another phone, and fits the screen.
    box = page.locator("#links svg.qr").first.bounding_box()
    assert box is not None and 150 <= box["width"] <= 360
    shoot(page, "table-started", full_page=False)  # the first two codes; the rest scroll

    match_id = hrefs[0].split("#/m/")[1].split("?")[0]
    entry = stored_entry(page, match_id)
    settings = api(server, "GET", f"/v1/matches/{match_id}", entry["token"]).json()["settings"]
    assert settings == {"game": "asszorti", "kontra": False, "planned_deals": 12, "first_dealer": 1}

    # Under the sheet, the host keeps the links and their codes.
    page.click("#open-sheet")
    page.wait_for_selector("#live.on")
    assert page.locator("#links svg.qr").count() == 4  # the host's behind its step
    assert "Next dealer: Berta" in page.locator(".status").inner_text()

    tokens = [href.split("?t=")[1] for href in hrefs]
    host.check_no_token_sent(tokens)
    host.check_clean()


def test_alkort_rules_at_the_start_and_the_host_moves_the_target(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    host = new_phone(phones, browser, server)
    page = host.open("/")
    page.wait_for_selector("#start")
    page.select_option("#game", "alkort")
    assert page.locator("#kontra, #planned-deals").count() == 0
    assert page.input_value("#target") == "11"
    for seat, name in enumerate(["Anna", "Bela", "Cili", "Dani"]):
        page.locator("input.player-name").nth(seat).fill(name)
    page.locator("input.team-name").nth(0).fill("Us")
    page.locator("input.team-name").nth(1).fill("Them")
    page.fill("#target", "5")
    page.select_option("#first-dealer", "3")
    page.click("#create")
    page.click("#open-sheet")
    page.wait_for_selector("#points")
    match_id = page.url.split("#/m/")[1]
    token = stored_entry(page, match_id)["token"]
    match = api(server, "GET", f"/v1/matches/{match_id}", token).json()
    assert match["settings"] == {"game": "alkort", "target": 5, "first_dealer": 3}

    page.click('button.point[data-team="0"][data-points="6"]')  # 6 >= 5: decided for Us
    expect(page.locator(".status.decided")).to_have_count(1)
    expect(page.locator("#winner")).to_have_text("Winner: Us")

    settings = page.locator("#host-settings")
    settings.locator("summary").click()
    assert page.input_value("#host-target") == "5"
    assert page.locator("#host-first-dealer").count() == 0  # locked after round 1
    page.fill("#host-target", "10")
    page.click("#save-settings")
    expect(page.locator("#settings-note.reopened")).to_have_text(
        "The match is open again: play on."
    )
    expect(page.locator(".status.in_progress")).to_have_count(1)
    assert page.locator("#result").is_hidden()
    assert api(server, "GET", f"/v1/matches/{match_id}", token).json()["settings"]["target"] == 10

    page.fill("#host-target", "6")
    page.click("#save-settings")
    expect(page.locator("#settings-note.decided")).to_have_text("The match is decided: Us won.")
    expect(page.locator(".status.decided")).to_have_count(1)

    page.fill("#host-target", "0")
    page.click("#save-settings")
    expect(page.locator("#settings-note.error")).to_have_text(
        "The target is a whole number from 1 to 1000."
    )

    # A player's link shows no settings; the result has no settlement (Alkort has no money).
    created_links = stored_entry(page, match_id)["links"]  # the host's device kept them
    player = new_phone(phones, browser, server)
    theirs = player.open(created_links["players"][1])
    theirs.wait_for_selector("#result")
    assert theirs.locator("#host-settings").is_hidden()
    assert theirs.locator("#settlement").count() == 0
    assert standing_rows(theirs) == [["1.", "Us", "6"], ["2.", "Them", "0"]]
    host.check_no_token_sent([token, *[link.split("?t=")[1] for link in created_links["players"]]])
    host.check_clean()
    player.check_clean()


# ---- the end of an Asszorti match: result, settlement, CSV, print -------------------


def test_the_end_shows_the_settlement_and_offers_csv_and_print(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]})
    match_id, host_token = created["id"], created["tokens"]["host"]
    for amounts in ([-9, 18, -9], [12, -6, -6], [-3, -3, 6], [-12, 24, -12]):
        response = api(
            server,
            "POST",
            f"/v1/matches/{match_id}/rounds",
            host_token,
            json={"type": "asszorti_amounts", "amounts": amounts},
        )
        assert response.status_code == 201, response.text

    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#live.on")
    page.wait_for_selector("#amounts")
    assert len(rows(page)) == 4
    assert page.locator("#result").is_hidden()  # in progress: no result yet
    shoot(page, "sheet", full_page=False)  # the sheet and what is under it at first

    page.click("#end")
    page.click("#confirm-yes")
    page.wait_for_selector("#result:not([hidden])")
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", host_token).json()
    match = api(server, "GET", f"/v1/matches/{match_id}", host_token).json()
    names = ["Anna", "Berta", "Csaba"]
    assert match["status"] == "ended"
    winners = ", ".join(names[seat] for seat in match["winner"]["seats"])
    expect(page.locator("#winner")).to_have_text(f"Winner: {winners}")
    assert standing_rows(page) == [
        [f"{s['rank']}.", ", ".join(names[seat] for seat in s["seats"]), str(s["total"])]
        for s in match["standings"]
    ]
    assert sheet["settlement"], "these rounds leave debts to settle"
    assert page.locator("#settlement li").all_inner_texts() == [
        f"{names[p['payer']]} pays {names[p['payee']]} {p['amount']}" for p in sheet["settlement"]
    ]
    assert match["settlement"] == sheet["settlement"]
    # An ended match takes no settings; the host's card keeps only the players' names.
    assert page.locator("#host-settings .settings-form").count() == 0
    expect(page.locator("#host-settings #player-names")).to_be_attached()
    shoot(page, "end")

    # CSV: fetched with the header, saved from a Blob.
    with page.expect_download() as download_info:
        page.click("#csv")
    download = download_info.value
    assert download.suggested_filename == f"squarescores-{match_id}.csv"
    expected = api(server, "GET", f"/v1/matches/{match_id}/sheet.csv", host_token)
    assert Path(download.path()).read_bytes() == expected.content
    assert expected.content.startswith(b"round,dealer,Anna,Berta,Csaba\r\n")

    # Print: the button calls window.print(); the print styles show the sheet only.
    page.evaluate(
        "() => { window.__printed = 0; window.print = () => { window.__printed += 1; }; }"
    )
    page.click("#print")
    assert page.evaluate("window.__printed") == 1
    page.emulate_media(media="print")
    for hidden in (".bar", "#csv", "#print", ".crumbs", ".tools", "#links"):
        assert page.locator(hidden).first.is_hidden(), hidden
    for shown in ("#sheet", "#result", "#settlement", ".status"):
        assert page.locator(shown).first.is_visible(), shown
    assert [row[0] for row in rows(page)] == ["1", "2", "3", "4"]  # the round numbers print
    assert page.locator("#sheet tbody th").first.is_visible()
    page.emulate_media(media="screen")
    assert page.locator("#csv").is_visible()

    phone.check_no_token_sent(all_tokens(created))
    phone.check_clean()


# ---- an evening with its chart (the README's picture) ---------------------------------


def test_an_evening_with_its_chart(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    names = ["Anna", "Béla", "Csilla", "Dani"]
    created = create(
        server,
        {"game": "own_table", "players": names, "settings": {"target": 60}},
    )
    points = ([8, 3, 0, 5], [2, 9, 4, 0], [0, 6, 11, 3], [7, 0, 2, 9], [3, 12, 0, 4], [5, 2, 10, 1])
    for row in points:
        response = api(
            server,
            "POST",
            f"/v1/matches/{created['id']}/rounds",
            created["tokens"]["host"],
            json={"type": "own_points", "points": row},
        )
        assert response.status_code == 201, response.text
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    page.wait_for_selector("#chart path.chart-line")
    assert page.locator("#chart path.chart-line").count() == len(names)
    totals = [sum(column) for column in zip(*points, strict=True)]
    expect(page.locator("#chart svg.chart-svg")).to_have_attribute(
        "aria-label",
        "Totals after round 6, target 60: "
        + ", ".join(f"{name} {total}" for name, total in zip(names, totals, strict=True)),
    )
    # The status line, the sheet and the chart under it: what the README shows. A tall
    # screen, so the bar of totals kept at its bottom does not cover the chart.
    page.set_viewport_size({"width": 360, "height": 1200})
    top = page.locator(".status").bounding_box()
    bottom = page.locator("#chart-card").bounding_box()
    assert top is not None and bottom is not None
    end = bottom["y"] + bottom["height"] + 8
    shoot(
        page,
        "evening",
        clip={"x": 0, "y": top["y"] - 8, "width": 360, "height": end - top["y"] + 8},
    )
    phone.check_no_token_sent(all_tokens(created))
    phone.check_clean()


def test_a_viewer_can_download_the_csv_but_not_change_settings(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server,
        {
            "game": "asszorti",
            "players": ["Anna", "Berta", "Csaba"],
            "settings": {"planned_deals": 1},
        },
    )
    match_id = created["id"]
    response = api(
        server,
        "POST",
        f"/v1/matches/{match_id}/rounds",
        created["tokens"]["host"],
        json={"type": "asszorti_amounts", "amounts": [18, -9, -9]},
    )
    assert response.status_code == 201
    viewer = new_phone(phones, browser, server)
    page = viewer.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#result:not([hidden])")  # decided by planned_deals
    assert page.locator(".status.decided").count() == 1
    expect(page.locator("#settlement li")).to_have_text(["Berta pays Anna 9", "Csaba pays Anna 9"])
    assert page.locator("#host-settings").is_hidden()
    with page.expect_download() as download_info:
        page.click("#csv")
    assert Path(download_info.value.path()).read_text().startswith("round,dealer,Anna,Berta,Csaba")
    viewer.check_no_token_sent(all_tokens(created))
    viewer.check_clean()


# ---- languages ---------------------------------------------------------------------


def test_four_languages_are_offered() -> None:
    """The key sets: test_table_page.test_every_language_has_the_same_keys."""
    strings = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text()) for lang in LANGUAGES}
    for lang in LANGUAGES:
        assert all(text.strip() for text in strings[lang].values()), lang
    # The games' own names stay as the games use them.
    for lang in LANGUAGES:
        assert strings[lang]["table_game_asszorti"] == "Asszorti", lang
        assert strings[lang]["table_game_alkort"] == "Alkort", lang
    options = re.findall(r'<option value="(\w+)">', (WEB / "index.html").read_text())
    assert tuple(options) == LANGUAGES
    assert re.search(r'LANGUAGES = \["en", "hu", "fr", "ru"\]', (WEB / "i18n.js").read_text())


@pytest.mark.parametrize(("locale", "lang"), [("fr-FR", "fr"), ("ru-RU", "ru")])
def test_french_and_russian_are_picked_from_the_browser(
    browser: Browser, server: LiveServer, phones: list[Phone], locale: str, lang: str
) -> None:
    strings = json.loads((WEB / "i18n" / f"{lang}.json").read_text())
    phone = new_phone(phones, browser, server, locale=locale)
    page = phone.open("/")
    page.wait_for_selector("#start")
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.input_value("#lang") == lang
    expect(page.locator("#start h1")).to_have_text(strings["start_title"])
    expect(page.locator("#start legend")).to_have_text(strings["rules_title"])
    phone.check_clean()
