"""A hosted LLM agent (``target: {kind: llm}``) of the user's own domain, offline.

``simlab fake-provider --domain DIR`` plays the agent as the reference agent serving
DIR; without it the played agent serves travel and never understands the user.
Here the ``simlab init`` starter's shop domain, its personas and goals.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from run_simlab import simlab

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "examples" / "starter"
SHOP = STARTER / "domains" / "shop"


def hosted_agent(tmp: Path) -> Path:
    """An agent file whose tools are the shop domain's, fixtures and all (``tools_from``)."""
    agent = {
        "name": "shop_llm",
        "system_prompt": "You are the tea shop's support assistant.",
        "tools_from": str(SHOP),
    }
    path = tmp / "shop_llm.yaml"
    path.write_text(json.dumps(agent), encoding="utf-8")
    return path


def run_suite(tmp: Path, url: str) -> list[dict]:  # type: ignore[type-arg]
    suite = {
        "seed": 1,
        "reps": 1,
        "domains": [str(SHOP)],
        "persona_dirs": [str(STARTER / "personas")],
        "goal_dirs": [str(STARTER / "goals")],
        "target": {"kind": "llm", "agent": str(hosted_agent(tmp))},
        "llm": {"backend": "anthropic", "model": "fake"},
    }
    path = tmp / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    out = tmp / "results"
    env = {**os.environ, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "test"}
    proc = simlab("run", str(path), "--out", str(out), "--quiet", env=env)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = list(out.iterdir())
    lines = (run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@contextmanager
def fake_provider(*options: str) -> Iterator[str]:
    """``simlab fake-provider OPTIONS`` on a free port: its base URL, then stopped."""
    command = [sys.executable, "-m", "simlab.cli", "fake-provider", "--port", "0", *options]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        yield server.stdout.readline().rsplit(" ", 1)[-1].strip()
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=10)


@pytest.mark.parametrize("played", ["travel", "shop"])
def test_the_played_agent_serves_the_domain_it_is_given(tmp_path: Path, played: str) -> None:
    with fake_provider(*(["--domain", str(SHOP)] if played == "shop" else [])) as url:
        records = run_suite(tmp_path, url)
    passed = sum(r["passed"] for r in records)
    assert len(records) == 8
    if played == "shop":  # the starter's own sample agent passes all 8 as well
        assert passed == 8
        made = {
            c["name"]
            for r in records
            for t in r["transcript"]["turns"]
            if t["agent"]
            for c in t["agent"]["tool_calls"]
        }
        assert {"place_order", "start_return"} <= made
    else:  # a travel agent greets a tea customer over and over
        assert passed == 0
