"""AgentSpec: the shipped booking agent validates; fixtures, schemas and load errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.spec import AgentSpec, SpecError, ToolSpec, load_agent_spec, validate_args

ROOT = Path(__file__).resolve().parents[2]
BOOKING = ROOT / "domains" / "travel" / "agents" / "booking_llm.yaml"

BAGGAGE = ToolSpec.model_validate(
    {
        "name": "baggage_policy",
        "description": "Checked baggage.",
        "parameters": {
            "type": "object",
            "properties": {
                "fare": {"type": "string", "enum": ["economy", "business"]},
                "route": {"type": "string"},
                "bags": {"type": "integer"},
            },
            "required": ["fare"],
            "additionalProperties": False,
        },
        "fixtures": [
            {"when": {"fare": "business", "route": "international"}, "result": {"kg": 40}},
            {"when": {"fare": "business"}, "result": {"kg": 30}},
            {"when": {"fare": "economy", "route": "mars"}, "error": "no flights to mars"},
        ],
        "default": {"result": {"kg": 20}},
    }
)


def test_shipped_booking_agent_validates_and_matches_the_goals_world() -> None:
    spec = load_agent_spec(BOOKING)
    names = [t.name for t in spec.tools]
    assert names == [
        "search_flights",
        "search_hotels",
        "baggage_policy",
        "get_booking",
        "hold_booking",
        "change_booking",
        "refund",
    ]
    assert spec.rules and spec.system_prompt and spec.model is None
    hold = spec.tool("hold_booking")
    assert hold is not None
    # one_way goal: VJ1078 (10:15, 76 USD a seat) for two adults
    call = hold.call({"flight_id": "VJ1078", "passengers": 2})
    assert call.error is None
    assert (call.result["dep_time"], call.result["total_price"]) == ("10:15", 152)
    # family_child goal: VN1163 for two adults (80) and a child (60)
    call = hold.call({"flight_id": "VN1163", "passengers": 2, "children": 1})
    assert (call.result["children"], call.result["total_price"]) == (1, 220)
    # round_trip_hotel after the mind change: VJ1334 + VJ2347 + 4 nights at 70
    call = hold.call(
        {"flight_id": "VJ1334", "passengers": 2, "return_flight_id": "VJ2347", "hotel_nights": 4}
    )
    assert call.result["total_price"] == 2 * 63 + 2 * 55 + 4 * 70 == 516
    refund = spec.tool("refund")
    assert refund is not None
    # MB4T9R paid 63 for one adult; the refund fee is 20 a passenger
    assert refund.call({"booking_ref": "MB4T9R"}).result["amount"] == 43
    bags = spec.tool("baggage_policy")
    assert bags is not None
    result = bags.call({"fare": "business", "route": "international"}).result
    assert (result["allowance_kg"], result["bags"]) == (40, 2)


def test_first_matching_fixture_wins_and_strings_ignore_case() -> None:
    assert BAGGAGE.call({"fare": "business", "route": " International"}).result == {"kg": 40}
    assert BAGGAGE.call({"fare": "business", "route": "domestic"}).result == {"kg": 30}
    assert BAGGAGE.call({"fare": "economy"}).result == {"kg": 20}  # the default
    failed = BAGGAGE.call({"fare": "economy", "route": "mars"})
    assert (failed.result, failed.error) == (None, "no flights to mars")


def test_no_fixture_and_no_default_is_an_error_naming_the_tool() -> None:
    tool = BAGGAGE.model_copy(update={"default": None})
    call = tool.call({"fare": "economy"})
    assert call.error == "baggage_policy: nothing found for these arguments"


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({}, "missing required fare"),
        ({"fare": "first"}, "fare must be one of ['economy', 'business'], got 'first'"),
        ({"fare": "economy", "bags": "2"}, "bags must be integer, got string"),
        ({"fare": "economy", "bags": True}, "bags must be integer, got boolean"),
        ({"fare": "economy", "seat": "1A"}, "unknown argument seat"),
    ],
)
def test_invalid_arguments_become_tool_call_errors(args: dict[str, object], problem: str) -> None:
    call = BAGGAGE.call(args)
    assert call.result is None
    assert call.error == f"invalid arguments: {problem}"


def test_validate_args_nested_and_lists() -> None:
    schema = {
        "type": "object",
        "properties": {"legs": {"type": "array", "items": {"type": "number"}}},
    }
    assert validate_args(schema, {"legs": [1, 2.5]}) == []
    assert validate_args(schema, {"legs": [1, "x"]}) == ["legs[1] must be number, got string"]
    assert validate_args(schema, {"legs": 3}) == ["legs must be array, got integer"]
    # 2.0 is an integer in JSON
    assert validate_args({"type": "integer"}, 2.0) == []


def test_fixture_naming_an_unknown_parameter_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"fixtures.0.when: names \['colour'\]"):
        ToolSpec.model_validate(
            {
                "name": "t",
                "description": "d",
                "parameters": {"type": "object", "properties": {"size": {"type": "string"}}},
                "fixtures": [{"when": {"colour": "red"}, "result": 1}],
            }
        )


def test_misspelt_field_gets_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text(
        "name: a\n"
        "system_prompt: hi\n"
        "tools:\n"
        "  - name: t\n"
        "    descriptoin: oops\n"
        "    fixtures:\n"
        "      - when: {}\n"
        "        reslt: 1\n",
        encoding="utf-8",
    )
    with pytest.raises(SpecError) as info:
        load_agent_spec(path)
    text = str(info.value)
    assert f"{path}:5: tools.0.descriptoin: unknown field (did you mean 'description'?)" in text
    assert f"{path}:4: tools.0.description: missing required field" in text
    assert f"{path}:8: tools.0.fixtures.0.reslt: unknown field (did you mean 'result'?)" in text


def test_prompt_file_is_read_relative_to_the_agent_file(tmp_path: Path) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "p.md").write_text("Be brief.", encoding="utf-8")
    path = tmp_path / "agent.yaml"
    path.write_text("name: a\nsystem_prompt_file: prompts/p.md\n", encoding="utf-8")
    assert load_agent_spec(path).system_prompt == "Be brief."
    path.write_text("name: a\nrules: []\nsystem_prompt_file: prompts/nope.md\n", encoding="utf-8")
    with pytest.raises(SpecError, match=r"agent.yaml:3: system_prompt_file: cannot read"):
        load_agent_spec(path)


def test_exactly_one_prompt_and_unique_tool_names() -> None:
    with pytest.raises(ValueError, match="exactly one of `system_prompt`"):
        AgentSpec.model_validate({"name": "a"})
    tool = {"name": "t", "description": "d"}
    with pytest.raises(ValueError, match=r"repeated: \['t'\]"):
        AgentSpec.model_validate({"name": "a", "system_prompt": "p", "tools": [tool, tool]})
