"""A session record's error: structured fields, and older records' strings read on."""

from __future__ import annotations

import json

import pytest

from simlab.core import SessionKey
from simlab.store import SCHEMA_VERSION, SessionError, SessionRecord

KEY = SessionKey(persona="p", goal="g", mode="full", rep=0)
TRACE = 'Traceback (most recent call last):\n  File "/home/me/agent.py", line 3\nValueError: x\n'


def old_record(error: str, meta: dict[str, object]) -> dict[str, object]:
    """A schema-2 line as simlab 0.x wrote it: the error as one string."""
    return {
        "schema_version": 2,
        "key": KEY.model_dump(mode="json"),
        "seed": 1,
        "status": "error",
        "stop_reason": "agent_error",
        "n_user_turns": 3,
        "error": error,
        "meta": meta,
    }


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("turn 3: ValueError: bad date", (3, None, "ValueError", "bad date")),
        ("grading failed: KeyError: 'oops'", (None, "grading", "KeyError", "'oops'")),
        ("turn 2: turn timeout, no reply in 3s", (2, None, None, "turn timeout, no reply in 3s")),
        ("provider outage", (None, None, None, "provider outage")),
        ("HTTP 503 | <upstream> `x`", (None, None, None, "HTTP 503 | <upstream> `x`")),
    ],
)  # fmt: skip
def test_an_older_records_error_string_reads_as_fields_and_prints_as_before(
    text: str, fields: tuple[object, ...]
) -> None:
    record = SessionRecord.model_validate(old_record(text, {"traceback": TRACE, "retries": 1}))
    error = record.error
    assert error is not None
    assert (error.turn, error.stage, error.type, error.message) == fields
    assert error.headline == text  # reports word it as they always did
    assert error.traceback == TRACE and record.meta == {"retries": 1}  # moved out of meta


def test_a_record_writes_its_error_as_fields_under_the_current_schema() -> None:
    error = SessionError(type="ValueError", message="bad\ndate", turn=3, traceback=TRACE)
    record = SessionRecord(
        key=KEY, seed=1, status="error", stop_reason="agent_error", n_user_turns=3, error=error
    )
    line = json.loads(record.model_dump_json())
    assert line["schema_version"] == SCHEMA_VERSION >= 3
    assert line["error"] == {
        "type": "ValueError",
        "message": "bad\ndate",
        "turn": 3,
        "stage": None,
        "traceback": TRACE,
    }
    assert SessionRecord.model_validate(line) == record
    assert error.headline == "turn 3: ValueError: bad"  # one line for people


def test_an_unknown_cost_is_null_in_the_line_and_an_older_records_float_reads_on() -> None:
    unknown = SessionRecord(
        key=KEY, seed=1, status="error", stop_reason="agent_error", n_user_turns=1, cost_usd=None
    )
    line = json.loads(unknown.model_dump_json())
    assert line["cost_usd"] is None and SCHEMA_VERSION >= 8
    assert SessionRecord.model_validate_json(unknown.model_dump_json()).cost_usd is None
    older = old_record("provider outage", {}) | {"schema_version": 7, "cost_usd": 0.0123}
    assert SessionRecord.model_validate(older).cost_usd == 0.0123
    assert SessionRecord.model_validate(old_record("provider outage", {})).cost_usd == 0.0
