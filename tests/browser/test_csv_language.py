"""The CSV a phone downloads is in the page's language: the page asks for it by
``?lang=`` (docs/web.md#words), and a language picked on the page is the one asked for."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, Request

from tests.browser.pages import Phone, api, create, new_phone
from tests.live import LiveServer


def download(page: Page) -> tuple[str, bytes]:
    """Tap Download CSV: the address the page asked for, and the file it saved."""
    asked: list[str] = []

    def record(request: Request) -> None:
        if "/sheet.csv" in request.url:
            asked.append(request.url)

    page.on("request", record)
    with page.expect_download() as download_info:
        page.click("#csv")
    page.remove_listener("request", record)
    [url] = asked
    return url, Path(download_info.value.path()).read_bytes()


def test_the_csv_is_downloaded_in_the_pages_language(
    browser: Browser, server: LiveServer, phones: list[Phone]
) -> None:
    players = ["Anna", "Berta", "Csaba"]
    body = {"game": "asszorti", "players": players, "settings": {"planned_deals": 1}}
    created = create(server, body)
    match_id = created["id"]
    host = created["tokens"]["host"]
    path = f"/v1/matches/{match_id}/sheet.csv"
    rounds = f"/v1/matches/{match_id}/rounds"
    entered = api(
        server, "POST", rounds, host, json={"type": "asszorti_amounts", "amounts": [18, -9, -9]}
    )
    assert entered.status_code == 201

    phone = new_phone(phones, browser, server, locale="ru-RU")
    page = phone.open(created["tokens"]["links"]["viewer"])
    page.wait_for_selector("#result:not([hidden])")  # decided by planned_deals
    assert page.evaluate("document.documentElement.lang") == "ru"
    url, saved = download(page)
    assert url == f"{server.url}{path}?lang=ru"
    assert saved == api(server, "GET", f"{path}?lang=ru", host).content
    assert saved.decode().splitlines()[0] == "сдача,сдающий,Anna,Berta,Csaba"
    assert saved.decode().splitlines()[-2:] == ["итого,,18,0,0", "долг,,0,9,9"]

    # The language picked at the top is the one the next download asks for.
    page.select_option("#lang", "hu")
    page.wait_for_function("() => document.documentElement.lang === 'hu'")
    url, saved = download(page)
    assert url == f"{server.url}{path}?lang=hu"
    assert saved.decode().splitlines()[0] == "leosztás,osztó,Anna,Berta,Csaba"
    phone.check_clean()
