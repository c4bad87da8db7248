"""How the page's assets are served: the service worker's version and shell, and (with
the page's speed-ups) their caching and compression headers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from app.api.routes.web import WEB_DIR, asset_version, build_shell


def test_the_version_changes_when_any_asset_does(tmp_path: Path) -> None:
    copy = tmp_path / "web"
    shutil.copytree(WEB_DIR, copy)
    before = asset_version(copy)
    assert asset_version(copy) == before  # the same files, the same version
    (copy / "i18n" / "en.json").write_text((copy / "i18n" / "en.json").read_text() + " ")
    assert asset_version(copy) != before
    assert build_shell(copy).version == asset_version(copy)


def test_the_worker_is_served_with_its_version_and_shell(client: TestClient) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    shell = build_shell(WEB_DIR)
    lines = response.text.splitlines()
    assert lines[0] == f"const VERSION = {json.dumps(shell.version)};"
    listed = json.loads(lines[1].removeprefix("const SHELL = ").removesuffix(";"))
    assert listed == list(shell.shell)
    assert listed[0] == "/"
    assert not [url for url in listed if url.startswith("/v1") or url.endswith("sw.js")]
    for url in listed:
        assert client.get(url).status_code == 200, url  # install fails if one is missing
