"""Every error a service can raise has its own HTTP status in the API layer's table."""

from app.api.problems import STATUS, problem_body, status_of
from app.errors import FieldError, InvalidInput, MatchFull, ServiceError


def test_every_service_error_is_given_a_status_explicitly() -> None:
    assert set(ServiceError.__subclasses__()) <= set(STATUS)


def test_a_problem_body_carries_the_status_code_and_fields() -> None:
    error = InvalidInput("bad", errors=[FieldError(("body", "amounts"), "must sum to 0")])
    assert problem_body(error) == {
        "type": "about:blank",
        "title": InvalidInput.title,
        "status": 422,
        "detail": "bad",
        "code": "validation_error",
        "errors": [{"loc": ["body", "amounts"], "message": "must sum to 0"}],
    }
    assert status_of(MatchFull("full")) == 409
