"""A 360 px phone (Chromium) at every game's most seats, in each of the page's
languages, on a long evening: the sheet fits, its names stay readable and its column
names stay in view; the start form's selects show their choices whole; a phone says
whose it is; the Alkort target is on the sheet and its move is said on every phone;
fields that take negatives open a keypad with a minus.

Same set-up as ``test_sheet_and_messages.py``: a real server, headless Chromium,
phones at 360 px that may not leave the server's origin (tests/browser/pages.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, PHONE, Phone, api, create, new_phone
from tests.conftest import ROOT
from tests.live import LiveServer

WEB = ROOT / "app" / "web"
LANGS = ("en", "hu", "fr", "ru")
STRINGS = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text()) for lang in LANGS}
LOCALES = {"en": "en-US", "hu": "hu-HU", "fr": "fr-FR", "ru": "ru-RU"}
WIDTH = PHONE["width"]
LONGEST = "Bartholomew Maximilian Kovácsné Szabóová"  # 40 characters, the most a name may have
NAMES = [
    LONGEST,
    "Wolfeschlegelsteinhausen",
    "Zsófia Erzsébet Horváth",
    "Imre Bartholomew Nagy",
    "Gergely Tamás Varga",
    "Krisztina Mária Tóth",
    "Benedek Ödön Kiss",
    "Hanna Kovácsné Szabó",
]
EVENING = 30  # rounds: a sheet far taller than the phone
# Each game at its most seats (own table: app/games/own_table.py MAX_PLAYERS), with
# the round entered all evening: the largest cells each game's sheet holds.
GAMES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "asszorti": (
        {"game": "asszorti", "players": NAMES[:3]},
        {"type": "asszorti_amounts", "amounts": [-4608, 2304, 2304]},
    ),
    "alkort": (
        {
            "game": "alkort",
            "players": NAMES[:4],
            "team_names": [LONGEST, "Wolfeschlegelsteinhausen"],
            "settings": {"target": 1000},
        },
        {"type": "alkort_points", "team": 0, "points": 9},
    ),
    "own_table": (
        {"game": "own_table", "players": NAMES},
        {"type": "own_points", "points": [-99999, 99999, 123, 4567, 0, -1, 88, 7]},
    ),
}
# A name over a column shows at least this much of itself (4.5rem less the padding).
NAME_MIN_PX = 60

# Scroll the sheet's box to each column in turn: is it then wholly inside the box, to
# the right of the sticky round numbers? (Asszorti and Alkort: no scrolling at all.)
COLUMNS = """() => {
  const box = document.querySelector('.sheet-box');
  const heads = [...document.querySelectorAll('#sheet thead th')];
  const first = heads[0];
  const unreachable = [];
  for (const th of heads.slice(1)) {
    box.scrollLeft = th.offsetLeft - first.offsetWidth;
    const outer = box.getBoundingClientRect();
    const rect = th.getBoundingClientRect();
    if (rect.left < first.getBoundingClientRect().right - 1 || rect.right > outer.right + 1) {
      unreachable.push(th.title);
    }
  }
  box.scrollLeft = 0;
  return {sideways: box.scrollWidth - box.clientWidth, unreachable};
}"""

# Each column head's name: its shown width, and, for the heads the box shows sideways
# (all but an own table's last ones), whether it is what is on top at its middle (not
# scrolled away, not under something else).
HEADS = """() => [...document.querySelectorAll('#sheet thead th')].map((th) => {
  const rect = th.getBoundingClientRect();
  const box = document.querySelector('.sheet-box').getBoundingClientRect();
  const shown = rect.left < box.right - 4;
  const x = Math.min(rect.left + rect.width / 2, box.right - 2);
  const hit = document.elementFromPoint(x, rect.top + rect.height / 2);
  const name = th.querySelector('.col-name');
  return {
    shown, top: rect.top, bottom: rect.bottom, seen: Boolean(hit && th.contains(hit)),
    width: name ? name.getBoundingClientRect().width : null,
  };
})"""


def page_width(page: Page) -> dict[str, int]:
    return dict(
        page.evaluate("() => ({inner: innerWidth, scroll: document.scrollingElement.scrollWidth})")
    )


def long_evening(server: LiveServer, game: str) -> dict[str, Any]:
    body, round_body = GAMES[game]
    created = create(server, body)
    for _ in range(EVENING):
        response = api(
            server,
            "POST",
            f"/v1/matches/{created['id']}/rounds",
            created["tokens"]["host"],
            json=round_body,
        )
        assert response.status_code == 201, response.text
    return created


# Where the last round's row is against the bar fixed at the bottom of the screen.
LAST_ROW = """() => {
  const rows = document.querySelectorAll('#sheet tbody tr[data-round]');
  const rect = rows[rows.length - 1].getBoundingClientRect();
  const reach = document.querySelector('.reach').getBoundingClientRect().top;
  return {top: rect.top, bottom: rect.bottom, reach};
}"""


def read_down_to_the_last_round(page: Page) -> None:
    """Wheel down with the pointer on the sheet (the box scrolls first when it scrolls,
    then the page) until the last round's row is whole above the bar at the bottom."""
    page.locator(".sheet-box").scroll_into_view_if_needed()
    for _ in range(80):
        row = page.evaluate(LAST_ROW)
        if row["top"] >= 0 and row["bottom"] <= row["reach"]:
            return
        sheet = page.locator(".sheet-box").bounding_box()
        assert sheet is not None
        y = min(max(sheet["y"] + 150, 150), row["reach"] - 10)
        page.mouse.move(WIDTH / 2, y)
        page.mouse.wheel(0, 80)
        page.wait_for_function(
            "() => new Promise((done) => requestAnimationFrame(() => done(true)))"
        )
    raise AssertionError(f"the last round never came into view: {page.evaluate(LAST_ROW)}")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", list(GAMES))
