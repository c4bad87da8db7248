"""How the page's assets are served: the service worker's version and shell, and (with
the page's speed-ups) their caching and compression headers."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.middleware.gzip import GZipMiddleware

from app.api.routes.web import (
    CONTENT_SECURITY_POLICY,
    IMMUTABLE,
    WEB_DIR,
    asset_version,
    build_shell,
    module_graph,
)


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


def test_the_page_preloads_every_module_of_the_graph_and_the_strings(client: TestClient) -> None:
    shell = build_shell(WEB_DIR)
    response = client.get("/", headers={"Accept-Language": "hu-HU,hu;q=0.9,en;q=0.8"})
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["vary"] == "Accept-Language, Accept-Encoding"
    preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', response.text)
    assert preloaded == [f"{shell.assets_url}/{module}" for module in shell.modules]
    # Every module but the entry, and not the QR library (imported only when drawn);
    # table-prefetch.js is a classic script of its own, loaded before the modules.
    on_disk = {p.relative_to(WEB_DIR).as_posix() for p in WEB_DIR.rglob("*.js")}
    assert set(shell.modules) == on_disk - {
        "app.js",
        "sw.js",
        "vendor/qrcode.js",
        "table-prefetch.js",
    }
    assert response.text.index(f'<script async src="{shell.assets_url}/table-prefetch.js">') < min(
        response.text.index(url) for url in preloaded
    )
    assert (
        f'<link rel="preload" href="{shell.assets_url}/i18n/hu.json" as="fetch" crossorigin>'
        in (response.text)
    )
    assert f'<script type="module" src="{shell.assets_url}/app.js">' in response.text
    assert f'<link rel="stylesheet" href="{shell.assets_url}/app.css">' in response.text
    assert '"/app/' not in response.text.replace(f'"{shell.assets_url}/', "")
    for url in preloaded:
        assert client.get(url).status_code == 200, url

    again = client.get("/", headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 200  # another language: another page
    same = client.get(
        "/", headers={"If-None-Match": response.headers["etag"], "Accept-Language": "hu"}
    )
    assert same.status_code == 304
    assert same.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "i18n/en.json" in client.get("/", headers={"Accept-Language": "de, xx"}).text


def test_versioned_assets_are_immutable_and_gzipped(client: TestClient) -> None:
    shell = build_shell(WEB_DIR)
    response = client.get(f"{shell.assets_url}/app.js", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["cache-control"] == IMMUTABLE
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.content == (WEB_DIR / "app.js").read_bytes()  # httpx decodes it
    assert int(response.headers["content-length"]) < (WEB_DIR / "app.js").stat().st_size / 2
    strings = client.get(f"{shell.assets_url}/i18n/ru.json", headers={"Accept-Encoding": "gzip"})
    assert strings.headers["content-encoding"] == "gzip"
    assert strings.headers["cache-control"] == IMMUTABLE
    icon = client.get(f"{shell.assets_url}/icons/icon-512.png", headers={"Accept-Encoding": "gzip"})
    assert icon.headers["cache-control"] == IMMUTABLE
    assert "content-encoding" not in icon.headers  # already compressed

    # Without a version (links from outside the page): revalidated each time.
    plain = client.get("/app/app.js")
    assert plain.status_code == 200 and plain.headers["cache-control"] == "no-cache"
    # Another version's URL is not answered with this version's content.
    assert client.get("/app/000000000000/app.js").status_code == 404


def test_the_page_is_gzipped_for_a_browser_that_takes_it(client: TestClient) -> None:
    plain = client.get("/", headers={"Accept-Encoding": "identity"})
    zipped = client.get("/", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.text == plain.text  # (httpx decodes it)
    assert int(zipped.headers["content-length"]) < len(plain.content) / 2
    # Each encoding its own tag, each revalidated as itself.
    assert zipped.headers["etag"] != plain.headers["etag"]
    for answer, encoding in ((plain, "identity"), (zipped, "gzip")):
        again = client.get(
            "/", headers={"If-None-Match": answer.headers["etag"], "Accept-Encoding": encoding}
        )
        assert again.status_code == 304
    other = client.get("/", headers={"If-None-Match": plain.headers["etag"]})
    assert other.status_code == 200


def test_gzip_is_only_on_the_page_assets(client: TestClient) -> None:
    app = client.app
    assert isinstance(app, FastAPI)
    # The API's streams (text/event-stream) must not be buffered by a compressor.
    assert GZipMiddleware not in [middleware.cls for middleware in app.user_middleware]
    games = client.get("/v1/games", headers={"Accept-Encoding": "gzip"})
    assert games.status_code == 200
    assert "content-encoding" not in games.headers


def test_the_module_graph_follows_static_imports_only(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "app.js").write_text(
        'import { a,\n  b } from "./a.js";\nimport "./lib/c.js";\n'
        'const later = () => import("./lazy.js");\n// import x from "./a.js" in a comment\n'
    )
    (tmp_path / "a.js").write_text("export { c } from './lib/c.js';\nexport const a = 1, b = 2;\n")
    (tmp_path / "lib" / "c.js").write_text('import { a } from "../a.js";\nexport const c = a;\n')
    (tmp_path / "lazy.js").write_text("export default 1;\n")
    assert module_graph(tmp_path) == ["a.js", "lib/c.js"]
