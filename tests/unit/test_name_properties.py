"""Properties of a name as kept (app.schemas.clean_name, app.games.text): whatever is
sent, a name kept is one a client could send again and get back unchanged, with no
run of spaces, and nothing in it that renders as nothing."""

from __future__ import annotations

import icu
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.text import BRAILLE_BLANK, MAX_MARKS, most_marks
from app.schemas import clean_name

# Letters, spaces and the characters a name may not hide, mixed: the space of inputs
# where folding and refusing meet.
PIECES = st.sampled_from(
    [
        "a", "B", "é", "e\u0301", "\u0301", "ễ", " ", "  ", "\u00a0", "\u3000",
        "\u034f", "\ufe00", "\ufe0f", "\U000e0100", "\u180b", "\u17b4", "\u3164",
        "\u115f", "\u1160", "\uffa0", "\u2800", "\u200d", "\u2764", "\U0001f469",
        "\U0001f9b0", "\u845b",
    ]
)  # fmt: skip
names = st.lists(PIECES, min_size=1, max_size=12).map("".join)


def _kept(name: str) -> str | None:
    try:
        return clean_name(name.strip())  # the schema trims before clean_name
    except ValueError:
        return None


@settings(deadline=None, max_examples=400)
@given(names)
def test_a_name_as_kept_is_kept_again_unchanged(name: str) -> None:
    kept = _kept(name)
    if kept is not None:
        assert clean_name(kept) == kept


@settings(deadline=None, max_examples=400)
@given(names)
def test_a_name_as_kept_has_one_space_at_a_time_and_nothing_that_shows_nothing(
    name: str,
) -> None:
    kept = _kept(name)
    if kept is None:
        return
    assert "  " not in kept and kept == kept.strip(" ")
    assert BRAILLE_BLANK not in kept
    assert most_marks(kept) <= MAX_MARKS
    for index, char in enumerate(kept):
        if icu.Char.hasBinaryProperty(char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT):
            # Only where an emoji or an ideograph takes it: next to one.
            near = kept[max(index - 1, 0) : index + 2]
            assert any(
                icu.Char.hasBinaryProperty(other, icu.UProperty.EMOJI)
                or icu.Char.hasBinaryProperty(other, icu.UProperty.UNIFIED_IDEOGRAPH)
                for other in near
            ), (kept, index)
