"""isolation: process: a callable target answered by worker processes over JSON lines."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from simlab.agents import ProcessTargetFactory, TargetLoadError, TargetRaised
from simlab.core import Message, SessionContext

TARGETS = '''
import os

def echo(messages, ctx):
    print("a print must not reach the protocol pipe")
    return {
        "text": f"{ctx.turn}:{messages[-1]['content']}",
        "tool_calls": [{"name": "lookup", "args": {"q": "x"}, "result": {"pid": os.getpid()}}],
    }

def boom(messages, ctx):
    raise ValueError("no such flight")

class Counter:
    """One instance per session: it counts that session's turns."""
    def __init__(self):
        self.turns = 0
    async def reply(self, history, ctx):
        self.turns += 1
        return {"text": f"turn {self.turns} of {ctx.session_id}"}
'''
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proc_targets.py").write_text(TARGETS)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{ROOT}")


def ctx(session: str, turn: int) -> SessionContext:
    return SessionContext(session, 7, turn)


def user(text: str) -> list[Message]:
    return [Message(role="user", text=text)]


@pytest.mark.usefixtures("targets")
def test_a_function_answers_from_a_worker_that_serves_session_after_session() -> None:
    async def main() -> list[int]:
        factory = ProcessTargetFactory("proc_targets:echo")
        pids = []
        try:
            for session in ("s1", "s2"):
                agent = factory(0)
                reply = await agent.reply(user("hello"), ctx(session, 1))
                assert reply.text == "1:hello"
                assert reply.tool_calls[0].args == {"q": "x"}
                pids.append(reply.tool_calls[0].result["pid"])
                await agent.aclose()  # type: ignore[attr-defined]
        finally:
            await factory.aclose()
        return pids

    first, second = anyio.run(main)
    assert first == second != os.getpid()  # another process, reused by the next session


@pytest.mark.usefixtures("targets")
def test_a_class_gets_one_instance_per_session() -> None:
    async def main() -> list[str]:
        factory = ProcessTargetFactory("proc_targets:Counter")
        texts = []
        try:
            for session in ("a", "b"):
                agent = factory(0)
                for turn in (1, 2):
                    texts.append((await agent.reply(user("hi"), ctx(session, turn))).text)
                await agent.aclose()  # type: ignore[attr-defined]
        finally:
            await factory.aclose()
        return texts

    assert anyio.run(main) == ["turn 1 of a", "turn 2 of a", "turn 1 of b", "turn 2 of b"]


@pytest.mark.usefixtures("targets")
def test_what_the_target_raises_comes_back_as_its_type_and_message() -> None:
    async def main() -> None:
        factory = ProcessTargetFactory("proc_targets:boom")
        try:
            with pytest.raises(TargetRaised, match=r"^ValueError: no such flight$"):
                await factory(0).reply(user("hi"), ctx("s", 1))
        finally:
            await factory.aclose()

    anyio.run(main)


@pytest.mark.usefixtures("targets")
def test_a_target_that_cannot_be_imported_says_why() -> None:
    async def main() -> None:
        factory = ProcessTargetFactory("proc_targets:missing")
        try:
            with pytest.raises(TargetLoadError, match="has no attribute 'missing'"):
                await factory(0).reply(user("hi"), ctx("s", 1))
        finally:
            await factory.aclose()

    anyio.run(main)
