"""Hostile HTTP endpoints mixed into a normal run: each bad session is its own error
record with its reason; every other session is graded; summary and reports are written."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

import simlab

ROOT = Path(__file__).resolve().parents[2]

KINDS = ("slow_loris", "claims_10_gb", "streams_too_much", "cross_host", "malformed", "deep")
GOOD_REPS = 3


def completion(text: str) -> dict[str, Any]:
    return {"choices": [{"message": {"role": "assistant", "content": text}}]}


def zoo_app(elsewhere: list[str], seen_elsewhere: list[str]) -> web.Application:
    async def chat(request: web.Request) -> web.StreamResponse:
        await request.read()
        rep = int(request.headers["X-Simlab-Session"].split("/")[3])
        kind = KINDS[rep] if rep < len(KINDS) else None
        if kind == "slow_loris":
            resp = web.StreamResponse()
            await resp.prepare(request)
            for _ in range(50):
                await resp.write(b" ")
                await asyncio.sleep(0.1)
            return resp
        if kind in ("claims_10_gb", "streams_too_much"):
            resp = web.StreamResponse()
            if kind == "claims_10_gb":
                resp.content_length = 10 * 10**9
            await resp.prepare(request)
            chunk = b" " * (1 << 20)
            for _ in range(64):
                await resp.write(chunk)
            return resp
        if kind == "cross_host":
            raise web.HTTPTemporaryRedirect(f"{elsewhere[0]}/chat/completions")
        if kind == "malformed":
            return web.Response(text='{"choices": [{"mess', content_type="application/json")
        if kind == "deep":
            return web.Response(text="[" * 3000 + "]" * 3000, content_type="application/json")
        return web.json_response(completion("Noted. Anything else?"))

    async def other(request: web.Request) -> web.StreamResponse:
        seen_elsewhere.append(await request.text())
        return web.json_response(completion("the conversation reached another host"))

    app = web.Application()
    app.router.add_post("/chat/completions", chat)
    app.router.add_post("/other/chat/completions", other)
    return app


@contextmanager
def serving() -> Iterator[tuple[str, list[str]]]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    urls: list[str] = []
    elsewhere: list[str] = []
    seen_elsewhere: list[str] = []
    stop = asyncio.Event()

    async def main() -> None:
        runner = web.AppRunner(zoo_app(elsewhere, seen_elsewhere), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        urls.append(f"http://127.0.0.1:{port}")
        elsewhere.append(f"http://localhost:{port}/other")  # another host name, same server
        ready.set()
        await stop.wait()
        await runner.cleanup()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    ready.wait(timeout=30)
    try:
        yield urls[0], seen_elsewhere
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=30)
        loop.close()


def test_hostile_endpoints_end_as_their_own_error_records(tmp_path: Path) -> None:
    with serving() as (url, seen_elsewhere):
        suite = {
            "name": "http zoo",
            "seed": 3,
            "personas": ["terse_en"],
            "goals": ["refund"],
            "modes": ["full"],
            "reps": len(KINDS) + GOOD_REPS,
            "max_turns": 2,
            "turn_timeout_s": 3,
            "target": {"kind": "http", "url": url, "timeout_s": 1.5},
            "persona_dirs": [str(ROOT / "personas")],
            "goal_dirs": [str(ROOT / "goals")],
        }
        path = tmp_path / "suite.yaml"
        path.write_text(json.dumps(suite), encoding="utf-8")
        result = simlab.run(path, out=tmp_path / "out", progress=False)
    assert seen_elsewhere == []  # the conversation never went to the other host
    by_kind = {KINDS[r.key.rep] if r.key.rep < len(KINDS) else "good": r for r in result.records}
    reasons = {kind: (r.error.message if r.error else None) for kind, r in by_kind.items()}
    assert [r.status for r in result.records if r.key.rep >= len(KINDS)] == ["ok"] * GOOD_REPS
    expected = {
        "slow_loris": "no answer within 1.5s",
        "claims_10_gb": "10,000,000,000 bytes (Content-Length)",
        "streams_too_much": "over the 4,194,304 bytes simlab reads",
        "cross_host": "target.redirect_hosts",
        "malformed": "no choices[0].message",
        "deep": "no choices[0].message",
    }
    for kind, said in expected.items():
        record = by_kind[kind]
        assert record.status == "error" and record.stop_reason == "agent_error", kind
        assert said in (reasons[kind] or ""), (kind, reasons[kind])
    assert result.summary.overall.n == GOOD_REPS
    for written in (result.paths.summary, result.paths.report_md, result.paths.report_html):
        assert written.is_file()
