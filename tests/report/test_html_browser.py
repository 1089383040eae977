"""The HTML report in headless Chromium, driven over the Chrome DevTools Protocol.

The default suite's report, plus one session whose transcript carries injected
markup, must load with no console error, make no network request, show the
injected ``<script>`` as text, and let the viewer filter and expand sessions.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import anyio
import pytest
from anyio.abc import Process, TaskGroup
from anyio.streams.memory import MemoryObjectSendStream

from simlab.report import render_html, session_anchor, summarize
from simlab.store import RunSummary, read_run_info, read_sessions
from tests.report.test_html import INJECTED, all_extras, hostile_record

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",  # so any request seen is the page's own
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--remote-debugging-port=0",
)
_LISTENING = re.compile(rb"DevTools listening on (ws://\S+)")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
    ),
]


class Page:
    """A minimal CDP client for one page target: commands, and every event kept."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._waiting: dict[int, MemoryObjectSendStream[dict[str, Any]]] = {}

    async def read_forever(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data:
                await self._waiting.pop(data["id"]).send(data)
            else:
                self.events.append(data)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        tx, rx = anyio.create_memory_object_stream[dict[str, Any]](1)
        self._waiting[number] = tx
        await self.ws.send_str(json.dumps({"id": number, "method": method, "params": params}))
        with anyio.fail_after(20):
            reply = await rx.receive()
        assert "error" not in reply, (method, reply["error"])
        result: dict[str, Any] = reply["result"]
        return result

    async def evaluate(self, expression: str) -> Any:
        reply = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in reply, reply["exceptionDetails"]
        return reply["result"].get("value")

    async def wait_for_event(self, method: str) -> dict[str, Any]:
        with anyio.fail_after(30):
            while True:
                for event in self.events:
                    if event["method"] == method:
                        return event
                await anyio.sleep(0.05)

    def named(self, *methods: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["method"] in methods]


async def _drain(stream: Any) -> None:
    # chromium logs to stderr all along; an unread pipe would fill and stall it. The
    # launcher closes the pipe when the page is done: that ends the draining too
    with contextlib.suppress(anyio.ClosedResourceError):
        async for _ in stream:
            pass


@asynccontextmanager
async def browser_process(argv: list[str]) -> AsyncIterator[Process]:
    """A browser process whose stderr is piped; stopped, reaped and its pipes closed at exit.

    The pipes are closed here, not left to the process's end: the browser's helpers inherit
    them and may outlive it, and a pipe still open when the event loop closes is finalized
    later by the garbage collector, as "Event loop is closed" in whichever test it runs.
    """
    proc = await anyio.open_process(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            with anyio.move_on_after(10):
                await proc.wait()
            if proc.returncode is None:
                proc.kill()
            await proc.aclose()


@asynccontextmanager
async def chromium_page(tg: TaskGroup) -> AsyncIterator[Page]:
    """Start headless Chromium with a fresh profile and attach to its blank page."""
    # the browser's helper processes may still write to the profile as it is removed
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        argv = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", "about:blank"]
        async with browser_process(argv) as proc:
            assert proc.stderr is not None
            seen = b""
            with anyio.fail_after(30):
                while (m := _LISTENING.search(seen)) is None:
                    seen += await proc.stderr.receive()
            tg.start_soon(_drain, proc.stderr)
            host = m.group(1).decode().split("/")[2]
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://{host}/json/list") as resp:
                    targets = await resp.json()
                (url,) = [t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page"]
                async with http.ws_connect(url, max_msg_size=0) as ws:
                    page = Page(ws)
                    tg.start_soon(page.read_forever)
                    yield page


def default_suite_report(out: Path) -> Path:
    """The default suite's report, with one hostile session and every extra chart."""
    done = subprocess.run(
        [sys.executable, "-m", "simlab.cli", "run", "--out", str(out / "runs"), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (run_dir,) = [p for p in (out / "runs").iterdir() if p.is_dir()]
    suite = read_run_info(run_dir).suite
    records = [*read_sessions(run_dir).records, hostile_record()]
    assert len(records) >= 401
    summary = summarize(records, suite.buckets, suite.seed)
    path = out / "report.html"
    path.write_text(
        render_html(RunSummary.model_validate(summary), records, "default suite", all_extras()),
        "utf-8",
    )
    return path


HOSTILE = session_anchor(hostile_record())


async def check_page(path: Path) -> None:
    url = path.as_uri()
    async with anyio.create_task_group() as tg:
        async with chromium_page(tg) as page:
            await browse(page, url)
        tg.cancel_scope.cancel()


async def browse(page: Page, url: str) -> None:
    """Open the report and use it as a reader would; then check what the browser saw."""
    for domain in ("Runtime", "Log", "Network", "Page"):
        await page.send(f"{domain}.enable")
    await page.send("Page.navigate", url=url)
    await page.wait_for_event("Page.loadEventFired")

    # the injected session: expand it, its text shows the markup literally
    assert await page.evaluate(f"document.getElementById({HOSTILE!r}).open = true")
    await anyio.sleep(0.2)  # the toggle event renders the turns
    body_text = await page.evaluate("document.body.innerText")
    assert INJECTED in body_text
    assert '</script><img src=x onerror="window.__pwned=1">' in body_text
    assert await page.evaluate("typeof window.__pwned") == "undefined"
    assert await page.evaluate("document.querySelectorAll('main img').length") == 0
    first_fail = f"#{HOSTILE} .turn.first-fail .idx"
    assert await page.evaluate(f"document.querySelector({first_fail!r}).textContent") == (
        "turn 1first failing turn"
    )

    # filters: persona and status narrow the rows; the count says so
    n_all = await page.evaluate("document.querySelectorAll('details.session').length")
    shown = await page.evaluate(
        """(() => {
          for (const [id, v] of [["f-persona", "alice"], ["f-status", "failed"]]) {
            const s = document.getElementById(id); s.value = v;
            s.dispatchEvent(new Event("change"));
          }
          const rows = [...document.querySelectorAll('details.session')];
          return [rows.filter(r => !r.hidden).map(r => r.id),
                  document.getElementById("shown").textContent];
        })()"""
    )
    assert shown == [[HOSTILE], f"showing 1 of {n_all} sessions"]

    # an anchor link opens its session
    other = await page.evaluate("document.querySelectorAll('details.session')[5].id")
    await page.evaluate(f"location.hash = {other!r}")
    await anyio.sleep(0.2)
    assert await page.evaluate(f"document.getElementById({other!r}).open") is True
    # six figures, and the tool-use stage transitions (failed sessions are in the run)
    assert await page.evaluate("document.querySelectorAll('svg.chart').length") == 7

    dialogs = page.named("Page.javascriptDialogOpening")
    errors = page.named("Runtime.exceptionThrown") + [
        e for e in page.named("Runtime.consoleAPICalled") if e["params"]["type"] == "error"
    ]
    logged = [e for e in page.named("Log.entryAdded") if e["params"]["entry"]["level"] == "error"]
    requests = [e["params"]["request"]["url"] for e in page.named("Network.requestWillBeSent")]
    assert dialogs == []
    assert errors == []
    assert logged == []
    assert [u for u in requests if u != url] == []  # the page itself at most, nothing else


def test_default_suite_report_in_headless_chromium(tmp_path: Path) -> None:
    anyio.run(check_page, default_suite_report(tmp_path))
