"""Join links: a token as a URL a phone can open (from a QR code, say).

The token rides in the URL's fragment, ``{base}/#/m/{match_id}?t={token}``: a
browser never sends the fragment to a server, so the token appears in no request
line, proxy log or Referer. ``base`` is ``PUBLIC_BASE_URL``, or else the address the
request came to.
"""

from fastapi import Request

from app.schemas import JoinLinks
from app.settings import Settings


def base_url(request: Request, settings: Settings) -> str:
    return (settings.public_base_url or str(request.base_url)).rstrip("/")


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
