"""``rmqcheck explore`` as a command: a real server process on the loopback, the configuration of a
``--trace`` file, the warning for another address, and bad input as one line with exit code 2."""
from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import assert_bad_input, invoke  # noqa: E402
from explorer_fixtures import get_json, served  # noqa: E402


@pytest.fixture(scope="module")
def small_trace(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("command") / "small.json"
    invoke("check", "--preset", "default", "--set", "messages=1", "--property", "master_recovers", "--json",
           str(path), "--quiet")
    return path


def test_a_trace_file_alone_gives_the_configuration_and_the_traces(small_trace):
    """Served on 127.0.0.1 by default; ``--trace`` without knobs explores the file's own configuration."""
    data = json.loads(small_trace.read_text())
    with served("--trace", str(small_trace)) as (url, proc):
        assert url.startswith("http://127.0.0.1:")
        status, model = get_json(url + "api/model")
        assert status == 200 and model["config"] == data["config"] and model["short"] == "RocketMQ 4.4.0, messages=1"
        assert [t["path"] for t in model["traces"]] == [[s["action"] for s in data["properties"][0]["trace"][1:]]]
        status, answer = get_json(url + "api/path?path=Nonsense()")
        assert status == 400 and "Nonsense()" in answer["error"]
    assert proc.returncode == 0, proc.returncode


def test_another_address_is_served_with_a_warning():
    """127.0.0.2 is this machine too, but not a name the explorer takes for local: it warns, and accepts any
    Host header (a remote user's browser names the machine its own way) but an empty one."""
    with served("--host", "127.0.0.2", "--set", "messages=1") as (url, proc):
        assert url.startswith("http://127.0.0.2:")
        assert get_json(url + "api/model")[0] == 200
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.2", port), timeout=20) as sock:
            sock.sendall(b"GET /api/model HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400 ") and b"Host header" in answer, answer
    warning = proc.stderr_text
    assert "warning: listening on 127.0.0.2" in warning and "no login" in warning


def test_bad_input_is_one_line_and_exit_2(small_trace, tmp_path):
    assert_bad_input(invoke("explore", "--trace", str(tmp_path / "missing.json")), "missing.json")
    assert_bad_input(invoke("explore", "--trace", str(small_trace), "--preset", "default"), "another configuration",
                     "messages")
    (tmp_path / "bad.json").write_text("{")
    assert_bad_input(invoke("explore", "--trace", str(tmp_path / "bad.json")), "not valid JSON")
    assert_bad_input(invoke("explore", "--set", "messages=99"), "messages")
    assert_bad_input(invoke("explore", "--port", "70000"), "--port")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert_bad_input(invoke("explore", "--set", "messages=1", "--port", str(port)), "cannot listen", str(port))
