"""Strong ETags derived from the match version, and conditional GETs."""

from typing import Annotated, Any

from fastapi import Header, Response
from pydantic import BaseModel

IfNoneMatchHeader = Annotated[
    str | None,
    Header(
        alias="If-None-Match",
        description='The ETag last read (e.g. "v7"): answered 304 while nothing changed.',
    ),
]
ETAG_HEADER = {
    "ETag": {
        "description": 'Strong ETag of the match version, e.g. "v7"',
        "schema": {"type": "string"},
    }
}
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {
        "description": "Not modified: If-None-Match names the current ETag",
        "headers": ETAG_HEADER,
    }
}


def etag_of(version: int, variant: str = "") -> str:
    """``"v7"``; a representation other than JSON adds its name: ``"v7-csv"``."""
    return f'"v{version}-{variant}"' if variant else f'"v{version}"'


def etag_header(version: int, variant: str = "") -> dict[str, str]:
    """The ETag header of a match version."""
    return {"ETag": etag_of(version, variant)}


def set_etag(response: Response, version: int, variant: str = "") -> None:
    response.headers.update(etag_header(version, variant))


def unchanged(if_none_match: str | None, version: int, variant: str = "") -> Response | None:
    """A 304 when If-None-Match already names the current version, else None."""
    if not if_none_match:
        return None
    tags = {tag.strip() for tag in if_none_match.split(",")}
    current = etag_of(version, variant)
    if "*" in tags or current in tags or f"W/{current}" in tags:
        response = Response(status_code=304)
        set_etag(response, version, variant)
        return response
    return None


def model_response(body: BaseModel, version: int, variant: str = "") -> Response:
    """A response model as JSON, tagged with the match version."""
    response = Response(body.model_dump_json(), media_type="application/json")
    set_etag(response, version, variant)
    return response
