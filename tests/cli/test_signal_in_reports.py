"""A signal that comes while the reports are written: they finish, the run ends as interrupted."""

from __future__ import annotations

import os
import signal
import threading
import time

import anyio

from simlab.cli import _until_signalled


def test_a_signal_during_synchronous_work_is_seen_once_it_is_done() -> None:
    async def work() -> str:
        await anyio.sleep(0.05)  # the watcher is listening
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        time.sleep(0.4)  # synchronous, as writing the reports is
        return "reports written"

    assert anyio.run(_until_signalled, work()) == ("reports written", True)


def test_no_signal_no_interruption() -> None:
    async def work() -> str:
        await anyio.sleep(0)
        return "done"

    assert anyio.run(_until_signalled, work()) == ("done", False)
