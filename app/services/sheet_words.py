"""The CSV sheet's own words (its first column and its heading row), in each language
the web page speaks. The terms are docs/glossary.json's, as the page's strings are."""

from enum import StrEnum


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
    },
    "hu": {
        "rules": "szabályok",
        "round": "leosztás",
        "dealer": "osztó",
        "total": "összesen",
        "owed": "tartozás",
    },
    "fr": {
        "rules": "règles",
        "round": "donne",
        "dealer": "donneur",
        "total": "total",
        "owed": "dû",
    },
    "ru": {
        "rules": "правила",
        "round": "сдача",
        "dealer": "сдающий",
        "total": "итого",
        "owed": "долг",
    },
}
