"""The example servers in docs/http-targets.md, run verbatim, report their tool results
in a shape the HTTP adapters read."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from simlab.agents import AnthropicHttpAgent, HttpAgent
from simlab.core import AgentReply, Knobs, Message, SessionContext, ToolCall

DOC = Path(__file__).resolve().parents[2] / "docs" / "http-targets.md"
CTX = SessionContext("p/g/full/0", 3, 1, Knobs())
ASKS = [Message(role="user", text="Where is my order?")]
NAMES = [
    *ASKS,
    Message(role="assistant", text="Which order is it?"),
    Message(role="user", text="It is A-100"),
]
CALL = ToolCall(
    name="get_order",
    args={"order_id": "A-100"},
    result={"order_id": "A-100", "status": "shipped"},
)


def _example(name: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    (code,) = [b for b in blocks if b.startswith(f"# {name}")]
    return code


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _server(name: str, tmp_path: Path) -> Iterator[str]:
    script = tmp_path / name
    script.write_text(_example(name), encoding="utf-8")
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(300):  # wait for the server to listen (no wall-clock assert)
            if proc.poll() is not None:
                raise AssertionError(f"{name} exited: {proc.stderr.read() if proc.stderr else ''}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _talk(agent: HttpAgent | AnthropicHttpAgent) -> tuple[AgentReply, AgentReply]:
    try:
        return await agent.reply(ASKS, CTX), await agent.reply(NAMES, CTX)
    finally:
        await agent.aclose()


@pytest.mark.anyio
async def test_the_openai_example_server(tmp_path: Path) -> None:
    with _server("openai_agent_server.py", tmp_path) as url:
        asked, acted = await _talk(HttpAgent(url + "/v1", "my-agent"))
    assert (asked.text, asked.tool_calls, asked.meta) == ("Which order is it?", (), {})
    assert acted.tool_calls == (CALL,)
    assert acted.text == "Order A-100 is shipped."
    assert "tool_results" not in acted.meta


@pytest.mark.anyio
async def test_the_anthropic_example_server(tmp_path: Path) -> None:
    with _server("anthropic_agent_server.py", tmp_path) as url:
        asked, acted = await _talk(AnthropicHttpAgent(url, "my-agent"))
    assert (asked.text, asked.tool_calls, asked.meta) == ("Which order is it?", (), {})
    assert acted.tool_calls == (CALL,)
    assert acted.text == "Order A-100 is shipped."
    assert "tool_results" not in acted.meta
