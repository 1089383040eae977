"""The ``precondition`` check: a domain's ``requires:`` graded, with the first failing turn."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import simlab
from simlab.core import ToolCall
from simlab.graders import missing_precondition, precondition_check
from simlab.spec import load_domain, starter_dir

BANK = Path(__file__).resolve().parents[2] / "domains" / "bank"


def call(name: str, error: str | None = None) -> ToolCall:
    return ToolCall(name=name, args={}, result=None if error else {"ok": True}, error=error)


@pytest.mark.parametrize(
    ("required", "before", "missing"),
    [
        (["verify"], [], "verify"),
        (["verify"], ["verify"], None),
        (["verify"], ["lookup"], "verify"),
        (["verify", "lookup"], ["verify", "lookup"], None),
        (["verify", "lookup"], ["lookup", "verify"], "lookup"),  # in order, not in any order
        (["verify", "lookup"], ["lookup", "verify", "lookup"], None),
        (["verify"], ["verify!"], "verify"),  # a failed call (error) is no precondition met
    ],
)
def test_missing_precondition_reads_successful_calls_in_order(
    required: list[str], before: list[str], missing: str | None
) -> None:
    calls = [call(n.rstrip("!"), "denied" if n.endswith("!") else None) for n in before]
    assert missing_precondition(required, calls) == missing


def test_a_balance_read_before_verification_fails_at_its_turn() -> None:
    bank = load_domain(BANK)
    assert bank.tool("get_balance") is not None
    assert bank.tool("get_balance").requires == ("verify_identity",)  # type: ignore[union-attr]
    check = precondition_check(
        bank, [(2, call("get_balance")), (3, call("verify_identity")), (3, call("get_balance"))]
    )
    assert check is not None and not check.passed and check.turn == 2
    assert check.detail == (
        "get_balance was called before a successful verify_identity (the domain requires "
        "verify_identity first)"
    )
    ok = precondition_check(bank, [(1, call("verify_identity")), (2, call("get_balance"))])
    assert ok is not None and ok.passed and ok.turn is None
    # no call of a tool that requires another: nothing to hold to the rule
    assert precondition_check(bank, [(1, call("verify_identity"))]) is None


def _project_with_a_rule(tmp: Path) -> Path:
    """The starter shop, edited the way a user would: ``place_order`` now requires a
    stock check first (the starter agent makes one, a careless copy of it does not)."""
    project = tmp / "shop"
    shutil.copytree(starter_dir(), project)
    domain = project / "domains" / "shop" / "domain.yaml"
    text = domain.read_text()
    marker = "  - name: place_order\n"
    assert marker in text
    domain.write_text(text.replace(marker, marker + "    requires: [check_stock]\n"))
    (project / "careless.py").write_text(
        "from agent import reply as careful\n\n\n"
        "def reply(messages, ctx=None):\n"
        "    out = careful(messages, ctx)\n"
        "    calls = [c for c in out.get('tool_calls', []) if c['name'] != 'check_stock']\n"
        "    return {**out, 'tool_calls': calls}\n"
    )
    return project


def tea_orders(project: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``order_tea`` sessions of one repetition of ``project``'s suite against
    ``target`` (a ``module:attr`` beside the suite)."""
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    result = simlab.run(project / "simlab.yaml", target=target, reps=1, progress=False)
    return [r for r in result.records if r.key.goal == "order_tea"]


def test_an_agent_that_skips_the_required_lookup_fails_precondition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project_with_a_rule(tmp_path)
    careful = tea_orders(project, "agent:reply", monkeypatch)
    careless = tea_orders(project, "careless:reply", monkeypatch)
    assert careful and len(careful) == len(careless)
    placed = [r for r in careful if r.checks["goal_completed"].passed]
    assert placed and all(r.checks["precondition"].passed for r in placed)
    failed = [r for r in careless if "precondition" in r.checks]
    assert failed and all(not r.checks["precondition"].passed for r in failed)
    assert all(not r.passed for r in failed)  # counted by the default pass rule
    assert {r.checks["precondition"].detail for r in failed} == {
        "place_order was called before a successful check_stock (the domain requires "
        "check_stock first)"
    }
