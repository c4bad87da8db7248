"""The client's address behind a proxy: ``X-Forwarded-For`` believed only from the
proxies the operator names (``FORWARDED_ALLOW_IPS``), and only when it names an IP
address.

uvicorn's own ``--proxy-headers`` trusts loopback unless told otherwise, so a
client of a proxy on the same host that passes the header on could pick its own
address, and with it its own rate limits. The server runs with
``--no-proxy-headers`` (``app.serving.UVICORN_FLAGS``), and the app applies
uvicorn's ``ProxyHeadersMiddleware`` itself, from its setting: none by default.
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

# Where the connection's own address waits while uvicorn's middleware reads the headers.
PEER_KEY = "squarescores.peer"


def is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class ForwardedClient:
    """uvicorn's ``ProxyHeadersMiddleware`` for ``trusted`` (addresses or networks,
    or ``*``), except that a forwarded client that is not an IP address (which uvicorn
    takes as it comes) leaves the connection's own address."""

    def __init__(self, app: ASGIApp, trusted: list[str]) -> None:
        self.app = app
        # uvicorn types an ASGI app with its own TypedDicts, Starlette with plain mappings.
        self.proxy_headers: ASGIApp = ProxyHeadersMiddleware(  # type: ignore[assignment]
            self.checked,  # type: ignore[arg-type]
            trusted_hosts=trusted,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        scope[PEER_KEY] = scope.get("client")
        await self.proxy_headers(scope, receive, send)

    async def checked(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if client is not None and not is_ip_address(client[0]):
            scope["client"] = scope[PEER_KEY]
        await self.app(scope, receive, send)
