"""One reference agent, any domain: read from the bank domain's data alone, with the
same switchable defects and recorded true causes as on travel."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import simlab
from simlab.agents.reference import DomainSkill, Plan, reference_agent, skill_for
from simlab.core import AgentReply, Message, SessionContext
from simlab.spec import SpecError, load_domains, shipped_domain
from simlab.store import SessionRecord

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "examples" / "bank"


def bank_skill() -> DomainSkill:
    return DomainSkill(shipped_domain("bank"))


def test_every_domain_travel_too_is_read_from_its_data() -> None:
    travel = skill_for(None)(0)
    assert isinstance(travel, DomainSkill) and travel.domain == shipped_domain("travel")
    assert isinstance(skill_for(shipped_domain("travel"))(0), DomainSkill)
    assert isinstance(skill_for(shipped_domain("bank"))(0), DomainSkill)


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("My customer number is C10001.", {"customer_id": "C10001"}),
        ("My date of birth is 12 April 1980.", {"dob": "1980-04-12"}),
        ("Ngày sinh của tôi là 12/4/1980.", {"dob": "1980-04-12"}),
        (
            "I'd like a limit of 5000 USD. The card ends in 4821.",
            {"new_limit": 5000, "card_last4": "4821"},
        ),
        ("Actually, a limit of 3000 USD is enough.", {"new_limit": 3000}),
        ("Đó là tài khoản tiết kiệm của tôi.", {"account": "savings"}),
        ("Sorry, the card was actually stolen, not lost.", {"reason": "stolen"}),
    ],
)
def test_values_are_read_with_the_domain_phrasings(text: str, slots: dict[str, object]) -> None:
    assert bank_skill().read(text, ()).slots == slots


def test_an_asked_slot_is_read_from_a_bare_value_and_intent_yes_language_from_phrases() -> None:
    skill = bank_skill()
    assert skill.read("4821", ("card_last4",)).slots == {"card_last4": "4821"}
    assert skill.read("4821", ()).slots == {}
    opening = skill.read("Tôi muốn tăng hạn mức thẻ.", ())
    assert (opening.intent, opening.language) == ("raise_limit", "vi")
    assert skill.read("Yes, please go ahead.", ()).yes
    assert skill.read("yes", ()).yes
    assert not skill.read("That's not what I asked for.", ()).yes


def test_lookups_come_first_and_a_strangers_record_stops_the_request() -> None:
    skill = bank_skill()
    mine = {
        "customer_id": "C10001",
        "dob": "1980-04-12",
        "transaction_id": "T000102",
        "amount": 1200,
    }
    calls: list = []
    decision = skill.decide("dispute_transaction", mine, calls)
    assert [c.name for c in calls] == ["verify_identity", "get_transaction"]
    assert decision.plan == Plan(
        "dispute_transaction",
        (("customer_id", "C10001"), ("transaction_id", "T000102"), ("amount", 1200)),
    )
    theirs = skill.decide("dispute_transaction", {**mine, "transaction_id": "T000201"}, [])
    assert theirs.plan is None and theirs.problem == "not_yours"
    assert "C20002" in skill.problem(theirs, "en", alone=True)
    card = {"card_last4": "4821", "reason": "lost"}
    wrong_dob = skill.decide("freeze_card", {**mine, **card, "dob": "1980-04-13"}, None)
    assert wrong_dob.problem == "refused" and wrong_dob.ask == ("customer_id", "dob")
    missing = skill.decide("raise_limit", {"customer_id": "C10001"}, None)
    assert missing.ask == ("dob", "card_last4", "new_limit")  # the domain's slot order


def test_a_write_waits_for_yes_and_its_result_is_stated() -> None:
    agent = reference_agent("v2", 0, shipped_domain("bank"))
    history: list[Message] = []

    def say(text: str) -> AgentReply:
        history.append(Message(role="user", text=text))
        reply = anyio.run(agent.reply, history, SessionContext("s", 0, len(history)))
        history.append(Message(role="assistant", text=reply.text))
        return reply

    first = say("I lost my card and I need to freeze it.")
    assert "?" in first.text and not first.tool_calls
    proposal = say(
        "My customer number is C10001. My date of birth is 12 April 1980. "
        "The card ends in 4821. My card was lost."
    )
    assert "Shall I go ahead?" in proposal.text
    assert [c.name for c in proposal.tool_calls] == ["verify_identity"]
    done = say("Yes, please go ahead.")
    assert [c.name for c in done.tool_calls] == ["freeze_card"]
    assert "FRZ-4821L" in done.text  # the confirmation states the tool's result


def test_a_required_tool_must_be_another_declared_tool(tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    text = (ROOT / "domains" / "bank" / "tools.yaml").read_text(encoding="utf-8")
    (folder / "tools.yaml").write_text(
        text.replace(
            "requires: [verify_identity, get_transaction]",
            "requires: [verify_identity, get_transactions]",
        ),
        encoding="utf-8",
    )
    for name in ("domain.yaml", "slots.yaml"):
        (folder / name).write_text(
            (ROOT / "domains" / "bank" / name).read_text(encoding="utf-8"), encoding="utf-8"
        )
    with pytest.raises(SpecError) as caught:
        load_domains([str(folder)], tmp_path)
    (problem,) = caught.value.problems
    lines = (folder / "tools.yaml").read_text(encoding="utf-8").splitlines()
    assert problem.file.endswith("tools.yaml") and problem.line is not None
    assert "get_transactions" in lines[problem.line - 1]
    assert "'get_transactions' is not another declared tool" in problem.message


def run_bank(tmp_path: Path, version: str) -> list[SessionRecord]:
    result = simlab.run(
        BANK / "simlab.yaml",
        target=f"reference:{version}",
        out=tmp_path / version,
        progress=False,
        reps=2,
    )
    assert all(r.status == "ok" for r in result.records)
    return result.records


def test_v2_passes_every_bank_goal_and_v1_fails_with_its_true_causes(tmp_path: Path) -> None:
    v2 = run_bank(tmp_path, "v2")
    assert len(v2) == 96 and all(r.passed for r in v2), [r.key for r in v2 if not r.passed]
    v1 = run_bank(tmp_path, "v1")
    failed = [r for r in v1 if not r.passed]
    assert len(failed) >= 10
    causes = {
        c["cause"]
        for r in failed
        for t in r.transcript.turns
        if t.agent is not None
        for c in t.agent.meta.get("true_causes", [])
    }
    assert {"truncation", "anchoring", "drift"} <= causes


def test_a_repeated_fixture_call_is_answered_as_the_first_and_types_are_kept_apart() -> None:
    skill = bank_skill()
    tool = shipped_domain("bank").tool("get_balance")
    assert tool is not None
    args = {"customer_id": "C10001", "account": "savings"}
    first, again = skill._call(tool, args), skill._call(tool, dict(args))
    assert first == again and again.result == {
        "account": "savings",
        "balance": 15230,
        "currency": "USD",
    }
    limit = shipped_domain("bank").tool("raise_limit")
    assert limit is not None
    ok = skill._call(limit, {"customer_id": "C10001", "card_last4": "4821", "new_limit": 1})
    odd = skill._call(limit, {"customer_id": "C10001", "card_last4": "4821", "new_limit": True})
    assert ok.error != odd.error and "invalid arguments" in str(odd.error)
