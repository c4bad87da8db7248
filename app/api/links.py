"""Join links: a token as a URL a phone can open (from a QR code, say).

The token rides in the URL's fragment, ``{base}/#/m/{match_id}?t={token}``: a
browser never sends the fragment to a server, so the token appears in no request
line, proxy log or Referer.

A link is absolute only under ``PUBLIC_BASE_URL``. Without it, a link is relative to
the service's root (``/#/m/...``), which a client resolves against the address it
called: never built from the request's Host header, which anyone can forge to have a
host's link point at their own site.
"""

from fastapi import Request

from app.schemas import JoinLinks
from app.settings import Settings


def base_url(request: Request, settings: Settings) -> str:
    """What a join link starts with: ``PUBLIC_BASE_URL``, or else the path the service
    is served under (``--root-path``; empty at the root)."""
    if settings.public_base_url:
        return settings.public_base_url.rstrip("/")
    return str(request.scope.get("root_path", "")).rstrip("/")


def join_link(base: str, match_id: str, token: str) -> str:
    return f"{base}/#/m/{match_id}?t={token}"


def join_links(base: str, match_id: str, tokens: dict[str, str | list[str]]) -> JoinLinks:
    players = tokens["players"]
    assert isinstance(players, list)
    return JoinLinks(
        host=join_link(base, match_id, str(tokens["host"])),
        players=[join_link(base, match_id, token) for token in players],
        viewer=join_link(base, match_id, str(tokens["viewer"])),
    )
