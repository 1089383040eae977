"""Parsing into FakeRequest and the responders, without a server."""

import hashlib
import json
import re

import pytest

from simlab.testing import (
    FakeReply,
    FakeRequest,
    count_tokens,
    default_responder,
    echo,
    rule_based,
    scripted,
)
from simlab.testing._reply import chosen
from simlab.testing._request import RequestError, parse_anthropic, parse_openai


def _anthropic(user: str, system: str | list[dict[str, object]] = "", **extra: object):
    body = {"model": "m", "max_tokens": 50, "system": system}
    body["messages"] = [{"role": "user", "content": user}]
    return parse_anthropic(body | extra, 0)


def test_count_tokens_rounds_up_quarter_length() -> None:
    assert [count_tokens(s) for s in ("", "a", "abcd", "abcde")] == [0, 1, 1, 2]


def test_anthropic_parse_flattens_system_blocks_and_marks_breakpoints() -> None:
    system = [
        {"type": "text", "text": "rules"},
        {"type": "text", "text": "more rules", "cache_control": {"type": "ephemeral"}},
    ]
    body = {
        "model": "m",
        "max_tokens": 9,
        "system": system,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
            {"role": "user", "content": "book it"},
        ],
        "stop_sequences": ["END"],
        "metadata": {"user_id": "u1"},
    }
    req = parse_anthropic(body, 3)
    assert req.system == "rules\n\nmore rules"
    assert [m.role for m in req.messages] == ["user", "assistant", "user"]
    assert req.last_user_text == "book it"
    assert [s.breakpoint for s in req.segments] == [False, True, False, False, False]
    # 5 + 10 + 2 + 5 + 7 characters -> 2 + 3 + 1 + 2 + 2 tokens
    assert req.input_tokens == 10
    assert req.stop == ("END",) and req.max_tokens == 9 and req.index == 3


def test_digest_is_the_sha256_of_the_canonical_body_and_seeds_the_rng() -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hé"}]}
    canonical = '{"max_tokens":5,"messages":[{"content":"hé","role":"user"}],"model":"m"}'
    expected = hashlib.sha256(canonical.encode()).hexdigest()
    req = parse_anthropic(body, 0)
    assert req.digest == expected and req.rng_seed == int(expected[:16], 16)
    assert parse_openai(body, 0).digest == expected


def test_segments_of_a_resent_conversation_are_the_same() -> None:
    def body(*turns: str) -> dict[str, object]:
        messages = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": t}
            for i, t in enumerate(turns)
        ]
        return {"model": "m", "max_tokens": 5, "system": "s", "messages": messages}

    first = parse_anthropic(body("hi", "hello"), 0)
    again = parse_anthropic(body("hi", "hello", "book it"), 1)
    assert again.segments[: len(first.segments)] == first.segments
    assert [s.canonical for s in again.segments] == [
        "system\x1fs",
        "user\x1fhi",
        "assistant\x1fhello",
        "user\x1fbook it",
    ]
    assert [s.tokens for s in again.segments] == [1, 1, 2, 2]
    # the same text as a breakpoint is another segment
    marked = {"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}
    assert parse_anthropic(body("hi") | {"system": [marked]}, 2).segments[0].breakpoint


@pytest.mark.parametrize(
    "body",
    [
        {"max_tokens": 5, "messages": []},
        {"model": "m", "messages": []},
        {"model": "m", "max_tokens": 5},
        {"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]},
        {"model": "m", "max_tokens": 5, "messages": [], "tool_choice": {"type": "any"}},
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [],
            "tools": [{"name": "a", "input_schema": {}}],
            "tool_choice": {"type": "tool", "name": "b"},
        },
    ],
)
def test_anthropic_parse_rejects_what_the_api_rejects(body: dict[str, object]) -> None:
    with pytest.raises(RequestError):
        parse_anthropic(body, 0)


def test_openai_parse_system_seed_stop_and_schema() -> None:
    schema = {"type": "object", "properties": {"verdict": {"enum": ["pass", "fail"]}}}
    body = {
        "model": "gpt",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        ],
        "seed": 11,
        "stop": "##",
        "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
    }
    req = parse_openai(body, 0)
    assert req.system == "be brief" and req.last_user_text == "hi"
    assert req.seed == 11 and req.rng_seed == 11 and req.stop == ("##",)
    assert req.json_mode and req.json_schema == schema
    assert all(s.breakpoint for s in req.segments)
    assert default_responder(req) == '{"verdict": "pass"}'


