"""Request ids, structured JSON logs and an access log line per request."""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import metrics
from app.api.problems import problem

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)

REQUEST_ID_HEADER = "X-Request-ID"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_EXTRA_FIELDS = ("method", "path", "status", "duration_ms", "client")

access_logger = logging.getLogger("squarescores.access")


MAX_LOGGED_PATH = 256  # characters of a request's path an access log line shows
# Characters a plain log line shows escaped: C0 and C1 controls (CR and LF among them),
# and Unicode's line and paragraph separators.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# PostgreSQL's DETAIL and CONTEXT lines of an error may quote a row's values ("Failing
# row contains (...)", "Key (...)=(...)"): names, client addresses. Logs keep the error
# and its statement, never values, as hide_parameters does for the statement's
# parameters. (A traceback may indent them: "  | DETAIL: ...".)
_DATABASE_DETAIL = re.compile(r"\b(DETAIL|CONTEXT): .*$", re.M)


def without_values(text: str) -> str:
    """``text`` with a database error's DETAIL and CONTEXT lines (their values) left out."""
    return _DATABASE_DETAIL.sub(r"\1: (not logged: it may hold a row's values)", text)


logger = logging.getLogger("squarescores")


def _escaped(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


class PlainFormatter(logging.Formatter):
    """``LEVEL logger message``, one line per record: control characters in what the
    record says (a path, a header a client sent) are shown escaped (``\\r\\n``), so no
    client can start a line of its own. A traceback still follows on its own lines."""

    def __init__(self) -> None:
        super().__init__("%(levelname)s %(name)s %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        return _UNPRINTABLE.sub(_escaped, without_values(super().formatMessage(record)))

    def formatException(self, ei: Any) -> str:
        return without_values(super().formatException(ei))


class JsonFormatter(logging.Formatter):
    """One JSON object per line, with the request id of the request being served."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": without_values(record.getMessage()),
            "request_id": getattr(record, "request_id", None),
        }
        for name in _EXTRA_FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry["exception"] = without_values(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


class RequestIdFilter(logging.Filter):
    """Stamp each record with the id of the request it was logged in: the logging
    cookbook's way of adding context, on our handler only."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        return True


def configure_logging(level: str, *, json_logs: bool) -> None:
    """Send our logs and the server's through one handler; uvicorn's access log is
    replaced by ours. Every record the handler writes carries the request id."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if json_logs else PlainFormatter())
    for name in ("", "uvicorn", "uvicorn.error"):
        target = logging.getLogger(name)
        target.handlers = [handler]
        target.setLevel(level.upper())
        target.propagate = name == ""
    logging.getLogger("uvicorn.access").disabled = True
    # /readyz asks alembic for the schema's revision; its chatter is not news.
    logging.getLogger("alembic.runtime.migration").setLevel(logging.WARNING)


NOSNIFF = (b"x-content-type-options", b"nosniff")


class RequestContext:
    """Give every request an id (the client's X-Request-ID when sane), echo it on the
    response, log one access line, and turn an unexpected exception into a 500 problem.

    Every response also says ``X-Content-Type-Options: nosniff``: a browser takes a
    JSON answer (whose strings a client sent) for nothing but what its type says."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = ""
        for name, value in scope["headers"]:  # the last one, as a dict of them would keep
            if name == b"x-request-id":
                sent = value.decode("latin-1")
        request_id = sent if _VALID_REQUEST_ID.fullmatch(sent) else str(uuid.uuid4())
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        answered = started
        status = 500
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, response_started, answered
            if message["type"] == "http.response.start":
                response_started = True
                answered = time.perf_counter()
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                if not any(name == b"x-content-type-options" for name, _ in headers):
                    headers.append(NOSNIFF)
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            logger.exception("unhandled error on %s %s", scope["method"], scope["path"])
            if response_started:
                raise
            response = problem(
                500, "internal_error", "Internal server error", "an unexpected error occurred"
            )
            await response(scope, receive, send_with_id)
        finally:
            if access_logger.isEnabledFor(logging.INFO):
                log_access(scope, status, started)
            count_request(
                scope, status, (answered if response_started else time.perf_counter()) - started
            )
            request_id_var.reset(token)


def count_request(scope: Scope, status: int, seconds: float) -> None:
    """The request in the metrics, under its route's template, or a mount's path and
    ``/*`` (the page's and the docs' assets); ``unmatched`` when nothing took it. A
    stream's time is to its first byte, not its end."""
    if "route" in scope:
        route = getattr(scope["route"], "path", "unmatched")
    elif "endpoint" in scope:  # a mount, whose path Starlette added to root_path
        route = scope["root_path"].removeprefix(scope.get("app_root_path", "")) + "/*"
    else:
        route = "unmatched"
    method = scope["method"]
    metrics.REQUESTS.labels(route, method, str(status)).inc()
    metrics.REQUEST_SECONDS.labels(route, method).observe(seconds)


def log_access(scope: Scope, status: int, started: float) -> None:
    path = scope["path"]
    if len(path) > MAX_LOGGED_PATH:
        path = path[:MAX_LOGGED_PATH] + "…"
    access_logger.info(
        "%s %s %s",
        scope["method"],
        path,
        status,
        extra={
            "method": scope["method"],
            "path": path,
            "status": status,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
            "client": scope["client"][0] if scope.get("client") else None,
        },
    )
