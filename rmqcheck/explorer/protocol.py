"""The explorer's HTTP/1.1 connection on uvicorn: uvicorn's h11 protocol with the request limits of
:mod:`.limits` applied while the request head is read, and a refusal the client can read.

uvicorn's own protocol buffers an incomplete head up to h11's 16 KiB, then answers 400 and closes the
socket at once; a head that arrives whole is parsed whatever its size. Closing a socket whose client is
still sending makes the kernel reset the connection, so a client sending a long address never saw the
answer. Here:

- the head is buffered up to :data:`~.limits.MAX_HEAD` (a legitimate long path fits), and a head over a
  limit, whole or not, is refused with its status: 414 for the address, 431 for the header fields, 400 for
  the Host header or a malformed request;
- a refusal is a JSON ``{"error": ...}`` answer after which the server stops writing (a half close) and
  reads and discards what the client still sends, for at most :data:`LINGER_SECONDS` and
  :data:`LINGER_BYTES`, before closing: the client reads the answer, then sees the connection end.
"""
from __future__ import annotations

from http import HTTPStatus
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import MAX_HEAD, MAX_TARGET, head_problem, json_error

#: how long a refused connection is drained before it is closed, in seconds
LINGER_SECONDS = 2.0
#: how many bytes a refused connection drains at most before it is closed
LINGER_BYTES = 16 << 20   # as much as a request body may hold (server.MAX_BODY)


class LimitedConnection(h11.Connection):
    """An h11 server connection that refuses a request head over the limits, remembering why as
    :attr:`refusal` ``(status, message)``."""

    def __init__(self) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.refusal: tuple[int, str] | None = None

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            if self.refusal is None:
                self.refusal = self._incomplete_refusal(exc)
            raise
        if isinstance(event, h11.Request):
            self.refusal = head_problem(event.target, event.headers)
            if self.refusal is not None:
                raise h11.RemoteProtocolError(self.refusal[1], error_status_hint=self.refusal[0])
        return event

    def _incomplete_refusal(self, exc: h11.RemoteProtocolError) -> tuple[int, str]:
        """Why h11 gave up on a head: too long (the address if its line is not even complete), or malformed."""
        if exc.error_status_hint == 431:
            pending = self.trailing_data[0]
            line_end = pending.find(b"\n")
            if line_end == -1 or line_end > MAX_TARGET:
                return 414, f"the request's address is longer than {MAX_TARGET:,} bytes"
            return 431, f"the request's head is longer than {MAX_HEAD:,} bytes"
        return 400, f"the request is not valid HTTP/1.1: {exc}"


class _LingeringTransport:
    """The connection's transport as uvicorn's request cycle sees it: closing lingers (see
    :meth:`LimitedH11Protocol.linger`)."""

    def __init__(self, protocol: LimitedH11Protocol, transport: Any) -> None:
        self._protocol = protocol
        self._transport = transport

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def close(self) -> None:
        self._protocol.linger()


class LimitedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol on a :class:`LimitedConnection`, refusing with the connection's reason and
    draining before it closes (``uvicorn.Config(http=LimitedH11Protocol)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = LimitedConnection()
        self._raw: Any = None
        self._draining: int | None = None   # bytes discarded since the server stopped reading requests

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._raw = transport
        self.transport = _LingeringTransport(self, transport)   # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._draining is None:
            super().data_received(data)
            return
        self._draining += len(data)
        if self._draining > LINGER_BYTES:
            self._raw.close()

    def linger(self, refused: bool = False) -> None:
        """Close the connection; if the client may still be sending (a refused head, or a body the answer
        did not wait for, such as a 413), first stop writing and drain what it sends for at most
        :data:`LINGER_SECONDS` and :data:`LINGER_BYTES`, so that it reads the answer instead of a reset."""
        raw = self._raw
        sending = refused or self.conn.their_state is h11.SEND_BODY
        if raw.is_closing() or self._draining is not None or not sending or not raw.can_write_eof():
            raw.close()
            return
        self._draining = 0
        raw.write_eof()   # after the answer already written
        raw.resume_reading()
        self.loop.call_later(LINGER_SECONDS, raw.close)

    def send_400_response(self, msg: str) -> None:
        """uvicorn calls this when h11 refuses the request (the name is uvicorn's): answer the refusal's status."""
        status, message = self.conn.refusal or (400, msg)
        start, body = json_error(status, message)
        headers = [*start["headers"], (b"connection", b"close")]
        for event in (h11.Response(status_code=status, headers=headers, reason=HTTPStatus(status).phrase.encode()),
                      h11.Data(data=body), h11.EndOfMessage()):
            self._raw.write(self.conn.send(event))
        self.linger(refused=True)
