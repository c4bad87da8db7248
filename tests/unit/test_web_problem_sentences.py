"""Every problem code the API can answer has the web page's own sentence, in every
language the page speaks: app/web/problems.js shows it instead of the English detail.

The codes are the ones docs/client-guide.md#errors lists, every ``ServiceError``'s, and
any a game raises by name; a new code without a sentence in all four files fails here.
"""

from __future__ import annotations

import json
import re

import pytest

from app.errors import ServiceError
from tests.conftest import ROOT

WEB = ROOT / "app" / "web"
LANGUAGES = ("en", "hu", "fr", "ru")
STRINGS = {lang: json.loads((WEB / "i18n" / f"{lang}.json").read_text()) for lang in LANGUAGES}


def service_error_codes() -> set[str]:
    codes: set[str] = set()
    todo = [ServiceError]
    while todo:
        cls = todo.pop()
        codes.add(cls.code)
        todo.extend(cls.__subclasses__())
    return codes


def documented_codes() -> set[str]:
    guide = (ROOT / "docs" / "client-guide.md").read_text()
    errors = guide.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| \d{3} \| `(\w+)` \|", errors, flags=re.MULTILINE))


def named_codes() -> set[str]:
    sources = (path.read_text() for path in (ROOT / "app").rglob("*.py"))
    return {code for text in sources for code in re.findall(r'\bcode="(\w+)"', text)}


CODES = sorted(service_error_codes() | documented_codes() | named_codes())


def test_the_codes_are_found() -> None:
    # The doc's table and the errors module both read: a broken parser cannot pass empty.
    assert {"validation_error", "precondition_failed", "rate_limited"} <= documented_codes()
    assert {"match_ended", "target_already_reached"} <= set(CODES)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", CODES)
def test_every_problem_code_has_a_sentence_in_every_language(lang: str, code: str) -> None:
    sentence = STRINGS[lang].get(f"problem_{code}", "")
    assert sentence.strip(), f"{lang}.json has no problem_{code}"
    assert not sentence.rstrip().endswith("."), "problems.js adds the full stop before the hint"


def test_sentences_and_hints_are_in_all_four_languages() -> None:
    keys = {
        lang: {key for key in strings if key.startswith(("problem_", "hint_", "tricks_"))}
        for lang, strings in STRINGS.items()
    }
    assert all(keys[lang] == keys["en"] for lang in LANGUAGES), {
        lang: keys[lang] ^ keys["en"] for lang in LANGUAGES
    }
    for lang in ("hu", "fr", "ru"):
        same = [key for key in keys["en"] if STRINGS[lang][key] == STRINGS["en"][key]]
        assert same == [], f"{lang}: left in English"
