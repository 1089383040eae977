"""A hostile-target zoo: each bad target mixed into a normal run, which must finish.

Every well-behaved session is graded exactly as in a run without the bad ones;
each bad one is its own record (an error with its reason, or its text escaped
and flagged), and the summary and reports are written.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

import simlab
from simlab.contracts import GradingContext
from simlab.core import AgentReply, Check, Message, SessionContext
from simlab.store import ENCODING_META, SessionRecord, read_sessions

ROOT = Path(__file__).resolve().parents[2]

KINDS = (
    "surrogate",
    "nul",
    "huge",
    "nan",
    "deep",
    "wrong_type",
    "blocks_loop",
    "swallows_cancel",
    "raises_on_close",
    "raises_recursion",
)
GOOD_REPS = 4
"""Well-behaved sessions: reps past the hostile ones."""


def write_suite(tmp_path: Path, reps: int) -> Path:
    suite = {
        "name": "zoo",
        "seed": 5,
        "personas": ["terse_en"],
        "goals": ["refund"],
        "modes": ["full"],
        "reps": reps,
        "max_turns": 3,
        "turn_timeout_s": 0.5,
        "concurrency": 4,
        "target": "reference:v1",  # replaced by the Python class below
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def nested(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def kind_of_rep(rep: int) -> str | None:
    return KINDS[rep] if rep < len(KINDS) else None


def kind_of(ctx: SessionContext) -> str | None:
    return kind_of_rep(int(ctx.session_id.split("/")[3]))


class Polite:
    """A well-behaved target: the same short answer every turn."""

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        return AgentReply(text=f"Noted, turn {ctx.turn}. Anything else?")


class Zoo(Polite):
    """Behaves by the session's rep: one hostile kind each, well-behaved past them."""

    def __init__(self) -> None:
        self.kind: str | None = None

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> Any:
        kind = self.kind = kind_of(ctx)
        good = await super().reply(history, ctx)
        if kind is None or kind == "raises_on_close":
            return good
        if kind == "surrogate":
            return AgentReply(text="sorry \udcff")
        if kind == "nul":
            return AgentReply(text="nul \x00 byte", meta={"k\x00": "v\x00"})
        if kind == "huge":
            return AgentReply(text="x" * 5_000_000)
        if kind == "nan":
            return AgentReply(
                text="numbers",
                meta={"nan": math.nan, "inf": math.inf},
                tool_calls=[{"name": "t", "args": {"x": -math.inf}, "result": math.nan}],
            )
        if kind == "deep":
            return AgentReply(text="deep", tool_calls=[{"name": "t", "args": {"a": nested(2000)}}])
        if kind == "wrong_type":
            return 42
        if kind == "blocks_loop":
            time.sleep(0.05)  # briefly: within the turn's deadline
            return good
        if kind == "swallows_cancel":
            try:
                await anyio.sleep(5)
            except anyio.get_cancelled_exc_class():
                pass  # swallowed: the turn is late all the same
            return good
        if kind == "raises_recursion":
            raise RecursionError("maximum recursion depth exceeded")
        raise AssertionError(kind)

    async def aclose(self) -> None:
        if self.kind == "raises_on_close":
            raise RuntimeError("close failed")


def comparable(record: SessionRecord) -> dict[str, Any]:
    data = record.model_dump(mode="json")
    for timing in ("duration_s", "agent_turn_s"):
        data.pop(timing)
    return data


@pytest.fixture(scope="module")
def zoo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[simlab.RunResult, Path]:
    tmp = tmp_path_factory.mktemp("zoo")
    suite = write_suite(tmp, len(KINDS) + GOOD_REPS)
    return simlab.run(suite, target=Zoo, out=tmp / "out", progress=False), suite


def test_the_zoo_run_finishes_with_summary_and_reports(
    zoo_run: tuple[simlab.RunResult, Path],
) -> None:
    result, _ = zoo_run
    assert len(result.records) == len(KINDS) + GOOD_REPS
    for path in (result.paths.summary, result.paths.report_md, result.paths.report_html):
        assert path.is_file() and path.stat().st_size > 0
    # the file reads back whole: every session, once
    read = read_sessions(result.run_dir)
    assert not read.torn and read.duplicates == 0 and len(read.records) == len(result.records)


def test_well_behaved_sessions_are_graded_as_without_the_bad_ones(
    zoo_run: tuple[simlab.RunResult, Path], tmp_path: Path
) -> None:
    result, suite = zoo_run
    alone = simlab.run(suite, target=Polite, out=tmp_path / "alone", progress=False)
    by_key = {r.key: r for r in alone.records}
    well_behaved = (None, "raises_on_close", "blocks_loop")
    good = [r for r in result.records if kind_of_rep(r.key.rep) in well_behaved]
    assert len(good) == GOOD_REPS + 2
    for record in good:
        assert record.status == "ok"
        assert comparable(record) == comparable(by_key[record.key])


