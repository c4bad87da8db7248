"""A re-issued token is refused at once by every worker, not only the one that re-issued it.

Two servers (one worker each, so which process answers is known) share one database,
as the workers of one deployment do: both serve a token; the host re-issues it
through the first; the second refuses the old token on its very next request.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.integration.test_live_table import Follower
from tests.live import LiveServer
from tests.live import live_database_url as live_database_url


def test_a_reissued_token_is_refused_by_the_other_worker_at_once(live_database_url: str) -> None:
    with (
        LiveServer(live_database_url, workers=1) as first,
        LiveServer(live_database_url, workers=1) as second,
    ):
        created = httpx.post(
            f"{first.url}/v1/matches",
            json={"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
        ).json()
        match = f"/v1/matches/{created['id']}"
        old = {"Authorization": f"Bearer {created['tokens']['players'][2]}"}
        host = {"Authorization": f"Bearer {created['tokens']['host']}"}
        for server in (first, second):  # both have served the token
            assert httpx.get(server.url + match, headers=old).status_code == 200
        issued = httpx.post(
            first.url + match + "/tokens", json={"role": "player", "seat": 2}, headers=host
        )
        assert issued.status_code == 200, issued.text
        refused = httpx.get(second.url + match, headers=old)
        assert refused.status_code == 401
        assert refused.json()["code"] == "unauthenticated"
        new = {"Authorization": f"Bearer {issued.json()['token']}"}
        assert httpx.get(second.url + match, headers=new).status_code == 200


MATCHES = 8  # each a race of its own: streams opening while its viewer token is re-issued
OPENERS = 4  # threads opening streams at once, per match
STREAMS_EACH = 5  # streams each opens, back to back


def _race(writer: LiveServer, reader: LiveServer, created: dict[str, Any]) -> list[Follower]:
    """Streams opened with the match's viewer token, by OPENERS threads at once, while
    the host re-issues that token on the other server; then a round is entered."""
    match = f"/v1/matches/{created['id']}"
    viewer = {"Authorization": f"Bearer {created['tokens']['viewer']}"}
    host = {"Authorization": f"Bearer {created['tokens']['host']}"}
    followers: list[Follower] = []
    start = threading.Barrier(OPENERS + 1)

    def open_streams() -> None:
        start.wait()
        for _ in range(STREAMS_EACH):
            followers.append(Follower(f"{reader.url}{match}/events", viewer))

    openers = [threading.Thread(target=open_streams) for _ in range(OPENERS)]
    for opener in openers:
        opener.start()
    start.wait()
    while len(followers) < 2:  # the re-issue lands among the openings
        time.sleep(0.001)
    reissued = httpx.post(f"{writer.url}{match}/tokens", json={"role": "viewer"}, headers=host)
    assert reissued.status_code == 200, reissued.text
    for opener in openers:
        opener.join()
    entered = httpx.post(
        f"{writer.url}{match}/rounds",
        json={"type": "asszorti_amounts", "amounts": [2, -1, -1]},
        headers=host,
    )
    assert entered.status_code == 201, entered.text
    return followers


def test_no_stream_of_a_replaced_token_gets_a_later_change(live_database_url: str) -> None:
    """Streams opened with a viewer's token while the host re-issues it, on another
    worker, in several matches at once: each is refused (401) or ends with `revoked`,
    and none is sent the round entered after the re-issue, however its opening and the
    re-issue interleave."""
    with (
        LiveServer(live_database_url, workers=1) as writer,
        LiveServer(live_database_url, workers=1) as reader,
    ):
        tables = [
            httpx.post(
                f"{writer.url}/v1/matches",
                json={"game": "asszorti", "players": ["Anna", "Berta", "Csaba"]},
            ).json()
            for _ in range(MATCHES)
        ]
        with ThreadPoolExecutor(MATCHES) as pool:
            races = list(pool.map(lambda created: _race(writer, reader, created), tables))
        followers = [follower for race in races for follower in race]
        refused = 0
        for follower in followers:
            kinds = [kind for kind, _ in follower.kinds_until_end()]
            if follower.status == 401:
                refused += 1
                continue
            assert follower.status == 200
            assert "round_entered" not in kinds, kinds
            assert kinds[-1] == "revoked", kinds
        assert len(followers) == MATCHES * OPENERS * STREAMS_EACH
        assert refused < len(followers)  # streams opened before the re-issue were revoked
