"""The CSV sheet's own words (its first column and its heading row), in each language
the web page speaks. The terms are docs/glossary.json's, as the page's strings are."""

from enum import StrEnum

from app.games.base import TeamLabel


class SheetLanguage(StrEnum):
    """A language the CSV sheet's headings can be written in."""

    EN = "en"
    HU = "hu"
    FR = "fr"
    RU = "ru"


CSV_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "rules": "rules",
        "round": "round",
        "dealer": "dealer",
        "total": "total",
        "owed": "owed",
        "team": "Team {n} ({players})",
        "joiner": " & ",
    },
    "hu": {
        "rules": "szabályok",
        "round": "leosztás",
        "dealer": "osztó",
        "total": "összesen",
        "owed": "tartozás",
        "team": "{n}. csapat ({players})",
        "joiner": " és ",
    },
    "fr": {
        "rules": "règles",
        "round": "donne",
        "dealer": "donneur",
        "total": "total",
        "owed": "dû",
        "team": "Équipe {n} ({players})",
        "joiner": " et ",
    },
    "ru": {
        "rules": "правила",
        "round": "сдача",
        "dealer": "сдающий",
        "total": "итого",
        "owed": "долг",
        "team": "Команда {n} ({players})",
        "joiner": " и ",
    },
}


def team_label(lang: SheetLanguage) -> TeamLabel:
    """How the CSV heads a team the table left unnamed, in ``lang``: the page's word for
    a team (``team_label``) and between names (``team_joiner``), in the API's shape."""
    words = CSV_WORDS[lang]
    return TeamLabel(template=words["team"], joiner=words["joiner"])