def outcome(result: simlab.RunResult, kind: str) -> SessionRecord:
    return next(r for r in result.records if r.key.rep == KINDS.index(kind))


def test_each_bad_session_is_its_own_record_with_its_reason(
    zoo_run: tuple[simlab.RunResult, Path],
) -> None:
    result, _ = zoo_run
    surrogate = outcome(result, "surrogate")  # stored escaped, flagged, graded
    assert surrogate.status == "ok"
    assert surrogate.transcript.turns[0].agent is not None
    assert surrogate.transcript.turns[0].agent.text == "sorry \\udcff"
    assert surrogate.meta[ENCODING_META]["escaped"] >= 1

    huge = outcome(result, "huge")  # cut at the reply cap, and said
    assert huge.status == "ok"
    assert any(c["field"] == "text" for c in huge.meta["truncated"])

    nan = outcome(result, "nan")  # written as JSON null, never as a bare NaN
    assert nan.status == "ok"

    deep = outcome(result, "deep")  # 2,000 levels: refused, the session's one error record
    assert deep.status == "error" and deep.stop_reason == "agent_error"
    assert deep.error is not None and "nested deeper than" in deep.error.message

    wrong = outcome(result, "wrong_type")
    assert wrong.status == "error" and wrong.stop_reason == "agent_error"
    assert wrong.error is not None and wrong.error.turn == 1

    late = outcome(result, "swallows_cancel")
    assert late.status == "error" and late.error is not None
    assert "timeout" in late.error.message

    recursion = outcome(result, "raises_recursion")
    assert recursion.status == "error" and recursion.error is not None
    assert recursion.error.type == "RecursionError"

    summary = json.loads(result.paths.summary.read_text(encoding="utf-8"))
    assert summary["errors"]["n"] if isinstance(summary["errors"], dict) else summary["errors"]


def test_a_surrogate_run_resumes_and_reads_back(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, 2)

    class Sorry(Polite):
        async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
            return AgentReply(text="sorry \udcff", meta={"why\udcff": ["\ud800"]})

    first = simlab.run(suite, target=Sorry, out=tmp_path / "out", progress=False)
    assert [r.status for r in first.records] == ["ok", "ok"]
    again = simlab.run(target=Sorry, resume=first.run_dir, progress=False)
    assert len(again.records) == 2
    line = first.paths.sessions.read_bytes().splitlines()[0]
    record = SessionRecord.model_validate_json(line)
    agent = record.transcript.turns[0].agent
    assert agent is not None and agent.meta["why\\udcff"] == ("\\ud800",)


class UnboundedScores:
    """A grader whose credit is NaN or infinite in some sessions, built past validation
    or not."""

    name = "credit"

    def grade(self, ctx: GradingContext) -> Check:
        rep = ctx.key.rep
        if rep in (0, 1):  # made without validation: NaN, inf
            score = math.nan if rep == 0 else math.inf
            return Check.model_construct(
                name="credit", passed=True, score=score, detail="", turn=None, criteria=None
            )
        if rep == 2:
            return Check(passed=True, score=math.nan)  # refused by the model
        return Check(passed=True, score=0.5)


def test_nan_and_infinite_scores_never_reach_the_summary(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, 5)
    result = simlab.run(
        suite, target=Polite, graders=[UnboundedScores()], out=tmp_path / "o", progress=False
    )
    by_rep = {r.key.rep: r for r in result.records}
    for rep in (0, 1):  # built past validation: no verdict, a grading error, with the reason
        refused = by_rep[rep]
        assert refused.status == "error" and refused.error is not None
        assert refused.error.stage == "grading"
    assert by_rep[0].error is not None and "credit nan" in by_rep[0].error.message
    # refused by the model as the grader made it: the grader's own failure, the session
    # graded on with that check failed (no verdict), like any grader that raises
    failed = by_rep[2].checks["credit"]
    assert by_rep[2].status == "ok" and not failed.passed and failed.error is not None
    assert failed.error.type == "ValidationError"
    assert [by_rep[rep].status for rep in (3, 4)] == ["ok", "ok"]
    text = result.paths.summary.read_text(encoding="utf-8")
    summary = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in summary.json"))
    for record in read_sessions(result.run_dir).records:
        assert record.score is None or math.isfinite(record.score)
    assert summary["overall"]["n"] == sum(1 for r in result.records if r.status == "ok")