def test_scripted_cycles_in_order() -> None:
    reply = scripted(["a", "b"])
    req = _anthropic("x")
    assert [reply(req) for _ in range(5)] == ["a", "b", "a", "b", "a"]
    with pytest.raises(ValueError):
        scripted([])


def test_rule_based_first_match_wins_with_groups_and_default() -> None:
    reply = rule_based(
        [
            (r"(?i)to (?P<city>[A-Z][a-z]+)", r"Flights to \g<city>?"),
            (r"Paris", "never reached for 'to Paris'"),
            (re.compile(r"(\d+) bags"), r"\1 bags allowed"),
        ],
        default=echo,
    )
    assert reply(_anthropic("I fly to Paris")) == "Flights to Paris?"
    assert reply(_anthropic("2 bags please")) == "2 bags allowed"
    assert reply(_anthropic("nothing matches")) == "nothing matches"
    assert rule_based({"hi": "hello"})(_anthropic("oh hi")) == "hello"


def test_default_responder_plain_is_deterministic_per_request() -> None:
    a, b = _anthropic("hello"), _anthropic("hello")
    assert default_responder(a) == default_responder(b)
    assert not default_responder(a).startswith("{")
    replies = {default_responder(_anthropic(f"msg {i}")) for i in range(30)}
    assert len(replies) > 1  # the seed comes from the body, so bodies vary the sentence


def test_default_responder_json_returns_the_prompt_example() -> None:
    system = 'Reply in JSON: {"response": "<text>", "disclosed": ["fact_id"]} and nothing else.'
    assert json.loads(default_responder(_anthropic("hi", system))) == {
        "response": "<text>",
        "disclosed": ["fact_id"],
    }
    bare = json.loads(default_responder(_anthropic("hi", "Answer in JSON only.")))
    assert list(bare) == ["response"] and isinstance(bare["response"], str)


def _with_tools(choice: object, tools: tuple[str, ...] = ("a", "b")) -> FakeRequest:
    body: dict[str, object] = {
        "model": "m",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "x"}],
        "tools": [
            {
                "name": n,
                "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
            }
            for n in tools
        ],
    }
    if choice is not None:
        body["tool_choice"] = choice
    if not tools:
        del body["tools"]
    return parse_anthropic(body, 0)


CALL_B = FakeReply.calling(("b", {"n": 2}), text="Checking.")


@pytest.mark.parametrize(
    ("choice", "reply", "expected"),
    [
        (None, CALL_B, CALL_B),  # auto: as the responder says
        (None, "hi", FakeReply("hi")),
        ({"type": "none"}, CALL_B, FakeReply("Checking.")),
        ({"type": "any"}, CALL_B, FakeReply("", CALL_B.tool_calls)),  # forced: calls only
        ({"type": "any"}, "hi", FakeReply.calling(("a", {"n": 0}))),  # the first tool
        ({"type": "tool", "name": "a"}, CALL_B, FakeReply.calling(("a", {"n": 0}))),
        ({"type": "tool", "name": "b"}, CALL_B, FakeReply("", CALL_B.tool_calls)),
    ],
)
def test_tool_choice_bends_the_reply(
    choice: object, reply: str | FakeReply, expected: FakeReply
) -> None:
    assert chosen(_with_tools(choice), reply) == expected


def test_calls_without_tools_are_dropped() -> None:
    assert chosen(_with_tools(None, tools=()), CALL_B) == FakeReply("Checking.")


def test_one_call_only_when_parallel_calls_are_disabled() -> None:
    two = FakeReply.calling(("a", {"n": 1}), ("b", {"n": 2}))
    single = _with_tools({"type": "auto", "disable_parallel_tool_use": True})
    assert chosen(single, two) == FakeReply.calling(("a", {"n": 1}))
    assert chosen(_with_tools({"type": "any"}), two) == two
    body = {
        "model": "g",
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"type": "function", "function": {"name": n}} for n in ("a", "b")],
        "parallel_tool_calls": False,
        "tool_choice": "required",
    }
    assert chosen(parse_openai(body, 0), two) == FakeReply.calling(("a", {"n": 1}))
    assert chosen(parse_openai(body | {"parallel_tool_calls": True}, 0), two) == two