def test_the_sheet_fits_a_360_px_phone_at_the_most_seats_in_every_language(
    browser: Browser, server: LiveServer, phones: list[Phone], game: str, lang: str
) -> None:
    created = long_evening(server, game)
    phone = new_phone(phones, browser, server, locale=LOCALES[lang])
    page = phone.open(created["tokens"]["links"]["host"])
    expect(page.locator("#sheet tbody tr[data-round]")).to_have_count(EVENING)
    page.wait_for_selector("#live.on")  # measure the table the stream's snapshot drew
    expect(page.locator("#sheet tfoot th").first).to_have_text(STRINGS[lang]["total"])

    # No page-wide sideways scroll: the layout viewport is the phone's (a phone widens
    # it to what overflows), and nothing reaches past it.
    assert page_width(page) == {"inner": WIDTH, "scroll": WIDTH}

    # Every column can be read: Asszorti's three and Alkort's two sides side by side in
    # the box, an own table's eight by scrolling the box, never the page.
    columns = page.evaluate(COLUMNS)
    assert columns["unreachable"] == [], columns
    if game != "own_table":
        assert columns["sideways"] <= 0, columns
    heads = page.locator("#sheet thead th[title]")
    titles = [heads.nth(i).get_attribute("title") for i in range(heads.count())]
    sides = created["teams"] or created["players"]  # a column per team, or per seat
    assert len(titles) == len(sides), titles
    assert all(
        title and title.startswith(side["name"]) for title, side in zip(titles, sides, strict=True)
    )
    widths = [head["width"] for head in page.evaluate(HEADS)[1:]]
    assert all(width >= NAME_MIN_PX for width in widths), widths
    # The longest name is cut short, with its whole self a tap away.
    first = page.locator("#sheet thead .col-name").first
    clipped = "(el) => el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1"
    assert first.evaluate(clipped)
    heads.first.click()
    assert not first.evaluate(clipped)
    assert page_width(page) == {"inner": WIDTH, "scroll": WIDTH}
    heads.first.click()

    # A finger on the sheet reads down to the last round: the column names are still
    # on top, in view.
    read_down_to_the_last_round(page)
    expect(page.locator("#sheet tbody tr[data-round]").first).not_to_be_in_viewport()
    shown = [head for head in page.evaluate(HEADS) if head["shown"]]
    assert len(shown) >= 3, shown  # the round numbers' and two names at least
    for head in shown:
        assert head["seen"] and head["top"] >= 0 and head["bottom"] <= PHONE["height"], head
    assert page_width(page) == {"inner": WIDTH, "scroll": WIDTH}
    shots = ROOT / "build" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"fit-360-{game}-{lang}.png"))
    phone.check_clean()


