"""Agent questions the scripted user finds no cue for: tallied on the simulator, carried
into the session record's ``meta["unheard"]``, and nothing else about the session changed."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from simlab.contracts import SessionSetup
from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext, SessionKey
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.llm import SessionMeter
from simlab.simulators import UNHEARD_TEXT_CHARS, ScriptedSimulator, Unheard
from simlab.spec import Mode
from simlab.store import UNHEARD_META, SessionRecord, slim_record

from .sim_driver import make_goal, make_persona, play
from .test_llm_simulator import drive, faithful, new_sim, persona, served

PROCEED = "To confirm: a flight from Hanoi. Would you like me to proceed?"
"""A proposal in words the travel domain has no cue for (its confirm cues: "shall i"...)."""


def sim() -> ScriptedSimulator:
    return ScriptedSimulator(make_persona(verbosity=0.0), make_goal(), Mode.SHARDED, 3)


def test_a_question_no_cue_names_is_tallied_with_its_first_words() -> None:
    s = sim()
    play(s, ["Which date?", PROCEED, "Great. Anything else on your mind?", PROCEED], max_turns=5)
    assert s.unheard == Unheard(count=3, first_turn=2, first_text="Would you like me to proceed?")
    assert s.unheard.as_json() == {
        "count": 3,
        "first_turn": 2,
        "first_text": "Would you like me to proceed?",
    }


def test_cued_questions_and_statements_are_not_tallied() -> None:
    s = sim()
    # a slot's ask cue, a confirm cue, and replies that ask nothing
    play(s, ["Which date?", "Noted.", "Shall I book it?", ""], max_turns=5)
    assert s.unheard is None


def test_the_unheard_turn_is_answered_as_before() -> None:
    """Tallying changes no word: a question without a cue reads as a reply with no question."""
    asked = play(sim(), ["Which date?", PROCEED, PROCEED], max_turns=4)
    told = play(sim(), ["Which date?", "To confirm: a flight from Hanoi.", "OK."], max_turns=4)
    assert [t.model_dump() for t in asked] == [t.model_dump() for t in told]


def test_a_long_question_is_cut_and_a_reply_of_only_question_marks_kept_whole() -> None:
    s = sim()
    long = "Well. " + "Would you " * 40 + "like that?"
    play(s, [long], max_turns=2)
    assert s.unheard is not None
    assert s.unheard.first_text == ("Would you " * 40 + "like that?")[:UNHEARD_TEXT_CHARS] + "…"
    t = sim()
    play(t, ["??"], max_turns=2)
    assert t.unheard == Unheard(count=1, first_turn=1, first_text="??")


@pytest.mark.anyio
async def test_the_llm_user_counts_what_its_plan_did_not_understand() -> None:
    """The LLM voices the scripted plan's turn: a question the plan found no cue for
    went unanswered there too, whatever the LLM made of the words."""
    who, goal = persona(), make_goal()
    async with served(faithful) as (_, llm):
        sim = new_sim(llm, SessionMeter(), who, goal)
        await drive(sim, who, goal, [AgentReply(text=PROCEED), AgentReply(text="Which date?")])
    assert sim.unheard == Unheard(count=1, first_turn=1, first_text="Would you like me to proceed?")


# ------------------------------------------------------------------ the record


class _Proceeder:
    """Asks for the go-ahead in words the domain has no cue for, every turn."""

    capabilities = AgentCapabilities()

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        return AgentReply(text=PROCEED if ctx.turn > 1 else "Which date?")


def _record() -> SessionRecord:
    persona, goal = make_persona(verbosity=0.0, patience=4), make_goal()
    job = SessionJob(
        SessionKey(persona="tester", goal=goal.id, mode="sharded", rep=0),
        11,
        persona,
        goal,
        Mode.SHARDED,
    )

    def simulator(setup: SessionSetup) -> ScriptedSimulator:
        return ScriptedSimulator(setup.persona, setup.goal, setup.mode, setup.user_seed)

    return anyio.run(
        run_session,
        job,
        lambda setup: _Proceeder(),
        simulator,
        SessionLimits(max_turns=10, turn_timeout_s=5.0),
    )


def test_the_record_carries_the_tally_and_a_slim_record_keeps_it() -> None:
    record = _record()
    assert record.passed is False
    unheard = record.meta[UNHEARD_META]
    assert unheard["first_turn"] == 2
    assert unheard["first_text"] == "Would you like me to proceed?"
    # every agent reply but the first asked it; the user gave up before answering the last
    replies = [t for t in record.transcript.turns if t.agent is not None]
    assert unheard["count"] == len(replies) - 2
    assert unheard["count"] >= 1
    assert slim_record(record).meta[UNHEARD_META] == unheard
    again = SessionRecord.model_validate_json(record.model_dump_json())
    assert again.meta[UNHEARD_META] == unheard


def test_a_record_from_before_the_tally_reads_without_it() -> None:
    record = _record()
    line = record.model_dump(mode="json")
    del line["meta"][UNHEARD_META]
    old = SessionRecord.model_validate(line)
    assert UNHEARD_META not in old.meta
    assert UNHEARD_META not in slim_record(old).meta
