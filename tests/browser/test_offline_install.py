"""The page installs and opens with no network: the manifest, the service worker that
keeps the shell, an offline reload that shows the page with its outbox, and API answers
that never come from the worker's cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from app.api.routes.web import (
    CONTENT_SECURITY_POLICY,
    MANIFEST_MEDIA_TYPE,
    WEB_DIR,
    asset_version,
    build_shell,
)
from tests.browser.pages import PHONE, RENDER_TIMEOUT_MS, api, create, go_offline
from tests.live import LiveServer

NAMES = ["Anna", "Berta", "Csaba"]
OUTBOX = "squarescores.outbox"
SEND_TIMEOUT_MS = 10_000
CACHE_PREFIX = "squarescores-"
CONTROLLED = "() => navigator.serviceWorker.controller !== null"
CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) urls.push(new URL(request.url).pathname);
  }
  return urls;
}"""


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A phone whose service worker runs (the shared Phone blocks them)."""
    opened = browser.new_context(service_workers="allow", viewport=PHONE, is_mobile=True)
    opened.set_default_timeout(RENDER_TIMEOUT_MS)
    yield opened
    opened.close()


def shell_version() -> str:
    return asset_version(WEB_DIR)


def outbox(page: Page) -> dict[str, Any]:
    return dict(json.loads(page.evaluate(f"localStorage.getItem('{OUTBOX}') || '{{}}'")))


def open_controlled(page: Page, url: str) -> None:
    """Open url and wait until the service worker controls the page."""
    page.goto(url)
    page.wait_for_function(CONTROLLED)


def test_the_manifest_is_served_as_a_manifest_and_names_the_app(server: LiveServer) -> None:
    assets = server.url + build_shell(WEB_DIR).assets_url
    html = httpx.get(server.url + "/", timeout=10).text
    assert (
        f'<link rel="manifest" href="{assets.removeprefix(server.url)}/manifest.webmanifest">'
        in html
    )
    response = httpx.get(assets + "/manifest.webmanifest", timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"] == MANIFEST_MEDIA_TYPE
    manifest = response.json()
    assert manifest["name"] == "SquareScores"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#")
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        served = httpx.get(f"{assets}/{icon['src']}", timeout=10)
        assert served.status_code == 200, icon["src"]
        assert served.headers["content-type"] == icon["type"], icon["src"]

    worker = httpx.get(server.url + "/sw.js", timeout=10)
    assert worker.status_code == 200
    assert worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["cache-control"] == "no-cache"  # a new version is seen at once
    assert worker.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "worker-src 'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_chromium_finds_the_page_installable(context: BrowserContext, server: LiveServer) -> None:
    page = context.new_page()
    open_controlled(page, server.url + "/")
    cdp = context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    # A test context is an incognito profile, where nothing installs: that says nothing
    # of the page. Anything else (no manifest, no icon, no worker) would be listed.
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]


def test_an_offline_reload_shows_the_page_and_keeps_the_outbox(
    context: BrowserContext, server: LiveServer
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # An old version's cache, from before this worker: its activation drops it.
    page.goto(server.url + "/app/icons/icon.svg")
    page.evaluate("caches.open('squarescores-old').then((old) => old.put('/', new Response('')))")
    open_controlled(page, server.url + created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    assert page.evaluate("caches.keys()") == [f"{CACHE_PREFIX}{shell_version()}"]

    # Offline: a round is kept in the outbox; then the page is reloaded, still offline.
    go_offline(context, page)
    for seat, amount in enumerate([-9, 18, -9]):
        page.fill(f'input[name="amount{seat}"]', str(amount))
    page.click("#add-round")
    expect(page.locator("#outbox li.outbox-item")).to_have_count(1)
    page.reload()
    expect(page.locator("header.bar .brand")).to_have_text("SquareScores")
    expect(page.locator("nav.crumbs a")).to_be_visible()  # the table's screen, not an error page
    expect(page.locator("#lang")).to_have_value("en")  # the strings came from the cache
    kept = outbox(page)[match_id]
    assert len(kept) == 1 and kept[0]["body"]["amounts"] == [-9, 18, -9]

    # Back online: the kept round is sent once, and the sheet shows it.
    context.set_offline(False)
    page.reload()
    page.wait_for_selector('#sheet tbody tr[data-round="1"]', timeout=SEND_TIMEOUT_MS)
    assert outbox(page) == {}
    match = api(server, "GET", f"/v1/matches/{match_id}", host_token).json()
    assert match["round_count"] == 1
    assert errors == []


def test_api_answers_are_never_kept_nor_answered_by_the_worker(
    context: BrowserContext, server: LiveServer
) -> None:
    created = create(server, {"game": "asszorti", "players": NAMES})
    match_id, host_token = created["id"], created["tokens"]["host"]
    page = context.new_page()
    served_by_worker: list[str] = []
    page.on(
        "response",
        lambda response: (
            served_by_worker.append(response.url)
            if "/v1/" in response.url and response.from_service_worker
            else None
        ),
    )
    open_controlled(page, server.url + created["tokens"]["links"]["players"][0])
    page.wait_for_selector("#live.on")
    page.reload()
    page.wait_for_function(CONTROLLED)
    page.wait_for_selector("#live.on")
    cached = page.evaluate(CACHED_URLS)
    assert "/" in cached and f"{build_shell(WEB_DIR).assets_url}/app.js" in cached
    assert not [url for url in cached if url.startswith("/v1")]
    assert served_by_worker == []

    # Offline, an API call fails as it would with no worker: nothing answers from a cache.
    context.set_offline(True)
    failed = page.evaluate(
        """async ([url, token]) => {
          try {
            await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
            return false;
          } catch {
            return true;
          }
        }""",
        [f"/v1/matches/{match_id}", host_token],
    )
    assert failed
    context.set_offline(False)
