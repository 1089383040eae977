"""Run a target's own code where it cannot wedge the run.

A target may block (``time.sleep``), spin (``while True``) or catch the
cancellation the turn timeout sends and carry on. Run on the engine's event
loop or in its worker threads, such a target would hold the session past its
timeout, stop Ctrl-C, or keep the process alive after the run. So target code
runs *beside* the engine:

* sync calls in daemon threads (one per call), which never keep the process
  alive once the run is over; a call the engine gave up on is interrupted
  (``TargetAbandoned`` raised in its thread), so a busy loop stops spinning;
* async calls on an event loop of their own, in a daemon thread, so a
  coroutine that ignores cancellation or never awaits stalls only that loop.

The engine waits for the result, not for the code: at the turn timeout it
stops waiting at once and asks the call to stop. A call that does not stop
keeps its slot until it returns, so at most ``slots`` of them pile up; later
calls wait for a free slot inside their own turn timeout. Code that holds the
GIL in C (a runaway regex) still slows the whole process: such a target needs
``isolation: process``.

Waiting goes through ``asyncio.wrap_future``: the engine runs on anyio's
asyncio backend.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio

T = TypeVar("T")

_POLL_S = 0.01
"""How often a call waiting for a slot looks again (only while every slot is taken)."""


class TargetSlots:
    """At most ``n`` target calls at once; a slot frees when its call returns,
    not when the engine stops waiting for it."""

    def __init__(self, n: int) -> None:
        self._free = threading.Semaphore(n)

    async def acquire(self) -> None:
        """Wait (cancellably) for a free slot."""
        # polled, not awaited on a loop primitive: slots are freed from other threads
        while not self._free.acquire(blocking=False):
            await anyio.sleep(_POLL_S)

    def release(self) -> None:
        """Free a slot (from any thread)."""
        self._free.release()


class IsolatedCalls:
    """Runs a target's sync and async calls off the engine's loop and threads."""

    def __init__(self, slots: TargetSlots) -> None:
        self._slots = slots
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    async def call_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a daemon thread; the result, or its exception."""
        await self._slots.acquire()
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def work() -> None:
            try:
                result = fn(*args)
            except BaseException as e:  # handed to the waiting session, never lost
                _settle(future, None, e)
            else:
                _settle(future, result, None)
            finally:
                self._slots.release()

        thread = threading.Thread(target=work, name="simlab target call", daemon=True)
        thread.start()
        try:
            return await asyncio.wrap_future(future)
        except BaseException:
            if not future.done() or future.cancelled():
                _interrupt(thread)
            raise

    async def call_async(self, make: Callable[[], Awaitable[T] | T]) -> T:
        """Await ``make()`` on the target's own loop; the result, or its exception.

        ``make`` runs on that loop too (a coroutine function's call, a class's
        ``reply``); a plain value it returns is the result.
        """
        await self._slots.acquire()

        async def work() -> T:
            try:
                value = make()
                if inspect.isawaitable(value):
                    return await value
                return value
            finally:
                self._slots.release()  # skipped by a coroutine that never ends: it keeps its slot

        try:
            future = asyncio.run_coroutine_threadsafe(work(), self._target_loop())
        except BaseException:
            self._slots.release()
            raise
        # cancelling the wrapper (the turn timeout) cancels the task on the target loop
        return await asyncio.wrap_future(future)

    def _target_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=loop.run_forever, name="simlab target loop", daemon=True
                ).start()
                self._loop = loop
            return self._loop


class TargetAbandoned(BaseException):
    """Raised inside a sync target call the engine stopped waiting for (its turn timed out)."""


def _interrupt(thread: threading.Thread) -> None:
    """Raise ``TargetAbandoned`` in ``thread`` at its next Python instruction.

    A busy loop then ends instead of spinning (and holding the GIL) for the rest
    of the run; a blocking C call (``time.sleep``) ends when it returns.
    """
    if thread.ident is not None and thread.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(thread.ident), ctypes.py_object(TargetAbandoned)
        )


def _settle(
    future: concurrent.futures.Future[T], result: T | None, error: BaseException | None
) -> None:
    """Set the outcome of a call, unless the engine already gave up on it."""
    # cancelled before or while we answer: nobody waits for the outcome
    with contextlib.suppress(concurrent.futures.InvalidStateError):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]
