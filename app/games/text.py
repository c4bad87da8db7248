"""The characters a table's own words may hold: player and team names, and the own
table's rules. One rule for all of them, so nothing one refuses slips in another.

Text is kept NFC-normalised (one way to write each accented letter), and its length
is counted as kept. It may not hold:

- control characters (but a line break, where the text has lines);
- invisible format characters: zero-width spaces, bidi overrides and isolates,
  which make a name read differently from what it is; the one exception is the
  zero-width joiner inside an emoji sequence (👩‍🦰, 🏳️‍🌈), which people use as names;
- line and paragraph separators (U+2028, U+2029).

A name must also show something: at least one letter, digit, punctuation mark or
symbol that is not a blank (the Hangul fillers and the blank braille pattern
render as nothing).
"""

from __future__ import annotations

import unicodedata

ZWJ = "\u200d"
EMOJI_PRESENTATION = "\ufe0f"  # the variation selector that asks for an emoji's picture
# Letters and symbols that render as nothing (Hangul fillers, the blank braille pattern).
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
REFUSED = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


def _emoji_side(char: str) -> bool:
    return unicodedata.category(char) in ("So", "Sk") or char == EMOJI_PRESENTATION


def _joins_emoji(text: str, index: int) -> bool:
    """Whether the joiner at ``index`` stands between two parts of an emoji."""
    return 0 < index < len(text) - 1 and (
        _emoji_side(text[index - 1]) and _emoji_side(text[index + 1])
    )


def check_text(text: str, *, what: str, max_length: int, lines: bool = False) -> str:
    """``text`` as kept (NFC), or ValueError naming the first character refused."""
    text = unicodedata.normalize("NFC", text)
    for index, char in enumerate(text):
        if char == "\n" and lines:
            continue
        if char == ZWJ and _joins_emoji(text, index):
            continue
        if unicodedata.category(char) in REFUSED:
            raise ValueError(
                f"{what} cannot hold the invisible or control character U+{ord(char):04X}"
            )
    if len(text) > max_length:
        raise ValueError(f"{what} is at most {max_length} characters, got {len(text)}")
    return text


def shows_something(text: str) -> bool:
    """Whether ``text`` holds a character one sees (not only blanks, spaces or marks)."""
    return any(unicodedata.category(char)[0] in "LNPS" and char not in BLANKS for char in text)
