"""A user's callable target with a mistake: what ``simlab run`` says about it.

Real runs of a ``simlab init`` project (subprocess CLI) whose suite points at a
misspelled function, or at a function that returns tool calls of the wrong shape.
"""

import json
from pathlib import Path

from run_simlab import simlab


def project(tmp_path: Path, target: str) -> Path:
    """An init project whose suite runs ``target`` (``bad_agent.py`` beside it)."""
    assert simlab("init", "proj", cwd=tmp_path).returncode == 0
    root = tmp_path / "proj"
    (root / "bad_agent.py").write_text(
        "from agent import reply\n\n\n"
        "def names_only(messages, ctx=None):\n"
        "    out = reply(messages, ctx)\n"
        "    out['tool_calls'] = [c['name'] for c in out.get('tool_calls', [])]\n"
        "    return out\n"
    )
    suite = root / "simlab.yaml"
    suite.write_text(suite.read_text().replace("target: agent:reply", f"target: {target}"))
    return root


def test_a_misspelled_function_is_named_with_the_one_meant(tmp_path: Path) -> None:
    ran = simlab("run", "--quiet", cwd=project(tmp_path, "agent:replyy"))
    assert ran.returncode == 2
    assert "Traceback" not in ran.stderr
    assert "module 'agent' has no attribute 'replyy' (did you mean 'reply'?)" in ran.stderr


def test_tool_calls_of_the_wrong_shape_say_which_field_and_what_to_return(
    tmp_path: Path,
) -> None:
    # the report showed "ValidationError: 1 validation error for AgentReply", the first
    # line of pydantic's message: nothing said which field or what it should be
    root = project(tmp_path, "bad_agent:names_only")
    ran = simlab("run", "--quiet", cwd=root)
    assert ran.returncode == 1  # no session graded
    (run_dir,) = (root / "results").iterdir()
    first = json.loads((run_dir / "sessions.jsonl").read_text().splitlines()[0])
    error = first["error"]
    assert error["type"] == "TargetReplyError"
    assert "\n" not in error["message"]
    assert "tool_calls.0: Input should be a valid dictionary" in error["message"]
    assert "(got 'place_order')" in error["message"] or "(got 'start_return')" in error["message"]
    assert '"tool_calls": [{"name": str, "args"' in error["message"]
    report = (run_dir / "report.md").read_text()
    assert "TargetReplyError: the target returned a dict that is not a reply: tool_calls.0" in (
        report
    )


def test_a_class_whose_constructor_needs_arguments_is_refused_before_any_session(
    tmp_path: Path,
) -> None:
    # every session ended as agent_error "TypeError: Bot.__init__() missing 1 required
    # positional argument: 'model'", with nothing saying how simlab makes the instance
    root = project(tmp_path, "bot:Bot")
    (root / "bot.py").write_text(
        "from agent import reply\n\n\n"
        "class Bot:\n"
        "    def __init__(self, model, *, temperature=0.0):\n"
        "        self.model = model\n\n"
        "    async def reply(self, history, ctx):\n"
        "        return {'text': 'hello'}\n"
    )
    ran = simlab("run", "--quiet", cwd=root)
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert (
        "class 'bot:Bot' is made with no arguments, one instance per session, but its "
        "__init__ requires model; give them defaults"
    ) in ran.stderr, ran.stderr


def test_a_class_may_return_a_dict_as_a_function_does(tmp_path: Path) -> None:
    # a class's reply returning the guide's dict crashed the whole run: a traceback
    # ending "AttributeError: 'dict' object has no attribute 'text'", no run written
    root = project(tmp_path, "bot:Bot")
    (root / "bot.py").write_text(
        "from agent import reply\n\n\n"
        "class Bot:\n"
        "    async def reply(self, history, ctx):\n"
        "        messages = [{'role': m.role, 'content': m.text} for m in history]\n"
        "        return reply(messages, ctx)\n\n\n"
        "class Wrong:\n"
        "    def reply(self, history, ctx):\n"
        "        return {'reply': 'hello'}\n"
    )
    ran = simlab("run", "--quiet", cwd=root)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (root / "results").iterdir()
    records = [json.loads(ln) for ln in (run_dir / "sessions.jsonl").read_text().splitlines()]
    assert len(records) == 24 and all(r["status"] == "ok" for r in records)
    assert all(r["passed"] for r in records)  # the sample agent, wrapped: it passes them all

    suite = root / "simlab.yaml"
    suite.write_text(suite.read_text().replace("target: bot:Bot", "target: bot:Wrong"))
    wrong = simlab("run", "--quiet", cwd=root)
    assert wrong.returncode == 1  # no session graded: each an agent_error
    assert "Traceback" not in wrong.stderr
    assert "the target returned a dict that is not a reply: text: Field required" in (
        wrong.stderr
    ), wrong.stderr
