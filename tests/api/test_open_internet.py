"""What a stranger on the open internet could read or make the service do: answers
that carry secrets stay out of caches, a browser sniffs no content type, the docs
pages run no inline code but their own and cannot be framed, and a database error
logs no parameter a client sent."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.api.deps import TICKET_LIMITS
from app.api.routes.docs import REDOC_STYLES
from app.db import repository
from app.db.models import RATE_LIMIT_WINDOW
from app.main import create_app
from app.services.auth import hash_secret
from app.settings import Settings
from tests.api.helpers import PLAYERS, Table
from tests.api.test_operational import _clear_of_a_window_edge
from tests.conftest import migrate

MATCH_BODY = {"game": "asszorti", "players": PLAYERS}


def test_answers_that_carry_a_token_are_never_stored(table: Table) -> None:
    key = {"Idempotency-Key": secrets.token_urlsafe(24)}
    created = table.client.post("/v1/matches", json=MATCH_BODY, headers=key)
    replayed = table.client.post("/v1/matches", json=MATCH_BODY, headers=key)
    assert replayed.headers["idempotent-replayed"] == "true"
    ticket = table.post("/events/tickets", who="viewer")
    reissued = table.post("/tokens", {"role": "viewer"})
    recovered = table.client.post(
        table.url + "/recover", json={"recovery_code": table.tokens["recovery"]}
    )
    for answer in (created, replayed, reissued, recovered, ticket):
        assert answer.status_code in (200, 201), answer.text
        assert answer.headers["cache-control"] == "no-store", answer.request.url
    # A read that carries no secret may be cached (revalidated by its ETag).
    assert "no-store" not in table.get().headers.get("cache-control", "")


def test_every_answer_says_nosniff(table: Table) -> None:
    for response in (
        table.get(),
        table.get("/sheet"),
        table.client.get("/v1/matches/nope"),
        table.client.post("/v1/matches", json={}),
        table.client.get("/openapi.json"),
        table.client.get("/docs"),
        table.client.get("/"),
        table.client.get("/healthz"),
    ):
        assert response.headers["x-content-type-options"] == "nosniff", response.request.url
        assert response.headers.get_list("x-content-type-options") == ["nosniff"]


@pytest.mark.parametrize("path", ["/docs/", "/redoc/", "/v1/games/", "/v1/matches/", "/app"])
def test_a_path_with_or_without_a_slash_is_no_redirect_to_a_forged_host(
    client: TestClient, path: str
) -> None:
    """Starlette's slash redirect took its Location from the Host header: a link to
    /docs/ on this service could send a browser to any host its sender named."""
    response = client.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
    assert response.status_code == 404, response.headers
    assert "location" not in response.headers
    assert response.headers["content-type"] == "application/problem+json"
    for page in ("/docs", "/redoc", "/docs/oauth2-redirect", "/", "/sw.js"):
        assert client.get(page, follow_redirects=False).status_code == 200, page


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/docs/oauth2-redirect"])
def test_the_docs_pages_run_only_their_own_inline_code_and_cannot_be_framed(
    client: Any, path: str
) -> None:
    page = client.get(path)
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "unsafe-eval" not in policy and "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert page.headers["x-frame-options"] == "DENY"
    # Each inline script and style of the page is allowed by its hash, and only those
    # (and on /redoc the two style elements ReDoc writes: the browser test checks them).
    for tag, directive in [("script", "script-src"), ("style", "style-src")]:
        allowed = re.search(rf"{directive} ([^;]*)", policy)
        assert allowed is not None
        inline = re.findall(rf"<{tag}>(.*?)</{tag}>", page.text, re.DOTALL)
        hashes = {
            "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
            for text in inline
        }
        written = REDOC_STYLES.split() if (path, tag) == ("/redoc", "style") else []
        assert set(allowed.group(1).split()) == {"'self'", *hashes, *written}


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_database_error_logs_no_parameter_a_client_sent(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, capsys: Any
) -> None:
    """A database that fails a request (here, one never migrated) logs the statement,
    never its parameters: they hold idempotency keys and client addresses."""
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path}/unmigrated.db"
    else:
        url = request.getfixturevalue("postgres").create()  # created, never migrated
    key = secrets.token_urlsafe(24)
    settings = Settings(database_url=url, rate_limit_matches_per_minute=5)
    with TestClient(create_app(settings)) as client:
        response = client.post("/v1/matches", json=MATCH_BODY, headers={"Idempotency-Key": key})
    assert response.status_code == 503
    logged = capsys.readouterr().err  # the app's log lines (JSON, on stderr)
    assert "[SQL:" in logged  # the failed statement was logged
    assert "parameters hidden" in logged
    assert "[parameters:" not in logged and key not in logged


def test_a_database_error_logs_no_row_value(
    postgres: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """PostgreSQL's error says what row failed (DETAIL: "Failing row contains (...)"),
    with its values: the players' names here. The log keeps the error, not them."""
    url = postgres.create()
    migrate(url)
    engine = create_engine(url)
    with engine.begin() as connection:  # a constraint no new match passes
        connection.execute(text('ALTER TABLE "match" ADD CONSTRAINT refuse_all CHECK (false)'))
    engine.dispose()
    name = f"Zsófia{secrets.token_hex(4)}"
    with TestClient(create_app(Settings(database_url=url))) as client:
        response = client.post("/v1/matches", json={**MATCH_BODY, "players": [name, "B", "C"]})
    assert response.status_code == 500
    assert response.json()["code"] == "internal_error"
    logged = capsys.readouterr().err
    assert "refuse_all" in logged  # the error was logged
    assert "DETAIL: (not logged" in logged
    assert name not in logged


