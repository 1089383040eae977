"""``simlab import`` on the audit's hostile logs: a bad record is skipped with its reason.

Each log holds one good record and one hostile one, so the import goes on
(exit 0, the good record imported) and the hostile one is listed with
``file:line`` and why. Runs in-process: an exception escaping ``main`` fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from simlab.cli import main
from simlab.core import freeze
from simlab.store import read_sessions

GOOD: dict[str, Any] = {
    "task_id": "t1",
    "reward": 1,
    "messages": [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
    ],
}


def simlab_import(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, fmt: str = "openai"
) -> tuple[int, str]:
    """Write ``text`` after one good record and import it: (exit code, stderr)."""
    log = tmp_path / "log.jsonl"
    good = json.dumps(GOOD) if fmt == "openai" else ""
    log.write_text(f"{good}\n{text}\n" if good else f"{text}\n", encoding="utf-8")
    capsys.readouterr()
    code = main(["import", str(log), "--format", fmt, "--out", str(tmp_path / "res"), "--quiet"])
    return code, capsys.readouterr().err


def with_fields(**fields: Any) -> str:
    return json.dumps({**GOOD, **fields})


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param(
            with_fields(task_id="a\ud800b"), "task_id holds a lone surrogate", id="surrogate"
        ),
        pytest.param(
            with_fields(messages=[{"role": "user", "content": "x\udc00"}, *GOOD["messages"]]),
            "messages.0.content holds a lone surrogate",
            id="surrogate-in-text",
        ),
        pytest.param(
            '{"messages": ' + "[" * 3000 + "]" * 3000 + "}",
            "nested too deeply to read",
            id="3000-deep",
        ),
        pytest.param(
            with_fields(meta=json.loads("[" * 150 + "]" * 150)),
            "nested more than 100 levels deep at meta",
            id="150-deep",
        ),
        pytest.param(
            with_fields(reward=10**400), "a reward must be a finite number", id="400-digit"
        ),
        pytest.param(with_fields(reward=1e308 * 10), "a reward must be a finite number", id="inf"),
        pytest.param(
            with_fields(trial=2**63 + 1),
            "a trial index must be an integer 0..9999, got 9223372036854775809",
            id="trial-2^63",
        ),
        pytest.param(
            with_fields(trial=10_000), "a trial index must be an integer 0..9999", id="trial"
        ),
        pytest.param(
            '{"reward": ' + "1" * 5000 + "}", "a number of more than 4,300 digits", id="5000-digit"
        ),
        pytest.param(
            with_fields(
                messages=[
                    {"role": "user", "content": "x"},
                    {
                        "role": "assistant",
                        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}],
                    },
                    {"role": "tool", "tool_call_id": {"c": 1}, "content": "[1, [2]]"},
                ]
            ),
            "tool_call_id must be a string",
            id="unhashable-call-id",
        ),
    ],
)
def test_a_hostile_openai_record_is_skipped_with_its_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, said: str
) -> None:
    code, err = simlab_import(capsys, tmp_path, text)
    assert code == 0, err
    assert said in err, err
    assert "1 imported, 1 skipped" in err
    (run_dir,) = (tmp_path / "res").iterdir()
    assert [r.key.goal for r in read_sessions(run_dir).records] == ["t1"]


def test_unhashable_tool_results_are_kept_as_data(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    messages = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"a": [1]}'}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": '[{"a": [1, {"b": {}}]}, [2]]'},
    ]
    code, err = simlab_import(capsys, tmp_path, with_fields(task_id="t2", messages=messages))
    assert code == 0, err
    (run_dir,) = (tmp_path / "res").iterdir()
    records = {r.key.goal: r for r in read_sessions(run_dir).records}
    agent = records["t2"].transcript.turns[0].agent
    assert agent is not None
    assert agent.tool_calls[0].result == freeze([{"a": [1, {"b": {}}]}, [2]])


def span(attributes: Any = None, **fields: Any) -> dict[str, Any]:
    return {"traceId": "t", "attributes": attributes or [], **fields}


def otlp(*spans: Any, resource_spans: Any = None) -> str:
    if resource_spans is None:
        resource_spans = [{"scopeSpans": [{"spans": list(spans)}]}]
    return json.dumps({"resourceSpans": resource_spans})


GOOD_SPAN = span(
    [
        {"key": "eval.reward", "value": {"doubleValue": 1.0}},
        {
            "key": "gen_ai.input.messages",
            "value": {
                "stringValue": '[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]'
            },
        },
    ]
)


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        pytest.param(
            otlp(resource_spans=[None]), "resourceSpans[0] must be an object", id="rs-null"
        ),
        pytest.param(otlp(resource_spans=["x"]), "resourceSpans[0] must be an object", id="rs-str"),
        pytest.param(
            otlp(resource_spans=[{"scopeSpans": "x"}]), "scopeSpans must be a list", id="ss-str"
        ),
        pytest.param(otlp(resource_spans=[{"scopeSpans": [5]}]), "must be an object", id="ss-int"),
        pytest.param(
            otlp(resource_spans=[{"scopeSpans": [{"spans": {}}]}]), "", id="spans-empty-map"
        ),
        pytest.param(
            otlp(resource_spans=[{"scopeSpans": [{"spans": {"a": 1}}]}]),
            "spans must be a list",
            id="spans-map",
        ),
        pytest.param(
            otlp(resource_spans=[{"resource": [1], "scopeSpans": [{"spans": [GOOD_SPAN]}]}]),
            "",
            id="resource-list",
        ),
        pytest.param(
            otlp(span([{"key": "a", "value": {"intValue": "abc"}}])),
            "intValue 'abc' is not a number",
            id="int-abc",
        ),
        pytest.param(
            otlp(span([{"key": "a", "value": {"intValue": "9" * 5000}}])),
            "is not a number",
            id="int-5000-digits",
        ),
        pytest.param(
            otlp(span([{"key": "a", "value": {"doubleValue": {}}}])),
            "doubleValue must be a number",
            id="double-map",
        ),
        pytest.param(
            otlp(span([{"key": "a", "value": {"arrayValue": "x"}}])),
            "arrayValue must be an object with a 'values' list",
            id="array-str",
        ),
        pytest.param(
            otlp(span([{"key": "a", "value": {"kvlistValue": {"values": 5}}}])),
            "kvlistValue must be an object",
            id="kvlist-int",
        ),
        pytest.param(otlp(span([{"key": [1], "value": {}}])), "", id="key-unhashable"),
        pytest.param(otlp(span(startTimeUnixNano="soon")), "startTimeUnixNano 'soon'", id="start"),
        pytest.param(
            otlp(span(startTimeUnixNano=[1])), "startTimeUnixNano must be", id="start-list"
        ),
        pytest.param(otlp(span(events="x")), "events must be a list", id="events-str"),
        pytest.param(otlp(span(events=5)), "events must be a list", id="events-int"),
        pytest.param(
            otlp(span([{"key": "gen_ai.prompt.0.tool_calls.x", "value": {"stringValue": "1"}}])),
            "not a GenAI span this importer can read",
            id="indexed-bad",
        ),
        pytest.param(
            otlp(
                span(
                    [
                        {
                            "key": "gen_ai.input.messages",
                            "value": {"stringValue": '[{"role": "user", "parts": 5}]'},
                        }
                    ]
                )
            ),
            "not a GenAI span this importer can read",
            id="parts-int",
        ),
    ],
)
def test_a_malformed_otel_shape_is_skipped_with_its_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: str, said: str
) -> None:
    good = json.dumps(
        {"resourceSpans": [{"scopeSpans": [{"spans": [{**GOOD_SPAN, "traceId": "g"}]}]}]}
    )
    code, err = simlab_import(capsys, tmp_path, f"{good}\n{bad}", fmt="otel")
    assert code in (0, 1), err  # the good conversation imports unless the bad one merged into it
    assert "Traceback" not in err
    assert said in err, err


DEEP_JSON_TEXT = "[" * 5000 + "]" * 5000


def test_json_inside_a_record_is_held_to_the_same_limits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    call = {"id": "c", "function": {"name": "f", "arguments": DEEP_JSON_TEXT}}
    deep_arguments = [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [call]}]
    code, err = simlab_import(capsys, tmp_path, with_fields(messages=deep_arguments))
    assert code == 0, err
    assert "arguments' JSON nested too deeply to read" in err


@pytest.mark.parametrize("content", [DEEP_JSON_TEXT, '["\\ud800"]'])
def test_a_tool_result_whose_json_cannot_be_kept_stays_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str
) -> None:
    record = {
        "task_id": "t2",
        "reward": 1,
        "messages": [
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "u", "name": "f"}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "u", "content": content}],
            },
        ],
    }
    code, err = simlab_import(capsys, tmp_path, json.dumps(record), fmt="anthropic")
    assert code == 0, err
    (run_dir,) = (tmp_path / "res").iterdir()
    (imported,) = read_sessions(run_dir).records
    agent = imported.transcript.turns[0].agent
    assert agent is not None and agent.tool_calls[0].result == content


def test_an_otel_attribute_whose_json_is_too_deep_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    attrs = [{"key": "gen_ai.input.messages", "value": {"stringValue": DEEP_JSON_TEXT}}]
    code, err = simlab_import(capsys, tmp_path, otlp(span(attrs)), fmt="otel")
    assert code == 1, err
    assert "an attribute's JSON nested too deeply to read" in err
