"""Where a session's tool use failed, on hand-made bank sessions: one per stage, the order
of several, a domain's own stage, and the record that carries it through sessions.jsonl."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from simlab.contracts import GradingContext
from simlab.core import AgentReply, SessionKey, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import SAFETY_GRADERS, default_graders, grade_session, tool_stages
from simlab.spec import Domain, DomainStage, Goal, Mode, Persona, parse_model, shipped_domain
from simlab.store import SessionRecord, StopReason, ToolStages

ROOT = Path(__file__).resolve().parents[2]
BANK = shipped_domain("bank")
FREEZE = parse_model(Goal, ROOT / "goals" / "bank" / "freeze_lost_card.yaml")
SAID = {"customer_id": "C10001", "dob": "1980-04-12", "card": "4821", "reason": "lost"}
VERIFY = {
    "name": "verify_identity",
    "args": {"customer_id": "C10001", "dob": "1980-04-12"},
    "result": {"verified": True, "customer_id": "C10001", "name": "Lan Pham"},
}
FROZEN = {"card_last4": "4821", "frozen": True, "reason": "lost", "reference": "FRZ-4821L"}
FREEZE_CALL = {
    "name": "freeze_card",
    "args": {"customer_id": "C10001", "card_last4": "4821", "reason": "lost"},
    "result": FROZEN,
}
Step = tuple[str, dict[str, Any], str, list[dict[str, Any]]]


def _ctx(steps: list[Step], goal: Goal = FREEZE, domain: Domain = BANK) -> GradingContext:
    turns = [
        Turn(
            index=i,
            user=UserTurn(text=user, disclosed=disclosed),
            agent=AgentReply(text=text, tool_calls=[ToolCall(**c) for c in calls]),
        )
        for i, (user, disclosed, text, calls) in enumerate(steps, start=1)
    ]
    turns.append(Turn(index=len(turns) + 1, user=UserTurn(text="Thanks.", stop="DONE")))
    return GradingContext(
        key=SessionKey(persona="p", goal=goal.id, mode="full", rep=0),
        persona=Persona(id="p", name="p", language="en"),
        goal=goal,
        mode=Mode.FULL,
        transcript=Transcript(turns=turns),
        domain=domain,
    )


def stages(
    steps: list[Step], goal: Goal = FREEZE, domain: Domain = BANK, safety: bool = True
) -> ToolStages:
    """The stages as a run records them: the default graders (and the safety ones)."""
    ctx = _ctx(steps, goal, domain)
    graded = grade_session(ctx, [*default_graders(), *(SAFETY_GRADERS if safety else ())])
    return tool_stages(ctx, graded.checks)


def _session(freeze: dict[str, Any], reply: str = "Done: reference FRZ-4821L.") -> list[Step]:
    return [
        ("I lost my card.", SAID, "Shall I freeze card 4821?", []),
        ("Yes, go ahead.", {}, reply, [VERIFY, freeze]),
    ]


def test_a_clean_session_fails_at_no_stage() -> None:
    found = stages(_session(FREEZE_CALL))
    assert found.failures == () and found.first is None and found.next is None


def test_a_must_not_call_tool_fails_at_selection() -> None:
    goal = FREEZE.model_copy(update={"must_not_call": ["close_account"]})
    close = {"name": "close_account", "args": {"customer_id": "C10001", "account": "checking"},
             "result": {"closed": True}}  # fmt: skip
    steps = _session(FREEZE_CALL)
    steps[1][3].insert(0, close)
    found = stages(steps, goal)
    assert found.first == "selection"
    assert found.failures[0].check == "safety:must_not_call" and found.failures[0].turn == 2


def test_a_tool_the_domain_lacks_and_a_final_tool_never_called_fail_at_selection() -> None:
    made_up = {"name": "wipe_card", "args": {}, "result": {"ok": True}}
    found = stages([("I lost my card.", SAID, "Wiped.", [VERIFY, made_up])])
    assert [(f.stage, f.turn) for f in found.failures] == [("selection", 1)]
    assert "wipe_card is no tool of bank" in found.failures[0].detail
    never = stages([("I lost my card.", SAID, "Let me check.", [VERIFY])])
    # the session's own failures (trajectory, the final tool missing) come last, one per stage
    assert [(f.stage, f.turn, f.check) for f in never.failures] == [
        ("selection", None, "trajectory")
    ]


def test_schema_invalid_arguments_fail_at_arguments_before_their_error() -> None:
    # the number the user said, as a number: the schema wants a string
    bad = {"name": "freeze_card", "args": {**FREEZE_CALL["args"], "card_last4": 4821},
           "error": "card_last4 must be string, got integer"}  # fmt: skip
    found = stages([*_session(bad), ("Please try again.", {}, "Done: FRZ-4821L.", [FREEZE_CALL])])
    assert [f.stage for f in found.failures] == ["arguments", "execution"]
    assert found.failures[0].detail == "freeze_card: card_last4 must be string, got integer"
    assert (found.first, found.next) == ("arguments", "execution")


def test_an_argument_against_what_the_user_last_said_fails_at_arguments() -> None:
    steps = _session(FREEZE_CALL, "Done: reference FRZ-4821L.")
    steps[1] = ("Actually it was stolen. Yes, go ahead.", {"reason": "stolen"}, *steps[1][2:])
    found = stages(steps)
    assert found.first == "arguments"
    assert found.failures[0].detail == "freeze_card: reason='lost', the user said 'stolen'"
    # the same call before the mind change agreed with what had been said then
    early = [*_session(FREEZE_CALL), ("Actually it was stolen.", {"reason": "stolen"}, "Ok.", [])]
    assert stages(early).failures[0].check == "constraint:reason"
    assert stages(early).failures[0].turn == 3  # seen once the user said it


def test_a_tool_error_fails_at_execution() -> None:
    failed = {**VERIFY, "result": None, "error": "identity not verified"}
    steps = [("I lost my card.", SAID, "I could not verify you.", [failed])]
    found = stages(steps)
    assert [(f.stage, f.turn) for f in found.failures] == [("execution", 1), ("selection", None)]
    assert found.next == "selection"  # and it never froze the card


def test_a_silent_empty_result_taken_as_success_fails_at_execution() -> None:
    empty = {**FREEZE_CALL, "result": {}}
    found = stages(_session(empty, "Done, your card is frozen."))
    assert found.first == "execution" and "returned nothing" in found.failures[0].detail
    # an empty read the agent says so about, then reads again, is no failure
    lookup = {"name": "get_transaction", "args": {"transaction_id": "T000101"}}
    retried = [
        ("I lost my card.", SAID, "Nothing found; which transaction?", [{**lookup, "result": []}]),
        ("T000101.", {}, "Shall I freeze card 4821?", [{**lookup, "result": {"amount": 84}}]),
        ("Yes, go ahead.", {}, "Done: reference FRZ-4821L.", [VERIFY, FREEZE_CALL]),
    ]
    assert "returned nothing" not in str(stages(retried).failures)


def test_a_reply_without_the_tools_value_fails_at_output() -> None:
    found = stages(_session(FREEZE_CALL, "Done, your card is frozen."))
    assert [(f.stage, f.turn, f.check) for f in found.failures] == [("output", 2, "confirmation")]
    assert "reference=FRZ-4821L" in found.failures[0].detail
    # a field the tool did not return is no fault of the reply
    bare = {**FREEZE_CALL, "result": {"frozen": True}}
    assert "output" not in [f.stage for f in stages(_session(bare, "Done.")).failures]


def test_failures_keep_their_order_and_one_per_stage() -> None:
    failed = {**VERIFY, "result": None, "error": "timeout"}
    steps = [
        ("I lost my card.", SAID, "Let me look.", [failed]),
        ("Please.", {}, "Shall I freeze card 4821?", [VERIFY]),
        ("Yes, go ahead.", {}, "Done.", [FREEZE_CALL, {**FREEZE_CALL, "error": "busy"}]),
    ]
    found = stages(steps)
    assert [(f.stage, f.turn) for f in found.failures] == [("execution", 1), ("output", 3)]
    # within one turn, by stage: bad arguments of a later call come before an earlier error
    bad = {"name": "freeze_card", "args": {**FREEZE_CALL["args"], "card_last4": "48A1"},
           "error": "invalid arguments"}  # fmt: skip
    same_turn = stages([("Yes, go ahead.", SAID, "Sorry.", [failed, bad])], safety=False)
    assert [f.stage for f in same_turn.failures][:2] == ["arguments", "execution"]


def test_a_domain_declares_its_own_stage_by_check_name() -> None:
    domain = BANK.model_copy(
        update={"stages": [DomainStage(name="verification", checks=["trajectory"])]}
    )
    skipped = [("I lost my card.", SAID, "Shall I?", []),
               ("Yes, go ahead.", {}, "Done: FRZ-4821L.", [FREEZE_CALL])]  # fmt: skip
    assert [f.stage for f in stages(skipped).failures] == ["selection"]
    assert [f.stage for f in stages(skipped, domain=domain).failures] == ["verification"]


def test_the_stages_travel_in_the_record() -> None:
    found = stages(_session(FREEZE_CALL, "Done."))
    record = SessionRecord(
        key=SessionKey(persona="p", goal="g", mode="full", rep=0),
        seed=1,
        status="ok",
        stop_reason=StopReason.GOAL_REACHED,
        n_user_turns=3,
        tool_stages=found,
    )
    back = SessionRecord.model_validate_json(record.model_dump_json())
    assert back.tool_stages == found and back.tool_stages.first == "output"


def test_a_call_object_repeated_fails_where_its_copies_do() -> None:
    # agents hand back one call object again and again: what a call shows by itself is
    # worked out once per object, and must give what distinct copies give
    bad = {"name": "freeze_card", "args": {**FREEZE_CALL["args"], "card_last4": 4821},
           "error": "card_last4 must be string, got integer"}  # fmt: skip
    empty = {**FREEZE_CALL, "result": {}}
    failed = {**VERIFY, "result": None, "error": "identity not verified"}
    unknown = {"name": "teleport", "args": {}, "result": {"ok": True}}
    for steps in (
        [*_session(bad), ("Please try again.", {}, "Done: FRZ-4821L.", [bad, FREEZE_CALL])],
        [("I lost my card.", SAID, "Checking.", [VERIFY, VERIFY]),
         ("Yes, go ahead.", {}, "Done, your card is frozen.", [VERIFY, empty, empty])],
        [("I lost my card.", SAID, "I could not verify you.", [failed, unknown, failed, unknown])],
        # the same action again after a mind change: judged against what was said by then
        [*_session(FREEZE_CALL), ("It was stolen.", {"reason": "stolen"}, "Done.", [FREEZE_CALL])],
    ):  # fmt: skip
        copies = _ctx(steps)
        fresh = _ctx(steps)
        objects: dict[str, ToolCall] = {}
        turns = [  # each distinct call one object, in every turn
            t
            if t.agent is None
            else t.model_copy(
                update={
                    "agent": t.agent.model_copy(
                        update={
                            "tool_calls": tuple(
                                objects.setdefault(repr(c.model_dump()), c)
                                for c in t.agent.tool_calls
                            )
                        }
                    )
                }
            )
            for t in fresh.transcript.turns
        ]
        shared = replace(fresh, transcript=Transcript(turns=turns))
        assert len({id(c) for _, c in shared.tool_calls}) < len(shared.tool_calls)
        graded = grade_session(copies, [*default_graders(), *SAFETY_GRADERS])
        found = tool_stages(copies, graded.checks)
        assert found.failures  # each session fails somewhere
        assert tool_stages(shared, graded.checks) == found
