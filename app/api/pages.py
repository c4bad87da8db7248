"""Lists that come a page at a time (the rounds, a round's history, the match's
history): the page parameters, and the ``next`` link of a page, also sent as a
``Link: <...>; rel="next"`` header."""

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Query, Request, Response
from pydantic import BaseModel, BeforeValidator

from app.api.etag import model_response
from app.api.rendered import Kept

MAX_PAGE = 100  # items in one page


def digits(value: object) -> object:
    """A number in a path or query is written in digits only, as an integer is written:
    ``1``, never ``01``, ``1.0``, ``+1`` or `` 1`` (pydantic would read those as 1), so
    each number has one spelling."""
    if isinstance(value, str) and not (
        value.isascii() and value.isdigit() and (value == "0" or not value.startswith("0"))
    ):
        raise ValueError("must be written in digits only, without a leading zero")
    return value


# (The validator comes after Query: so its bounds stay in the schema.)
After = Annotated[
    int,
    Query(ge=0, le=1_000_000, description="Start after this number (0: from the first)"),
    BeforeValidator(digits),
]
Limit = Annotated[
    int,
    Query(ge=1, le=MAX_PAGE, description="At most this many items"),
    BeforeValidator(digits),
]
LINK_HEADER: dict[str, Any] = {
    "Link": {
        "description": 'The next page, `<url>; rel="next"`, when there is one',
        "schema": {"type": "string"},
    }
}


def next_page(request: Request, last: int | None, count: int, limit: int) -> str | None:
    """The URL of the page after the one that ended at number ``last`` of ``count``
    (None: that page was the last)."""
    if last is None or last >= count:
        return None
    return f"{request.url.path}?{urlencode({'after': last, 'limit': limit})}"


def page_response(body: BaseModel, next_url: str | None, version: int | None = None) -> Response:
    """A page (a response model with ``next``), tagged with the match version when it
    has one, its next page also in the Link header."""
    page = body.model_copy(update={"next": next_url})
    if version is None:
        response = Response(page.model_dump_json(), media_type="application/json")
    else:
        response = model_response(page, version)
    if next_url is not None:
        response.headers["Link"] = f'<{next_url}>; rel="next"'
    return response


def page_body(body: BaseModel, next_url: str | None) -> Kept:
    """A page's body with ``next``, and its Link header, to keep (``app.api.rendered``)."""
    page = body.model_copy(update={"next": next_url})
    headers = {"Link": f'<{next_url}>; rel="next"'} if next_url is not None else {}
    return Kept(page.model_dump_json().encode(), headers)
