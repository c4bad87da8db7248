"""The score sheet, as JSON or CSV."""

from fastapi import APIRouter, Request, Response

from app.api.deps import ReaderDep
from app.api.etag import ETAG_HEADER, NOT_MODIFIED, IfNoneMatchHeader, set_etag, unchanged
from app.api.problems import responses
from app.schemas import SheetRead
from app.services import sheet

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["sheet"])

CSV = {"content": {"text/csv": {"schema": {"type": "string"}}}}


@router.get(
    "/sheet",
    response_model=SheetRead,
    name="getSheet",
    summary="The score sheet (JSON, or CSV with Accept: text/csv)",
    responses={
        200: {**CSV, "headers": ETAG_HEADER},
        **NOT_MODIFIED,
        **responses(401, 403, 404),
    },
)
async def get_sheet(
    caller: ReaderDep,
    match_id: str,
    request: Request,
    response: Response,
    if_none_match: IfNoneMatchHeader = None,
) -> SheetRead | Response:
    """Headings, a row of cells per round, totals and owed amounts."""
    result, version = sheet.get_sheet(caller.db, match_id)
    if (not_modified := unchanged(if_none_match, version)) is not None:
        return not_modified
    if _wants_csv(request.headers.get("accept", "")):
        return _csv(result, version)
    set_etag(response, version)
    return result


@router.get(
    "/sheet.csv",
    name="getSheetCsv",
    summary="The score sheet as CSV",
    response_class=Response,
    responses={
        200: {**CSV, "headers": ETAG_HEADER, "description": "The sheet as CSV"},
        **NOT_MODIFIED,
        **responses(401, 403, 404),
    },
)
async def get_sheet_csv(
    caller: ReaderDep, match_id: str, if_none_match: IfNoneMatchHeader = None
) -> Response:
    """A heading row, a row per round, then totals (and owed amounts, in Asszorti)."""
    result, version = sheet.get_sheet(caller.db, match_id)
    if (not_modified := unchanged(if_none_match, version)) is not None:
        return not_modified
    return _csv(result, version)


def _csv(result: SheetRead, version: int) -> Response:
    response = Response(sheet.sheet_csv(result), media_type="text/csv")
    set_etag(response, version)
    return response


def _wants_csv(accept: str) -> bool:
    return "text/csv" in accept and "application/json" not in accept
