"""The explorer's HTTP side: a Starlette application serving one static page and a small JSON API.

Every answer about a state is computed from the path in the request (``path=SendMessage();MasterCrash()``),
so the server keeps no per-page state and a URL always shows the same state. Endpoints:

- ``GET /api/model``: the configuration, the fields by actor, the properties, the traces loaded so far;
- ``GET /api/path?path=P``: everything the page shows for path P (steps, state, enabled actions,
  properties, sequence diagram); ``/api/state``, ``/api/actions``, ``/api/properties`` one part of it;
- ``POST /api/step`` ``{"path": P, "action": LABEL}``: the same for P followed by LABEL;
- ``POST /api/trace`` ``{"name": FILE, "text": CONTENT}``: load a trace file (JSON result or ITF);
- ``POST /api/search`` ``{"property": NAME}``: start "shortest path to NAME"; ``GET /api/search/{id}``: its
  progress, then its path.

Bad input (an unknown label, an action not enabled, a trace of another configuration, a malformed body)
answers 400 with ``{"error": "..."}``, an unknown search 404, a search while one runs 409, a body over
:data:`MAX_BODY` 413 (counted while it is read: a chunked body declares no length), an address too long
414, too many header fields 431 (:mod:`.limits`); never a traceback. POST bodies must be JSON
(``application/json``), which a foreign web page cannot send without the browser first asking this server
(which never agrees), and the one Host header (an empty one is refused) must name this server, so a page
of another site cannot drive it (DNS rebinding).
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any, Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .limits import RequestLimits
from .search import SearchBusy, Searches
from .session import PathError, Session, split_path
from .trace_files import LoadedTrace, TraceFileError, read_traces

#: the largest request body accepted (a trace file rides in one)
MAX_BODY = 16 << 20
LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]
STATIC = resources.files(__package__) / "static"


class BadRequest(ValueError):
    """Input the API refuses (answered 400 with the message)."""


def error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Explorer:
    """The explorer of one session: its loaded traces and searches, and the request handlers."""

    def __init__(self, session: Session, limits: Any, traces: list[LoadedTrace] | None = None) -> None:
        self.session = session
        self.searches = Searches(session, limits)
        self.traces: list[LoadedTrace] = list(traces or [])

    # -- reading requests -------------------------------------------------------------------------------
    @staticmethod
    def labels(request: Request) -> list[str]:
        return split_path(request.query_params.get("path", ""))

    @staticmethod
    async def json_body(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise BadRequest("send the request body as JSON (Content-Type: application/json)")
        declared = request.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
            raise HTTPException(413, f"the request body is larger than {MAX_BODY:,} bytes")
        body = bytearray()
        async for chunk in request.stream():   # the limit holds while reading: a chunked body declares no length
            body += chunk
            if len(body) > MAX_BODY:
                raise HTTPException(413, f"the request body is larger than {MAX_BODY:,} bytes")
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise BadRequest(f"the request body is not JSON: {' '.join(str(exc).split())}") from None
        if not isinstance(data, dict):
            raise BadRequest("the request body must be a JSON object")
        return data

    @staticmethod
    def text_field(data: dict[str, Any], key: str) -> str:
        value = data.get(key)
        if not isinstance(value, str):
            raise BadRequest(f"the request needs '{key}' as text")
        return value

    # -- handlers ---------------------------------------------------------------------------------------
    async def model(self, request: Request) -> JSONResponse:
        return JSONResponse({**self.session.describe(), "traces": [t.to_dict() for t in self.traces]})

    async def path(self, request: Request) -> JSONResponse:
        walk = self.session.path(self.labels(request))
        return JSONResponse(self.session.page_data(walk))

    async def state(self, request: Request) -> JSONResponse:
        walk = self.session.path(self.labels(request))
        return JSONResponse({"path": walk.labels, "state": self.session.state(walk)})

    async def actions(self, request: Request) -> JSONResponse:
        walk = self.session.path(self.labels(request))
        return JSONResponse({"path": walk.labels, "enabled": self.session.enabled(walk)})

    async def properties(self, request: Request) -> JSONResponse:
        walk = self.session.path(self.labels(request))
        return JSONResponse({"path": walk.labels, "properties": self.session.property_values(walk)})

    async def step(self, request: Request) -> JSONResponse:
        data = await self.json_body(request)
        labels = split_path(self.text_field(data, "path")) if "path" in data else []
        walk = self.session.path([*labels, self.text_field(data, "action")])
        return JSONResponse(self.session.page_data(walk))

    async def trace(self, request: Request) -> JSONResponse:
        data = await self.json_body(request)
        name = self.text_field(data, "name")[:200] or "uploaded file"
        loaded = read_traces(self.text_field(data, "text"), name, self.session)
        self.traces = loaded + [t for t in self.traces if t not in loaded]
        return JSONResponse({"traces": [t.to_dict() for t in loaded]})

    async def search(self, request: Request) -> JSONResponse:
        from invariants.base import UnknownPropertyError

        name = self.text_field(await self.json_body(request), "property")
        try:
            self.session.properties.get(name)
        except UnknownPropertyError as exc:
            raise BadRequest(str(exc)) from None
        return JSONResponse(self.searches.start(name).to_dict(), status_code=202)

    async def search_status(self, request: Request) -> JSONResponse:
        raw = request.path_params["id"]
        found = self.searches.get(int(raw)) if raw.isascii() and raw.isdigit() and len(raw) < 10 else None
        if found is None:
            return error(f"no search {raw[:20]!r}; start one with POST /api/search", 404)
        return JSONResponse(found.to_dict())


async def index(request: Request) -> Response:
    return FileResponse(str(STATIC / "index.html"), media_type="text/html")


async def sequence_css(request: Request) -> Response:
    from reports.sequence import SVG_STYLE

    return Response(SVG_STYLE, media_type="text/css")


def _handler(status: int) -> Callable[[Request, Exception], Awaitable[Response]]:
    async def handle(request: Request, exc: Exception) -> Response:
        return error(str(exc), status)
    return handle


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(str(exc.detail), exc.status_code)


async def internal_error(request: Request, exc: Exception) -> Response:
    """A bug of the explorer or the model: a message, not a traceback (the server log has the traceback)."""
    return error(f"internal error: {type(exc).__name__}: {exc}", 500)


def app(explorer: Explorer, allowed_hosts: list[str] | None = None) -> Starlette:
    """The ASGI application of ``explorer``; requests whose Host header is not in ``allowed_hosts`` (default:
    this machine's loopback names; ``["*"]`` for any) are refused."""
    e = explorer
    routes = [
        Route("/", index), Route("/sequence.css", sequence_css),
        Route("/api/model", e.model), Route("/api/path", e.path), Route("/api/state", e.state),
        Route("/api/actions", e.actions), Route("/api/properties", e.properties),
        Route("/api/step", e.step, methods=["POST"]), Route("/api/trace", e.trace, methods=["POST"]),
        Route("/api/search", e.search, methods=["POST"]), Route("/api/search/{id}", e.search_status),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    handlers: dict[Any, Callable[..., Any]] = {
        PathError: _handler(400), TraceFileError: _handler(400), BadRequest: _handler(400),
        SearchBusy: _handler(409), HTTPException: http_error, Exception: internal_error}
    middleware = [Middleware(RequestLimits),
                  Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts or LOCAL_HOSTS)]
    return Starlette(routes=routes, exception_handlers=handlers, middleware=middleware)
