"""Agent states, the transition into the first failure, and the matrix."""

from simlab.core import AgentReply
from simlab.diagnose import START, agent_state, build_heatmap, first_failure, transition
from tests.diagnose._build import EARLY, GOAL, GOOD, T, booking, search, session


def test_agent_states() -> None:
    final = GOAL.final_tool
    assert agent_state(AgentReply(text="Where to?"), final) == "ask"
    assert agent_state(AgentReply(text="Noted."), final) == "reply"
    assert agent_state(AgentReply(text="Book it?", tool_calls=[search()]), final) == "propose"
    assert agent_state(AgentReply(text="Here.", tool_calls=[search()]), final) == "search_flights"
    done = AgentReply(text="Done?", tool_calls=[search(), booking(GOOD)])
    assert agent_state(done, final) == "hold_booking"


def test_transition_into_the_first_failure_only() -> None:
    # First failure: the booking in turn 3 (after a proposal); the rebooking in
    # turn 4 fails too but is not a first failure.
    rec = session(
        [
            T({"origin": "HAN", "passengers": 2, "latest_departure": "12:00"}, reply="Where?"),
            T(reply="Book it?", calls=[search()]),
            T(reply="Done", calls=[booking(EARLY)]),
            T(reply="Done", calls=[booking(EARLY)]),
        ]
    )
    f = first_failure(GOAL, rec)
    assert f is not None and f.turn == 3
    assert transition(rec.transcript, f.turn, GOAL.final_tool) == ("propose", "hold_booking")
    assert transition(rec.transcript, 1, GOAL.final_tool) == (START, "ask")


def test_matrix_counts_one_per_session() -> None:
    heat = build_heatmap(
        [("propose", "hold_booking"), ("propose", "hold_booking"), (START, "ask"), ("ask", "ask")]
    )
    assert heat.from_states == [START, "propose", "ask"]
    assert heat.in_states == ["ask", "hold_booking"]  # by column total, then name
    assert heat.counts == [[1, 0], [0, 2], [1, 0]]
    assert heat.n == 4
