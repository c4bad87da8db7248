"""The sheet at 360 px with eight long names, the hand form's trick messages, and a
server's refusal in each of the page's four languages (app/web).

Same set-up as ``test_table_page.py``: a real server, headless Chromium (Debian's),
phones at 360 px that may not leave the server's origin (tests/browser/pages.py).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.pages import Phone, api, create, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

WEB = ROOT / "app" / "web"
STRINGS = {
    lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text())
    for lang in ("en", "hu", "fr", "ru")
}
EN = STRINGS["en"]
LOCALES = {"en": "en-US", "hu": "hu-HU", "fr": "fr-FR", "ru": "ru-RU"}
LONGEST = "Bartholomew Maximilian Kovácsné Szabóová"  # 40 characters, the most a name may have
NAMES = [
    "Hanna Kovácsné Szabó",
    "Imre Bartholomew Nagy",
    "Wolfeschlegelsteinhausen",
    LONGEST,
    "Zsófia Erzsébet Horváth",
    "Gergely Tamás Varga",
    "Krisztina Mária Tóth",
    "Benedek Ödön Kiss",
]
# Two lines of names at most, with the cell's padding: no stack of letters.
HEADER_MAX_PX = 80

# Per header name: the words that the browser laid out over more than one line.
SPLIT_WORDS = """() => [...document.querySelectorAll('#sheet thead .col-name')].flatMap((span) => {
  const node = span.firstChild;
  const split = [];
  let at = 0;
  for (const word of node.textContent.split(' ')) {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + word.length);
    const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
    if (tops.size > 1) split.push(word);
    at += word.length + 1;
  }
  return split;
})"""

# Scroll the sheet's box to each column in turn: is it then wholly inside the box, right
# of the sticky first column, and did that first column stay where it was?
REACHABLE = """() => {
  const box = document.querySelector('.sheet-box');
  const heads = [...document.querySelectorAll('#sheet thead th')];
  const first = heads[0];
  const firstLeft = first.getBoundingClientRect().left;
  const rowFirst = document.querySelector('#sheet tbody tr > :first-child');
  const rowLeft = rowFirst.getBoundingClientRect().left;
  const report = {scrolls: box.scrollWidth > box.clientWidth, unreachable: [], moved: []};
  for (const th of heads.slice(1)) {
    box.scrollLeft = th.offsetLeft - first.offsetWidth;
    const outer = box.getBoundingClientRect();
    const rect = th.getBoundingClientRect();
    const left = first.getBoundingClientRect().right - 1;
    if (rect.left < left || rect.right > outer.right + 1) report.unreachable.push(th.title);
    if (Math.abs(first.getBoundingClientRect().left - firstLeft) > 1
        || Math.abs(rowFirst.getBoundingClientRect().left - rowLeft) > 1) {
      report.moved.push(th.title);
    }
  }
  report.scrolled = box.scrollLeft;
  return report;
}"""


def page_sideways(page: Page) -> int:
    return int(page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth"))


def test_eight_long_names_fit_the_sheet_without_the_page_scrolling_sideways(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "own_table", "players": NAMES})
    host_token = created["tokens"]["host"]
    for points in ([3, 1, 4, 1, 5, 9, 2, 6], [27, 18, 28, 18, 28, 45, 90, 45]):
        response = api(
            server,
            "POST",
            f"/v1/matches/{created['id']}/rounds",
            host_token,
            json={"type": "own_points", "points": points},
        )
        assert response.status_code == 201, response.text
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    expect(page.locator("#sheet tbody tr")).to_have_count(2)
    # Measure once the stream's snapshot has redrawn the sheet, not the table it replaces.
    page.wait_for_selector("#live.on")
    expect(page.locator("#sheet thead")).to_be_visible()

    heads = page.locator("#sheet thead th")
    # Screen readers and the existing tests still read the whole names.
    assert heads.all_inner_texts()[1:] == NAMES
    assert [heads.nth(i + 1).get_attribute("title") for i in range(8)] == NAMES
    assert page_sideways(page) <= 0
    header = page.locator("#sheet thead").bounding_box()
    assert header is not None and header["height"] <= HEADER_MAX_PX, header
    assert page.evaluate(SPLIT_WORDS) == []

    # The longest name is cut short; a tap shows it whole, still without a split word.
    longest = page.locator("#sheet thead .col-name").nth(3)
    clipped = "(el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1"
    assert longest.evaluate(clipped)
    heads.nth(4).click()
    assert not longest.evaluate(clipped)
    assert page.evaluate(SPLIT_WORDS) == []
    heads.nth(4).click()
    assert longest.evaluate(clipped)
    page.emulate_media(media="print")  # on paper every name is whole
    assert not longest.evaluate(clipped)
    page.emulate_media(media="screen")

    report = page.evaluate(REACHABLE)
    assert report["scrolls"] and report["scrolled"] > 0, report
    assert report["unreachable"] == [] and report["moved"] == [], report
    assert page_sideways(page) <= 0
    assert rows(page)[1][0] == "2"
    shots = ROOT / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "sheet-eight-names.png"))
    phone.check_clean()


def choose(page: Page, group: str, value: str) -> None:
    page.click(f'[data-group="{group}"] button[data-value="{value}"]')


def fill_tricks(page: Page, values: dict[int, str]) -> None:
    for seat in range(3):
        page.fill(f'input[name="tricks{seat}"]', "")
    for seat, value in values.items():
        page.fill(f'input[name="tricks{seat}"]', value)


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_tricks_that_do_not_add_up_get_their_own_message(
    browser: Browser, server: LiveServer, phones: list[Phone], lang: str
) -> None:
    strings = STRINGS[lang]
    created = create(server, {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]})
    phone = new_phone(phones, browser, server, locale=LOCALES[lang])
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#hand")
    choose(page, "declarer", "1")
    choose(page, "contract", "1")
    choose(page, "trumps", "diamonds")
    preview = page.locator("#hand-preview")

    fill_tricks(page, {0: "7", 1: "7"})  # two typed, already more than there are
    expect(preview).to_have_text(strings["tricks_too_many"].replace("{sum}", "14"))
    assert page.locator('input[name="tricks2"]').input_value() == ""
    fill_tricks(page, {0: "12"})
    expect(preview).to_have_text(strings["tricks_out_of_range"])
    fill_tricks(page, {0: "-1", 1: "5"})
    expect(preview).to_have_text(strings["tricks_out_of_range"])
    fill_tricks(page, {0: "3.5", 1: "5"})
    expect(preview).to_have_text(strings["tricks_not_whole"])
    fill_tricks(page, {0: "5"})
    expect(preview).to_have_text(strings["missing_tricks"])

    # Two typed, the third follows; typing over it leaves the first two as they were.
    fill_tricks(page, {0: "2", 1: "7"})
    expect(page.locator('input[name="tricks2"]')).to_have_value("2")
    page.fill('input[name="tricks2"]', "3")
    expect(preview).to_have_text(strings["tricks_sum"].replace("{sum}", "12"))
    assert [page.locator(f'input[name="tricks{seat}"]').input_value() for seat in range(3)] == [
        "2",
        "7",
        "3",
    ]
    page.fill('input[name="tricks2"]', "2")
    expect(preview.locator(".preview-title")).to_be_visible()  # a whole hand: the calculator
    phone.check_clean()


def expected_sentence(lang: str, sentence_key: str, hint_key: str) -> str:
    text = f"{STRINGS[lang][sentence_key]}. {STRINGS[lang][hint_key]}"
    return text.replace(" :", "\u202f:") if lang == "fr" else text


@pytest.mark.parametrize("lang", ["en", "hu", "fr", "ru"])
def test_a_refusal_is_said_in_the_pages_language_with_the_detail_apart(
    browser: Browser, server: LiveServer, phones: list[Phone], lang: str
) -> None:
    created = create(server, {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]})
    phone = new_phone(phones, browser, server, locale=LOCALES[lang])
    page = phone.open(created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#amounts")
    assert page.evaluate("document.documentElement.lang") == lang
    for seat, amount in enumerate(["3", "-1", "-2"]):  # sums to 0, but no hand's amounts
        page.fill(f'input[name="amount{seat}"]', amount)
    page.click("#add-round")
    message = page.locator("#message")
    expect(message).to_be_visible()

    # 422 validation_error at ["body", "amounts"]: the sentence for that field, a full
    # stop, the code's hint; the server's English detail on its own smaller line.
    said = message.locator(".problem-text")
    expect(said).to_have_text(
        expected_sentence(lang, "problem_field_amounts", "hint_validation_error")
    )
    detail = message.locator(".problem-detail")
    expect(detail).to_contain_text("amounts [3, -1, -2] are not a hand's")
    assert "amounts [3" not in said.inner_text()
    sizes = [
        float(part.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)"))
        for part in (said, detail)
    ]
    assert 14 <= sizes[1] < sizes[0], sizes
    detail_box, said_box = detail.bounding_box(), said.bounding_box()
    assert detail_box and said_box and detail_box["y"] >= said_box["y"] + said_box["height"] - 1
    if lang == "fr":  # "Le serveur dit : …" with its narrow no-break space
        assert "\u202f:" in detail.inner_text() and " :" not in detail.inner_text()
    assert rows(page) == []

    # A stale If-Match (412): the sentence for its code, whatever the server's words.
    page.route("**/v1/matches/*/rounds", refuse_as_stale)
    for seat, amount in enumerate(["18", "-9", "-9"]):
        page.fill(f'input[name="amount{seat}"]', amount)
    page.click("#add-round")
    expect(said).to_have_text(
        expected_sentence(lang, "problem_precondition_failed", "hint_precondition_failed")
    )
    expect(detail).to_contain_text(STALE)
    phone.check_clean()


STALE = "If-Match does not name the current ETag"


def refuse_as_stale(route: Route) -> None:
    if route.request.method != "POST":
        route.fallback()
        return
    body = {
        "type": "about:blank",
        "title": "The match has changed",
        "status": 412,
        "detail": f'{STALE} ("v2"); nothing was written',
        "code": "precondition_failed",
    }
    route.fulfill(status=412, content_type="application/problem+json", body=json.dumps(body))
