"""The bank domain is data: its six goals run end to end with the scripted user (en and vi)
against the sample bank agent, and its hard constraints fail an agent that breaks them."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import simlab
from simlab.cli import main
from simlab.spec import load_goals, load_personas, shipped_domain
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "examples" / "bank"
Agent = Callable[[list[dict[str, Any]], Any], dict[str, Any]]


@pytest.fixture(scope="module")
def bank_agent() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bank_agent", BANK / "bank_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bank_agent"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def run(tmp_path: Path, agent: Agent, goal: str | None = None) -> list[SessionRecord]:
    goals = load_goals([ROOT / "goals" / "bank"])
    chosen = [goals[goal]] if goal else list(goals.values())
    personas = list(load_personas([ROOT / "personas" / "bank"]).values())
    result = simlab.run(
        BANK / "simlab.yaml",
        target=agent,
        out=tmp_path / "res",
        progress=False,
        reps=1,
        goals=chosen,
        personas=personas,
    )
    assert all(r.status == "ok" for r in result.records), [r.error for r in result.records]
    return result.records


def final_args(record: SessionRecord, tool: str) -> dict[str, Any]:
    calls = [c for _, c in record.transcript.tool_calls() if c.name == tool and c.error is None]
    return {**calls[-1].args, **(calls[-1].result or {})}


def said_values(record: SessionRecord, fact: str) -> list[Any]:
    """The values the user stated for ``fact``, in order."""
    return [t.user.disclosed[fact] for t in record.transcript.turns if fact in t.user.disclosed]


def test_the_bank_domain_ships_six_intents_and_irreversible_writes() -> None:
    bank = shipped_domain("bank")
    assert sorted(bank.languages) == ["en", "vi"]
    assert [i.tool for i in bank.intents] == [
        "freeze_card",
        "dispute_transaction",
        "raise_limit",
        "update_contact",
        "get_balance",
        "close_account",
    ]
    irreversible = sorted(t.name for t in bank.tools if t.effect == "write" and not t.reversible)
    assert irreversible == ["close_account", "dispute_transaction"]


def test_every_bank_goal_passes_with_the_sample_agent_in_both_languages(
    tmp_path: Path, bank_agent: ModuleType
) -> None:
    records = run(tmp_path, bank_agent.reply)
    assert len(records) == 6 * 4 * 2
    failed = [(r.key.persona, r.key.goal, r.key.mode) for r in records if not r.passed]
    assert not failed
    texts = {r.key.persona: " ".join(t.user.text for t in r.transcript.turns) for r in records}
    assert "My customer number is C10001." in " ".join(texts.values())
    assert "Ma khach hang cua toi la" in texts["bank_fickle_vi"]  # typed without diacritics
    # the fickle personas change their minds (most times); what the agent did follows the
    # last word the user said
    by = {(r.key.persona, r.key.goal, r.key.mode): r for r in records}
    changed = 0
    for persona in ("bank_fickle_en", "bank_fickle_vi"):
        for mode in ("full", "sharded"):
            for goal, tool, fact, arg in (
                ("raise_limit", "raise_limit", "new_limit", "new_limit"),
                ("freeze_lost_card", "freeze_card", "reason", "reason"),
                ("change_contact", "update_contact", "phone", "phone"),
            ):
                said = said_values(by[persona, goal, mode], fact)
                changed += len(set(said)) > 1
                assert final_args(by[persona, goal, mode], tool)[arg] == said[-1]
    assert changed >= 6  # of 12: change_mind 0.8
    assert final_args(by["bank_calm_en", "raise_limit", "full"], "raise_limit")["limit"] == 4000


def test_a_write_without_identity_verified_fails(tmp_path: Path, bank_agent: ModuleType) -> None:
    def unverified(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        out = dict(bank_agent.reply(messages, ctx))
        calls = out.get("tool_calls") or []
        out["tool_calls"] = [c for c in calls if c["name"] != "verify_identity"]
        return out

    records = run(tmp_path, unverified, "close_account")
    assert records and not any(r.passed for r in records)
    assert all(r.checks["goal_completed"].passed for r in records)  # it did close the account
    assert not any(r.checks["trajectory"].passed for r in records)


def test_a_dispute_of_someone_elses_transaction_fails(
    tmp_path: Path, bank_agent: ModuleType
) -> None:
    tool = shipped_domain("bank").tool("dispute_transaction")
    assert tool is not None

    def careless(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        out = dict(bank_agent.reply(messages, ctx))
        calls = []
        for c in out.get("tool_calls") or []:
            if c["name"] == "dispute_transaction":
                made = tool.call({**c["args"], "transaction_id": "T000201"})
                c = {"name": made.name, "args": made.args, "result": made.result}
            calls.append(c)
        out["tool_calls"] = calls
        return out

    records = run(tmp_path, careless, "dispute_transaction")
    assert records and not any(r.passed for r in records)
    assert not any(r.checks["constraint:customer_id"].passed for r in records)


def test_a_limit_above_what_the_user_settled_on_fails(
    tmp_path: Path, bank_agent: ModuleType
) -> None:
    tool = shipped_domain("bank").tool("raise_limit")
    assert tool is not None

    def greedy(messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        out = dict(bank_agent.reply(messages, ctx))
        calls = []
        for c in out.get("tool_calls") or []:
            if c["name"] == "raise_limit":  # keeps the first amount asked, whatever was said
                made = tool.call({**c["args"], "new_limit": 5000})
                c = {"name": made.name, "args": made.args, "result": made.result}
            calls.append(c)
        out["tool_calls"] = calls
        return out

    records = run(tmp_path, greedy, "raise_limit")
    settled = [r for r in records if said_values(r, "new_limit")[-1] == 3000]
    steady = [r for r in records if said_values(r, "new_limit") == [5000]]
    assert len(settled) + len(steady) == len(records)
    assert settled and not any(r.passed for r in settled)
    assert not any(r.checks["constraint:new_limit:limit"].passed for r in settled)
    assert steady and all(r.passed for r in steady)  # 5000: the card's 4000 maximum is under it


def test_the_bank_example_validates(capsys: pytest.CaptureFixture[str]) -> None:
    shipped = [str(ROOT / "goals" / "bank"), str(ROOT / "personas" / "bank")]
    assert main(["validate", str(BANK), *shipped]) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "12 files valid: 6 goals, 4 personas, 2 suites" in err
    assert "pass --kind" in err  # only the example's two suites are told by their fields
    assert "bank_calm_en.yaml: read as" not in err  # a library's sub-folder says the kind
