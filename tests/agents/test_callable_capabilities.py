"""A function target declares the counterfactual knobs it honours: ``reply.capabilities``.

``simlab diagnose`` verifies a cause only against a target that honours the knobs its
replays set (``ctx.knobs``); a class says so in a class attribute, a function in an
attribute set on it. Real parts: the adapter the engine uses, and a ``simlab init``
project whose function agent keeps a short window, run and diagnosed through the CLI.
"""

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from run_simlab import init_project, simlab

from simlab import AgentCapabilities, Knobs, Message, SessionContext
from simlab.agents import TargetLoadError, object_target_factory

HONOURED = AgentCapabilities(context_window=True, instruction_reminder=True)


def test_a_functions_capabilities_are_its_targets_and_its_knobs_reach_it() -> None:
    seen: list[Knobs] = []

    def reply(messages: list[dict[str, Any]], ctx: SessionContext) -> str:
        seen.append(ctx.knobs)
        return "hello"

    reply.capabilities = HONOURED  # type: ignore[attr-defined]
    target = object_target_factory(reply, 1)(0)
    assert target.capabilities == HONOURED
    ctx = SessionContext("s", 7, 1, Knobs(context_window=0))
    got = anyio.run(target.reply, [Message(role="user", text="hi")], ctx)
    assert got.text == "hello"
    assert seen == [Knobs(context_window=0)]


def test_a_function_without_capabilities_honours_none() -> None:
    def reply(messages: list[dict[str, Any]], ctx: SessionContext) -> str:
        return "hello"

    assert object_target_factory(reply, 1)(0).capabilities == AgentCapabilities()


def test_a_class_attribute_still_declares_a_class_targets_capabilities() -> None:
    class Agent:
        capabilities = HONOURED

        async def reply(self, history: list[Message], ctx: SessionContext) -> str:
            return "hello"

    assert object_target_factory(Agent, 1)(0).capabilities == HONOURED


def test_capabilities_that_are_not_agent_capabilities_are_refused_when_loaded() -> None:
    def reply(messages: list[dict[str, Any]], ctx: SessionContext) -> str:
        return "hello"

    reply.capabilities = {"context_window": True}  # type: ignore[attr-defined]
    with pytest.raises(TargetLoadError, match=r"my_agent:reply\.capabilities is a dict.*"):
        object_target_factory(reply, 1, "my_agent:reply")


FORGETFUL = '''
from simlab import AgentCapabilities

import agent


def reply(messages, ctx):
    """The sample agent, seeing the first message and the last 2 user turns."""
    window = 2 if ctx.knobs.context_window is None else ctx.knobs.context_window
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    if window and len(users) > window + 1:
        messages = messages[:1] + messages[users[-window]:]
    return agent.reply(messages, ctx)
'''


def _forgetful_project(tmp_path: Path, declared: str) -> Path:
    root = init_project(tmp_path)
    (root / "forgetful_agent.py").write_text(FORGETFUL + declared, encoding="utf-8")
    suite = (root / "simlab.yaml").read_text(encoding="utf-8")
    assert all(s in suite for s in ("target: agent:reply", "modes: [full, sharded]", "reps: 3"))
    suite = suite.replace("target: agent:reply", "target: forgetful_agent:reply")
    suite = suite.replace("modes: [full, sharded]", "modes: [sharded]")
    suite = suite.replace("reps: 3", "reps: 1")  # 4 sessions, calm/order_tea the long one
    (root / "forgetful.yaml").write_text(suite, encoding="utf-8")
    return root


def test_diagnose_verifies_the_truncations_of_a_function_that_declares_its_knobs(
    tmp_path: Path,
) -> None:
    declared = (
        "\n\nreply.capabilities = AgentCapabilities(context_window=True, "
        "instruction_reminder=True)\n"
    )
    root = _forgetful_project(tmp_path, declared)
    ran = simlab("run", "forgetful.yaml", "--quiet", cwd=root)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (root / "results").iterdir()
    diagnosed = simlab("diagnose", str(run_dir), cwd=root)
    assert diagnosed.returncode == 0, diagnosed.stderr
    assert "not verifiable" not in diagnosed.stdout
    report = json.loads((run_dir / "diagnosis.json").read_text(encoding="utf-8"))
    assert report["n_failed"] >= 1
    for session in report["sessions"]:
        assert session["cause"] == "truncation", session
        verification = session["verification"]
        assert verification["verified"], verification
        assert verification["fixed"]["unlimited_window"] is True
        assert verification["fixed"]["instruction_reminder"] is False


def test_a_wrong_capabilities_stops_the_run_with_one_message(tmp_path: Path) -> None:
    root = _forgetful_project(tmp_path, "\n\nreply.capabilities = True\n")
    ran = simlab("run", "forgetful.yaml", "--quiet", cwd=root)
    assert ran.returncode == 2
    assert "forgetful_agent:reply.capabilities is a bool" in ran.stderr
    assert "AgentCapabilities(" in ran.stderr
    assert "Traceback" not in ran.stderr
