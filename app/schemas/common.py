"""What every shape shares: the names the API takes, the base of every response, the
problem detail every error answers with."""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)

from app.games.text import AS_SENT, check_text, fold_spaces, shows_something

MAX_NAME_LENGTH = 40


def clean_name(name: str) -> str:
    """A name as it is kept (``app.games.text``), for every name the API takes (players
    at creation, team names, renames by ``PATCH``): NFC, at most 40 characters as kept,
    and something one sees.

    Runs of spaces are folded silently into one space, and the ends trimmed ("Anna  B"
    is kept as "Anna B", and so clashes with an "Anna B" at the table): the name looks
    as it did. What renders as nothing (control and default-ignorable characters, a
    variation selector that selects nothing, the Hangul fillers, the blank braille
    pattern) and a pile of more than a few combining marks on one letter are refused,
    422 at the field, before the length and look-alike checks."""
    name = check_text(fold_spaces(name), what="a name", max_length=MAX_NAME_LENGTH)
    if not shows_something(name):
        raise ValueError("a name must show a letter, digit or symbol, not only blanks or marks")
    return name


PlayerName = Annotated[
    str,
    # Counted again as kept (clean_name), where the 40 holds.
    StringConstraints(strip_whitespace=True, min_length=1, max_length=AS_SENT * MAX_NAME_LENGTH),
    AfterValidator(clean_name),
    Field(
        description=f"1-{MAX_NAME_LENGTH} characters as stored (NFC-normalised; as sent, up "
        f"to {AS_SENT * MAX_NAME_LENGTH} code points, since a decomposed character "
        "composes into one), at least one of them "
        "visible; runs of spaces are kept as one space; no control, invisible or "
        "default-ignorable characters (but a zero-width joiner inside an emoji, and a "
        "variation selector after an emoji or ideograph), no more than four combining "
        "marks on one character; unique at the table ignoring case, compatibility forms "
        "and look-alike letters"
    ),
]
TeamName = PlayerName


def union_of(models: Any) -> Any:
    """One annotation for any of ``models`` (the registry's games, built at import)."""
    return Union[tuple(models)]  # noqa: UP007


HOST_SEAT_DESCRIPTION = (
    "the seat of the player who holds the host's phone (a seat of the table), or null: "
    "the host only keeps score, or has not said. Rounds and changes the host's token "
    "makes are recorded as `host`; a client names them after this seat's player"
)
WHO_DESCRIPTION = (
    "who did it: host or seat:N (the host is the player at the match's host_seat, "
    "when it names one)"
)


class Read(BaseModel):
    """Base of every response shape."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)


class Problem(BaseModel):
    """An RFC 9457 problem detail; ``errors`` is present on validation errors only."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "about:blank",
                    "title": "The request is not valid",
                    "status": 422,
                    "detail": "tricks must sum to 11, got 10",
                    "code": "validation_error",
                    "errors": [
                        {"loc": ["body", "tricks"], "message": "tricks must sum to 11, got 10"}
                    ],
                }
            ]
        },
    )

    type: str = Field(description="always about:blank: `code` says what happened")
    title: str
    status: int
    detail: str
    code: str
    # Left out, not null, when there is nothing to list: a generator reads an optional
    # nullable property as one to send back as null.
    errors: list[ProblemField] = Field(
        default_factory=list, description="on a 422 only: each field at fault"
    )


class ProblemField(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"loc": ["body", "tricks"], "message": "tricks must sum to 11, got 10"}]
        }
    )
    # oneOf, not pydantic's anyOf: typescript-fetch types an anyOf of primitives as an
    # empty interface. The two are the same here, as no value is both.
    loc: list[
        Annotated[str | int, WithJsonSchema({"oneOf": [{"type": "string"}, {"type": "integer"}]})]
    ]
    message: str


Problem.model_rebuild()
