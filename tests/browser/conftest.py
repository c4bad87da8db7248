"""Headless Chromium for the browser tests: Debian's ``chromium`` package, driven by
Playwright (no browser download), and a real server for it to open.

Skipped when /usr/bin/chromium is missing, except under CI (``CI=true``), where that
fails the run: `make test` installs it (scripts/install_test_tools.sh).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.browser.pages import Phone
from tests.conftest import migrate
from tests.live import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
# No background networking: this machine's closed network refuses it, noisily.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is required under CI (make test installs it)")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One uvicorn worker on a fresh migrated SQLite file, for one test module."""
    url = f"sqlite:///{tmp_path_factory.mktemp('browser') / 'browser.db'}"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


@pytest.fixture
def phones(browser: Browser, server: LiveServer) -> Iterator[list[Phone]]:
    """The phones a test opens (pages.new_phone), closed after it."""
    opened: list[Phone] = []
    yield opened
    for phone in opened:
        phone.close()
