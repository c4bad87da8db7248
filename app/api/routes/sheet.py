"""The score sheet, as JSON or CSV."""

from fastapi import APIRouter, Request, Response

from app.api.deps import ReaderDep
from app.api.etag import set_etag
from app.api.problems import responses
from app.schemas import SheetRead
from app.services import sheet

router = APIRouter(prefix="/v1/matches/{match_id}/sheet", tags=["sheet"])


@router.get(
    "",
    response_model=SheetRead,
    name="getSheet",
    summary="The score sheet (JSON, or CSV with Accept: text/csv)",
    responses={
        200: {"content": {"text/csv": {"schema": {"type": "string"}}}},
        **responses(401, 403, 404),
    },
)
async def get_sheet(
    caller: ReaderDep, match_id: str, request: Request, response: Response
) -> SheetRead | Response:
    """Headings, a row of cells per round, totals and owed amounts."""
    result, version = sheet.get_sheet(caller.db, match_id)
    if _wants_csv(request.headers.get("accept", "")):
        csv_response = Response(sheet.sheet_csv(result), media_type="text/csv")
        set_etag(csv_response, version)
        return csv_response
    set_etag(response, version)
    return result


def _wants_csv(accept: str) -> bool:
    return "text/csv" in accept and "application/json" not in accept
