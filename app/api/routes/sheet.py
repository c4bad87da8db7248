"""The score sheet, as JSON or CSV."""

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from app.api.deps import DbSlot, SnapshotReaderDep
from app.api.etag import ETAG_HEADER, NOT_MODIFIED, IfNoneMatchHeader, etag_header, unchanged
from app.api.problems import responses
from app.api.rendered import HeavyRead, HeavyReadDep, Kept
from app.api.strict_json import StrictJSONRoute
from app.schemas import SheetRead
from app.services import sheet
from app.services.sheet_words import SheetLanguage

router = APIRouter(prefix="/v1/matches/{match_id}", tags=["sheet"], route_class=StrictJSONRoute)

CSV_VARIANT = "csv"  # the CSV representation has its own strong ETag: "v7-csv"
JSON_VARIANT = "json"  # the kept JSON body's key (its ETag is the plain "v7")
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
        **responses(401, 403, 404, 429),
    },
)
def get_sheet(
    slot: SnapshotReaderDep,
    read: HeavyReadDep,
    match_id: str,
    request: Request,
    if_none_match: IfNoneMatchHeader = None,
    lang: CsvLanguageQuery = SheetLanguage.EN,
) -> Response:
    """Headings, a row of cells per round, totals and owed amounts."""
    if _wants_csv(request.headers.get("accept", "")):
        answer = _csv(slot, read, if_none_match, lang)
    else:
        answer = _json(slot, read, if_none_match)
    answer.headers["Vary"] = "Accept"
    return answer


@router.get(
    "/sheet.csv",
    name="getSheetCsv",
    summary="The score sheet as CSV",
    response_class=Response,
    responses={
        200: {**CSV, "headers": ETAG_HEADER, "description": "The sheet as CSV"},
        **NOT_MODIFIED,
        **responses(401, 403, 404, 429),
    },
)
def get_sheet_csv(
    slot: SnapshotReaderDep,
    read: HeavyReadDep,
    match_id: str,
    if_none_match: IfNoneMatchHeader = None,
    lang: CsvLanguageQuery = SheetLanguage.EN,
) -> Response:
    """A heading row, a row per round (its number, the dealer's name, its cells), then
    totals (and owed amounts, in Asszorti)."""
    return _csv(slot, read, if_none_match, lang)


def _csv_variant(lang: SheetLanguage) -> str:
    """English keeps the plain ``csv`` variant ("v7-csv"); another language has its own
    ("v7-csv-hu"), so a cache never answers one language's file for another's."""
    return CSV_VARIANT if lang is SheetLanguage.EN else f"{CSV_VARIANT}-{lang}"


def _json(slot: DbSlot, read: HeavyRead, if_none_match: str | None) -> Response:
    """The JSON sheet of the current version: 304, or its body rendered once."""
    with slot.unit_as_caller() as caller:
        version = int(caller.match["version"])
        if (not_modified := unchanged(if_none_match, version)) is not None:
            return not_modified

        def render() -> Kept:
            result, _ = sheet.get_sheet(caller.uow, caller.match)
            return Kept(SheetRead.model_validate(result).model_dump_json().encode())

        body = read.body((caller.match["id"], version, JSON_VARIANT), render)
    return Response(body.content, media_type="application/json", headers=etag_header(version))


def _csv(slot: DbSlot, read: HeavyRead, if_none_match: str | None, lang: SheetLanguage) -> Response:
    """The CSV of the current version in ``lang``: 304, or its body rendered once."""
    variant = _csv_variant(lang)
    with slot.unit_as_caller() as caller:
        version = int(caller.match["version"])
        if (not_modified := unchanged(if_none_match, version, variant)) is not None:
            return not_modified

        def render() -> Kept:
            result, _ = sheet.get_sheet(caller.uow, caller.match, lang)
            return Kept(sheet.sheet_csv(result, lang).encode())

        body = read.body((caller.match["id"], version, variant), render)
    return Response(body.content, media_type="text/csv", headers=etag_header(version, variant))


def _wants_csv(accept: str) -> bool:
    return "text/csv" in accept and "application/json" not in accept
