"""Lighthouse's mobile preset on the web page: the start page and a player's table
opened from a join link (``make lighthouse``; docs/web.md, "Lighthouse").

Starts its own server (uvicorn, one worker, on a temporary SQLite database migrated
to head), creates an Asszorti match through the API, and runs the Lighthouse pinned in
tools/lighthouse/ against Debian's Chromium for each page. Prints each page's scores
against the targets and writes the reports (HTML and JSON) to build/lighthouse/.
Exits 1 when a score is under its target.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.serving import UVICORN_FLAGS  # noqa: E402

LIGHTHOUSE = ROOT / "tools" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
OUT = ROOT / "build" / "lighthouse"
HOST = "127.0.0.1"
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
# Headless, as root, on a machine whose only network is loopback: no background
# connections for Chromium to make (they would be refused, many at a time).
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync "
    "--disable-default-apps --disable-extensions --metrics-recording-only --mute-audio"
)
TARGETS = {"performance": 95, "accessibility": 100}
READY_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Scores:
    page: str
    scores: dict[str, int]
    cls: float
    report: Path
    spread: list[int] = field(default_factory=list)  # every run's performance score


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def migrate(url: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


def serve(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "uvicorn", "app.main:app", *UVICORN_FLAGS]
    command += ["--host", HOST, "--port", str(port), "--workers", "1", "--no-access-log"]
    env = {**os.environ, "DATABASE_URL": url}
    with log.open("wb") as out:
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped at start-up; see {log}")
        try:
            if httpx.get(f"http://{HOST}:{port}/healthz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    stop(server)
    raise SystemExit(f"the server did not answer within {READY_TIMEOUT_S:.0f} s; see {log}")


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def warm_up(origin: str, created: dict[str, Any]) -> None:
    """Ask once for what the pages ask for: a server in use has its first requests
    behind it (imports, compiled statements), and Lighthouse simulates the load from
    the server's observed answer times."""
    token = created["tokens"]["players"][0]
    base = f"{origin}/v1/matches/{created['id']}"
    with httpx.Client(timeout=10) as client:
        page = client.get(f"{origin}/")
        page.raise_for_status()
        for asset in re.findall(r'(?:href|src)="(/app/[^"]+)"', page.text):
            client.get(origin + asset)
        headers = {"Authorization": f"Bearer {token}"}
        for path in ("/me", "", "/sheet"):
            client.get(base + path, headers=headers).raise_for_status()


def audit(page: str, url: str, workdir: Path) -> Scores:
    """One Lighthouse run, mobile preset (its default), its reports written to workdir."""
    base = workdir / page
    profile = workdir / "profile"
    command = [
        str(LIGHTHOUSE),
        url,
        "--only-categories=performance,accessibility",
        "--output=json",
        "--output=html",
        f"--output-path={base}",
        f"--chrome-flags={CHROME_FLAGS} --user-data-dir={profile}",
        "--quiet",
    ]
    env = {**os.environ, "CHROME_PATH": CHROME}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    shutil.rmtree(profile, ignore_errors=True)
    report = base.with_name(f"{page}.report.json")
    if done.returncode != 0 or not report.exists():
        raise SystemExit(f"lighthouse failed on {page}:\n{done.stderr[-4000:]}")
    result = json.loads(report.read_text())
    scores = {
        name: round(100 * (category["score"] or 0))
        for name, category in result["categories"].items()
    }
    cls = float(result["audits"]["cumulative-layout-shift"]["numericValue"])
    return Scores(page, scores, cls, base.with_name(f"{page}.report.html"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per page; the median counts (default 3)"
    )
    args = parser.parse_args(argv)
    if not LIGHTHOUSE.exists():
        raise SystemExit(f"{LIGHTHOUSE} is missing: make lighthouse installs it")
    if not Path(CHROME).exists():
        raise SystemExit(f"{CHROME} is missing: apt-get install chromium (or set CHROME_PATH)")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as tmp:
        url = f"sqlite:///{tmp}/lighthouse.db"
        migrate(url)
        port = free_port()
        server = serve(url, port, OUT / "server.log")
        try:
            origin = f"http://{HOST}:{port}"
            created = httpx.post(
                f"{origin}/v1/matches",
                json={"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
                timeout=10,
            )
            created.raise_for_status()
            join = origin + created.json()["tokens"]["links"]["players"][0]
            warm_up(origin, created.json())
            pages = {"home": origin + "/", "match": join}
            results: list[Scores] = []
            for page, address in pages.items():
                runs = []
                for run in range(args.runs):
                    workdir = Path(tmp) / f"{page}-{run}"
                    workdir.mkdir()
                    runs.append(audit(page, address, workdir))
                # The median run by performance (the score a loaded machine moves most);
                # its reports are the ones kept.
                runs.sort(key=lambda r: r.scores.get("performance", 0))
                median = runs[len(runs) // 2]
                for kind in ("json", "html"):
                    kept = OUT / f"{page}.report.{kind}"
                    shutil.copyfile(median.report.with_suffix(f".{kind}"), kept)
                spread = [r.scores.get("performance", 0) for r in runs]
                results.append(
                    Scores(page, median.scores, median.cls, OUT / f"{page}.report.html", spread)
                )
        finally:
            stop(server)
    failed = False
    for result in results:
        line = [f"{result.page:6}"]
        for name, target in TARGETS.items():
            score = result.scores.get(name, 0)
            failed |= score < target
            mark = "ok" if score >= target else "UNDER"
            line.append(f"{name} {score} (target >= {target}, {mark})")
        line.append(f"CLS {result.cls:.3f}")
        if len(result.spread) > 1:
            line.append(f"(performance of each run: {', '.join(map(str, result.spread))})")
        print("  ".join(line))
        print(f"       report: {result.report.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
