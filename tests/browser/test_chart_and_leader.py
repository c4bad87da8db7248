"""The evening as a chart and who leads at a glance (issue #31): one line per column of
the sheet, its points the running totals from the start, a label that reads the
totals, live updates, the leader's mark by the table's own rule (highest, lowest,
Alkort's leading team) and a colour per seat that tells 8 seats apart.

Every number is checked against the API's sheet, not against what the page computed.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.pages import LIVE_TIMEOUT_MS, Phone, api, create, new_phone
from tests.browser.test_accessible import sideways, too_small
from tests.live import LiveServer

POINT = re.compile(r"[ML](-?[\d.]+) (-?[\d.]+)")
RGB = re.compile(r"rgb\((\d+), (\d+), (\d+)\)")


def add_rounds(server: LiveServer, created: dict[str, Any], bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        response = api(
            server,
            "POST",
            f"/v1/matches/{created['id']}/rounds",
            created["tokens"]["host"],
            json=body,
        )
        assert response.status_code == 201, response.text


def sheet_of(server: LiveServer, created: dict[str, Any]) -> dict[str, Any]:
    response = api(server, "GET", f"/v1/matches/{created['id']}/sheet", created["tokens"]["host"])
    assert response.status_code == 200, response.text
    return dict(response.json())


def running(sheet: dict[str, Any]) -> list[list[int]]:
    """Each column's total at the start and after each round, from the API's rows."""
    series = []
    for column in range(len(sheet["totals"])):
        totals = [0]
        for row in sheet["rows"]:
            totals.append(totals[-1] + row["cells"][column])
        assert totals[-1] == sheet["totals"][column]
        series.append(totals)
    return series


def lines(page: Page, chart: str = "#chart") -> list[list[tuple[float, float]]]:
    paths = page.locator(f"{chart} path.chart-line")
    return [
        [(float(x), float(y)) for x, y in POINT.findall(paths.nth(i).get_attribute("d") or "")]
        for i in range(paths.count())
    ]


def check_lines_draw(page: Page, sheet: dict[str, Any], chart: str = "#chart") -> None:
    """One path per column, a point per round and the start, each point's height the
    same straight map of its running total, the rounds evenly spaced left to right."""
    drawn = lines(page, chart)
    series = running(sheet)
    assert len(drawn) == len(sheet["totals"])
    scale: dict[int, float] = {}  # a total -> its height; one map for every line
    for points, totals in zip(drawn, series, strict=True):
        assert len(points) == len(sheet["rows"]) + 1
        assert [x for x, _ in points] == sorted({x for x, _ in points})
        for (_, y), total in zip(points, totals, strict=True):
            assert scale.setdefault(total, y) == y
    heights = [scale[total] for total in sorted(scale)]
    assert heights == sorted(heights, reverse=True), "a higher total is drawn higher"


def label_of(sheet: dict[str, Any], columns: list[str], lead: str) -> str:
    totals = ", ".join(
        f"{name} {total}" for name, total in zip(columns, sheet["totals"], strict=True)
    )
    return f"{lead}: {totals}"


def leader_columns(page: Page) -> tuple[list[int], list[int]]:
    """The indexes of the marked column heads and of the marked totals."""
    heads = page.locator("#sheet thead th[scope=col]")
    totals = page.locator("#sheet tfoot tr.totals td")
    marked_heads = [
        i - 1
        for i in range(1, heads.count())
        if "leader" in (heads.nth(i).get_attribute("class") or "")
    ]
    marked_totals = [
        i for i in range(totals.count()) if "leader" in (totals.nth(i).get_attribute("class") or "")
    ]
    for cell in ("#sheet thead th.leader", "#sheet tfoot td.leader"):
        mark = page.locator(f"{cell} .lead-mark")
        assert mark.count() == len(marked_heads)
        if mark.count():
            assert mark.first.get_attribute("role") == "img"
            assert mark.first.get_attribute("aria-label") == "Leads"
            star = mark.first.evaluate("(el) => getComputedStyle(el, '::before').content")
            assert "★" in star and mark.first.is_visible()
    return marked_heads, marked_totals


def luminance(rgb: tuple[int, int, int]) -> float:
    channels = [c / 255 for c in rgb]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_on_white(rgb: tuple[int, int, int]) -> float:
    return 1.05 / (luminance(rgb) + 0.05)


def open_sheet(phones: list[Phone], browser: Browser, server: LiveServer, link: str) -> Page:
    phone = new_phone(phones, browser, server)
    page = phone.open(link)
    page.wait_for_selector("#live.on")
    return page


def test_the_chart_draws_the_running_totals_and_follows_another_phone(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    names = ["Anna", "Béla", "Csaba"]
    created = create(server, {"game": "own_table", "players": names})
    page = open_sheet(phones, browser, server, created["tokens"]["links"]["viewer"])
    assert page.locator("#chart-card").is_hidden()  # no round: nothing to draw

    add_rounds(
        server,
        created,
        [{"type": "own_points", "points": p} for p in ([5, -3, 2], [0, 4, -6], [12, -1, 3])],
    )
    page.wait_for_selector('#sheet tbody tr[data-round="3"]', timeout=LIVE_TIMEOUT_MS)
    sheet = sheet_of(server, created)
    expect(page.locator("#chart-card")).to_be_visible()
    check_lines_draw(page, sheet)
    svg = page.locator("#chart svg.chart-svg")
    assert svg.get_attribute("role") == "img"
    label = label_of(sheet, names, "Totals after round 3")
    assert label == "Totals after round 3: Anna 17, Béla 0, Csaba -1"
    assert svg.get_attribute("aria-label") == label
    assert svg.locator("title").text_content() == label
    # Negatives are drawn below the 0 line.
    zero = float(page.locator("#chart .chart-zero").get_attribute("y1") or "nan")
    assert lines(page)[2][2][1] > zero  # Csaba after round 2: -4
    # The legend names each line beside its total; the leader's star is the CSS's.
    assert page.locator("#chart .chart-legend li").all_text_contents() == [
        "Anna 17",
        "Béla 0",
        "Csaba -1",
    ]

    # Another phone adds a round: the chart follows without a reload.
    add_rounds(server, created, [{"type": "own_points", "points": [-20, 1, 30]}])
    expect(svg).to_have_attribute(
        "aria-label", "Totals after round 4: Anna -3, Béla 1, Csaba 29", timeout=LIVE_TIMEOUT_MS
    )
    check_lines_draw(page, sheet_of(server, created))
    assert leader_columns(page) == ([2], [2])

    # Folded away, it stays folded through the next live redraw.
    page.click("#chart-card > summary")
    add_rounds(server, created, [{"type": "own_points", "points": [1, 1, 1]}])
    page.wait_for_selector('#sheet tbody tr[data-round="5"]', timeout=LIVE_TIMEOUT_MS)
    assert page.locator("#chart-card").get_attribute("open") is None
    assert page.locator("#chart").is_hidden()
    phones[0].check_clean()


def test_the_leader_is_marked_by_the_tables_rule(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    names = ["Anna", "Béla", "Csaba", "Dóra"]
    rounds = [{"type": "own_points", "points": p} for p in ([3, 10, 0, 5], [4, 2, 1, 8])]
    # Highest wins: Béla and Dóra have 12 and 13; Dóra leads.
    highest = create(server, {"game": "own_table", "players": names})
    add_rounds(server, highest, rounds)
    page = open_sheet(phones, browser, server, highest["tokens"]["links"]["viewer"])
    assert sheet_of(server, highest)["totals"] == [7, 12, 1, 13]
    assert leader_columns(page) == ([3], [3])
    # Lowest wins (Hearts): Csaba, with 1, leads.
    lowest = create(
        server, {"game": "own_table", "players": names, "settings": {"lowest_wins": True}}
    )
    add_rounds(server, lowest, rounds)
    page = open_sheet(phones, browser, server, lowest["tokens"]["links"]["viewer"])
    assert leader_columns(page) == ([2], [2])
    # All level: nobody leads.
    level = create(server, {"game": "own_table", "players": names})
    add_rounds(server, level, [{"type": "own_points", "points": [2, 2, 2, 2]}])
    page = open_sheet(phones, browser, server, level["tokens"]["links"]["viewer"])
    assert leader_columns(page) == ([], [])
    for phone in phones:
        phone.check_clean()


def test_alkort_draws_the_team_totals_and_the_target_and_marks_the_leading_team(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    created = create(
        server,
        {
            "game": "alkort",
            "players": ["Anna", "Béla", "Csaba", "Dóra"],
            "settings": {"target": 21},
        },
    )
    add_rounds(
        server,
        created,
        [
            {"type": "alkort_points", "team": 1, "points": 6},
            {"type": "alkort_points", "team": 0, "points": 5},
            {"type": "alkort_points", "team": 1, "points": 7},
        ],
    )
    page = open_sheet(phones, browser, server, created["tokens"]["links"]["viewer"])
    sheet = sheet_of(server, created)
    assert sheet["totals"] == [5, 13]
    check_lines_draw(page, sheet)
    label = label_of(sheet, ["Team 1", "Team 2"], "Totals after round 3, target 21")
    expect(page.locator("#chart svg.chart-svg")).to_have_attribute("aria-label", label)
    # The target's line sits above every total, labelled with the target.
    target_y = float(page.locator("#chart .chart-target").get_attribute("y1") or "nan")
    assert all(y > target_y for line in lines(page) for _, y in line)
    expect(page.locator("#chart .chart-target-label")).to_have_text("Target 21")
    assert leader_columns(page) == ([1], [1])
    phones[0].check_clean()


def test_eight_seats_get_eight_distinct_readable_colours_on_head_totals_and_lines(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    names = ["Anna", "Béla", "Csaba", "Dóra", "Ede", "Flóra", "Gábor", "Hanna"]
    created = create(server, {"game": "own_table", "players": names})
    add_rounds(server, created, [{"type": "own_points", "points": list(range(8))}])
    page = open_sheet(phones, browser, server, created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#chart")
    colours: list[dict[str, str]] = page.evaluate(
        """() => {
          const swatches = [...document.querySelectorAll('#sheet thead .swatch')];
          const totals = [...document.querySelectorAll('#sheet tfoot tr.totals td')];
          const bar = [...document.querySelectorAll('#reach-totals .reach-total strong')];
          const paths = [...document.querySelectorAll('#chart path.chart-line')];
          const probe = document.createElement('span');
          document.body.append(probe);
          const rgb = (colour) => {
            probe.style.color = colour;
            return getComputedStyle(probe).color;
          };
          const out = paths.map((path, i) => ({
            line: rgb(path.getAttribute('stroke')),
            dash: path.getAttribute('stroke-dasharray') || '',
            swatch: getComputedStyle(swatches[i]).backgroundColor,
            total: getComputedStyle(totals[i]).color,
            bar: getComputedStyle(bar[i]).color,
          }));
          probe.remove();
          return out;
        }"""
    )
    assert len(colours) == 8
    assert len({c["line"] for c in colours}) == 8, "a colour per seat"
    assert len({c["dash"] for c in colours}) == 8, "and a line pattern per seat"
    for colour in colours:
        assert colour["swatch"] == colour["line"] == colour["total"] == colour["bar"]
        match = RGB.fullmatch(colour["line"])
        assert match, colour
        rgb = (int(match[1]), int(match[2]), int(match[3]))
        assert contrast_on_white(rgb) >= 3, colour
    # Hanna (7 points) leads: marked on the sheet and in the bar of totals.
    assert leader_columns(page) == ([7], [7])
    expect(page.locator("#reach-totals .reach-total.leader")).to_contain_text("Hanna")
    expect(page.locator("#reach-totals .reach-total.leader .lead-mark")).to_have_count(1)
    assert sideways(page) <= 0
    assert too_small(page) == ([], [])
    phones[0].check_clean()


def test_asszorti_charts_the_sheet_totals_and_the_result_card_keeps_the_chart(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    names = ["Anna", "Berta", "Csaba"]
    created = create(server, {"game": "asszorti", "players": names})
    add_rounds(
        server,
        created,
        [
            {"type": "asszorti_amounts", "amounts": a}
            for a in ([-9, 18, -9], [12, -6, -6], [-3, -3, 6])
        ],
    )
    page = open_sheet(phones, browser, server, created["tokens"]["links"]["host"])
    sheet = sheet_of(server, created)
    check_lines_draw(page, sheet)
    lead = "Sheet totals after round 3, where a loss shows as 0 (see Owed)"
    expect(page.locator("#chart svg.chart-svg")).to_have_attribute(
        "aria-label", label_of(sheet, names, lead)
    )
    expect(page.locator("#chart figcaption")).to_contain_text("never fall below 0")
    best = max(sheet["totals"])
    assert (
        leader_columns(page)
        == ([i for i, total in enumerate(sheet["totals"]) if total == best],) * 2
    )
    assert too_small(page) == ([], [])

    page.click("#end")
    page.click("#confirm-yes")
    page.wait_for_selector("#result:not([hidden]) #result-chart")
    assert page.locator("#chart-card").is_hidden()  # the result card has it now
    check_lines_draw(page, sheet_of(server, created), "#result-chart")
    assert too_small(page) == ([], [])
    assert sideways(page) <= 0
    page.emulate_media(media="print")
    assert page.locator("#result-chart").is_visible()
    page.emulate_media(media="screen")
    phones[0].check_clean()
