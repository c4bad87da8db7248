"""The metrics an operator scrapes: off by default; when on, requests by route and
status with their latency, the database's turns and units, replays and rate-limit
refusals, in Prometheus' text format."""

from __future__ import annotations

import re
import uuid
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table
from tests.api.test_operational import _clear_of_a_window_edge

MATCH_BODY = {"game": "asszorti", "players": PLAYERS}


def _sample(page: str, name: str, **labels: str) -> float:
    """The value of one sample of the page (0 when it is not there yet)."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    pattern = rf"^{re.escape(name)}(\{{{re.escape(wanted)}\}})? (\S+)$" if labels else None
    for line in page.splitlines():
        if labels:
            assert pattern is not None
            found = re.match(pattern, line)
            if found and found.group(1):
                return float(found.group(2))
        elif line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def test_metrics_are_off_by_default(client: Any) -> None:
    assert client.get("/metrics").status_code == 404


def test_metrics_count_requests_units_replays_and_refusals(database_url: str) -> None:
    _clear_of_a_window_edge()
    settings = Settings(
        database_url=database_url, metrics_enabled=True, rate_limit_matches_per_minute=2
    )
    with TestClient(create_app(settings), client=(f"203.0.113.{uuid.uuid4().int % 200}", 1)) as c:
        before = c.get("/metrics").text
        table = Table(c, MATCH_BODY)
        route = "/v1/matches/{match_id}"
        for _ in range(3):
            assert table.get().status_code == 200
        key = {"Idempotency-Key": str(uuid.uuid4())}
        assert c.post("/v1/matches", json=MATCH_BODY, headers=key).status_code == 201
        assert c.post("/v1/matches", json=MATCH_BODY, headers=key).status_code == 201
        assert c.post("/v1/matches", json=MATCH_BODY).status_code == 429
        reissued = c.post(table.url + "/tokens", json={"role": "viewer"}, headers=table.auth())
        assert reissued.status_code == 200  # a write that locks its match
        assets = c.app.state.web_shell.assets_url
        assert c.get(f"{assets}/app.js").status_code == 200
        assert c.get("/no-such-page").status_code == 404
        page = c.get("/metrics")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/plain")
    after = page.text

    def grew(name: str, **labels: str) -> float:
        return _sample(after, name, **labels) - _sample(before, name, **labels)

    assert grew("squarescores_requests_total", route=route, method="GET", status="200") == 3
    assert (
        grew("squarescores_requests_total", route="/v1/matches", method="POST", status="429") == 1
    )
    assert grew("squarescores_request_duration_seconds_count", route=route, method="GET") == 3
    assert grew("squarescores_idempotent_replays_total") == 1
    assert grew("squarescores_rate_limited_total", limit="matches created from one client") == 1
    assert grew("squarescores_unit_of_work_seconds_count", kind="read") >= 3
    assert grew("squarescores_unit_of_work_seconds_count", kind="write") >= 3
    assert "squarescores_open_streams" in after
    assert "squarescores_database_turn_wait_seconds" in after
    assert grew("squarescores_database_lock_wait_seconds_count") >= 1
    # A mount's answers under its path; only what nothing took is unmatched.
    assert grew("squarescores_requests_total", route=f"{assets}/*", method="GET", status="200") == 1
    assert grew("squarescores_requests_total", route="unmatched", method="GET", status="200") == 0
    assert grew("squarescores_requests_total", route="unmatched", method="GET", status="404") == 1
    # Routes are counted by template: no match id (nor token) ever becomes a label.
    assert table.id not in after
