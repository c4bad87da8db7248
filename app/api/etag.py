"""Strong ETags derived from the match version."""

from fastapi import Request, Response


def etag_of(version: int) -> str:
    return f'"v{version}"'


def set_etag(response: Response, version: int) -> None:
    response.headers["ETag"] = etag_of(version)


def not_modified(request: Request, version: int) -> bool:
    """Whether If-None-Match already names the current version."""
    header = request.headers.get("if-none-match")
    if not header:
        return False
    tags = {tag.strip() for tag in header.split(",")}
    return "*" in tags or etag_of(version) in tags or f"W/{etag_of(version)}" in tags
