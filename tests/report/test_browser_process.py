"""The headless-browser test's launcher leaves no pipe open when the browser's helpers outlive it.

Chromium's helper processes inherit its pipes and may still hold them after the browser
itself has exited. A pipe transport still open when the event loop closes is finalized
later by the garbage collector, which raised "Event loop is closed" in
``BaseSubprocessTransport.__del__`` and was reported as a warning in whichever later test
the collector happened to run (tests/simulators/test_llm_simulator.py in CI). A shell
that leaves a child holding its stderr stands in for the browser here: no Chromium needed.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

import anyio
import pytest
from anyio.abc import Process

from tests.report.test_html_browser import browser_process

# the stand-in browser: its helper keeps stderr open for a while after the browser is gone
BROWSER_WITH_A_HELPER = ["sh", "-c", "sleep 3 & exec sleep 60"]


def test_a_browser_whose_helper_outlives_it_leaves_no_pipe_to_the_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ignored: list[str] = []

    def keep(unraisable: Any) -> None:
        ignored.append(f"{unraisable.exc_type.__name__}: {unraisable.exc_value}")

    monkeypatch.setattr(sys, "unraisablehook", keep)
    held: list[Process] = []  # outlives the loop, as a traceback or a cycle would keep it

    async def browse() -> None:
        async with browser_process(BROWSER_WITH_A_HELPER) as proc:
            held.append(proc)
            assert proc.stderr is not None

    anyio.run(browse)
    (proc,) = held
    assert proc.returncode is not None  # the browser itself was stopped and reaped
    del proc
    held.clear()
    gc.collect()
    assert ignored == []
