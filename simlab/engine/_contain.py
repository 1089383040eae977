"""One bad session stays that session's: whatever it raises becomes its error record.

The session loop records the failures it expects (a target that raises, a
simulator fault, a turn timeout) as data. This is the net under it: an
exception from anything else one session does (capping a hostile reply, its
graders, serialising its record) must not reach the orchestrator's task group,
where it would end the run for every other session. It becomes the session's
error record instead, with the reason; ``--retry-errors`` runs it again.
"""

from __future__ import annotations

import math

from simlab.engine._expand import SessionJob
from simlab.engine._orchestrator import SessionRunner
from simlab.engine._session import error_of, unrun_record
from simlab.store import (
    SessionError,
    SessionRecord,
    StopReason,
    encodable_record,
    escape_text,
    record_line,
)


def contained(runner: SessionRunner) -> SessionRunner:
    """``runner``, with any ``Exception`` it raises turned into the session's error record
    (cancellation and ``KeyboardInterrupt`` still end the run, as they should)."""

    async def run(job: SessionJob) -> SessionRecord:
        try:
            return await runner(job)
        except Exception as e:
            return failed_record(job, e)

    return run


def failed_record(job: SessionJob, e: BaseException) -> SessionRecord:
    """The error record of a session that raised ``e`` outside the loop's own handling:
    no transcript (what it held may be what failed), the exception as its error."""
    error = error_of(e)
    message = f"the session could not be finished: {error.message}"
    record = unrun_record(job, StopReason.INFRA_ERROR, message)
    return record.model_copy(update={"error": _encodable_error(error, message)})


def written(record: SessionRecord) -> tuple[SessionRecord, bytes]:
    """``record`` as it is written and its ``sessions.jsonl`` line; never raises for
    the record's content.

    A score or check credit that is no finite number (NaN, infinite: a grader that
    built its check past validation) makes it a grading error record. Text that cannot
    be encoded is escaped (``store.encodable_record``). A record that cannot be
    written at all (a value nested past the serializer's depth) is replaced by its
    session's error record, without the transcript, saying why.
    """
    why = _no_number(record)
    if why is not None:  # NaN is no verdict: never a score, never a summary's figure
        record = record.model_copy(
            update={
                "status": "error",
                "stop_reason": StopReason.INFRA_ERROR,
                "score": None,
                "passed": None,
                "error": SessionError(message=why, stage="grading"),
            }
        )
    try:
        return encodable_record(record)
    except Exception as e:
        failed = unwritable_record(record, e)
        return failed, record_line(failed)


def _no_number(record: SessionRecord) -> str | None:
    """Why a graded record's score or a check's credit is not a finite number, or None."""
    if record.score is not None and not math.isfinite(record.score):
        return f"the session's score is {record.score}, not a finite number"
    for name, check in record.checks.items():
        if check.score is not None and not math.isfinite(check.score):
            return f"check {name!r} gave credit {check.score}, not a number in [0, 1]"
    return None


def unwritable_record(record: SessionRecord, e: BaseException) -> SessionRecord:
    """The error record standing in for ``record``, which could not be serialised."""
    error = error_of(e)
    message = (
        f"simlab could not write this session's record ({error.type}: {error.message}); "
        "its transcript and checks are left out"
    )
    return SessionRecord(
        key=record.key,
        seed=record.seed,
        status="error",
        stop_reason=StopReason.INFRA_ERROR,
        n_user_turns=record.n_user_turns,
        planned_turns=record.planned_turns,
        usage=record.usage,
        cost_usd=record.cost_usd,
        duration_s=record.duration_s,
        error=_encodable_error(error, message),
    )


def _encodable_error(error: SessionError, message: str) -> SessionError:
    """``error`` with ``message``, its text escaped so it can always be written."""
    trace = error.traceback
    return SessionError(
        type=error.type,
        message=escape_text(message),
        turn=error.turn,
        stage=error.stage,
        traceback=None if trace is None else escape_text(trace),
    )
