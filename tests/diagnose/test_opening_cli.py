"""``simlab diagnose`` on a ``simlab init`` project whose agent keeps only its last user turns.

Such an agent loses the user's first message (what they came for: "I'd like to order
some tea") and asks again what the user wants, an open question by the shop domain's
``open_cues``. Its failures are truncations, verified by the unlimited window. The
control keeps every turn in view and asks the same question for another reason (it
forgets to act on a yes): none of its failures is a truncation.
"""

import json
from pathlib import Path
from typing import Any

from run_simlab import init_project, simlab

LAST_TURNS = """
from simlab import AgentCapabilities

import agent

WINDOW = 2  # the last user turns it keeps: the first message, too, falls out


def reply(messages, ctx):
    window = WINDOW if ctx.knobs.context_window is None else ctx.knobs.context_window
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    seen = list(range(1, len(users) + 1))
    if window and len(users) > window:
        messages = messages[users[-window]:]
        seen = seen[-window:]
    out = agent.reply(messages, ctx)
    out["context"] = {"seen_user_turns": seen}
    return out


reply.capabilities = AgentCapabilities(context_window=True, instruction_reminder=True)
"""

NEVER_ACTS = """
from simlab import AgentCapabilities

import agent


def reply(messages, ctx):
    users = [m["content"] for m in messages if m["role"] == "user"]
    if len(users) > 1 and agent.said_yes(users[-1]):  # it sees it all, and asks anew
        out = {"text": "Hello! Would you like to order tea or return something?"}
    else:
        out = agent.reply(messages, ctx)
    out["context"] = {"seen_user_turns": list(range(1, len(users) + 1))}
    return out


reply.capabilities = AgentCapabilities(context_window=True, instruction_reminder=True)
"""


def _diagnosed(root: Path, name: str, source: str) -> dict[str, Any]:
    """Run the project's suite (one repetition) against ``source`` as ``name``, diagnose
    its run; the ``diagnosis.json``."""
    (root / f"{name}.py").write_text(source, encoding="utf-8")
    suite = (root / "simlab.yaml").read_text(encoding="utf-8")
    suite = suite.replace("target: agent:reply", f"target: {name}:reply")
    suite = suite.replace("reps: 3", "reps: 1")
    (root / f"{name}.yaml").write_text(suite, encoding="utf-8")
    ran = simlab("run", f"{name}.yaml", "--quiet", "--out", f"results-{name}", cwd=root)
    assert ran.returncode in (0, 1), ran.stderr
    (run_dir,) = (root / f"results-{name}").iterdir()
    diagnosed = simlab("diagnose", str(run_dir), cwd=root)
    assert diagnosed.returncode == 0, diagnosed.stderr
    report: dict[str, Any] = json.loads((run_dir / "diagnosis.json").read_text("utf-8"))
    return report


def test_an_agent_that_loses_the_first_message_is_diagnosed_truncation(tmp_path: Path) -> None:
    report = _diagnosed(init_project(tmp_path), "last_turns", LAST_TURNS)
    assert report["n_failed"] >= 4
    for session in report["sessions"]:
        assert session["cause"] == "truncation", session
        assert "the user's opening (turn 1: what they came for)" in session["evidence"]
        assert "'Would you like to order tea or return something?'" in session["evidence"]
        verification = session["verification"]
        assert verification["verified"], verification
        assert verification["fixed"]["unlimited_window"] is True
        assert verification["fixed"]["instruction_reminder"] is False
    assert report["verified"]["k"] == report["n_failed"]


def test_an_agent_that_asks_anew_with_everything_in_view_is_not_truncation(
    tmp_path: Path,
) -> None:
    report = _diagnosed(init_project(tmp_path), "never_acts", NEVER_ACTS)
    assert report["n_failed"] == report["n_ok"] == 8  # it never acts
    for session in report["sessions"]:
        assert session["cause"] != "truncation", session
        assert session["verification"] is None or not session["verification"]["fixed"].get(
            "unlimited_window"
        )
