"""The characters a table's own words may hold: player and team names, and the own
table's rules. One rule for all of them, so nothing one refuses slips in another.

Text is kept NFC-normalised (one way to write each accented letter), and its length
is counted as kept: as sent, a text may be up to ``AS_SENT`` times as long (a name
typed decomposed, e + U+0301, composes into fewer characters). It may not hold:

- control characters (but a line break, where the text has lines);
- invisible format characters: zero-width spaces, bidi overrides and isolates,
  which make a name read differently from what it is; the exceptions are the
  zero-width joiner inside an emoji sequence (👩‍🦰, 🏳️‍🌈) and the tags of a
  subdivision flag, which people use in names;
- line and paragraph separators (U+2028, U+2029).

A name must also show something: at least one letter, digit, punctuation mark or
symbol that is not a blank (the default-ignorable Hangul fillers and the blank
braille pattern render as nothing).
"""

from __future__ import annotations

import unicodedata

import icu

# A character has at most four code points decomposed (Unicode's canonical
# decompositions): a text sent this many times over its length as kept may still fit.
AS_SENT = 4
ZWJ = "\u200d"
EMOJI_PRESENTATION = "\ufe0f"  # the variation selector that asks for an emoji's picture
BLACK_FLAG = "\U0001f3f4"  # a subdivision flag is this, tag characters, and a cancel tag
TAGS = range(0xE0020, 0xE0080)
BRAILLE_BLANK = "\u2800"  # a symbol that renders as nothing
# ICU's tables, not Python's: they know the newest emoji (🩷, 🪿), which Python 3.11's
# would take for unassigned characters.
CATEGORY = icu.UCharCategory
REFUSED = frozenset(
    {
        CATEGORY.CONTROL_CHAR,
        CATEGORY.FORMAT_CHAR,
        CATEGORY.LINE_SEPARATOR,
        CATEGORY.PARAGRAPH_SEPARATOR,
        CATEGORY.SURROGATE,
        CATEGORY.PRIVATE_USE_CHAR,
        CATEGORY.UNASSIGNED,
    }
)
SEEN = frozenset(  # letters, digits, punctuation and symbols
    {
        CATEGORY.UPPERCASE_LETTER,
        CATEGORY.LOWERCASE_LETTER,
        CATEGORY.TITLECASE_LETTER,
        CATEGORY.MODIFIER_LETTER,
        CATEGORY.OTHER_LETTER,
        CATEGORY.DECIMAL_DIGIT_NUMBER,
        CATEGORY.LETTER_NUMBER,
        CATEGORY.OTHER_NUMBER,
        CATEGORY.CONNECTOR_PUNCTUATION,
        CATEGORY.DASH_PUNCTUATION,
        CATEGORY.START_PUNCTUATION,
        CATEGORY.END_PUNCTUATION,
        CATEGORY.INITIAL_PUNCTUATION,
        CATEGORY.FINAL_PUNCTUATION,
        CATEGORY.OTHER_PUNCTUATION,
        CATEGORY.MATH_SYMBOL,
        CATEGORY.CURRENCY_SYMBOL,
        CATEGORY.MODIFIER_SYMBOL,
        CATEGORY.OTHER_SYMBOL,
    }
)


def _emoji_side(char: str) -> bool:
    return (
        char == EMOJI_PRESENTATION
        or icu.Char.hasBinaryProperty(char, icu.UProperty.EXTENDED_PICTOGRAPHIC)
        or icu.Char.hasBinaryProperty(char, icu.UProperty.EMOJI_MODIFIER)
    )


def _allowed_in_emoji(text: str, index: int) -> bool:
    """Whether the invisible character at ``index`` is part of an emoji: a joiner
    between two of its parts, or a tag of a subdivision flag (🏴 and tags)."""
    char = text[index]
    if char == ZWJ:
        return 0 < index < len(text) - 1 and (
            _emoji_side(text[index - 1]) and _emoji_side(text[index + 1])
        )
    if ord(char) in TAGS and index > 0:
        before = text[index - 1]
        return before == BLACK_FLAG or ord(before) in TAGS
    return False


def check_text(text: str, *, what: str, max_length: int, lines: bool = False) -> str:
    """``text`` as kept (NFC), or ValueError naming the first character refused."""
    text = unicodedata.normalize("NFC", text)
    for index, char in enumerate(text):
        if char == "\n" and lines:
            continue
        if icu.Char.charType(char) in REFUSED and not _allowed_in_emoji(text, index):
            raise ValueError(
                f"{what} cannot hold the invisible or control character U+{ord(char):04X}"
            )
    if len(text) > max_length:
        raise ValueError(f"{what} is at most {max_length} characters, got {len(text)}")
    return text


def shows_something(text: str) -> bool:
    """Whether ``text`` holds a character one sees (not only blanks, spaces or marks)."""
    return any(
        icu.Char.charType(char) in SEEN
        and char != BRAILLE_BLANK
        and not icu.Char.hasBinaryProperty(char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)
        for char in text
    )
