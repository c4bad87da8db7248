"""The body-size limit counts what a request may send: a request that declares no
body (neither Content-Length nor Transfer-Encoding) reaches the app with nothing
wrapped around it; a chunked one is counted, and refused past the limit."""

from __future__ import annotations

import asyncio
from typing import Any

from app.api.limits import BodySizeLimit

LIMIT = 1024


def _run(headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> dict[str, Any]:
    """What the app behind the limit saw and what was sent back."""
    seen: dict[str, Any] = {"sent": []}
    messages = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        seen["sent"].append(message)

    async def app(scope: Any, app_receive: Any, app_send: Any) -> None:
        seen["receive"], seen["send"] = app_receive, app_send
        while (await app_receive()).get("more_body"):
            pass
        await app_send({"type": "http.response.start", "status": 200, "headers": []})
        await app_send({"type": "http.response.body", "body": b"ok"})

    scope = {"type": "http", "method": "GET", "path": "/", "headers": headers}
    asyncio.run(BodySizeLimit(app, max_bytes=LIMIT)(scope, receive, send))
    seen["receive_is_original"] = seen["receive"] is receive
    seen["send_is_original"] = seen["send"] is send
    return seen


def test_a_request_that_declares_no_body_is_passed_on_unwrapped() -> None:
    seen = _run([(b"accept", b"text/event-stream")], [b""])
    assert seen["receive_is_original"] and seen["send_is_original"]
    assert seen["sent"][0]["status"] == 200


def test_a_chunked_body_is_counted_and_refused_past_the_limit() -> None:
    chunked = [(b"transfer-encoding", b"chunked")]
    small = _run(chunked, [b"a" * 100, b"b" * 100])
    assert not small["receive_is_original"]
    assert small["sent"][0]["status"] == 200
    large = _run(chunked, [b"a" * 1000, b"b" * 1000])
    assert large["sent"][0]["status"] == 413
