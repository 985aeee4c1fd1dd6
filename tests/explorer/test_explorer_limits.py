"""The explorer server's limits on what a client sends (issue 45): a real ``rmqcheck explore`` process on
127.0.0.1 driven over raw sockets where Starlette's TestClient cannot show it (the request head as uvicorn
reads it, a chunked body, the server's memory and log), and the TestClient for what the application
itself answers. Every socket has a timeout; nothing leaves the loopback."""
from __future__ import annotations

import re
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import quote

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import assert_bad_input, invoke  # noqa: E402
from explorer_fixtures import client, served, session  # noqa: E402

from rmqcheck.explorer.limits import MAX_HEAD, MAX_HEADERS, MAX_TARGET  # noqa: E402
from rmqcheck.explorer.server import MAX_BODY  # noqa: E402
from rmqcheck.explorer.session import MAX_PATH, join_path  # noqa: E402

TIMEOUT = 20   # seconds any one socket operation may take


@pytest.fixture(scope="module")
def server():
    """``rmqcheck explore`` on 127.0.0.1 (any free port): ``(host, port, process)``."""
    with served("--set", "messages=1") as (url, proc):
        host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
        yield host, int(port), proc


def connect(server) -> socket.socket:
    sock = socket.create_connection(server[:2], timeout=TIMEOUT)
    sock.settimeout(TIMEOUT)
    return sock


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    """``(status, whole answer)``: read until the server closes or the answer's body is complete."""
    data = b""
    while True:
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep:
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            if length and len(body) >= int(length.group(1)):
                break
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    status = re.match(rb"HTTP/1\.1 (\d{3}) ", data)
    assert status, data[:200]
    return int(status.group(1)), data


def ask(server, request: bytes) -> tuple[int, bytes]:
    """Send ``request`` whole and read the answer."""
    with connect(server) as sock:
        sock.sendall(request)
        return read_answer(sock)


def get(target: bytes, headers: bytes = b"Host: 127.0.0.1\r\n") -> bytes:
    return b"GET " + target + b" HTTP/1.1\r\n" + headers + b"Connection: close\r\n\r\n"


def error_of(answer: bytes) -> str:
    import json
    return json.loads(answer.partition(b"\r\n\r\n")[2])["error"]


# -- the request head ----------------------------------------------------------------------------------------
def test_a_non_ascii_number_is_an_unknown_search_not_an_internal_error():
    """``²`` and ``٣`` are digits to Python's ``str.isdigit`` but not numbers ``int`` reads: a 404 (it was a
    500 with a 43-line traceback in the server's log)."""
    with served("--set", "messages=1") as (url, proc):
        host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()
        for raw in (b"%C2%B2", b"%D9%A3", b"%EF%BC%91"):
            status, answer = ask((host, int(port)), get(b"/api/search/" + raw))
            assert status == 404 and "no search" in error_of(answer), answer
    assert "Traceback" not in proc.stderr_text and "Exception" not in proc.stderr_text, proc.stderr_text


def test_too_many_header_fields_are_a_431(server):
    fields = b"".join(b"X-Field-%d: y\r\n" % i for i in range(10_000))
    status, answer = ask(server, get(b"/api/model", b"Host: 127.0.0.1\r\n" + fields))
    assert status == 431 and "header fields" in error_of(answer)
    few = b"".join(b"X-Field-%d: y\r\n" % i for i in range(MAX_HEADERS - 2))   # with Host and Connection: the limit
    assert ask(server, get(b"/api/model", b"Host: 127.0.0.1\r\n" + few))[0] == 200
    more = few + b"X-One-More: y\r\n"
    assert ask(server, get(b"/api/model", b"Host: 127.0.0.1\r\n" + more))[0] == 431


def test_an_empty_or_missing_host_is_refused(server):
    for headers in (b"Host: \r\n", b"Host:\r\n", b"", b"Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n"):
        status, answer = ask(server, get(b"/api/model", headers))
        assert status == 400, (headers, answer)
    status, answer = ask(server, b"GET /api/model HTTP/1.0\r\n\r\n")   # HTTP/1.0 needs no Host, this server does
    assert status == 400 and "Host" in error_of(answer)


def test_a_long_address_is_a_414_the_client_reads(server):
    """200 KB of query string, sent whole while the server reads it: a 414 answer, not a reset connection."""
    status, answer = ask(server, get(b"/api/path?path=" + b"a" * 200_000))
    assert status == 414 and "address" in error_of(answer)
    # a head that is whole but whose address is over the limit (below the most the server buffers)
    assert MAX_TARGET < 140_000 < MAX_HEAD
    assert ask(server, get(b"/api/path?path=" + b"a" * 140_000))[0] == 414


def test_a_long_address_never_ended_is_a_414_too(server):
    """The request line still arriving when the server has buffered all it will: answered, then drained."""
    with connect(server) as sock:
        sock.sendall(b"GET /api/path?path=" + b"a" * (MAX_HEAD + 1000))
        status, answer = read_answer(sock)
        assert status == 414, answer
        sock.sendall(b"b" * 100_000)   # the server still reads (and drops) what the client sends ...
        assert sock.recv(100) == b""   # ... and ends the connection after its answer


