"""``isolation: process``: a callable target run in worker subprocesses, killed at the timeout.

Threads cannot stop code that holds the GIL (a runaway regex, a C extension
looping): only another process can be stopped whatever it does. With
``target: {kind: callable, ref: pkg.mod:attr, isolation: process}`` each session
borrows a worker process for its whole conversation (a class target keeps its
one instance there); the engine speaks JSON lines over the worker's pipes, one
request and one answer per turn. When a turn times out, or the run is
cancelled, the worker is killed (SIGKILL) and a fresh one serves later
sessions; a worker that ends on its own is the target failing.

Protocol (one JSON object per line; the target's own prints go to stderr):
    -> {"op": "begin"}                     a new session: a fresh class instance
    <- {"ok": true}
    -> {"op": "reply", "history": [...], "ctx": {...}}
    <- {"reply": {...AgentReply...}}  or  {"error": {"type": ..., "message": ..., "traceback": ...}}
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import importlib.machinery
import importlib.util
import inspect
import json
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from simlab.agents._callable import TargetLoadError, import_ref, to_reply
from simlab.contracts import TargetAgent
from simlab.core import AgentCapabilities, AgentReply, Knobs, Message, ReportedError, SessionContext

MAX_LINE_BYTES = 256 * 1024 * 1024
"""The largest answer a worker may send (the suite's ``limits`` cut it further)."""


class TargetWorkerError(Exception):
    """The worker process failed (it exited, or answered with something that is not JSON)."""


class TargetRaised(ReportedError):
    """The target raised in its worker: its type, message and traceback as reported."""


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, process: anyio.abc.Process) -> None:
        if process.stdout is None or process.stdin is None:
            raise TargetWorkerError("the target's worker was started without pipes")
        self.process = process
        self._out = BufferedByteReceiveStream(process.stdout)
        self._in = process.stdin

    async def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        line = json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n"
        try:
            await self._in.send(line)
            raw = await self._out.receive_until(b"\n", MAX_LINE_BYTES)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            code = await _exit_code(self.process)
            raise TargetWorkerError(f"the target's worker process exited (code {code})") from None
        except anyio.DelimiterNotFound:
            raise TargetWorkerError(
                f"the target's worker sent an answer over {MAX_LINE_BYTES:,} bytes"
            ) from None
        try:
            answer: dict[str, Any] = json.loads(raw)
        except ValueError:
            raise TargetWorkerError(
                "the target's worker answered with something not JSON"
            ) from None
        return answer

    async def kill(self) -> None:
        """SIGKILL the worker and reap it (shielded: it runs as a turn is cancelled)."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await self.process.aclose()


async def _exit_code(process: anyio.abc.Process) -> int | None:
    with anyio.move_on_after(1):
        return await process.wait()
    return process.returncode


class ProcessTargetFactory:
    """Per-session targets served by worker processes of ``ref``; ``aclose`` kills them all."""

    def __init__(self, ref: str, search: Sequence[str] = ()) -> None:
        self.ref = ref
        path = [*search, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        self._env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()

    def __call__(self, seed: int) -> TargetAgent:
        """A target for one session (its worker is borrowed at the first turn)."""
        return ProcessAgent(self)

    async def borrow(self) -> _Worker:
        """An idle worker, or a new one, told that a new session begins."""
        worker = self._idle.pop() if self._idle else await self._spawn()
        try:
            await worker.ask({"op": "begin"})
        except BaseException:
            await self.discard(worker)
            raise
        return worker

    async def give_back(self, worker: _Worker) -> None:
        """A worker whose session ended cleanly serves the next one."""
        if worker.process.returncode is None:
            self._idle.append(worker)
        else:
            await self.discard(worker)

    async def discard(self, worker: _Worker) -> None:
        """Kill a worker (a timed-out or cancelled turn): whatever it runs ends now."""
        self._all.discard(worker)
        with contextlib.suppress(ValueError):
            self._idle.remove(worker)
        await worker.kill()

    async def aclose(self) -> None:
        """Kill every worker (the end of the run)."""
        for worker in list(self._all):
            await self.discard(worker)

    async def _spawn(self) -> _Worker:
        process = await anyio.open_process(
            [sys.executable, "-m", "simlab.agents._worker", self.ref], stderr=None, env=self._env
        )
        worker = _Worker(process)
        self._all.add(worker)
        answer = await worker.ask({"op": "hello"})
        if "error" in answer:
            await self.discard(worker)
            raise TargetLoadError(str(answer["error"].get("message")))
        return worker


class ProcessAgent:
    """One session's target, answered by a borrowed worker process."""

    # ctx.knobs reach the worker, but the target's own ``capabilities`` live in a process
    # the driver never imports it in: none can be declared, so diagnose verifies nothing
    capabilities = AgentCapabilities()

    def __init__(self, factory: ProcessTargetFactory) -> None:
        self._factory = factory
        self._worker: _Worker | None = None

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """The target's reply, from its worker; a cancelled turn kills the worker."""
        try:
            if self._worker is None:
                self._worker = await self._factory.borrow()
            answer = await self._worker.ask(
                {
                    "op": "reply",
                    "history": [m.model_dump(mode="json") for m in history],
                    "ctx": {**asdict(ctx), "knobs": asdict(ctx.knobs)},
                }
            )
        except BaseException:  # the turn timed out, the run was cancelled, or the worker died
            if self._worker is not None:
                worker, self._worker = self._worker, None
                await self._factory.discard(worker)
            raise
        if "error" in answer:
            error = answer["error"]
            trace = error.get("traceback")
            raise TargetRaised(
                str(error.get("type")),
                str(error.get("message")),
                trace if isinstance(trace, str) else None,
            )
        return AgentReply.model_validate(answer["reply"])

    async def aclose(self) -> None:
        """The session ended: its worker serves another."""
        if self._worker is not None:
            worker, self._worker = self._worker, None
            await self._factory.give_back(worker)