# The text of each option against the room its select has for it (padding and arrow off).
OPTIONS_FIT = """(select) => {
  const style = getComputedStyle(select);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const room = select.clientWidth - padding - 24;
  return [...select.options].filter((option) => context.measureText(option.text).width > room)
    .map((option) => option.text);
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_the_start_form_s_game_and_teams_selects_show_their_choices_whole(
    browser: Browser, server: LiveServer, phones: list[Phone], lang: str
) -> None:
    phone = new_phone(phones, browser, server, locale=LOCALES[lang])
    page = phone.open("/")
    page.wait_for_selector("#game")
    page.select_option("#game", "own_table")
    page.select_option("#own-players", "8")  # the most team choices
    for select in ("#game", "#own-teams"):
        assert page.locator(select).evaluate(OPTIONS_FIT) == [], select
    # What a short choice leaves out is said under the select.
    for game in ("asszorti", "alkort", "own_table"):
        page.select_option("#game", game)
        expect(page.locator("#game-hint")).to_have_text(STRINGS[lang][f"game_hint_{game}"])
    assert page_width(page) == {"inner": WIDTH, "scroll": WIDTH}
    phone.check_clean()


def test_a_phone_says_whose_it_is(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]})
    links = created["tokens"]["links"]
    player = new_phone(phones, browser, server, locale="hu-HU").open(links["players"][1])
    expect(player.locator("#you-are")).to_have_text("Te vagy Berta")
    host = new_phone(phones, browser, server).open(links["host"])
    expect(host.locator("#you-are")).to_have_text(STRINGS["en"]["you_are_host"])
    viewer = new_phone(phones, browser, server).open(links["viewer"])
    expect(viewer.locator("#viewer-note")).to_be_visible()
    expect(viewer.locator("#you-are")).to_be_hidden()
    # A rename reaches the line too.
    renamed = api(
        server,
        "PATCH",
        f"/v1/matches/{created['id']}",
        created["tokens"]["host"],
        json={"players": ["Anna", "Bori", "Csaba"]},
    )
    assert renamed.status_code == 200, renamed.text
    expect(player.locator("#you-are")).to_have_text("Te vagy Bori", timeout=LIVE_TIMEOUT_MS)
    for phone in phones:
        phone.check_clean()


def test_the_alkort_target_is_on_the_sheet_and_its_move_is_said_on_every_phone(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "alkort", "players": ["Anna", "Bela", "Cili", "Dani"]})
    links = created["tokens"]["links"]
    pages = [
        new_phone(phones, browser, server).open(links["host"]),
        new_phone(phones, browser, server, locale="fr-FR").open(links["players"][1]),
        new_phone(phones, browser, server, locale="ru-RU").open(links["viewer"]),
    ]
    langs = ["en", "fr", "ru"]
    for page, lang in zip(pages, langs, strict=True):
        expect(page.locator("#sheet-target")).to_have_text(
            STRINGS[lang]["chart_target"].replace("{target}", "11")
        )
        expect(page.locator("#sheet-target")).to_be_in_viewport()
        expect(page.locator("#target-note")).to_be_hidden()  # nothing moved yet
        page.wait_for_selector("#live.on")
    moved = api(
        server,
        "PATCH",
        f"/v1/matches/{created['id']}",
        created["tokens"]["host"],
        json={"settings": {"target": 7}},
    )
    assert moved.status_code == 200, moved.text
    for page, lang in zip(pages, langs, strict=True):
        said = STRINGS[lang]["target_moved"].replace("{target}", "7").replace("{was}", "11")
        note = page.locator("#target-note")
        expect(note).to_have_text(said, timeout=LIVE_TIMEOUT_MS)
        assert note.get_attribute("role") == "status"  # read out, not only shown
        expect(note).to_be_in_viewport()
        expect(page.locator("#sheet-target")).to_have_text(
            STRINGS[lang]["chart_target"].replace("{target}", "7")
        )
    # A phone opened after the move shows the target, and no move it did not see.
    late = new_phone(phones, browser, server).open(links["players"][0])
    expect(late.locator("#sheet-target")).to_have_text("Target 7")
    expect(late.locator("#target-note")).to_be_hidden()
    for phone in phones:
        phone.check_clean()


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]}, "input.amount"),
        ({"game": "own_table", "players": ["Anna", "Berta", "Csaba"]}, "input.own-point"),
    ],
)
def test_fields_that_take_negatives_open_a_keypad_with_a_minus(
    browser: Browser, server: LiveServer, phones: list[Phone], body: dict[str, Any], fields: str
) -> None:
    created = create(server, body)
    page = new_phone(phones, browser, server).open(created["tokens"]["links"]["host"])
    inputs = page.locator(fields)
    expect(inputs).to_have_count(3)
    for i in range(3):
        # inputmode numeric/decimal: a keypad without "-" on iOS and some Android keyboards.
        assert inputs.nth(i).get_attribute("inputmode") is None
        assert inputs.nth(i).get_attribute("type") == "number"
    inputs.first.click()
    page.keyboard.type("-4")
    assert inputs.first.input_value() == "-4"
    # (tricks and settings take no negatives: their numeric keypad stays)
    phones[0].check_clean()


def test_a_wide_sheet_keeps_where_it_was_scrolled_to_when_a_round_arrives(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = long_evening(server, "own_table")
    page = new_phone(phones, browser, server).open(created["tokens"]["links"]["players"][2])
    expect(page.locator("#sheet tbody tr[data-round]")).to_have_count(EVENING)
    page.wait_for_selector("#live.on")
    box = page.locator(".sheet-box")
    expect(box).to_have_class("sheet-box wide")
    read_down_to_the_last_round(page)
    box.evaluate("(el) => { el.scrollLeft = 150; }")
    where = box.evaluate("(el) => [el.scrollTop, el.scrollLeft]")
    assert where[0] > 0 and where[1] > 0, where
    _, round_body = GAMES["own_table"]
    response = api(
        server,
        "POST",
        f"/v1/matches/{created['id']}/rounds",
        created["tokens"]["host"],
        json=round_body,
    )
    assert response.status_code == 201, response.text
    expect(page.locator("#sheet tbody tr[data-round]")).to_have_count(
        EVENING + 1, timeout=LIVE_TIMEOUT_MS
    )
    assert box.evaluate("(el) => [el.scrollTop, el.scrollLeft]") == where
    phones[0].check_clean()