@pytest.mark.parametrize(
    "key",
    [
        "create-1",
        "x" * 21,
        "0123456789abcdef012345!",
        "not a uuid at all, but long enough",
        "0123456789abcdef0123456789",  # 26 hex digits: 104 bits
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",  # a version 1 UUID: a clock, not random
    ],
)
def test_a_create_key_with_less_than_128_bits_is_refused_naming_the_header(
    client: Any, key: str
) -> None:
    """A create's key replays every token of the match: it must be as hard to guess as
    one. Nothing is created."""
    response = client.post("/v1/matches", json=MATCH_BODY, headers={"Idempotency-Key": key})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] == "invalid_header"
    assert problem["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    assert "128" in problem["errors"][0]["message"]


@pytest.mark.parametrize(
    "key",
    [
        str(uuid.uuid4()),
        str(uuid.uuid4()).upper(),
        secrets.token_urlsafe(16),
        secrets.token_hex(16),
    ],
)
def test_a_create_key_of_128_bits_or_more_is_taken(client: Any, key: str) -> None:
    first = client.post("/v1/matches", json=MATCH_BODY, headers={"Idempotency-Key": key})
    again = client.post("/v1/matches", json=MATCH_BODY, headers={"Idempotency-Key": key})
    assert first.status_code == again.status_code == 201, first.text
    assert again.json() == first.json()


def test_a_kept_answer_gives_nothing_away_at_rest(client: Any) -> None:
    """The idempotency table holds neither the key nor any token or recovery code of the
    answer it keeps; the key alone opens it again."""
    key = secrets.token_urlsafe(24)
    created = client.post("/v1/matches", json=MATCH_BODY, headers={"Idempotency-Key": key})
    assert created.status_code == 201
    tokens = created.json()["tokens"]
    secrets_sent = [
        key,
        tokens["host"],
        tokens["viewer"],
        tokens["recovery"],
        *tokens["players"],
    ]
    with client.app.state.db.engine.connect() as connection:
        rows = connection.execute(text("SELECT * FROM idempotency_key")).mappings().all()
    stored = repr(rows)
    assert rows and not [s for s in secrets_sent if s in stored or s.split(".")[-1] in stored]
    replay = client.post("/v1/matches", json=MATCH_BODY, headers={"Idempotency-Key": key})
    assert replay.json() == created.json()


def _operations(table: Table) -> dict[str, Any]:
    """Each limited operation on ``table``, as a call that answers."""
    recovery = {"recovery_code": "not-the-code"}  # a wrong code counts as well
    return {
        "recover": lambda client: client.post(table.url + "/recover", json=recovery),
        "reissue": lambda client: client.post(
            table.url + "/tokens", json={"role": "viewer"}, headers=table.auth()
        ),
        "ticket": lambda client: client.post(
            table.url + "/events/tickets", headers=table.auth("viewer")
        ),
    }


# Each is limited per client address, and a re-issue per match too; a recovery per
# match only at many addresses' worth, and a ticket per token at each address (below).
SHARED_LIMIT = {"reissue": True, "ticket": False, "recover": False}
# Another token at the same address: a ticket is counted per token there.
SAME_ADDRESS_ELSEWHERE = {"reissue": True, "ticket": False, "recover": True}


@pytest.mark.parametrize("operation", ["recover", "reissue", "ticket"])
def test_recovery_reissue_and_tickets_are_rate_limited(database_url: str, operation: str) -> None:
    _clear_of_a_window_edge()
    settings = Settings(
        database_url=database_url,
        rate_limit_matches_per_minute=0,
        rate_limit_tokens_per_minute=3,
        rate_limit_tickets_per_minute=3,
    )
    address = f"198.51.100.{secrets.randbelow(250) + 1}"
    with (
        TestClient(create_app(settings), client=(address, 5000)) as one,
        TestClient(create_app(settings), client=("192.0.2.1", 5000)) as other,
    ):
        table, elsewhere = Table(one, MATCH_BODY), Table(other, MATCH_BODY)
        call, call_elsewhere = _operations(table)[operation], _operations(elsewhere)[operation]
        answers = [call(one).status_code for _ in range(3)]
        assert 429 not in answers, answers
        refused = call(one)
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "rate_limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        # Another client: on the same match (or token) as the limit says; elsewhere served.
        assert (call(other).status_code == 429) is SHARED_LIMIT[operation]
        assert call_elsewhere(other).status_code != 429
        # The same client is refused on another match too, but for a ticket: its token
        # there is another (the address's count for all its tokens is larger, below).
        assert (call_elsewhere(one).status_code == 429) is SAME_ADDRESS_ELSEWHERE[operation]


def test_a_match_s_recoveries_are_limited_at_ten_addresses_worth(database_url: str) -> None:
    """A match's id is in every link: one address cannot use up the match's recoveries,
    but together the addresses are bounded."""
    _clear_of_a_window_edge()
    settings = Settings(
        database_url=database_url,
        rate_limit_matches_per_minute=0,
        rate_limit_tokens_per_minute=1,
    )
    with TestClient(create_app(settings)) as host_phone:
        table = Table(host_phone, MATCH_BODY)
    call = _operations(table)["recover"]
    base = secrets.randbelow(200)
    answers = []
    for phone in range(11):
        with TestClient(create_app(settings), client=(f"203.0.113.{base + phone}", 1)) as client:
            answers.append((call(client).status_code, call(client).status_code))
    assert answers[:10] == [(401, 429)] * 10  # each address: one a minute (a wrong code counts)
    assert answers[10] == (429, 429)  # the match: ten addresses' worth


def test_a_shared_token_flooded_from_many_addresses_still_gives_tickets_at_another(
    database_url: str,
) -> None:
    """A viewer's token is shared widely: addresses taking its tickets past their limits
    (as many as they like) leave every other address's tickets with it alone."""
    _clear_of_a_window_edge()
    settings = Settings(
        database_url=database_url,
        rate_limit_matches_per_minute=0,
        rate_limit_tickets_per_minute=1,
    )
    with TestClient(create_app(settings)) as host_phone:
        table = Table(host_phone, MATCH_BODY)
    network = secrets.randbelow(250)  # addresses no other test counts this minute

    def tickets(phone: int, times: int) -> list[int]:
        address = (f"198.18.{network}.{phone + 1}", 1)
        with TestClient(create_app(settings), client=address) as client:
            url = table.url + "/events/tickets"
            return [
                client.post(url, headers=table.auth("viewer")).status_code for _ in range(times)
            ]

    flood = [tickets(phone, 3) for phone in range(12)]
    assert flood == [[201, 429, 429]] * 12  # each flooding address: its own count only
    assert tickets(12, 1) == [201]  # a viewer at a fresh address


def test_tickets_are_limited_per_token_at_each_address_and_per_address(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tickets count per token at each address, and per address for all its tokens,
    each apart (the address's count made small here: two tokens' worth)."""
    _clear_of_a_window_edge()
    monkeypatch.setattr(TICKET_LIMITS, "per_address", 2)
    settings = Settings(
        database_url=database_url,
        rate_limit_matches_per_minute=0,
        rate_limit_tickets_per_minute=1,
    )
    with TestClient(create_app(settings)) as host_phone:
        table = Table(host_phone, MATCH_BODY)
    network = secrets.randbelow(250)  # addresses no other test counts this minute

    def ticket(phone: int, who: str | int) -> int:
        address = (f"198.19.{network}.{phone + 1}", 1)
        with TestClient(create_app(settings), client=address) as client:
            return client.post(table.url + "/events/tickets", headers=table.auth(who)).status_code

    assert [ticket(0, "viewer"), ticket(0, "viewer")] == [201, 429]  # a token at an address
    assert ticket(0, "host") == 201  # another token at the same address
    assert ticket(0, 0) == 429  # the address: two tokens' worth
    assert [ticket(1, "viewer"), ticket(1, 0)] == [201, 201]  # another address: its own


def test_of_two_openings_at_once_with_one_ticket_one_takes_it(postgres: Any) -> None:
    """Two workers opening streams with one ticket at the same moment: the first one's
    delete holds the ticket's row until it commits; the other waits for it, then finds
    none (PostgreSQL; SQLite has one writer at a time)."""
    url = postgres.create()
    migrate(url)
    settings = Settings(database_url=url, rate_limit_matches_per_minute=0)
    with TestClient(create_app(settings)) as client:
        table = Table(client, MATCH_BODY)
        ticket = table.post("/events/tickets", who="viewer").json()["ticket"]
    engine = create_engine(url)
    taken: list[Any] = []
    with engine.connect() as first, engine.connect() as second:
        first.begin()
        assert repository.take_ticket(first, hash_secret(ticket)) is not None
        waiting = threading.Thread(
            target=lambda: taken.append(repository.take_ticket(second, hash_secret(ticket)))
        )
        waiting.start()
        with engine.connect() as watcher:  # until the other waits for the row's lock
            waits = text(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            while not watcher.execute(waits).scalar_one() and waiting.is_alive():
                watcher.rollback()
        first.commit()
        waiting.join()
        second.commit()
    engine.dispose()
    assert taken == [None]


def test_pruning_old_rate_limit_windows_never_waits_for_another_prune(postgres: Any) -> None:
    """Requests prune old windows as they come, so two prunes may meet: one takes the
    rows the other has not locked and neither waits (two waiting on each other were a
    deadlock, answered 503). Here another transaction holds one old row throughout."""
    url = postgres.create()
    migrate(url)
    engine = create_engine(url)
    rows = [{"client": f"old {n}", "window": 5, "count": 1} for n in range(3)]
    with engine.begin() as connection:
        connection.execute(RATE_LIMIT_WINDOW.insert(), rows)
    with engine.connect() as holder, engine.connect() as pruner:
        holder.begin()
        holder.execute(text("SELECT * FROM rate_limit_window WHERE client = 'old 0' FOR UPDATE"))
        with pruner.begin():
            pruner.execute(text("SET LOCAL lock_timeout = '2s'"))  # a wait would fail here
            repository.delete_windows_before(pruner, 10)
        holder.rollback()
    with engine.connect() as connection:
        left = connection.execute(text("SELECT client FROM rate_limit_window")).scalars().all()
    engine.dispose()
    assert left == ["old 0"]  # the locked one stays, for a later prune


def test_a_stream_ticket_opens_one_stream(client: TestClient, table: Table) -> None:
    """A ticket's URL may be kept in a proxy's log: once it has opened a stream, it
    opens none, as an unknown or expired one (it is deleted as it is taken, on any
    worker)."""
    assert table.post("/end").is_success  # an ended match's stream closes after its snapshot
    url = table.post("/events/tickets", who="viewer").json()["url"]
    first = table.client.get(url)
    assert first.status_code == 200, first.text
    assert "event: snapshot" in first.text
    again = table.client.get(url)
    unknown = table.client.get(f"{table.url}/events?ticket={secrets.token_urlsafe(32)}")
    assert again.status_code == unknown.status_code == 401
    assert again.headers["content-type"] == "application/problem+json"
    assert again.json() == unknown.json()
