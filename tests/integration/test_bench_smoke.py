"""``scripts/bench.py --quick`` runs end to end: real servers, wrk, every endpoint measured.

A smoke test of the benchmark harness, not of speed: it asserts that the run exits 0
(every request got the status it should) and that the JSON has a positive req/s for
every endpoint, at 32 connections and in the 8-connection pass the p99 targets are judged
on, and that every target was judged. No target has to PASS here; docs/performance.md says
how to read them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

ENDPOINTS = ("create_match", "post_round", "get_match", "get_sheet", "put_round", "mix")
TIMEOUT = 120  # seconds for the whole quick run; it took 55-80 on a 2-core machine


def test_quick_bench_measures_every_endpoint(tmp_path: Path) -> None:
    if shutil.which("wrk") is None:
        message = "wrk is not installed (apt-get install -y wrk, or make bench as root)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: required under CI")
        pytest.skip(message)
    output = tmp_path / "bench.json"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench.py"),
            "--quick",
            "--db",
            "sqlite",
            "--duration",
            "1",
            "--no-resilience",  # they add about 45 s, most of it a 5,000-round pre-fill
            "--output",
            str(output),
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stdout[-6000:]}\n{run.stderr[-6000:]}"
    results = json.loads(output.read_text())
    sqlite = results["databases"]["sqlite"]
    assert sqlite["baseline"]["rps"] > 0
    for name in ENDPOINTS:
        measured = sqlite["endpoints"][name]
        assert measured["rps"] > 0, name
        assert measured["unexpected"] == 0, (name, measured["statuses"])
    assert len(sqlite["mix"]["runs"]) == 3
    assert all(run["rss_total_kib"] > 0 for run in sqlite["mix"]["runs"])
    low_load = sqlite["low_load"]
    assert low_load["connections"] == 8
    for name in ENDPOINTS:
        measured = low_load["endpoints"][name]
        assert measured["connections"] == 8, name
        assert measured["rps"] > 0, name
        assert measured["unexpected"] == 0, (name, measured["statuses"])
    for name in ("post_round", "get_match"):  # bench/same_sql_app.py: the stack's own cost
        measured = sqlite["same_sql"][name]
        assert measured["rps"] > 0, name
        assert measured["unexpected"] == 0, (name, measured["statuses"])
        assert measured["ratio_to_bare"] > 0, name
    judged = {target["name"] for target in sqlite["targets"]}
    assert {
        "POST round / the same SQL alone, 32 connections",
        "GET match / the same SQL alone, 32 connections",
    } <= judged
    assert {f"p99 {name}, 8 connections" for name in ENDPOINTS} <= judged
    assert all(target["pass"] is not None for target in sqlite["targets"])
    # The targets as docs/performance.md shows them, beside the JSON.
    table = output.with_suffix(".md").read_text()
    assert "| sqlite | POST round / the same SQL alone, 32 connections |" in table
    assert table.count("| sqlite |") == len(sqlite["targets"])
