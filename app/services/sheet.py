"""The score sheet, as JSON or CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from sqlalchemy import RowMapping

from app.db import repository
from app.db.database import UnitOfWork
from app.services.answers import settlement_of
from app.services.match_state import MatchState, fold
from app.services.sheet_words import CSV_WORDS, SheetLanguage, team_label


def get_sheet(
    uow: UnitOfWork, match: RowMapping, lang: SheetLanguage = SheetLanguage.EN
) -> tuple[dict[str, Any], int]:
    """Column headings, one row of cells per round, then totals (the SheetRead shape);
    and the match version. Linear in rounds: one statement, one fold. ``lang`` heads
    unnamed teams, for the CSV; the JSON sheet's are English."""
    state = MatchState.load(match)
    rows = repository.sheet_rows(uow.connection, match["id"])
    sheet = state.sheet
    cells = fold(state.game, (points for _, _, points, _ in rows))
    columns = state.game.columns(match["players"], match["team_names"], team_label=team_label(lang))
    result = {
        "columns": columns,
        "rows": [
            {"number": number, "dealer": dealer, "cells": list(row_cells), "net": stored["net"]}
            for (number, dealer, _, stored), (row_cells, _) in zip(rows, cells, strict=True)
        ],
        "totals": list(sheet.totals),
        "owed": list(sheet.owed) if sheet.owed is not None else None,
        "net": list(sheet.net) if sheet.net is not None else None,
        "settlement": settlement_of(sheet),
        # For the CSV's head (the JSON sheet leaves it out: the match's settings have it).
        "table_rules": getattr(state.settings, "table_rules", ""),
        # For the CSV's dealer column, which names the dealer (the JSON sheet keeps seats).
        "players": list(match["players"]),
    }
    return result, int(match["version"])


def sheet_csv(sheet: dict[str, Any], lang: SheetLanguage = SheetLanguage.EN) -> str:
    """The sheet as CSV: a heading row, a row per round, then ``total`` and ``owed`` rows.

    A round's ``dealer`` is the dealer's name, for a reader without the seats at hand.
    A table with rules of its own (``table_rules``) has them in a ``rules`` row first.
    ``lang`` words those headings (``CSV_WORDS``; ``get_sheet`` heads unnamed teams);
    the cells and names are as entered.
    """
    words = CSV_WORDS[lang]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if sheet.get("table_rules"):
        writer.writerow([words["rules"], _cell_text(sheet["table_rules"])])
    heading = (_cell_text(name) for name in sheet["columns"])
    writer.writerow([words["round"], words["dealer"], *heading])
    for row in sheet["rows"]:
        dealer = _cell_text(sheet["players"][row["dealer"]])
        writer.writerow([row["number"], dealer, *row["cells"]])
    writer.writerow([words["total"], "", *sheet["totals"]])
    if sheet["owed"] is not None:
        writer.writerow([words["owed"], "", *sheet["owed"]])
    return out.getvalue()


# What a spreadsheet may read as the start of a formula (CSV injection): = + - @, the
# pipe of a DDE call, their full-width forms (which some spreadsheets take as the ASCII
# ones), and the tab and carriage return some strip before looking.
FORMULA_STARTS = frozenset("=+-@|\t\r\uff1d\uff0b\uff0d\uff20")


def _cell_text(text: str) -> str:
    """Keep a name from being read as a formula by a spreadsheet (CSV injection)."""
    return f"'{text}" if text[:1] in FORMULA_STARTS else text
