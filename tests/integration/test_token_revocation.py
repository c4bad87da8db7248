"""A re-issued token is refused at once by every worker, not only the one that re-issued it.

Two servers (one worker each, so which process answers is known) share one database,
as the workers of one deployment do: both serve a token; the host re-issues it
through the first; the second refuses the old token on its very next request.
"""

from __future__ import annotations

import httpx

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
