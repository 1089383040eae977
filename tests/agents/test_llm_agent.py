"""LLMAgent against the fake provider: tool rounds, fixtures, knobs, malformed JSON, metering."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from simlab.agents import LLMAgent, llm_target_factory, parse_reply
from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import Knobs, Message, SessionContext, SessionKey, ToolCall
from simlab.engine import SessionJob, SessionLimits, run_session
from simlab.llm import (
    LLM,
    LLMRequest,
    LLMResponse,
    LLMSpec,
    ProviderError,
    SessionMeter,
    create_llm,
    zero_retry_waits,
)
from simlab.simulators import ScriptedSimulator
from simlab.spec import AgentSpec, Mode, load_agent_spec, load_goals, load_personas
from simlab.store import StopReason
from simlab.testing import (
    FakeProvider,
    FakeProviderConfig,
    Responder,
    default_responder,
    rule_based,
    scripted,
)

ROOT = Path(__file__).resolve().parents[2]

SPEC = AgentSpec.model_validate(
    {
        "name": "desk",
        "system_prompt": "You are a travel desk.",
        "rules": ["State the booking reference and total price when you book."],
        "recap_keywords": ["business"],
        "tools": [
            {
                "name": "baggage_policy",
                "description": "Checked baggage for a fare.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "fare": {"type": "string", "enum": ["economy", "business"]},
                        "route": {"type": "string"},
                    },
                    "required": ["fare", "route"],
                },
                "fixtures": [
                    {
                        "when": {"fare": "business", "route": "international"},
                        "result": {"allowance_kg": 40, "bags": 2},
                    }
                ],
                "default": {"error": "no policy"},
            },
            {
                "name": "refund",
                "description": "Refund a booking.",
                "parameters": {
                    "type": "object",
                    "properties": {"booking_ref": {"type": "string"}},
                    "required": ["booking_ref"],
                },
                "fixtures": [{"when": {"booking_ref": "MB4T9R"}, "result": {"amount": 43}}],
            },
        ],
    }
)

BAGGAGE_CALL = '{"text": "Let me check.", "tool_calls": [{"name": "baggage_policy", "args": {"fare": "business", "route": "international"}}]}'  # noqa: E501
# The responder reads the last user message: a question asks for a tool, tool results get an answer.
RULES: list[tuple[str, str]] = [
    (r"^Tool results", '{"text": "Business allows 2 bags, 40 kg in total.", "tool_calls": []}'),
    (r"(?i)bags?", BAGGAGE_CALL),
    (
        r"(?i)refund",
        '{"text": "", "tool_calls": ['
        '{"name": "refund", "args": {"booking_ref": "MB4T9R"}}, '
        '{"name": "refund", "args": {"booking_ref": 7}}, '
        '{"name": "refund", "args": {}}, '
        '{"name": "teleport", "args": {"to": "moon"}}]}',
    ),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # aiohttp's fake server needs asyncio


@pytest.fixture(autouse=True)
def _no_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with zero_retry_waits():
        yield


@asynccontextmanager
async def served(responder: Responder, **spec: object) -> AsyncIterator[tuple[FakeProvider, LLM]]:
    fake = FakeProvider(FakeProviderConfig(), responder)
    async with fake.serve() as url:
        llm = create_llm(LLMSpec.model_validate({"backend": "openai", "base_url": url, **spec}))
        try:
            yield fake, llm
        finally:
            await llm.aclose()


def history(*texts: str) -> list[Message]:
    """Alternating user/assistant messages, starting and ending with the user."""
    return [
        Message(role="user" if i % 2 == 0 else "assistant", text=t) for i, t in enumerate(texts)
    ]


def ctx(turn: int, **knobs: object) -> SessionContext:
    return SessionContext("s/1", 11, turn, Knobs(**knobs))  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_tool_round_trip_against_the_fixtures() -> None:
    meter = SessionMeter()
    async with served(rule_based(RULES)) as (fake, llm):
        agent = LLMAgent(SPEC, llm, meter)
        reply = await agent.reply(history("How many bags can I check?"), ctx(1))
    assert reply.text == "Business allows 2 bags, 40 kg in total."
    assert reply.tool_calls == (
        ToolCall(
            name="baggage_policy",
            args={"fare": "business", "route": "international"},
            result={"allowance_kg": 40, "bags": 2},
        ),
    )
    assert reply.context is not None and reply.context.seen_user_turns == (1,)
    assert reply.meta == {"format_errors": 0, "tool_rounds": 1}
    first, second = fake.requests
    assert first.json_mode and first.seed == 11
    assert "baggage_policy" in first.system and "Rules you must follow" in first.system
    # the follow-up carries the model's call and the fixture's result
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert json.loads(second.messages[1].text)["tool_calls"][0]["name"] == "baggage_policy"
    results = json.loads(second.messages[2].text.split("\n", 1)[1])
    assert results == [
        {
            "name": "baggage_policy",
            "args": {"fare": "business", "route": "international"},
            "result": {"allowance_kg": 40, "bags": 2},
        }
    ]
    agent_meter = meter.roles["agent"]
    assert (agent_meter.calls, agent_meter.failures) == (2, 0)
    assert agent_meter.usage.input_tokens > 0 and agent_meter.usage.output_tokens > 0
    assert fake.stats().succeeded == 2


@pytest.mark.anyio
async def test_parallel_calls_are_all_kept_with_schema_and_name_errors() -> None:
    async with served(rule_based(RULES)) as (_, llm):
        reply = await LLMAgent(SPEC, llm).reply(history("I want a refund"), ctx(1))
    bad_type = "invalid arguments: booking_ref must be string, got integer"
    unknown = "unknown tool 'teleport'; tools: baggage_policy, refund"
    assert [(c.name, c.args, c.result, c.error) for c in reply.tool_calls] == [
        ("refund", {"booking_ref": "MB4T9R"}, {"amount": 43}, None),
        ("refund", {"booking_ref": 7}, None, bad_type),
        ("refund", {}, None, "invalid arguments: missing required booking_ref"),
        ("teleport", {"to": "moon"}, None, unknown),
    ]


THREE_TURNS = history(
    "Hi. I fly business from Hanoi to Bangkok on 2026-12-20.",
    "Noted.",
    "Thanks, that sounds lovely. We are 2 adults.",
    "Got it.",
    "What about bags?",
)


@pytest.mark.anyio
async def test_context_window_knob_sends_only_the_last_user_turn() -> None:
    async with served(rule_based(RULES)) as (fake, llm):
        reply = await LLMAgent(SPEC, llm).reply(THREE_TURNS, ctx(3, context_window=1))
    assert reply.context is not None and reply.context.seen_user_turns == (3,)
    first = fake.requests[0]
    assert [(m.role, m.text) for m in first.messages] == [("user", "What about bags?")]


@pytest.mark.anyio
async def test_spec_window_holds_unless_a_knob_overrides_it() -> None:
    windowed = SPEC.model_copy(update={"context_window": 2})
    async with served(scripted(['{"text": "ok"}'])) as (fake, llm):
        agent = LLMAgent(windowed, llm)
        kept = await agent.reply(THREE_TURNS, ctx(3))
        unlimited = await agent.reply(THREE_TURNS, ctx(3, context_window=0))
    assert kept.context is not None and kept.context.seen_user_turns == (
        2,
        3,
    )
    assert unlimited.context is not None and unlimited.context.seen_user_turns == (
        1,
        2,
        3,
    )
    assert [m.role for m in fake.requests[0].messages] == ["user", "assistant", "user"]
    assert len(fake.requests[1].messages) == 5


@pytest.mark.anyio
async def test_recap_and_reminder_sections_end_the_context() -> None:
    async with served(scripted(['{"text": "ok"}'])) as (fake, llm):
        agent = LLMAgent(SPEC, llm)
        await agent.reply(THREE_TURNS, ctx(3, context_window=1))
        await agent.reply(
            THREE_TURNS, ctx(3, context_window=1, constraint_recap=True, instruction_reminder=True)
        )
    plain, helped = (r.messages[-1].text for r in fake.requests)
    assert plain == "What about bags?"
    assert helped == (
        "What about bags?\n\n---\n"
        "What the user has told you so far (their own words, by turn):\n"
        # "Hi." and the small talk hold no number, name or keyword: left out
        "- turn 1: I fly business from Hanoi to Bangkok on 2026-12-20.\n"
        "- turn 2: We are 2 adults.\n\n---\n"
        "Reminder of the rules you must follow:\n"
        "- State the booking reference and total price when you book."
    )


@pytest.mark.anyio
async def test_past_tool_calls_are_replayed_as_a_round_with_their_results() -> None:
    past = [
        Message(role="user", text="bags?"),
        Message(
            role="assistant",
            text="2 bags.",
            tool_calls=[
                ToolCall(name="baggage_policy", args={"fare": "business"}, result={"bags": 2})
            ],
        ),
        Message(role="user", text="thanks"),
    ]
    async with served(scripted(['{"text": "bye"}'])) as (fake, llm):
        await LLMAgent(SPEC, llm).reply(past, ctx(2))
    call = '{"name":"baggage_policy","args":{"fare":"business"}'
    assert [(m.role, m.text) for m in fake.requests[0].messages] == [
        ("user", "bags?"),
        ("assistant", '{"text":"","tool_calls":[' + call + "}]}"),
        ("user", "Tool results (JSON):\n[" + call + ',"result":{"bags":2}}]'),
        ("assistant", '{"text":"2 bags.","tool_calls":[]}'),
        ("user", "thanks"),
    ]


@pytest.mark.anyio
async def test_malformed_json_is_retried_once_with_a_correction() -> None:
    meter = SessionMeter()
    responder = scripted(["Sure! Here you go", '```json\n{"text": "Fixed."}\n```'])
    async with served(responder) as (fake, llm):
        reply = await LLMAgent(SPEC, llm, meter).reply(history("hello"), ctx(1))
    assert (reply.text, reply.tool_calls, reply.meta["format_errors"]) == ("Fixed.", (), 1)
    retry = fake.requests[1]
    assert retry.messages[1].text == "Sure! Here you go"
    assert retry.messages[2].text.startswith("Your last answer could not be read (no JSON object)")
    assert meter.roles["agent"].calls == 2


@pytest.mark.anyio
async def test_malformed_twice_replies_with_the_raw_text() -> None:
    async with served(scripted(["nope", '{"text": 5}'])) as (fake, llm):
        reply = await LLMAgent(SPEC, llm).reply(history("hello"), ctx(1))
    assert (reply.text, reply.tool_calls, reply.meta["format_errors"]) == ('{"text": 5}', (), 2)
    assert len(fake.requests) == 2


@pytest.mark.anyio
async def test_tool_rounds_are_bounded_and_refused_calls_recorded() -> None:
    bounded = SPEC.model_copy(update={"max_tool_rounds": 2})
    async with served(scripted([BAGGAGE_CALL])) as (fake, llm):
        reply = await LLMAgent(bounded, llm).reply(history("bags?"), ctx(1))
    assert len(fake.requests) == 3  # two rounds executed, then the model must answer
    assert [c.error for c in reply.tool_calls] == [
        None,
        None,
        "not executed: at most 2 tool rounds per turn",
    ]
    assert reply.text == "Let me check."
    assert reply.meta["tool_rounds"] == 2


@pytest.mark.anyio
async def test_a_provider_failure_is_metered_and_raised() -> None:
    meter = SessionMeter()
    fake = FakeProvider(FakeProviderConfig(fault_sequence=("server_error",)), scripted(["x"]))
    async with fake.serve() as url:
        llm = create_llm(LLMSpec(backend="openai", base_url=url, max_attempts=1))
        try:
            with pytest.raises(ProviderError):
                await LLMAgent(SPEC, llm, meter).reply(history("hi"), ctx(1))
        finally:
            await llm.aclose()
    assert (meter.roles["agent"].calls, meter.roles["agent"].failures) == (1, 1)


@pytest.mark.anyio
async def test_the_fake_providers_default_responder_gets_a_readable_answer() -> None:
    # It echoes the system prompt's first JSON object: the reply format's example.
    async with served(default_responder) as (_, llm):
        reply = await LLMAgent(SPEC, llm).reply(history("hello"), ctx(1))
    assert (reply.text, reply.tool_calls) == ("your message to the user", ())
    assert reply.meta["format_errors"] == 0


def test_parse_reply_problems() -> None:
    assert parse_reply("[1]") == "no JSON object"
    assert parse_reply('{"text": "a", "tool_calls": {}}') == "`tool_calls` must be a list"
    assert parse_reply('{"tool_calls": [{"args": {}}]}') == "tool_calls[0] needs a string `name`"
    parsed = parse_reply(
        'Here: {"text": "a", "tool_calls": [{"name": "t", "arguments": {"x": 1}}]}'
    )
    assert not isinstance(parsed, str)
    assert (parsed.text, parsed.calls) == ("a", [("t", {"x": 1})])


def _booking_responder() -> Responder:
    # Answers the scripted user's baggage question with the shipped agent's tool.
    return rule_based(
        [
            (
                r"^Tool results",
                '{"text": "Business class on an international flight includes 2 checked bags, '
                '40 kg in total.", "tool_calls": []}',
            ),
            (
                r"(?i)business|thương gia|thuong gia",
                '{"text": "", "tool_calls": [{"name": "baggage_policy", "args": '
                '{"fare": "business", "route": "international"}}]}',
            ),
        ],
        default=scripted(['{"text": "Which fare and route are you flying?", "tool_calls": []}']),
    )


@pytest.mark.anyio
async def test_a_whole_session_with_the_shipped_agent_reaches_the_goal() -> None:
    spec = load_agent_spec(ROOT / "domains" / "travel" / "agents" / "booking_llm.yaml")
    goal = load_goals([ROOT / "goals"])["baggage_allowance"]
    persona = next(iter(load_personas([ROOT / "personas"]).values()))
    key = SessionKey(persona=persona.id, goal=goal.id, mode="full", rep=0)
    job = SessionJob(key, 5, persona, goal, Mode.FULL)
    async with served(_booking_responder()) as (fake, llm):
        make_target = llm_target_factory(spec, llm)
        record = await run_session(
            job,
            make_target,
            lambda s: ScriptedSimulator(s.persona, s.goal, s.mode, s.user_seed),
            SessionLimits(max_turns=6, turn_timeout_s=10),
        )
    assert record.status == "ok", record.error
    assert record.stop_reason is StopReason.GOAL_REACHED
    calls = [c for _, c in record.transcript.tool_calls()]
    assert [(c.name, c.result) for c in calls] == [
        (
            "baggage_policy",
            {"fare": "business", "route": "international", "allowance_kg": 40, "bags": 2},
        )
    ]
    assert record.usage.calls == len(fake.requests) == record.meta["llm"]["agent"]["calls"]


def test_factory_gives_each_session_its_own_agent_and_meter() -> None:
    class _Never(LLM):
        async def complete(self, req: LLMRequest) -> LLMResponse:
            raise AssertionError("no call expected")

    make = llm_target_factory(SPEC, _Never())
    agents: Sequence[TargetAgent] = [make(_setup()), make(_setup())]
    assert all(isinstance(a, LLMAgent) for a in agents) and agents[0] is not agents[1]
    caps = agents[0].capabilities
    assert caps.context_window and caps.constraint_recap and caps.instruction_reminder


def _setup() -> SessionSetup:
    goal = load_goals([ROOT / "goals"])["refund"]
    persona = next(iter(load_personas([ROOT / "personas"]).values()))
    key = SessionKey(persona=persona.id, goal=goal.id, mode="full", rep=0)
    return SessionSetup(key, persona, goal, Mode.FULL, 1, 2)
