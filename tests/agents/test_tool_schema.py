"""Tool argument schemas: checked when the agent file loads, enforced on every call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simlab.agents import LLMAgent
from simlab.cli import main
from simlab.core import Knobs, Message, SessionContext
from simlab.llm import LLMSpec, SessionMeter, create_llm
from simlab.spec import SpecError, load_agent_spec
from simlab.testing import FakeProvider, FakeProviderConfig, scripted

ROOT = Path(__file__).resolve().parents[2]

AGENT = """\
name: desk
system_prompt: You book seats.
tools:
  - name: book
    description: Book seats on a flight.
    parameters:
      type: object
      $defs:
        fare: {type: string, enum: [economy, business]}
      properties:
        seats: {type: integer, minimum: 1, maximum: 9}
        flight: {type: string, pattern: "^[A-Z]{2}[0-9]{3,4}$"}
        date: {type: string, format: date}
        fare: {$ref: "#/$defs/fare"}
        contact:
          oneOf:
            - {type: string, format: email}
            - {type: object, required: [phone], properties: {phone: {type: string}}}
      required: [seats, flight]
      additionalProperties: false
    default: {result: {reference: BK1}}
"""


@pytest.fixture
def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    return path


GOOD = {"seats": 2, "flight": "VJ1078", "date": "2026-06-01", "fare": "business"}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"seats": 0}, "seats: 0 is less than the minimum of 1"),
        ({"seats": 12}, "seats: 12 is greater than the maximum of 9"),
        ({"flight": "vj1078"}, "flight: 'vj1078' does not match '^[A-Z]{2}[0-9]{3,4}$'"),
        ({"date": "2026-13-40"}, "date: '2026-13-40' is not a 'date'"),
        ({"fare": "first"}, "fare must be one of ['economy', 'business'], got 'first'"),
        ({"contact": "nobody"}, "contact: 'nobody' is not valid under any of the given schemas"),
        ({"contact": {"email": "a@b.c"}}, "contact: {'email': 'a@b.c'} is not valid under any"),
        ({"seats": "2"}, "seats must be integer, got string"),
        ({"seat": 1}, "unknown argument seat"),
    ],
)
def test_every_keyword_is_enforced_on_a_call(
    agent_file: Path, change: dict[str, object], problem: str
) -> None:
    tool = load_agent_spec(agent_file).tool("book")
    assert tool is not None
    call = tool.call({**GOOD, **change})
    assert call.result is None and call.error is not None
    assert call.error.startswith("invalid arguments: ")
    assert problem in call.error


def test_conforming_arguments_reach_the_fixtures(agent_file: Path) -> None:
    tool = load_agent_spec(agent_file).tool("book")
    assert tool is not None
    for args in (GOOD, {**GOOD, "contact": "a@b.example"}, {**GOOD, "contact": {"phone": "1"}}):
        call = tool.call(args)
        assert (call.error, call.result) == (None, {"reference": "BK1"}), args
    assert tool.call({"flight": "VJ1078"}).error == "invalid arguments: missing required seats"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # aiohttp's fake server needs asyncio


@pytest.mark.anyio
async def test_an_llm_agents_call_with_bad_arguments_is_recorded_as_an_error(
    agent_file: Path,
) -> None:
    bad = {"seats": 0, "flight": "VJ1078"}
    turns = [
        json.dumps({"text": "", "tool_calls": [{"name": "book", "args": bad}]}),
        json.dumps({"text": "That seat count is not possible.", "tool_calls": []}),
    ]
    fake = FakeProvider(FakeProviderConfig(), scripted(turns))
    async with fake.serve() as url:
        llm = create_llm(LLMSpec.model_validate({"backend": "openai", "base_url": url}))
        try:
            agent = LLMAgent(load_agent_spec(agent_file), llm, SessionMeter())
            reply = await agent.reply(
                [Message(role="user", text="Book 0 seats")], SessionContext("s/1", 1, 1, Knobs())
            )
        finally:
            await llm.aclose()
    (call,) = reply.tool_calls
    assert call.result is None
    assert call.error == "invalid arguments: seats: 0 is less than the minimum of 1"


BAD_SCHEMAS = [  # each replaces the `seats` property
    ("{type: integer, minimum: one}", "properties.seats.minimum: 'one' is not of type 'number'"),
    ('{type: string, pattern: "("}', "properties.seats.pattern: '(' is not a 'regex'"),
    ("{type: strnig}", "properties.seats.type: 'strnig' is not one of ['array', 'boolean'"),
    ('{$ref: "#/$defs/nope"}', "properties.seats.$ref: '#/$defs/nope' points to nothing"),
    ("{$ref: 'https://x.example/s.json'}", "properties.seats.$ref: 'https://x.example/s.json' is"),
    ("{type: string, format: date-time}", "seats.format: 'date-time' cannot be checked here"),
    ("{oneOf: {type: string}}", "properties.seats.oneOf: {'type': 'string'} is not of type"),
]


@pytest.mark.parametrize(("line", "problem"), BAD_SCHEMAS)
def test_a_bad_schema_is_a_spec_problem_with_file_and_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT.replace("{type: integer, minimum: 1, maximum: 9}", line))
    with pytest.raises(SpecError) as caught:
        load_agent_spec(path)
    text = str(caught.value)
    assert f"{path}:6: tools.0.parameters: " in text and problem in text


def test_validate_and_run_exit_2_on_a_bad_schema_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT.replace("minimum: 1", "minimum: one"), encoding="utf-8")
    assert main(["validate", str(agent), "--kind", "agent"]) == 2
    err = capsys.readouterr().err
    assert f"{agent}:6: tools.0.parameters: " in err and "minimum: 'one'" in err
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "personas: [terse_en]\ngoals: [refund]\nreps: 1\nllm: {backend: replay}\n"
        "target: {kind: llm, agent: agent.yaml}\n"
        f"persona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}]\n",
        encoding="utf-8",
    )
    assert main(["run", str(suite), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{agent}:6: tools.0.parameters: " in err and "Traceback" not in err
