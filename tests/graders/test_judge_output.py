"""Reading judge replies (a table of good and bad outputs), clipping, and the rendered case."""

from __future__ import annotations

import pytest

from simlab.core import AgentReply, ToolCall, Transcript, Turn, UserTurn
from simlab.graders import JudgeOutputError, JudgeVerdict, parse_judge_output
from simlab.graders._judge import clip_reasoning
from simlab.graders._judge_case import statements, transcript_text

GOOD = [
    ('{"reasoning": "ok", "first_failing_turn": null, "verdict": "pass"}', ("ok", None, "pass")),
    ('{"reasoning": "bad", "first_failing_turn": 2, "verdict": "fail"}', ("bad", 2, "fail")),
    # Fences and prose around the object, upper-case verdict, missing turn, extra keys.
    ('```json\n{"reasoning": "ok", "verdict": "PASS"}\n```', ("ok", None, "pass")),
    ('Here: {"reasoning": " x ", "verdict": "fail", "score": 3} done', ("x", None, "fail")),
]

BAD = [
    ("", "the reply was empty"),
    ("pass", "the reply held no JSON object"),
    ("[1, 2]", "the reply held no JSON object"),
    ('{"verdict": "pass"}', '"reasoning" must be a non-empty string'),
    ('{"reasoning": "  ", "verdict": "pass"}', '"reasoning" must be a non-empty string'),
    ('{"reasoning": "r", "verdict": true}', '"verdict" must be "pass" or "fail", got true'),
    ('{"reasoning": "r", "verdict": "fail", "first_failing_turn": "2"}', "integer or null"),
    ('{"reasoning": "r", "verdict": "fail", "first_failing_turn": true}', "integer or null"),
    ('{"reasoning": "r", "verdict": "fail", "first_failing_turn": 0}', "(1..4)"),
    ('{"reasoning": "r", "verdict": "pass", "first_failing_turn": 2}', "has no failing turn"),
]


@pytest.mark.parametrize(("text", "want"), GOOD)
def test_good_outputs(text: str, want: tuple[str, int | None, str]) -> None:
    assert parse_judge_output(text, n_turns=4) == JudgeVerdict(*want)  # type: ignore[arg-type]


def test_first_object_is_the_one_read() -> None:
    # A leading object without the schema's keys is not skipped in favour of a later one.
    with pytest.raises(JudgeOutputError, match="reasoning"):
        parse_judge_output('{"a": [1]} {"reasoning": "y", "verdict": "fail"}', n_turns=4)


@pytest.mark.parametrize(("text", "problem"), BAD)
def test_bad_outputs(text: str, problem: str) -> None:
    with pytest.raises(JudgeOutputError) as info:
        parse_judge_output(text, n_turns=4)
    assert problem in str(info.value)


def test_check_from_verdict_clips_reasoning() -> None:
    long = "word " * 200
    check = JudgeVerdict(long, 3, "fail").check()
    assert (check.passed, check.turn) == (False, 3)
    assert len(check.detail) <= 600 and check.detail.endswith("word…")
    assert clip_reasoning("a\n b   c") == "a b c"
    assert clip_reasoning("x" * 700, limit=10) == "x" * 9 + "…"


def test_statements_and_transcript_text() -> None:
    transcript = Transcript(
        turns=[
            Turn(
                index=1,
                user=UserTurn(text="to HAN\non the 5th", disclosed={"dest": "HAN", "day": 5}),
                agent=AgentReply(
                    text="Searching.",
                    tool_calls=[
                        ToolCall(name="search", args={"d": "HAN"}, result=["r" * 700]),
                        ToolCall(name="hold", args={}, error="sold out"),
                    ],
                ),
            ),
            Turn(index=2, user=UserTurn(text="the 6th", disclosed={"day": 6})),
        ]
    )
    assert statements(transcript) == {"dest": [(1, "HAN")], "day": [(1, 5), (2, 6)]}
    lines = transcript_text(transcript, final_tool="hold").splitlines()
    assert lines[0] == "[T1] USER: to HAN on the 5th"
    assert lines[1].startswith('[T1] TOOL search {"d":"HAN"} -> ["rrr')
    assert lines[1].endswith("... [104 more characters]")  # 704 chars of JSON, 600 kept
    assert lines[2] == "[T1] TOOL hold {} -> ERROR: sold out"
    assert lines[3] == "[T1] AGENT: Searching."
    assert lines[4] == "[T2] USER: the 6th"
    assert lines[5].startswith("(the conversation ended without a closing message")
