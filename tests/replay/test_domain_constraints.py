"""An imported log's constraints come from its domain's data, in any domain.

The ferry domain of ``tests/agents/test_domain_lookups.py`` (not one simlab
ships) says in its data that a budget caps a booking's ``total`` (``limits``)
and that a latest time bounds a sailing's ``time`` (a lookup's ``where``):
prefix replay must read and grade a ferry conversation by exactly that.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simlab.core import AgentReply, Message, ToolCall
from simlab.replay import (
    KeptConstraint,
    broken_constraints,
    constraints_from_messages,
    load_prefix_cases,
    replay_cli,
)
from simlab.spec import Domain, load_domain
from tests.agents.test_domain_lookups import ferry


@pytest.fixture
def domain(tmp_path: Path) -> Domain:
    return load_domain(ferry(tmp_path))


def _said(*texts: str) -> list[Message]:
    roles = ("user", "assistant")
    return [Message(role=roles[i % 2], text=t) for i, t in enumerate(texts)]


def test_the_domains_data_says_how_each_stated_value_binds_an_action(domain: Domain) -> None:
    found = constraints_from_messages(
        _said(
            "I want to sail. At most 50 EUR.",
            "Which port?",
            "I sail from North Harbour.",
            "How many adults, and how many kids?",
            "We are 2 adults.",
            "Noted. The latest time?",
            "We leave by 11:30.",
        ),
        domain,
    )
    got = {c.fact: (c.value, c.op, c.fields, c.turn) for c in found}
    assert got == {
        "budget": (50, "le", ["total"], 1),  # limits: a ceiling on the booking's total
        "port": ("NTH", "eq", ["port"], 2),
        "adults": (2, "eq", ["adults"], 3),
        "kids": (0, "eq", ["kids"], 3),  # asked and not named: the slot's none value
        "latest": ("11:30", "le", ["time"], 4),  # where: a sailing's time at most the latest
    }


def test_asked_and_not_named_a_slot_takes_its_none_value() -> None:
    # travel's children have none_value 0: "2 adults" answers "any children?" with none
    found = constraints_from_messages(
        _said("I want to book a flight.", "How many adults, and any children?", "2 adults.")
    )
    assert {c.fact: c.value for c in found} == {"passengers": 2, "children": 0}


def test_a_reply_breaks_a_bound_by_its_action_or_by_a_labelled_figure(domain: Domain) -> None:
    [budget] = constraints_from_messages(_said("At most 50 EUR."), domain)
    # the domain declares book a write: judged on what it did (its result), not by its name
    book = ToolCall(name="book", args={"sailing": "S2", "adults": 2}, result={"total": 60})
    assert broken_constraints(
        AgentReply(text="Booked.", tool_calls=[book]), [budget], domain=domain
    ) == ["book total=60 breaks budget <= 50 (turn 1)"]
    # an agent that labels its figures states them: "total: 60 EUR" breaks a 50 EUR budget
    quoted = AgentReply(text="Sailing S2 for 2 adults, total: 60 EUR. Shall I book it?")
    assert broken_constraints(quoted, [budget], domain=domain) == [
        "reply states total 60, breaking budget <= 50 (turn 1)"
    ]
    cheap = AgentReply(text="Sailing S4 for 2 adults, total: 20 EUR. Shall I book it?")
    assert broken_constraints(cheap, [budget], domain=domain) == []
    # a labelled figure is compared only with a bound, and only when it has the bound's
    # shape: an enum said in words, or a date in words, is no break of an equal value
    [latest] = constraints_from_messages(_said("We leave by 11:30."), domain)
    late = AgentReply(text="Sailing S4, time: 19:00, total: 20 EUR. Shall I book it?")
    assert broken_constraints(late, [latest], domain=domain) == [
        "reply states time '19:00', breaking latest <= 11:30 (turn 1)"
    ]
    worded = AgentReply(text="Sailing S4, time: seven in the evening. Shall I book it?")
    assert broken_constraints(worded, [latest], domain=domain) == []
    port = KeptConstraint(fact="port", slot="port", value="NTH", fields=["harbour"], turn=1)
    said = AgentReply(text="From harbour: North Harbour. Shall I book it?")
    assert broken_constraints(said, [port], domain=domain) == []
    # a lookup is not judged: its result shows what exists, not what the agent chose
    look = AgentReply(text="", tool_calls=[ToolCall(name="sailings", args={"total": 60})])
    assert broken_constraints(look, [budget], domain=domain) == []


def test_replay_reads_a_log_in_the_domain_it_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = ferry(tmp_path)
    log = tmp_path / "ferry.jsonl"
    messages = [
        {"role": "user", "content": "I want to sail. At most 50 EUR."},
        {"role": "assistant", "content": "Which port?"},
        {"role": "user", "content": "I sail from North Harbour."},
        {"role": "assistant", "content": "Sailing S2, total: 60 EUR. Shall I book it?"},
    ]
    row = {"task_id": "t", "trial": 0, "reward": 0, "failing_turn": 2, "messages": messages}
    log.write_text(json.dumps(row) + "\n", encoding="utf-8")
    cases = tmp_path / "cases"
    argv = [str(log), "--k", "2", "--save-cases", str(cases), "--domain", str(folder)]
    assert replay_cli(argv) == 0
    out = capsys.readouterr().out
    [case] = load_prefix_cases([cases])
    assert case.domain == "ferry"
    assert [c.describe() for c in case.constraints] == [
        "budget <= 50 (turn 1)",
        "port == NTH (turn 2)",
    ]
    # the logged reply quoted a total over the budget: a recorded break
    assert "reproduced" in out and "of 1 recorded constraint breaks" in out
    # saved, the case names its domain; replayed without --domain it is not found
    assert replay_cli([str(cases), "--k", "1"]) == 2
    assert "domain 'ferry'" in capsys.readouterr().err
    assert replay_cli([str(cases), "--k", "1", "--domain", str(folder)]) == 0
    # a --domain that names nothing is bad input, not a traceback
    assert replay_cli([str(log), "--k", "1", "--domain", "no_such_domain"]) == 2
    assert "no_such_domain" in capsys.readouterr().err
