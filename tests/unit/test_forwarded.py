"""FORWARDED_ALLOW_IPS, and the client ``ForwardedClient`` settles on for a request
(app/api/forwarded.py); tests/integration/test_client_address.py has the real server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from app.api.forwarded import ForwardedClient
from app.main import create_app
from app.settings import Settings


def client_seen(
    trusted: list[str], peer: tuple[str, int], headers: list[tuple[bytes, bytes]]
) -> tuple[str, int] | None:
    """The client the app behind ``ForwardedClient`` gets for one HTTP request."""
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen["client"] = scope["client"]

    async def nothing() -> Any:
        return {"type": "http.disconnect"}

    async def ignore(message: Any) -> None:
        pass

    scope = {"type": "http", "client": peer, "headers": headers, "scheme": "http"}
    asyncio.run(ForwardedClient(app, trusted)(scope, nothing, ignore))
    client: tuple[str, int] | None = seen["client"]
    return client


PROXY = ("127.0.0.1", 41000)


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        (PROXY, b"203.0.113.9", "203.0.113.9"),
        (PROXY, b"2001:db8::1", "2001:db8::1"),
        # A client's own value before the proxy's: the last one the proxy added counts.
        (PROXY, b"198.51.100.1, 203.0.113.9", "203.0.113.9"),
        (PROXY, b"not-an-ip", "127.0.0.1"),
        (PROXY, b"203.0.113.9:80", "203.0.113.9"),  # an address with its port
        (PROXY, b"", "127.0.0.1"),
        (("192.0.2.7", 41000), b"203.0.113.9", "192.0.2.7"),  # not a listed proxy
    ],
)
def test_the_client_is_forwarded_only_as_an_ip_address_from_a_listed_proxy(
    peer: tuple[str, int], forwarded: bytes, expected: str
) -> None:
    seen = client_seen(["127.0.0.1", "10.0.0.0/8"], peer, [(b"x-forwarded-for", forwarded)])
    assert seen is not None and seen[0] == expected


def test_a_listed_network_is_trusted() -> None:
    seen = client_seen(["10.0.0.0/8"], ("10.1.2.3", 5), [(b"x-forwarded-for", b"203.0.113.4")])
    assert seen == ("203.0.113.4", 0)


def test_the_setting_is_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", " 127.0.0.1, ::1,10.0.0.0/8 ,")
    assert Settings().forwarded_allow_ips == ["127.0.0.1", "::1", "10.0.0.0/8"]
    monkeypatch.delenv("FORWARDED_ALLOW_IPS")
    assert Settings().forwarded_allow_ips == []


@pytest.mark.parametrize("value", ["nginx", "127.0.0.1,proxy.local", "10.0.0.0/33"])
def test_a_value_that_names_no_address_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", value)
    with pytest.raises(ValidationError, match="forwarded_allow_ips"):
        Settings()


def test_the_app_reads_the_header_only_with_a_proxy_named() -> None:
    plain = create_app(Settings(database_url="sqlite://", forwarded_allow_ips=[]))
    assert all(layer.cls is not ForwardedClient for layer in plain.user_middleware)
    proxied = create_app(Settings(database_url="sqlite://", forwarded_allow_ips=["127.0.0.1"]))
    # Outermost: the access log and every limit see the client it settles on.
    assert proxied.user_middleware[0].cls is ForwardedClient
