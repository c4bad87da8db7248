"""``scripts/bench_live.py --quick --db sqlite`` runs end to end, with small numbers.

A smoke test of the live-stream benchmark harness, not of speed: real one-worker servers
(one, then two on the same database), streams opened, rounds written, and the run exits 0
with every acknowledged write delivered to every stream of its match, in both layouts, and
positive latency figures; the page's crowd has every change on every phone, from the
events alone (no phone reads the match again). No target has to PASS here; the req/s
with and without streams (wrk) are checked when wrk is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

STREAMS, MATCHES, RATE, DURATION = 40, 10, 20, 3  # 60 writes, 4 streams a match
SCALE_STREAMS, CROWD = 40, 20  # the scale phase: 10 matches, and 20 streams on one
PAGE_CROWD, PAGE_CHANGES = 20, 3  # the page's crowd: 20 phones on one match, 3 changes
FLOOD, HOLD, CAP = 20, 600, 500  # the flood: 20 clients of one address; 600 streams of
# another, past the default per-address cap
TIMEOUT = 300  # seconds for the whole run: about 80 on a quiet 2-core machine, 160 on a busy one


def test_quick_live_bench_delivers_every_write(tmp_path: Path) -> None:
    output = tmp_path / "live.json"
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench_live.py"),
            "--quick",
            "--db",
            "sqlite",
            "--streams",
            str(STREAMS),
            "--matches",
            str(MATCHES),
            "--rate",
            str(RATE),
            "--duration",
            str(DURATION),
            "--throughput-duration",
            "1",
            "--scale-streams",
            str(SCALE_STREAMS),
            "--crowd",
            str(CROWD),
            "--page-crowd",
            str(PAGE_CROWD),
            "--page-changes",
            str(PAGE_CHANGES),
            "--flood-streams",
            str(FLOOD),
            "--flood-seconds",
            "1",
            "--flood-hold",
            str(HOLD),
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
    assert results["failures"] == {}
    sqlite = results["databases"]["sqlite"]
    writes = RATE * DURATION
    assert set(sqlite["layouts"]) == {"1", "2"}
    for workers, layout in sqlite["layouts"].items():
        assert layout["streams"] == STREAMS, workers
        assert layout["streams_open_at_end"] == STREAMS, (workers, layout["events"])
        assert layout["writes"]["acknowledged"] == writes, (workers, layout["writes"])
        events = layout["events"]
        # every acknowledged write reached every stream of its match, once
        assert events["expected"] == writes * STREAMS // MATCHES, workers
        assert events["delivered"] == events["expected"], (workers, events)
        assert events["missing"] == 0 and events["unexpected"] == 0, (workers, events)
        latency = layout["fanout_ms"]
        assert latency["count"] == events["expected"], workers
        # From the write's start: every event comes after it.
        assert latency["min"] > 0, (workers, latency)
        assert latency["max"] >= latency["p99"] >= latency["p50"], (workers, latency)
        assert layout["memory"]["rss_kib_open"] > 0, workers
        assert layout["cpu"]["stream_worker_us_per_event"] > 0, workers
    assert {t["name"] for t in sqlite["targets"]} >= {
        "fan-out p99, 1 worker",
        "fan-out p99, 2 workers",
        "every write at every stream, 1 worker",
        "every write at every stream, 2 workers",
    }
    scale = sqlite["scale"]
    assert scale["streams"] == SCALE_STREAMS and scale["open_failed"] == 0
    assert scale["writes"]["acknowledged"] > 0 and scale["writes"]["missing"] == 0, scale
    assert scale["crowd"]["expected"] == CROWD * 10 and scale["crowd"]["missing"] == 0, scale
    assert scale["storm"]["failed"] == 0 and scale["storm"]["seconds"] > 0, scale
    assert scale["memory"]["rss_kib_open"] > 0 and scale["idle"]["worker_cores"] >= 0
    assert scale["idle"]["probes"]["healthz"]["count"] > 0
    assert any(t["name"].startswith("scale: memory per idle stream") for t in sqlite["targets"])
    page = sqlite["page_crowd"]
    assert page["phones"] == PAGE_CROWD and page["open_failed"] == 0, page
    assert page["changes"] == PAGE_CHANGES and page["expected"] == PAGE_CROWD * PAGE_CHANGES
    assert page["missing"] == 0 and page["errors"] == {}, page
    assert page["reads"] == 0, page  # each phone drew every change from its event
    assert page["latency_ms"]["count"] == page["expected"] and page["latency_ms"]["min"] > 0
    assert page["last_phone_ms"]["count"] == PAGE_CHANGES, page
    assert any(t["name"].startswith("page: a write -> the last of") for t in sqlite["targets"])
    flood = sqlite["flood"]
    assert flood["flood"]["answers"].get("200", 0) > 0, flood
    assert set(flood["flood"]["other_statuses"]) == {"200"}, flood
    assert flood["flood"]["other_opening_ms"]["count"] > 0, flood
    assert flood["hold"]["answers"] == {"200": CAP, "429": HOLD - CAP}, flood
    assert flood["hold"]["after"]["open_files"] > 0 and flood["hold"]["after"]["rss_kib"] > 0
    assert any(t["name"].startswith("flood: another address's opening") for t in sqlite["targets"])
    if shutil.which("wrk") is not None:
        rows = sqlite["throughput"]["rows"]
        for name in ("post_round", "get_match"):
            assert rows[name]["rps_no_streams"] > 0, name
            assert rows[name]["rps_streams_open"] > 0, name
        assert sqlite["throughput"]["clean"]
    else:
        assert sqlite["throughput"] is None
