"""``simlab run`` against agents served over HTTP (OpenAI chat completions and Anthropic
Messages) that run their own tools and report each call's result: a goal's
``confirm_fields`` check passes only when the reply states the result's field."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Literal

import pytest
from aiohttp import web
from run_simlab import simlab as run_cli

import simlab
from simlab.spec import AnthropicHttpTargetSpec
from tests.agents.loopback import Seen, serve_in_thread

KEY = "sk-e2e-secret-9f8e7d6c5b4a"
REF = "MB4T9R"
RESULT = {"reference": "RF-4821", "amount": 43}
BOOKING = {"booking_ref": REF, "status": "confirmed"}  # the lookup the domain requires first
Reply = Literal["states", "omits", "unreported"]

GOAL = f"""
id: give_back
title: Give the money back
final_tool: refund
facts:
  - {{id: ref, slot: booking_ref, value: {REF}}}
constraints:
  - {{fact: ref, field: booking_ref}}
confirm_fields: [reference]
"""
PERSONA = "id: plain_en\nname: Pat\nlanguage: en\ntraits: {patience: 6}\n"


def _act(messages: list[dict[str, Any]], reply: Reply) -> tuple[str, dict[str, Any] | None]:
    """The agent's decision: ask for the reference, or run the final tool and say so."""
    if not any(REF in str(m.get("content")) for m in messages if m.get("role") == "user"):
        return "What is your booking reference?", None
    said = f"Done: refund {RESULT['reference']} is on its way." if reply == "states" else "Done."
    return said, {"booking_ref": REF}


def openai_agent(reply: Reply) -> Any:
    def handle(request: web.Request, body: dict[str, Any]) -> web.Response:
        assert request.headers["Authorization"] == f"Bearer {KEY}"
        text, args = _act(body["messages"], reply)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if args is not None:  # the booking looked up first, as the domain requires
            look = {"name": "get_booking", "arguments": json.dumps(args)}
            call = {"name": "refund", "arguments": json.dumps(args)}
            message["tool_calls"] = [
                {"id": "call_0", "type": "function", "function": look},
                {"id": "call_1", "type": "function", "function": call},
            ]
            if reply != "unreported":
                message["simlab_tool_results"] = [
                    {"tool_call_id": "call_0", "result": BOOKING},
                    {"tool_call_id": "call_1", "result": RESULT},
                ]
        return web.json_response({"choices": [{"index": 0, "message": message}]})

    return handle


def anthropic_agent(reply: Reply) -> Any:
    def handle(request: web.Request, body: dict[str, Any]) -> web.Response:
        assert request.headers["x-api-key"] == KEY
        text, args = _act(body["messages"], reply)
        content: list[dict[str, Any]] = []
        if args is not None:  # the booking looked up first, as the domain requires
            for n, (tool, result) in enumerate((("get_booking", BOOKING), ("refund", RESULT))):
                content.append(
                    {"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": args}
                )
                if reply != "unreported":
                    block = {"type": "tool_result", "tool_use_id": f"toolu_{n}"}
                    content.append({**block, "content": json.dumps(result)})
        content.append({"type": "text", "text": text})
        return web.json_response({"type": "message", "role": "assistant", "content": content})

    return handle


def _project(folder: Path, target: dict[str, Any]) -> Path:
    (folder / "goals").mkdir(parents=True)
    (folder / "personas").mkdir()
    (folder / "goals" / "give_back.yaml").write_text(GOAL, encoding="utf-8")
    (folder / "personas" / "plain_en.yaml").write_text(PERSONA, encoding="utf-8")
    suite = {"modes": ["full"], "reps": 2, "max_turns": 6, "target": target}
    (folder / "simlab.yaml").write_text(json.dumps(suite), encoding="utf-8")
    return folder / "simlab.yaml"


