"""A headless Chromium driven through the DevTools protocol over ``--remote-debugging-pipe``.

No driver or websocket library: Chromium reads commands from file descriptor 3 and writes answers and
events to descriptor 4, each a JSON message ended by a NUL byte (the transport Puppeteer's ``pipe: true``
uses). Imported by the report tests as ``chromium`` (a unique module name on pytest's path).
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    """The Chromium executable (``RMQCHECK_CHROMIUM`` overrides), or None when none is installed."""
    explicit = os.environ.get("RMQCHECK_CHROMIUM")
    if explicit:
        return explicit if shutil.which(explicit) else None
    return next((path for path in map(shutil.which, CANDIDATES) if path), None)


def _above_nine(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    """One headless browser with one page; :meth:`call` sends a command to the page and waits for its answer,
    recording the events that arrive meanwhile (console messages, exceptions, log entries)."""

    def __init__(self, executable: str, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="rmqcheck-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the child's ends above 9, so that moving them to 3 and 4 cannot overwrite one with the other
        to_browser_r, from_browser_w = (_above_nine(fd) for fd in (to_browser_r, from_browser_w))

        args = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                f"--user-data-dir={self.profile}", "about:blank"]
        # bash moves the pipes to descriptors 3 and 4, then becomes the browser
        move = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w} {to_browser_r}<&- {from_browser_w}>&-'
        self.proc = subprocess.Popen(["bash", "-c", move, *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(to_browser_r, from_browser_w))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    # -- protocol -------------------------------------------------------------------------------------
    def _send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise ConnectionError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._send(method, params, self.session)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event ``method`` not yet consumed (waiting for it if needed)."""
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            message = self._receive()
            if "method" in message:
                self.events.append(message)

    # -- what the tests use ---------------------------------------------------------------------------
    def open(self, url: str, width: int, height: int = 900) -> None:
        """Load ``url`` in a viewport ``width`` CSS pixels wide (a phone's when narrow) and wait for load."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (failed loads, CSP...) seen so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append(str(p.get("exceptionDetails", {}).get("text")))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value")) for a in p.get("args", [])))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(str(p["entry"].get("text")))
        return out

    def screenshot(self, path: str, selector: str = "") -> None:
        """A PNG of the whole page (beyond the viewport), or of the first element ``selector`` matches."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if selector:
            box = self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                                ".getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, "
                                "r.height]; })()")
            params["clip"] = dict(zip(("x", "y", "width", "height"), box), scale=1)
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self) -> None:
        try:
            self._send("Browser.close")
        except (OSError, RuntimeError, TimeoutError, ConnectionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)