def test_the_longest_path_the_page_can_ask_for_fits(server):
    """``MAX_PATH`` steps of the longest label, encoded as the page encodes them: the explorer answers it (the
    path is not one of this configuration: 400), it is not refused as too long."""
    label = "CorrectIllegalOffset(consumer=1, queue=0)"
    query = quote(join_path([label] * MAX_PATH), safe=";,=").encode()
    assert 80_000 < len(query) < MAX_TARGET
    status, answer = ask(server, get(b"/api/path?path=" + query))
    assert status == 400 and "step 1" in error_of(answer), answer[:300]


# -- the request body ----------------------------------------------------------------------------------------
def chunked_post(close: bool) -> bytes:
    """The head of a chunked POST of a trace (``Connection: close`` if ``close``)."""
    return (b"POST /api/trace HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n" + (b"Connection: close\r\n" if close else b"") + b"\r\n")


def test_a_chunked_body_over_the_limit_is_a_413_while_it_is_read(server):
    """A chunked body declares no length: the limit holds while it is read. The server answers 413 once the
    body passes the limit, while the client has not finished it; a client that then goes on sending is
    drained for a while, and the server's peak memory stays near the limit (it read 64 MiB whole before)."""
    proc = psutil.Process(server[2].pid)
    peak = peak_rss(proc)
    piece = b" " * (1 << 20)
    with connect(server) as sock:
        sock.sendall(chunked_post(False))
        for _ in range(MAX_BODY // len(piece) + 1):
            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        status, answer = read_answer(sock)   # the body is not finished: no terminating chunk
        assert status == 413 and "larger than" in error_of(answer)

    def push(sock: socket.socket) -> None:
        try:
            sock.sendall(chunked_post(True))
            for _ in range(8 * MAX_BODY // len(piece)):
                sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        except OSError:   # the server closed the connection after its answer and a drain
            pass

    with connect(server) as sock:
        sender = threading.Thread(target=push, args=(sock,), daemon=True)
        sender.start()
        try:
            status, _ = read_answer(sock)
        finally:
            sender.join(TIMEOUT)
        assert status == 413 and not sender.is_alive()
    if peak is not None:
        assert peak_rss(proc) - peak < 3 * MAX_BODY, (peak, peak_rss(proc))


def peak_rss(proc: psutil.Process) -> int | None:
    """The process's peak resident memory in bytes (Linux: VmHWM), or None where the system does not say."""
    try:
        status = Path(f"/proc/{proc.pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"VmHWM:\s*(\d+) kB", status)
    return int(found.group(1)) * 1024 if found else None


# -- the same limits on the application (any ASGI server) ----------------------------------------------------
def test_the_application_applies_the_limits_itself():
    with client() as c:
        assert c.get("/api/search/%C2%B2").status_code == 404
        assert c.get("/api/model", headers={"host": ""}).status_code == 400
        assert c.get("/api/path", params={"path": "a" * 60_000}).status_code == 400   # long, not too long
        many = {f"x-field-{i}": "y" for i in range(MAX_HEADERS + 1)}
        answer = c.get("/api/model", headers=many)
        assert answer.status_code == 431 and "header fields" in answer.json()["error"]


def call(scope_fields: dict, body_pieces: int = 0, piece: bytes = b"") -> tuple[list[dict], int]:
    """Call the application as an ASGI server would (httpx, under the TestClient, refuses a long address
    itself and sends a whole body however the application reads it): the messages it sent, and how many
    body pieces it read of ``body_pieces``."""
    import asyncio

    from explore.local import Limits
    from rmqcheck.explorer.server import Explorer, app

    sent: list[dict] = []
    read = 0

    async def receive():
        nonlocal read
        read += 1
        return {"type": "http.request", "body": piece, "more_body": read < body_pieces}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "raw_path": b"/", "root_path": "", "query_string": b"",
             "headers": [(b"host", b"127.0.0.1")], "http_version": "1.1", "scheme": "http",
             "server": ("127.0.0.1", 8737), "client": ("127.0.0.1", 1), **scope_fields}
    asyncio.run(app(Explorer(session(), Limits()))(scope, receive, send))
    return sent, read


def test_the_application_refuses_a_long_address_itself():
    sent, _ = call({"path": "/api/path", "raw_path": b"/api/path", "query_string": b"path=" + b"a" * MAX_TARGET})
    assert sent[0]["status"] == 414 and b"address" in sent[1]["body"]


def test_the_application_stops_reading_a_body_over_the_limit():
    """A body of no declared length is read only until it passes the limit (it was read whole first)."""
    piece = b" " * (1 << 20)
    pieces = 4 * MAX_BODY // len(piece)
    sent, read = call({"method": "POST", "path": "/api/trace", "raw_path": b"/api/trace",
                       "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]}, pieces, piece)
    assert sent[0]["status"] == 413 and b"larger than" in sent[1]["body"]
    assert read * len(piece) <= MAX_BODY + 2 * len(piece) < pieces * len(piece)


# -- the command -----------------------------------------------------------------------------------------------
def test_an_address_it_cannot_listen_on_is_one_error_before_any_listening_line():
    """192.0.2.1 (TEST-NET-1) is no address of this machine: the error alone, not the warning that the
    explorer is listening on another address first."""
    result = invoke("explore", "--set", "messages=1", "--host", "192.0.2.1", "--port", "0")
    assert_bad_input(result, "cannot listen on 192.0.2.1", "--host")
    assert "listening" not in result.stderr
