"""The sync, thread-backed server and the command line."""

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import anthropic
import httpx
import openai
import pytest
from run_simlab import simlab

from simlab.testing import FakeProvider, cli_main, echo

ROOT = Path(__file__).resolve().parents[2]


def test_serve_in_thread_with_sync_clients() -> None:
    fake = FakeProvider(responder=echo)
    with fake.serve_in_thread() as base_url:
        client = anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0)
        message = client.messages.create(
            model="m", max_tokens=50, messages=[{"role": "user", "content": "echo me"}]
        )
        client.close()
        with pytest.raises(RuntimeError, match="already serving"), fake.serve_in_thread():
            pass
        health = httpx.get(base_url + "/healthz")
    assert message.content[0].text == "echo me"
    assert health.status_code == 200
    assert fake.stats().succeeded == 1
    assert [r.last_user_text for r in fake.requests] == ["echo me"]
    with pytest.raises(httpx.ConnectError):  # stopped means stopped
        httpx.get(base_url + "/healthz")
    # Serving again is allowed once stopped; the state carries over until reset().
    with fake.serve_in_thread():
        pass
    fake.reset()
    assert fake.stats().requests == 0 and fake.requests == ()


def test_cli_rejects_bad_options_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["--fault-rate", "1.5"]) == 2
    assert "fault_rate" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli_main(["--faults", "bogus=1"])
    assert exc.value.code == 2
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert cli_main(["--port", str(taken.getsockname()[1])]) == 2
    assert "cannot serve" in capsys.readouterr().err


def test_cli_serves_until_interrupted() -> None:
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "simlab.testing", "--port", "0", "--fault-rate", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        base_url = first.rsplit(" ", 1)[-1].strip()
        assert base_url.startswith("http://127.0.0.1:")
        body = {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": "x"}]}
        assert httpx.post(base_url + "/v1/messages", json=body).status_code == 200
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "stopped after 1 requests (0 faults)" in out


def test_cli_default_serves_simlabs_own_roles(tmp_path: Path) -> None:
    """``simlab fake-provider`` with no --responder answers a run's LLM roles as they expect."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "simlab.cli", "fake-provider", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "personas: [terse_en]\ngoals: [refund]\nreps: 1\n"
        f"persona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}]\n",
        encoding="utf-8",
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().rsplit(" ", 1)[-1].strip()
        out = ["--out", str(tmp_path / "out"), "--quiet"]
        run = simlab(
            "run",
            str(suite),
            "--llm",
            "anthropic",
            *out,
            env=env | {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "test"},
        )
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=10)
    assert run.returncode == 0, run.stderr
    (run_dir,) = (tmp_path / "out").iterdir()
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 2
    assert all(r["status"] == "ok" for r in records), [r["error"] for r in records]
    assert all(set(r["meta"]["llm"]) == {"user", "judge"} for r in records)


def test_a_burst_of_connections_is_queued_not_dropped() -> None:
    """300 connections opened at once while the server cannot accept (stopped): the
    kernel completes every handshake into the listen queue. With aiohttp's default
    backlog (128) the rest were dropped and waited a second for a SYN retransmit."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "simlab.testing", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    sockets: list[socket.socket] = []
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().strip().rsplit(":", 1)[-1])
        proc.send_signal(signal.SIGSTOP)
        for _ in range(300):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            sockets.append(s)
        # a handshake the kernel completes takes microseconds; a dropped one is retried
        # after 1 s: count the connections established well before that
        pending = set(sockets)
        deadline = time.monotonic() + 0.6
        while pending and time.monotonic() < deadline:
            _, writable, _ = select.select([], list(pending), [], 0.05)
            pending -= set(writable)
        connected = sum(s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0 for s in sockets)
        assert (len(pending), connected) == (0, 300)
    finally:
        proc.send_signal(signal.SIGCONT)
        for s in sockets:
            s.close()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)


def test_cli_domain_names_a_domain_for_a_responder_that_plays_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["--domain", str(tmp_path / "nowhere")]) == 2
    assert "not found" in capsys.readouterr().err
    assert cli_main(["--domain", "bank", "--responder", "echo"]) == 2
    assert "--domain is for the roleplay responders; echo plays no agent" in capsys.readouterr().err


def test_cli_server_answers_both_sdks_streamed_with_forced_tools() -> None:
    """``simlab fake-provider`` (its default roleplay) with the official sync SDKs:
    streams with tool_choice required / any return calls, and usage."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "simlab.cli", "fake-provider", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    schema = {"type": "object", "properties": {"booking_ref": {"type": "string"}}}
    ask = [{"role": "user", "content": "Hello"}]
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().rsplit(" ", 1)[-1].strip()
        oa = openai.OpenAI(base_url=base_url + "/v1", api_key="test", max_retries=0)
        chunks = list(
            oa.chat.completions.create(
                model="g",
                messages=ask,  # type: ignore[arg-type]
                tools=[
                    {"type": "function", "function": {"name": "get_booking", "parameters": schema}}
                ],
                tool_choice="required",
                stream=True,
                stream_options={"include_usage": True},
            )
        )
        oa.close()
        an = anthropic.Anthropic(base_url=base_url, api_key="test", max_retries=0)
        with an.messages.stream(
            model="m",
            max_tokens=100,
            messages=ask,  # type: ignore[arg-type]
            tools=[{"name": "get_booking", "input_schema": schema}],
            tool_choice={"type": "any"},
        ) as stream:
            message = stream.get_final_message()
        an.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    names = [
        t.function.name
        for c in chunks
        if c.choices
        for t in c.choices[0].delta.tool_calls or []
        if t.function and t.function.name
    ]
    assert names == ["get_booking"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    assert message.stop_reason == "tool_use" and message.content[0].type == "tool_use"
    assert message.content[0].name == "get_booking" and message.usage.output_tokens > 0
