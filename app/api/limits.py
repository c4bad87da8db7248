"""A cap on request body size, enforced before anything reads the body."""

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.problems import BODY_TOO_LARGE, payload_too_large


class BodyTooLarge(Exception):
    pass


class BodySizeLimit:
    """Answer 413 to a body over ``max_bytes``, declared or streamed."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        has_body = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                if not value.isdigit() or int(value) > self.max_bytes:
                    await self._reject(scope, receive, send)
                    return
                # The server delivers no more than the declared length: nothing to count.
                await self.app(scope, receive, send)
                return
            if name == b"transfer-encoding":
                has_body = True
        if not has_body:  # a request with neither header has no body (RFC 9112, 6.3)
            await self.app(scope, receive, send)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    scope[BODY_TOO_LARGE] = True
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._reject(scope, receive, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = self.too_large()
        await response(scope, receive, send)

    def too_large(self) -> Response:
        """The 413 problem."""
        return payload_too_large(self.max_bytes)
