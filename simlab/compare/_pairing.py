"""Read two runs and pair their sessions by key."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import TypeAdapter

from simlab.core import SessionKey
from simlab.spec import Bucket, Suite
from simlab.store import SessionRecord, read_run_info, read_sessions

_BUCKETS = TypeAdapter(list[Bucket])

USER_SIDE_FIELDS = ("simulator", "max_turns")
"""Suite fields that shape the simulated user's side of a conversation: two runs
that differ in one of them hold different conversations under the same key."""


@dataclass(frozen=True, slots=True)
class LocatedRecord:
    """A session record and the 1-based line of ``sessions.jsonl`` it was read from."""

    record: SessionRecord
    line: int


@dataclass(frozen=True, slots=True)
class RunSessions:
    """One run as the comparison sees it.

    Attributes:
        path: The run directory.
        run_id: ``run.json``'s ``run_id`` (the folder name when it has none).
        buckets: The suite's length buckets (the defaults when ``run.json`` has none).
        sessions: Each key's outcome as ``read_sessions`` gives it: its first
            graded record, else its latest error record (a retry supersedes an error).
        duplicates: Later records of a key already graded, dropped.
        user_side: The suite's ``USER_SIDE_FIELDS`` as ``run.json`` records them
            (empty for a run without a suite, e.g. imported logs).
        judge: The LLM judge as it ran: its backend and model (the suite's ``llm``
            when the judge names none) and its rubric file; None without a judge.
    """

    path: Path
    run_id: str
    buckets: list[Bucket]
    sessions: dict[SessionKey, LocatedRecord]
    duplicates: int = 0
    user_side: dict[str, Any] = field(default_factory=dict)
    judge: str | None = None

    @property
    def reps(self) -> int:
        """Repetitions per cell: the largest ``rep`` of any key, plus one (0 when empty)."""
        return max((k.rep for k in self.sessions), default=-1) + 1


def load_run(run_dir: Path) -> RunSessions:
    """Read a run directory's ``run.json`` and ``sessions.jsonl``.

    Raises:
        RunDirError: If the folder is not a readable run directory.
    """
    info = read_run_info(run_dir)
    file = read_sessions(run_dir)  # one outcome per key (a retry replaces an error record)
    sessions = {
        record.key: LocatedRecord(record, line)
        for record, line in zip(file.records, file.lines, strict=True)
    }
    suite = info.suite.model_dump(mode="json", include=set(USER_SIDE_FIELDS))
    return RunSessions(
        run_dir,
        info.run_id,
        list(info.suite.buckets),
        sessions,
        file.duplicates,
        suite,
        judge_of(info.suite),
    )


def judge_of(suite: Suite) -> str | None:
    """The judge a suite runs, in one line: ``anthropic claude-haiku-4-5, rubric
    rubrics/strict.md`` (``shipped rubric`` when it names none); None without one."""
    judge = suite.judge
    if judge is None:
        return None
    llm = judge.llm or suite.llm
    model = (
        "the backend's default model"
        if llm is None
        else f"{llm.backend} {llm.model or 'default model'}"
    )
    return f"{model}, {'rubric ' + judge.rubric if judge.rubric else 'the shipped rubric'}"


@dataclass(frozen=True, slots=True)
class ErrorSession:
    """A session that ended in ``error`` in one of the runs: never a pass or a failure."""

    run: Literal["A", "B"]
    key: SessionKey
    line: int
    stop_reason: str
    error: str


@dataclass(frozen=True, slots=True)
class Pairing:
    """The sessions of A and B matched by key.

    A key graded in both runs is a *pair* only when both sessions ran the same
    conversation setup: the same session seed and the same user-side suite
    settings (``USER_SIDE_FIELDS``). Under different seeds the same key is
    another draw of the simulated user, independent of the first, so paired
    tests (McNemar, paired intervals) and per-session regressions would be
    invalid there: such keys are ``unpaired`` and compared as rates only.

    Attributes:
        pairs: Keys graded (``ok``) in both runs with the same setup, in key
            order: the paired tests use these.
        only_a: Keys only A has.
        only_b: Keys only B has.
        with_error: Keys both runs have where at least one side is an error.
        errors: Every error session of either run.
        unpaired: Keys graded in both runs whose setups differ (another seed or
            other user-side settings): independent draws, never paired.
        why_unpaired: Why keys were left unpaired ("" when none was).
    """

    pairs: list[tuple[LocatedRecord, LocatedRecord]] = field(default_factory=list)
    only_a: list[SessionKey] = field(default_factory=list)
    only_b: list[SessionKey] = field(default_factory=list)
    with_error: int = 0
    errors: list[ErrorSession] = field(default_factory=list)
    unpaired: list[SessionKey] = field(default_factory=list)
    why_unpaired: str = ""

    @property
    def graded_in_both(self) -> int:
        """Keys graded in both runs, paired or not."""
        return len(self.pairs) + len(self.unpaired)


def _order(key: SessionKey) -> tuple[str, str, str, int, tuple[str, ...]]:
    return (key.persona, key.goal, key.mode, key.rep, key.perturbations)


def _errors(run: RunSessions, name: Literal["A", "B"]) -> list[ErrorSession]:
    return [
        ErrorSession(name, k, s.line, s.record.stop_reason.value, _headline(s.record))
        for k, s in sorted(run.sessions.items(), key=lambda kv: _order(kv[0]))
        if s.record.status == "error"
    ]


def pair_sessions(a: RunSessions, b: RunSessions) -> Pairing:
    """Match the sessions of two runs by key (persona, goal, mode, rep, perturbations).

    Keys graded in both runs are paired only when their session seeds and the
    runs' user-side settings agree (see ``Pairing``).
    """
    pairs = []
    unpaired: list[SessionKey] = []
    with_error = 0
    other_seed = 0
    same_side = a.user_side == b.user_side
    for key in sorted(a.sessions.keys() & b.sessions.keys(), key=_order):
        sa, sb = a.sessions[key], b.sessions[key]
        if sa.record.status != "ok" or sb.record.status != "ok":
            with_error += 1
        elif same_side and sa.record.seed == sb.record.seed:
            pairs.append((sa, sb))
        else:
            unpaired.append(key)
            other_seed += sa.record.seed != sb.record.seed
    why = ""
    if unpaired:
        reasons = []
        if other_seed:
            reasons.append(f"{other_seed} ran with different seeds")
        if not same_side:
            changed = sorted(
                f for f in USER_SIDE_FIELDS if a.user_side.get(f) != b.user_side.get(f)
            )
            reasons.append(f"the runs' user-side settings differ ({', '.join(changed)})")
        why = "; ".join(reasons)
    return Pairing(
        pairs,
        sorted(a.sessions.keys() - b.sessions.keys(), key=_order),
        sorted(b.sessions.keys() - a.sessions.keys(), key=_order),
        with_error,
        _errors(a, "A") + _errors(b, "B"),
        unpaired,
        why,
    )


def _headline(record: SessionRecord) -> str:
    return record.error.headline if record.error else ""
