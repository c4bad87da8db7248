"""The Asszorti sheet and the hand form, as issue 31 asks:

- each cell of an Asszorti sheet shows, small and below, the hand's net (a loss the
  sheet shows as 0), as the API's sheet gives it; the Owed row's label opens, by tap
  or keyboard, a sentence that says what owed is, in each language;
- each of the hand form's choice groups is a radio group: one Tab stop, the arrow keys
  move and choose (wrapping), Home and End, Space chooses; a hand is entered and
  added by keyboard alone.

The browser, the server and the phones are ``tests/browser/conftest.py``'s.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, create, nets, new_phone, rows
from tests.conftest import ROOT
from tests.live import LiveServer

NAMES = ["Anna", "Berta", "Csaba"]
MINUS = "\u2212"
LOCALES = {"en": "en-US", "hu": "hu-HU", "fr": "fr-FR", "ru": "ru-RU"}
STRINGS = {
    lang: json.loads((ROOT / "app" / "web" / "i18n" / f"{lang}.json").read_text())
    for lang in LOCALES
}
# What has the keyboard's focus: "field:value" for a choice, else the element's id or name.
FOCUSED = """() => {
  const el = document.activeElement;
  if (el && el.dataset && el.dataset.field) return `${el.dataset.field}:${el.dataset.value}`;
  return el ? el.id || el.getAttribute('name') || el.tagName.toLowerCase() : '';
}"""
# The buttons of a group that Tab stops on (tabindex 0), and those checked.
GROUP = """(field) => {
  const buttons = [...document.querySelectorAll(`button.choice[data-field="${field}"]`)];
  const values = (keep) => buttons.filter(keep).map((b) => b.dataset.value);
  const group = buttons[0].parentElement;
  return {
    stops: values((b) => b.tabIndex === 0),
    checked: values((b) => b.getAttribute('aria-checked') === 'true'),
    group: group.getAttribute('role'),
    label: document.getElementById(group.getAttribute('aria-labelledby')).textContent,
  };
}"""

# A cell's number and the net under it: where each is, and how big its letters are.
LAYOUT = """(cell) => {
  const value = cell.querySelector('.cell-value');
  const net = cell.querySelector('.cell-net');
  const size = (el) => parseFloat(getComputedStyle(el).fontSize);
  return {valueBottom: value.getBoundingClientRect().bottom,
          netTop: net.getBoundingClientRect().top, valueSize: size(value), netSize: size(net)};
}"""


def signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else f"{MINUS}{-amount}" if amount < 0 else "0"


def post_amounts(server: LiveServer, match_id: str, token: str, amounts: list[int]) -> None:
    body = {"type": "asszorti_amounts", "amounts": amounts}
    response = api(server, "POST", f"/v1/matches/{match_id}/rounds", token, json=body)
    assert response.status_code == 201, response.text


def focused(page: Page) -> str:
    return str(page.evaluate(FOCUSED))


def press(page: Page, key: str) -> str:
    page.keyboard.press(key)
    return focused(page)


# ---- the hand's net under each cell, and what "Owed" means ----------------------------


@pytest.mark.parametrize("lang", list(LOCALES))
def test_an_asszorti_cell_shows_the_hands_net_and_owed_is_explained(
    browser: Browser, server: LiveServer, phones: list[Phone], lang: str
) -> None:
    strings = STRINGS[lang]
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, token = created["id"], created["tokens"]["host"]
    post_amounts(server, match_id, token, [-9, 18, -9])  # Anna and Csaba lose 9: owed
    post_amounts(server, match_id, token, [18, -9, -9])  # Anna's win pays her 9 first
    phone = new_phone(phones, browser, server, locale=LOCALES[lang])
    page = phone.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector('#sheet tbody tr[data-round="2"]')

    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", token).json()
    assert [row["cells"] for row in sheet["rows"]] == [[0, 18, 0], [9, 0, 0]]
    assert rows(page) == [[str(row["number"]), *map(str, row["cells"])] for row in sheet["rows"]]
    assert nets(page) == [[signed(net) for net in row["net"]] for row in sheet["rows"]]
    assert nets(page)[0] == [f"{MINUS}9", "+18", f"{MINUS}9"]
    anna = page.locator('#sheet tbody tr[data-round="1"] td').first
    expect(anna.locator(".cell-value")).to_have_text("0")
    expect(anna).to_have_class("loss")
    # Secondary, but no smaller than 14 px, and under the cell rather than beside it.
    layout = anna.evaluate(LAYOUT)
    assert layout["netTop"] >= layout["valueBottom"] - 1, layout
    assert 14 <= layout["netSize"] < layout["valueSize"], layout
    # A screen reader hears which number is the hand's.
    expect(anna.locator(".cell-net .visually-hidden")).to_have_text(strings["hand_net"])

    # Owed: the label is a button; Enter opens the sentence, a tap closes it.
    why = page.locator("#owed-why")
    note = page.locator("#owed-note")
    expect(why).to_contain_text(strings["owed"])
    expect(why).to_have_attribute("aria-expanded", "false")
    expect(note).to_be_hidden()
    why.focus()
    page.keyboard.press("Enter")
    expect(note).to_be_visible()
    expect(note).to_have_text(strings["owed_explain"])
    expect(why).to_have_attribute("aria-expanded", "true")
    assert why.get_attribute("aria-controls") == "owed-note"
    owed = page.locator("#sheet tfoot tr.owed td").all_inner_texts()
    assert owed == [str(each) for each in sheet["owed"]] == ["0", "9", "18"]

    # A live redraw of the sheet keeps it open.
    post_amounts(server, match_id, token, [0, 0, 0])
    page.wait_for_selector('#sheet tbody tr[data-round="3"]', timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#owed-note")).to_be_visible()
    expect(page.locator("#owed-why")).to_have_attribute("aria-expanded", "true")
    page.locator("#owed-why").click()
    expect(page.locator("#owed-note")).to_be_hidden()
    phone.check_clean()


def test_other_games_sheets_have_no_nets_nor_owed(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "own_table", "players": ["Anna", "Berta", "Csaba", "Dora"]})
    match_id, token = created["id"], created["tokens"]["host"]
    body = {"type": "own_points", "points": [2, 0, 1, 3]}
    response = api(server, "POST", f"/v1/matches/{match_id}/rounds", token, json=body)
    assert response.status_code == 201, response.text
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector('#sheet tbody tr[data-round="1"]')
    assert rows(page) == [["1", "2", "0", "1", "3"]]
    expect(page.locator("#sheet .cell-net")).to_have_count(0)
    expect(page.locator("#owed-why")).to_have_count(0)
    # Nothing stands in the Owed sentence's place: the sheet's box holds only its table.
    box = page.locator("#sheet").locator("xpath=..")
    assert box.evaluate("(el) => [...el.childNodes].map((node) => node.nodeName)") == ["TABLE"]
    phone.check_clean()


# ---- the hand form by keyboard alone ----------------------------------------------------


def test_a_hand_is_entered_and_added_by_keyboard_alone(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, token = created["id"], created["tokens"]["host"]
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#hand")
    page.wait_for_selector("#live.on")

    # Every choice group is a labelled radio group with one Tab stop.
    for field, label in (("declarer", "declarer"), ("contract", "contract"), ("trumps", "trumps")):
        group = page.evaluate(GROUP, field)
        assert group["group"] == "radiogroup"
        assert group["label"] == STRINGS["en"][label]
        assert len(group["stops"]) == 1
    assert page.evaluate(GROUP, "kontra")["stops"] == ["none"]  # the checked one

    # Tab from the top of the page lands on one declarer, the first (none is chosen yet).
    stops = []
    while not focused(page).startswith("declarer:"):
        stops.append(press(page, "Tab"))
        assert len(stops) < 80, stops
    assert focused(page) == "declarer:0"
    assert page.evaluate(GROUP, "declarer")["checked"] == []

    # The arrows move and choose, wrapping at both ends; Home and End.
    assert press(page, "ArrowRight") == "declarer:1"
    assert page.evaluate(GROUP, "declarer")["checked"] == ["1"]
    assert press(page, "ArrowDown") == "declarer:2"
    assert press(page, "ArrowRight") == "declarer:0"  # wraps
    assert press(page, "ArrowLeft") == "declarer:2"  # wraps back
    assert press(page, "ArrowUp") == "declarer:1"
    assert press(page, "Home") == "declarer:0"
    assert press(page, "End") == "declarer:2"
    assert press(page, "ArrowLeft") == "declarer:1"
    assert page.evaluate(GROUP, "declarer") | {"label": ""} == {
        "stops": ["1"],
        "checked": ["1"],
        "group": "radiogroup",
        "label": "",
    }

    # Tab leaves the group for the next one; there Space chooses, arrows move on.
    assert press(page, "Tab") == "contract:3"
    assert page.evaluate(GROUP, "contract")["checked"] == []
    page.keyboard.press("Space")
    assert page.evaluate(GROUP, "contract")["checked"] == ["3"]
    press(page, "ArrowRight")
    assert press(page, "ArrowRight") == "contract:1"
    assert page.evaluate(GROUP, "contract")["checked"] == ["1"]
    assert press(page, "Tab") == "trumps:hearts"
    assert press(page, "ArrowRight") == "trumps:diamonds"

    # Two players' tricks; the third follows.
    assert press(page, "Tab") == "tricks0"
    page.keyboard.type("2")
    assert press(page, "Tab") == "tricks1"
    page.keyboard.type("7")
    expect(page.locator('input[name="tricks2"]')).to_have_value("2")
    assert press(page, "Tab") == "tricks2"
    assert press(page, "Tab") == "kontra:none"
    assert press(page, "Tab") == "arrivazs"
    expect(page.locator('#hand-preview li.net[data-seat="1"] strong')).to_have_text("+18")

    # On to the add button, past no other choice, and Enter adds the hand.
    while focused(page) != "add-hand":
        assert ":" not in press(page, "Tab"), "a choice after the arrivázs box"
    page.keyboard.press("Enter")
    page.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=LIVE_TIMEOUT_MS)

    stored = api(server, "GET", f"/v1/matches/{match_id}/rounds", token).json()["items"]
    assert [round_["input"] for round_ in stored] == [
        {
            "type": "asszorti_hand",
            "declarer": 1,
            "contract": "1",
            "trumps": "diamonds",
            "tricks": [2, 7, 2],
            "kontra": "none",
            "arrivazs": None,
        }
    ]
    sheet = api(server, "GET", f"/v1/matches/{match_id}/sheet", token).json()
    assert rows(page) == [["1", "0", "18", "0"]]
    assert nets(page) == [[signed(net) for net in sheet["rows"][0]["net"]]]
    # The form is empty again, and Tab would land on the first declarer.
    assert page.evaluate(GROUP, "declarer") | {"label": ""} == {
        "stops": ["0"],
        "checked": [],
        "group": "radiogroup",
        "label": "",
    }
    phone.check_clean()


def test_a_disabled_choice_is_skipped_by_the_arrows(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    phone = new_phone(phones, browser, server)
    page = phone.open(created["tokens"]["links"]["host"])
    page.wait_for_selector("#hand")
    page.click('button.choice[data-field="trumps"][data-value="none"]')
    page.check("#arrivazs")
    # Without trumps an idegen arrivázs cannot be: the arrows pass it by.
    kind = 'button.choice[data-field="arrivazs_kind"]'
    expect(page.locator(f'{kind}[data-value="idegen"]')).to_be_disabled()
    page.locator(f'{kind}[data-value="own"]').focus()
    assert press(page, "ArrowRight") == "arrivazs_kind:own"
    assert press(page, "End") == "arrivazs_kind:own"
    assert page.evaluate(GROUP, "arrivazs_kind")["stops"] == ["own"]
    phone.check_clean()
