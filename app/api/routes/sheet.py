"""The score sheet, as JSON or CSV."""

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from app.api.deps import SnapshotReaderDep
from app.api.etag import (
    ETAG_HEADER,
    NOT_MODIFIED,
    IfNoneMatchHeader,
    model_response,
    set_etag,
    unchanged,
)
from app.api.problems import responses
from app.api.strict_json import StrictJSONRoute
from app.schemas import SheetRead
from app.services import sheet
from app.services.sheet_words import SheetLanguage

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["sheet"], route_class=StrictJSONRoute)

CSV_VARIANT = "csv"  # the CSV representation has its own strong ETag: "v7-csv"
CSV = {"content": {"text/csv": {"schema": {"type": "string"}}}}

CsvLanguageQuery = Annotated[
    SheetLanguage,
    Query(
        alias="lang",
        description="The language of the CSV's own words (round, dealer, total, owed, rules, "
        "and unnamed teams' headings); the cells and names are as entered. The web page asks "
        "in its own language. Only the CSV: the JSON sheet is the same in every language.",
    ),
]


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
def get_sheet(
    turn: SnapshotReaderDep,
    match_id: str,
    request: Request,
    if_none_match: IfNoneMatchHeader = None,
    lang: CsvLanguageQuery = SheetLanguage.EN,
) -> Response:
    """Headings, a row of cells per round, totals and owed amounts."""
    wants_csv = _wants_csv(request.headers.get("accept", ""))
    with turn.caller() as caller:
        result, version = sheet.get_sheet(
            caller.uow, caller.match, lang if wants_csv else SheetLanguage.EN
        )
    variant = _csv_variant(lang) if wants_csv else ""
    if (not_modified := unchanged(if_none_match, version, variant)) is not None:
        not_modified.headers["Vary"] = "Accept"
        return not_modified
    if wants_csv:
        csv_response = _csv(result, version, lang)
        csv_response.headers["Vary"] = "Accept"
        return csv_response
    json_sheet = model_response(SheetRead.model_validate(result), version)
    json_sheet.headers["Vary"] = "Accept"
    return json_sheet


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
def get_sheet_csv(
    turn: SnapshotReaderDep,
    match_id: str,
    if_none_match: IfNoneMatchHeader = None,
    lang: CsvLanguageQuery = SheetLanguage.EN,
) -> Response:
    """A heading row, a row per round (its number, the dealer's name, its cells), then
    totals (and owed amounts, in Asszorti)."""
    with turn.caller() as caller:
        result, version = sheet.get_sheet(caller.uow, caller.match, lang)
    if (not_modified := unchanged(if_none_match, version, _csv_variant(lang))) is not None:
        return not_modified
    return _csv(result, version, lang)


def _csv_variant(lang: SheetLanguage) -> str:
    """English keeps the plain ``csv`` variant ("v7-csv"); another language has its own
    ("v7-csv-hu"), so a cache never answers one language's file for another's."""
    return CSV_VARIANT if lang is SheetLanguage.EN else f"{CSV_VARIANT}-{lang}"


def _csv(result: dict[str, Any], version: int, lang: SheetLanguage) -> Response:
    response = Response(sheet.sheet_csv(result, lang), media_type="text/csv")
    set_etag(response, version, _csv_variant(lang))
    return response


def _wants_csv(accept: str) -> bool:
    return "text/csv" in accept and "application/json" not in accept
