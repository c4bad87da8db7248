"""``make bench``'s Markdown results (``bench/results/latest.md``): the targets, and below
them what each mechanism buys, with and without it in the same run, as
docs/performance.md shows them."""

from __future__ import annotations

from typing import Any

from scripts.bench import results_markdown


def _measurement(p50: float, p99: float, rps: float, *, disturbed: bool = False) -> dict[str, Any]:
    latency = {"p50": p50, "p75": p50, "p90": p99, "p99": p99}
    return {"latency_ms": latency, "rps": rps, "disturbed": disturbed}


def _results(mechanisms: dict[str, Any]) -> dict[str, Any]:
    target = {
        "name": "p99 mix, 8 connections",
        "value": 31.5,
        "unit": "ms",
        "target": "< 50 ms",
        "pass": True,
        "disturbed": False,
    }
    return {
        "started_at": "2026-12-04T14:00:00+00:00",
        "environment": {"git_commit": "0123456789abcdef", "git_dirty_paths": 0, "cpus": 2},
        "databases": {"sqlite": {"targets": [target], "mechanisms": mechanisms}},
        "failures": {},
    }


def test_each_mechanism_is_a_row_with_and_without_it() -> None:
    text = results_markdown(
        _results(
            {
                "gc_freeze": {
                    "what": "the mix, 8 connections",
                    "with": _measurement(3.04, 12.46, 1234.4),
                    "without": _measurement(3.21, 30.37, 1100.0),
                },
                "kept_fold_states": {
                    "what": "4 clients paging a 5000-round match",
                    "with": _measurement(5.0, 9.0, 700.0),
                    "without": _measurement(41.0, 88.0, 90.0, disturbed=True),
                },
            }
        )
    )
    targets, mechanisms = text.split("What a mechanism buys", 1)
    assert "| sqlite | p99 mix, 8 connections | 31.50 ms | < 50 ms | PASS |" in targets
    rows = [line for line in mechanisms.splitlines() if line.startswith("| sqlite |")]
    assert rows == [
        "| sqlite | gc_freeze | the mix, 8 connections | 3.0 / 3.2 | 12.5 / 30.4 | 1,234 / 1,100 |",
        "| sqlite | kept_fold_states (disturbed) | 4 clients paging a 5000-round match "
        "| 5.0 / 41.0 | 9.0 / 88.0 | 700 / 90 |",
    ]


def test_a_run_without_the_resilience_scenarios_writes_the_targets_only() -> None:
    text = results_markdown(_results({}))
    assert "| sqlite | p99 mix, 8 connections |" in text
    assert "What a mechanism buys" not in text