def _run(kind: str, reply: Reply, tmp: Path) -> tuple[subprocess.CompletedProcess[str], Path, Seen]:
    if kind == "http":
        path, handler, suffix = "/v1/chat/completions", openai_agent(reply), "/v1"
    else:
        path, handler, suffix = "/v1/messages", anthropic_agent(reply), ""
    with serve_in_thread(path, handler) as (url, seen):
        target = {"kind": kind, "url": url + suffix, "model": "m", "api_key_env": "AGENT_KEY"}
        suite = _project(tmp / "project", target)
        proc = run_cli(
            "run",
            str(suite),
            "--out",
            str(tmp / "out"),
            cwd=tmp / "project",
            env={**os.environ, "AGENT_KEY": KEY},
        )
    (run_dir,) = (tmp / "out").iterdir()
    return proc, run_dir, seen


def _records(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _no_key_anywhere(proc: subprocess.CompletedProcess[str], run_dir: Path) -> None:
    assert KEY not in proc.stdout + proc.stderr
    for f in run_dir.rglob("*"):
        if f.is_file():
            assert KEY not in f.read_text(encoding="utf-8", errors="replace"), f


@pytest.mark.parametrize("kind", ["http", "anthropic_http"])
def test_confirmation_passes_when_the_reply_states_the_tool_results_field(
    kind: str, tmp_path: Path
) -> None:
    proc, run_dir, seen = _run(kind, "states", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "target: http://127.0.0.1:" in proc.stderr
    records = _records(run_dir)
    assert [r["status"] for r in records] == ["ok", "ok"]
    for r in records:
        assert r["checks"]["goal_completed"]["passed"]
        assert r["checks"]["confirmation"]["passed"], r["checks"]["confirmation"]
        assert r["checks"]["confirmation"]["detail"] == "reply states reference"
        assert r["checks"]["precondition"]["passed"]  # the booking was looked up first
        assert r["passed"] is True
        look, call = [
            c for t in r["transcript"]["turns"] if t["agent"] for c in t["agent"]["tool_calls"]
        ]
        assert (look["result"], call["result"]) == (BOOKING, RESULT)
    assert len(seen.bodies) == 2  # one agent turn per session: the user stated it all at once
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert run["models"]["agent"].startswith(f"{kind}:http://127.0.0.1:")
    assert "Tool results not reported" not in (run_dir / "report.md").read_text(encoding="utf-8")
    _no_key_anywhere(proc, run_dir)


@pytest.mark.parametrize("kind", ["http", "anthropic_http"])
def test_confirmation_fails_when_the_reply_omits_it(kind: str, tmp_path: Path) -> None:
    proc, run_dir, _ = _run(kind, "omits", tmp_path)
    assert proc.returncode == 0, proc.stderr
    for r in _records(run_dir):
        assert r["checks"]["goal_completed"]["passed"]
        confirmation = r["checks"]["confirmation"]
        assert not confirmation["passed"]
        assert confirmation["detail"] == f"reply does not state reference={RESULT['reference']}"
        assert r["passed"] is False


def test_an_endpoint_that_reports_no_results_still_runs_and_the_report_says_so(
    tmp_path: Path,
) -> None:
    proc, run_dir, _ = _run("http", "unreported", tmp_path)
    assert proc.returncode == 0, proc.stderr
    for r in _records(run_dir):
        assert r["checks"]["goal_completed"]["passed"]
        detail = r["checks"]["confirmation"]["detail"]
        assert detail == "reply does not state reference (no result was reported for refund)"
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["tool_results"]["unreported_calls"] == 4  # two sessions, two calls each
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "Tool results not reported: the target sent 4 of its 4 tool calls" in report
    _no_key_anywhere(proc, run_dir)


def test_simlab_run_from_python_takes_an_http_target_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_KEY", KEY)
    suite = _project(tmp_path / "project", {"kind": "reference"})
    with serve_in_thread("/v1/messages", anthropic_agent("states")) as (url, _):
        spec = AnthropicHttpTargetSpec(url=url, model="m", api_key_env="AGENT_KEY")
        result = simlab.run(suite, target=spec, out=tmp_path / "out", progress=False)
    assert [(r.status, r.passed) for r in result.records] == [("ok", True)] * 2
    info = json.loads(result.paths.run_json.read_text(encoding="utf-8"))
    assert info["models"]["agent"] == f"anthropic_http:{url}"
    assert info["suite"]["target"]["api_key_env"] == "AGENT_KEY"
    assert KEY not in result.paths.run_json.read_text(encoding="utf-8")