def process_target_factory(ref: str, search: Sequence[Path] = ()) -> ProcessTargetFactory:
    """Per-session targets for ``module:attr`` run in worker processes, which look
    for it in ``search`` first (a suite's folder), then on their ``sys.path``.

    Raises:
        TargetLoadError: ``ref`` is malformed or its module cannot be found (found,
            not imported: importing runs the target's code, which is the worker's job).
    """
    module, _, attr = ref.partition(":")
    top = module.split(".", 1)[0]
    folders = [str(d) for d in dict.fromkeys(p.resolve() for p in search)]
    try:
        found = bool(module and attr) and (
            importlib.machinery.PathFinder.find_spec(top, folders) is not None
            or importlib.util.find_spec(top) is not None
        )
    except (ImportError, ValueError):
        found = False
    if not found:
        raise TargetLoadError(
            f"cannot find module {module!r} for target {ref!r} (want 'package.module:name'); "
            "is it installed, or on PYTHONPATH?"
        )
    return ProcessTargetFactory(ref, folders)


# ------------------------------------------------------------------ the worker side


def _serve(ref: str) -> None:
    """The worker's loop: answer requests on stdin until it closes."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the target's prints must not reach the protocol pipe
    sys.stdout = sys.stderr
    _die_with_parent()
    try:
        target = import_ref(ref)
    except TargetLoadError as e:
        target, load_error = None, str(e)
    else:
        load_error = ""
    loop = asyncio.new_event_loop()
    instance: Any = None
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            answer: dict[str, Any] = {"error": {"message": load_error}} if load_error else {"ok": 1}
        elif op == "begin":
            instance = None
            answer = {"ok": True}
        else:
            try:
                if instance is None and inspect.isclass(target):
                    instance = target()
                value = _call(target, instance, request, loop)
                answer = {"reply": to_reply(value).model_dump(mode="json")}
            except Exception as e:
                answer = {
                    "error": {
                        "type": type(e).__name__,
                        "message": str(e),
                        "traceback": traceback.format_exc(limit=-3),
                    }
                }
        protocol.write(json.dumps(answer, ensure_ascii=False, default=str) + "\n")
        protocol.flush()


def _call(target: Any, instance: Any, request: dict[str, Any], loop: Any) -> Any:
    raw = request["ctx"]
    ctx = SessionContext(raw["session_id"], raw["seed"], raw["turn"], Knobs(**raw.get("knobs", {})))
    history = [Message.model_validate(m) for m in request["history"]]
    if instance is not None:
        value = instance.reply(history, ctx)
    else:
        fn: Callable[..., Any] = target
        value = fn([{"role": m.role, "content": m.text} for m in history], ctx)
    if inspect.isawaitable(value):
        value = loop.run_until_complete(value)
    return value


def _die_with_parent() -> None:
    """Linux: the kernel kills this worker when simlab dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


if __name__ == "__main__":
    _serve(sys.argv[1])
