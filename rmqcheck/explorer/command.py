"""``rmqcheck explore``: serve the explorer page for one configuration on this machine."""
from __future__ import annotations

import click

from ..compile_notice import announce_compilation
from ..options import config_options, limit_options
from ..setup import BadInput, check_input_file, limits, resolve_config

DEFAULT_PORT = 8737


def _configuration(preset_name, config_file, assignments, trace_file):
    """The configuration to explore, and the traces of ``--trace`` read for it: the knobs given, or else
    the trace file's own (in the model mode it names)."""
    from model.input_text import InputFileError, read_input_text

    from .trace_files import TraceFileError, config_of, parse

    text = None
    if trace_file:
        check_input_file(trace_file, "trace file")
        try:
            text = read_input_text(trace_file, "trace file")
        except InputFileError as exc:
            raise BadInput(str(exc)) from None
    ctx = click.get_current_context(silent=True)
    mode_given = ctx is not None and ctx.meta.get("mode") is not None   # --mode (rmqcheck/options.py)
    try:
        if text is not None and not (preset_name or config_file or assignments or mode_given):
            cfg = config_of(parse(text, trace_file), trace_file)
        else:
            cfg = resolve_config(preset_name, config_file, assignments)
    except TraceFileError as exc:
        raise BadInput(str(exc)) from None
    return cfg, text


@click.command()
@config_options
@click.option("--trace", "trace_file", metavar="FILE.json",
              help="Load the traces of a 'check', 'faults' or 'simulate' --json result, or of an ITF file "
                   "(FILE.itf.json); without --preset/--config/--set, explore the file's own configuration.")
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS",
              help="Address to listen on. Anything but this machine's loopback lets other machines drive the "
                   "explorer (and run checks on this one): give it only on a trusted network.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, metavar="N",
              help="TCP port (0: any free port).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default web browser.")
@limit_options
def explore(preset_name, config_file, assignments, trace_file, host, port, open_browser, max_states, max_depth,
            max_seconds) -> None:
    """Explore the model in a web browser, one action at a time.

    Serves a page showing the current state grouped by actor, the enabled actions with their outcome
    (one click takes a step), the path as a list and as a sequence diagram, every property's value and
    why, and a shortest path to any property (the check runs in the background; the limits bound it).
    Each state has its own URL. Stop with Ctrl-C.
    """
    announce_compilation()
    cfg, text = _configuration(preset_name, config_file, assignments, trace_file)
    lim = limits(max_states, max_depth, max_seconds)
    from .server import LOCAL_HOSTS, Explorer, app
    from .session import Session
    from .trace_files import TraceFileError, read_traces

    session = Session(cfg)
    traces = []
    if text is not None:
        try:
            traces = read_traces(text, trace_file, session)
        except TraceFileError as exc:
            raise BadInput(str(exc)) from None
    local = host in LOCAL_HOSTS
    warning = None if local else (f"rmqcheck: warning: listening on {host}: any machine that reaches it can drive "
                                  "the explorer and run checks here; there is no login")
    serve(app(Explorer(session, lim, traces), None if local else ["*"]), host, port, open_browser, warning)


def serve(application, host: str, port: int, open_browser: bool, warning: str | None = None) -> None:
    """Run ``application`` on uvicorn until interrupted, printing ``warning`` (on stderr) and the URL once it
    listens: an address it cannot listen on is an error before either."""
    import errno
    import socket

    import uvicorn

    from .limits import MAX_HEAD
    from .protocol import LimitedH11Protocol

    address = host[1:-1] if host.startswith("[") and host.endswith("]") else host   # [::1] as in a URL
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((address, port))
    except (OSError, UnicodeError, ValueError) as exc:
        sock.close()
        busy = isinstance(exc, OSError) and exc.errno in (errno.EADDRINUSE, errno.EACCES)
        hint = "try another --port (0: any free port)" if busy else "give --host an address of this machine"
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BadInput(f"cannot listen on {host} port {port}: {reason}; {hint}") from None
    sock.listen(128)   # before the URL is printed: a client that reads it can connect at once
    if warning:
        click.echo(warning, err=True)
    bound = sock.getsockname()[1]
    shown = f"[{address}]" if ":" in address else address
    url = f"http://{shown}:{bound}/"
    click.echo(f"rmqcheck explore: {url}  (Ctrl-C to stop)")
    if open_browser:
        import webbrowser
        webbrowser.open(url)
    config = uvicorn.Config(application, log_level="warning", lifespan="off", http=LimitedH11Protocol,
                            h11_max_incomplete_event_size=MAX_HEAD)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:   # uvicorn shut down on Ctrl-C or SIGTERM, then passed the signal on
        pass
    click.echo("rmqcheck explore: stopped")
