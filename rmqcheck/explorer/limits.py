"""The explorer's limits on a request, and the ASGI layer that applies them to every request.

The page's longest address is a path of :data:`~.session.MAX_PATH` steps of the longest action label,
percent-encoded as the page encodes it (about 96 KB); :data:`MAX_TARGET` leaves room above it and refuses
anything larger (414). A browser sends about twenty header fields; :data:`MAX_HEADERS` refuses a request
with more than a hundred, or with more than :data:`MAX_HEADER_BYTES` of them (431). Every request must
carry exactly one non-empty Host header (400): the server checks it against its own names (DNS
rebinding, rmqcheck/explorer/server.py).

The real server (uvicorn, :mod:`.protocol`) applies the same limits while it reads the request head, so
nothing larger than :data:`MAX_HEAD` is ever buffered; this layer applies them again to whatever reaches
the application (another ASGI server, Starlette's TestClient).
"""
from __future__ import annotations

import json
from typing import Any, Iterable

#: the longest request target (path and query string) accepted, in bytes: 414 above
MAX_TARGET = 128 << 10
#: the most header fields a request may carry: 431 above
MAX_HEADERS = 100
#: the most bytes of header fields (names and values) a request may carry: 431 above
MAX_HEADER_BYTES = 32 << 10
#: the largest request head (request line and header fields) the server buffers while it reads one
MAX_HEAD = MAX_TARGET + MAX_HEADER_BYTES + 1024


def head_problem(target: bytes, headers: Iterable[tuple[bytes, bytes]]) -> tuple[int, str] | None:
    """``(HTTP status, message)`` refusing a request of this ``target`` and these ``headers``, or None."""
    if len(target) > MAX_TARGET:
        return 414, f"the request's address is {len(target):,} bytes long; at most {MAX_TARGET:,} are accepted"
    fields = list(headers)
    if len(fields) > MAX_HEADERS:
        return 431, f"the request has {len(fields):,} header fields; at most {MAX_HEADERS} are accepted"
    size = sum(len(name) + len(value) for name, value in fields)
    if size > MAX_HEADER_BYTES:
        return 431, f"the request's header fields are {size:,} bytes long; at most {MAX_HEADER_BYTES:,} are accepted"
    hosts = [value for name, value in fields if name.lower() == b"host"]
    if len(hosts) != 1 or not hosts[0].strip():
        return 400, "the request needs one Host header naming this server"
    return None


def json_error(status: int, message: str) -> tuple[dict[str, Any], bytes]:
    """The ``http.response.start`` message and the body of a JSON error answer (``{"error": message}``)."""
    body = json.dumps({"error": message}).encode()
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
    return start, body


class RequestLimits:
    """ASGI middleware: a request over the limits above is answered with its error and never reaches the
    application."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            target = scope.get("raw_path", b"") + (b"?" + scope["query_string"] if scope.get("query_string") else b"")
            problem = head_problem(target, scope.get("headers", []))
            if problem is not None:
                start, body = json_error(*problem)
                await send(start)
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
