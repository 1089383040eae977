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
from simlab.simulators import (
    UNHEARD_TEXT_CHARS,
    ReplyReading,
    ScriptedSimulator,
    Unheard,
    read_reply,
)
from simlab.spec import Domain, Language, Mode, shipped_domain
from simlab.store import UNHEARD_META, SessionRecord, slim_record

from .sim_driver import make_goal, make_persona, play
from .test_llm_simulator import drive, faithful, new_sim, persona, served

PROCEED = "To confirm: a flight from Hanoi. Would you like me to proceed?"
"""A proposal in words the travel domain has no cue for (its confirm cues: "shall i"...)."""


def sim() -> ScriptedSimulator:
    return ScriptedSimulator(make_persona(verbosity=0.0), make_goal(), Mode.SHARDED, 3)


def test_a_question_no_cue_names_is_tallied_with_its_first_words() -> None:
    s = sim()
    play(s, ["Which date?", PROCEED, "Great. Is it a business trip?", PROCEED], max_turns=5)
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


# ------------------------------------------------------------------ open questions

OPEN = ["Which date?", "Done. Is there anything else I can do?", "How can I help you today?"]
"""The reference agent's open questions (travel's ``open_cues``: "how can i help",
"anything else"): nothing in them for the user to answer."""


def without_open_cues(domain: Domain) -> Domain:
    """``domain`` as it was before it declared its open questions."""
    languages = {k: v.model_copy(update={"open_cues": []}) for k, v in domain.languages.items()}
    return domain.model_copy(update={"languages": languages})


def sim_in(domain: Domain, language: Language = "en") -> ScriptedSimulator:
    persona = make_persona(language, verbosity=0.0)
    return ScriptedSimulator(persona, make_goal(), Mode.SHARDED, 3, domain=domain)


def test_the_shipped_domains_declare_the_reference_agents_open_questions() -> None:
    for name in ("travel", "bank"):
        domain = shipped_domain(name)
        vi = ["Xong. Bạn cần gì thêm không?", "Xin chào! Tôi có thể giúp gì cho bạn?"]
        for text in (*OPEN[1:], *vi):
            assert read_reply(text, domain) == ReplyReading(open=True), (name, text)
        assert read_reply("xong. ban can gi them khong?", domain).open  # without diacritics


def test_an_open_question_is_not_tallied_and_answered_as_without_its_cue() -> None:
    travel = shipped_domain("travel")
    declared, bare = sim_in(travel), sim_in(without_open_cues(travel))
    heard = play(declared, OPEN, max_turns=4)
    fallen_back = play(bare, OPEN, max_turns=4)
    assert [t.model_dump() for t in heard] == [t.model_dump() for t in fallen_back]
    assert declared.unheard is None
    assert bare.unheard == Unheard(count=2, first_turn=2, first_text=OPEN[1].split(". ")[1])


def test_an_open_question_in_vietnamese_is_not_tallied() -> None:
    s = sim_in(shipped_domain("travel"), "vi")
    play(s, ["Bạn đi ngày nào?", "Xong. Bạn cần gì thêm không?", "Tôi có thể giúp gì cho bạn?"], 4)
    assert s.unheard is None


def test_a_question_beside_an_open_one_is_still_tallied() -> None:
    """A reply is understood as open only when every question it asks is an open one."""
    mixed = "Would you like me to proceed? Is there anything else I can do?"
    travel = shipped_domain("travel")
    assert read_reply(mixed, travel) == ReplyReading()
    assert read_reply("??", travel) == ReplyReading()  # asks nothing an open cue could name
    s = sim_in(shipped_domain("travel"))
    play(s, ["Which date?", mixed], max_turns=3)
    assert s.unheard == Unheard(count=1, first_turn=2, first_text=mixed)


def test_cued_questions_take_precedence_over_open_ones() -> None:
    travel = shipped_domain("travel")
    reading = read_reply("Which date? Anything else?", travel)
    assert reading.slots == ("date",) and not reading.open
    assert read_reply("Anything else? Shall I book it?", travel) == ReplyReading(confirm=True)


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
