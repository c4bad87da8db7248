"""The README's curl walkthrough, run as written against a live server.

Every ``# => X`` line in the walkthrough must be printed, in order, by the
commands before it; every command must succeed (the script runs with ``set -e``
and ``pipefail``, and the commands use ``curl -f`` where an error is not the
point).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, migrate
from tests.live import LiveServer

README = ROOT / "README.md"


def walkthrough() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## A match through curl") : text.index("## Documentation")]
    return "\n".join(re.findall(r"```sh\n(.*?)```", section, flags=re.S))


def expected_lines(script: str) -> list[str]:
    return [line[len("# => ") :] for line in script.splitlines() if line.startswith("# => ")]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    url = f"sqlite:///{tmp_path}/readme.db"
    migrate(url)
    with LiveServer(url, workers=1) as live:
        yield live


def test_the_readme_walkthrough_runs_as_written(server: LiveServer, tmp_path: Path) -> None:
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {missing} to run the README walkthrough")
        pytest.skip(f"needs {missing}")
    script = walkthrough()
    assert "API=http://127.0.0.1:${PORT:-8000}" in script  # the port follows PORT
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script],
        cwd=tmp_path,
        env={**os.environ, "PORT": str(server.port)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    printed = result.stdout.splitlines()
    expected = expected_lines(script)
    assert len(expected) >= 10
    # The tokens went to a temporary directory, not the working one.
    assert not [p.name for p in tmp_path.iterdir() if p.suffix == ".json"]
    position = 0
    for line in expected:
        assert line in printed[position:], f"README promises {line!r}; printed:\n{result.stdout}"
        position = printed.index(line, position) + 1
