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
- line and paragraph separators (U+2028, U+2029);
- any other default-ignorable code point (Unicode's list of what renders as nothing:
  the combining grapheme joiner U+034F, the Hangul fillers U+3164, U+115F, U+1160 and
  U+FFA0, the Khmer inherent vowels U+17B4 and U+17B5, ...), and the blank braille
  pattern U+2800, which renders as nothing though it is not on that list;
- a variation selector where it changes nothing: it is kept only where it picks a
  glyph, U+FE0E or U+FE0F after an emoji (❤️), U+FE00-U+FE0D or U+E0100-U+E01EF
  after an ideograph (a family name's variant in Japan), and a Mongolian free variation
  selector after a Mongolian letter;
- more than ``MAX_MARKS`` combining marks stacked on one character.

These are refused (a 422 naming the field), not dropped: they are invisible, so a
text that holds one would look like another text, and a client is told rather
than given back something other than it sent.

A name must also show something: at least one letter, digit, punctuation mark or
symbol that is not a blank.
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
TEXT_STYLE = "\ufe0e"  # the variation selector that asks for an emoji's text glyph
# Vietnamese stacks two marks on a letter (ệ: e, dot below, circumflex), pointed Hebrew
# and Tibetan stacks up to four; beyond that a pile of marks ("Zalgo" text) spills over
# the lines above and below. Counted decomposed (NFD), so ễ typed either way counts two.
MAX_MARKS = 4
MONGOLIAN_SELECTORS = frozenset("\u180b\u180c\u180d\u180f")
IDEOGRAPHIC_SELECTORS = frozenset(
    [*map(chr, range(0xFE00, 0xFE0E)), *map(chr, range(0xE0100, 0xE01F0))]
)
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
MARKS = frozenset({CATEGORY.NON_SPACING_MARK, CATEGORY.ENCLOSING_MARK})
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


def _selects_a_glyph(text: str, index: int) -> bool:
    """Whether the variation selector at ``index`` picks a glyph of the character
    before it (an emoji's, an ideograph's, a Mongolian letter's), not nothing."""
    if index == 0:
        return False
    char, before = text[index], text[index - 1]
    if char in (EMOJI_PRESENTATION, TEXT_STYLE):
        return bool(icu.Char.hasBinaryProperty(before, icu.UProperty.EMOJI))
    if char in IDEOGRAPHIC_SELECTORS:
        return bool(icu.Char.hasBinaryProperty(before, icu.UProperty.UNIFIED_IDEOGRAPH))
    if char in MONGOLIAN_SELECTORS:
        return 0x1820 <= ord(before) <= 0x18AA  # the Mongolian letters
    return False


def _invisible(text: str, index: int) -> bool:
    """Whether the character at ``index`` is refused as control or invisible."""
    char = text[index]
    if char == BRAILLE_BLANK:
        return True
    if icu.Char.hasBinaryProperty(char, icu.UProperty.VARIATION_SELECTOR):
        return not _selects_a_glyph(text, index)
    if icu.Char.charType(char) in REFUSED or icu.Char.hasBinaryProperty(
        char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
    ):
        return not _allowed_in_emoji(text, index)
    return False


def most_marks(text: str) -> int:
    """The most combining marks stacked on one character of ``text``, decomposed."""
    most = run = 0
    for char in unicodedata.normalize("NFD", text):
        run = run + 1 if icu.Char.charType(char) in MARKS else 0
        most = max(most, run)
    return most


def check_text(text: str, *, what: str, max_length: int, lines: bool = False) -> str:
    """``text`` as kept (NFC), or ValueError naming the first character refused."""
    text = unicodedata.normalize("NFC", text)
    for index, char in enumerate(text):
        if char == "\n" and lines:
            continue
        if _invisible(text, index):
            raise ValueError(
                f"{what} cannot hold the invisible or control character U+{ord(char):04X}"
            )
    if most_marks(text) > MAX_MARKS:
        raise ValueError(
            f"{what} cannot stack more than {MAX_MARKS} combining marks on one character"
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


def fold_spaces(text: str) -> str:
    """``text`` trimmed, each run of spaces in it one plain space: "Anna  B" is "Anna B".
    Any space separator counts (a no-break space, an ideographic space), since each
    shows as a gap and two names that differ only there look the same."""
    spaced = "".join(
        " " if icu.Char.charType(char) == CATEGORY.SPACE_SEPARATOR else char for char in text
    )
    return " ".join(word for word in spaced.split(" ") if word)
