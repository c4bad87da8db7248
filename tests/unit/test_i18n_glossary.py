"""The page says one word per concept in each language: docs/glossary.json names it.

Every string of app/web/i18n/{hu,fr,ru}.json is read against every concept's avoided
synonyms, and a Cyrillic language's strings against Latin letters (bar the few the
glossary lists, with why). The CSV's headings follow the same glossary.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app.services.sheet_words import CSV_WORDS
from tests.conftest import ROOT

GLOSSARY: dict[str, Any] = json.loads((ROOT / "docs" / "glossary.json").read_text())
LANGUAGES = ("hu", "fr", "ru")
CYRILLIC = ("ru",)
STRINGS = {
    lang: json.loads((ROOT / "app" / "web" / "i18n" / f"{lang}.json").read_text())
    for lang in ("en", *LANGUAGES)
}
PLACEHOLDER = re.compile(r"\{\w+\}")
LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]+")


def misused_terms(lang: str, text: str) -> list[str]:
    """The concepts whose avoided synonyms ``text`` uses, as ``concept: match``."""
    text = PLACEHOLDER.sub(" ", text)
    found = []
    for concept in GLOSSARY["concepts"]:
        for pattern in concept[lang]["avoid"]:
            if match := re.search(pattern, text, flags=re.IGNORECASE):
                found.append(f"{concept['id']}: {match.group(0)!r} (say {concept[lang]['term']!r})")
    return found


def latin_words(lang: str, text: str) -> list[str]:
    """Latin-letter words in ``text`` that the glossary does not allow in ``lang``."""
    allowed = {entry["token"] for entry in GLOSSARY["latin_in_cyrillic"][lang]}
    return [word for word in LATIN.findall(PLACEHOLDER.sub(" ", text)) if word not in allowed]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_string_uses_its_languages_terms(lang: str) -> None:
    misused = {
        key: found for key, text in STRINGS[lang].items() if (found := misused_terms(lang, text))
    }
    assert misused == {}


@pytest.mark.parametrize("lang", CYRILLIC)
def test_a_cyrillic_language_has_no_latin_letters_but_the_listed_names(lang: str) -> None:
    latin = {
        key: found for key, text in STRINGS[lang].items() if (found := latin_words(lang, text))
    }
    assert latin == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_term_is_the_one_the_page_uses(lang: str) -> None:
    # A glossary that names a word the page never says is out of date.
    text = " ".join(STRINGS[lang].values()).lower()
    unused = [c["id"] for c in GLOSSARY["concepts"] if c[lang]["stem"].lower() not in text]
    assert unused == []


def test_every_allowed_latin_word_is_used() -> None:
    # An allowance no string needs any more is one fewer word the test would catch.
    for lang in CYRILLIC:
        words = set(LATIN.findall(" ".join(STRINGS[lang].values())))
        tokens = {entry["token"] for entry in GLOSSARY["latin_in_cyrillic"][lang]}
        assert tokens <= words, sorted(tokens - words)
        assert all(entry["why"] for entry in GLOSSARY["latin_in_cyrillic"][lang])


def test_the_words_the_issue_found_are_caught() -> None:
    # The strings a table read before the glossary: each is refused here.
    assert misused_terms("hu", "Stroke: {points} pont")
    assert misused_terms("fr", "Un stroke de {run} : {points} pour {team}")
    assert misused_terms("fr", "Saisir une manche")
    assert misused_terms("ru", "Записать раунд")
    assert latin_words("ru", "Kontra разрешена (удвоение)") == ["Kontra"]
    assert latin_words("ru", "Скачать {name} CSV") == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_csv_headings_use_the_glossarys_terms(lang: str) -> None:
    words = CSV_WORDS[lang]
    assert [found for word in words.values() if (found := misused_terms(lang, word))] == []
    if lang in CYRILLIC:
        assert [word for word in words.values() if latin_words(lang, word)] == []
    terms = {c["id"]: c[lang]["stem"].lower() for c in GLOSSARY["concepts"]}
    assert words["round"].lower().startswith(terms["round"])
    assert words["dealer"].lower().startswith(terms["dealer"])
    assert words["owed"].lower().startswith(terms["owed"])


def test_the_csv_has_a_heading_per_word_in_every_language() -> None:
    assert set(CSV_WORDS) == {"en", *LANGUAGES}
    for lang in LANGUAGES:
        assert set(CSV_WORDS[lang]) == set(CSV_WORDS["en"])
