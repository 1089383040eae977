"""The LLM judge: a session rubric, per-criterion JSON verdicts, retries on unusable output.

The judge is one grader among the others. It reads the rubric (a file), the
constraints code extracted (latest value and turn of each) and a compact
transcript, and answers ``{"reasoning", "criteria", "first_failing_turn"}``:
one true/false (or null, for a criterion that may not apply) per criterion
the rubric names. The verdict is derived, never asked for: a session passes
exactly when every criterion that applies holds. A rubric that names no
criteria (the older form) is answered with ``"verdict"`` instead.
Output that does not parse or fit the schema is sent back with a corrective
note; after ``max_attempts`` the judge raises ``JudgeError``, which the engine
records as a grader error, never as a failure of the target.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Literal

from simlab.contracts import SessionSetup
from simlab.core import Check, Transcript
from simlab.graders._judge_case import RUBRIC_DIR, render_case
from simlab.graders._rubric import Criterion, broken_criteria, criteria_verdict, rubric_criteria
from simlab.llm import LLM, LLMError, LLMMessage, LLMRequest, first_json_object, metered_complete

DEFAULT_RUBRIC = RUBRIC_DIR / "session.md"
"""The shipped session rubric."""

JUDGE = "judge"
"""The name of the judge's check in a session record."""

_CORRECTION = Template((RUBRIC_DIR / "correction.md").read_text(encoding="utf-8"))
_DETAIL_CHARS = 600
_VERDICTS = ("pass", "fail")


class JudgeError(Exception):
    """The judge could not give a usable verdict (bad output after retries, provider failure).

    The engine records it as a grader error; it never counts as a target failure.
    """


class JudgeOutputError(ValueError):
    """A judge reply that does not parse or does not fit the verdict schema."""


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A parsed judge reply.

    Attributes:
        reasoning: The judge's reasons.
        first_failing_turn: The turn of the first agent reply that failed; None on a pass.
        verdict: Pass exactly when no criterion is false (or the judge's own, for a
            rubric without criteria).
        criteria: The answer per criterion id, in the rubric's order: true (held),
            false (broken), None (did not apply); None for a rubric without criteria.
    """

    reasoning: str
    first_failing_turn: int | None
    verdict: Literal["pass", "fail"]
    criteria: dict[str, bool | None] | None = field(default=None)

    def check(self) -> Check:
        """The verdict as the session's ``judge`` check.

        The detail names the broken criteria first, then the reasoning (clipped to
        fit a report); the check keeps every criterion's answer in ``criteria``.
        """
        failing = broken_criteria(self.criteria or {})
        prefix = f"Broken: {', '.join(failing)}. " if failing else ""
        return Check(
            passed=self.verdict == "pass",
            detail=prefix + clip_reasoning(self.reasoning),
            turn=self.first_failing_turn,
            criteria=None if self.criteria is None else dict(self.criteria),
        )


def clip_reasoning(text: str, limit: int = _DETAIL_CHARS) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:  # a word boundary near the end; else cut mid-word
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def parse_judge_output(text: str, n_turns: int, criteria: Sequence[Criterion] = ()) -> JudgeVerdict:
    """Read a judge reply: one JSON object with reasoning, criteria and first failing turn.

    Code fences and prose around the object are tolerated (small models add
    them); the object itself must fit the schema. Keys other than those below
    are ignored.

    With ``criteria`` (the rubric's), ``"criteria"`` must answer each of them
    and no other: ``true`` or ``false``, or ``null`` where the criterion may not
    apply. A missing, unknown or mistyped answer is an error (never a default),
    so a half-answered rubric is sent back, not graded. The verdict is derived:
    pass exactly when no criterion is false. A ``"verdict"`` in the reply is
    optional and must agree with it. Without criteria (a rubric that names
    none), ``"verdict"`` ("pass" or "fail") is required and is the verdict.

    Args:
        text: The model's reply.
        n_turns: User turns in the transcript; a failing turn must be in 1..n_turns.
        criteria: The rubric's criteria (``rubric_criteria``); empty for an older rubric.

    Returns:
        The verdict.

    Raises:
        JudgeOutputError: With a message fit to send back to the model.
    """
    data = _first_object(text)
    reasoning = data.get("reasoning")
    if not isinstance(reasoning, str) or not reasoning.strip():
        raise JudgeOutputError('"reasoning" must be a non-empty string')
    answers = _criteria(data, criteria) if criteria else None
    verdict = data.get("verdict")
    verdict = verdict.strip().lower() if isinstance(verdict, str) else verdict
    if answers is not None:
        derived = "pass" if criteria_verdict(answers) else "fail"
        if verdict is not None and verdict != derived:
            raise JudgeOutputError(
                f'"verdict" {_short(verdict)} contradicts the criteria ({_why(answers)}): '
                "a session passes exactly when no criterion is false"
            )
        verdict = derived
    elif verdict not in _VERDICTS:
        raise JudgeOutputError(f'"verdict" must be "pass" or "fail", got {_short(verdict)}')
    turn = data.get("first_failing_turn")
    if turn is not None:
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise JudgeOutputError(
                f'"first_failing_turn" must be an integer or null, got {_short(turn)}'
            )
        if verdict == "pass":
            raise JudgeOutputError(
                'a "pass" verdict has no failing turn: use null'
                if answers is None
                else "no criterion is false, so there is no failing turn: use null"
            )
        if not 1 <= turn <= n_turns:
            raise JudgeOutputError(
                f'"first_failing_turn" {turn} is not a turn of this conversation (1..{n_turns})'
            )
    return JudgeVerdict(reasoning.strip(), turn, "pass" if verdict == "pass" else "fail", answers)


def _criteria(data: dict[str, Any], criteria: Sequence[Criterion]) -> dict[str, bool | None]:
    """The reply's answer to each criterion, in the rubric's order."""
    ids = ", ".join(c.id for c in criteria)
    given = data.get("criteria")
    if not isinstance(given, dict):
        raise JudgeOutputError(
            f'"criteria" must be an object answering each criterion ({ids}), got {_short(given)}'
        )
    unknown = [key for key in given if key not in {c.id for c in criteria}]
    if unknown:
        raise JudgeOutputError(
            f'"criteria" has unknown {_ids(unknown)}: answer only the rubric\'s criteria ({ids})'
        )
    missing = [c.id for c in criteria if c.id not in given]
    if missing:
        raise JudgeOutputError(f'"criteria" is missing {_ids(missing)}: answer every one ({ids})')
    answers: dict[str, bool | None] = {}
    for c in criteria:
        value = given[c.id]
        if isinstance(value, bool) or (value is None and c.may_not_apply):
            answers[c.id] = value
            continue
        allowed = "true, false or null (does not apply)" if c.may_not_apply else "true or false"
        raise JudgeOutputError(f'"criteria"."{c.id}" must be {allowed}, got {_short(value)}')
    return answers


def _ids(ids: list[str], shown: int = 5) -> str:
    named = ", ".join(_short(i) for i in ids[:shown])
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ("criterion " if len(ids) == 1 else "criteria ") + named + more


def _why(answers: dict[str, bool | None]) -> str:
    failing = broken_criteria(answers)
    return f"{', '.join(failing)} false" if failing else "none is false"


def _first_object(text: str) -> dict[str, Any]:
    stripped = text.strip()
    if not stripped:
        raise JudgeOutputError("the reply was empty")
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, dict):
        return value
    found = first_json_object(stripped)
    if found is None:
        raise JudgeOutputError("the reply held no JSON object")
    return found


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def answer_form(criteria: Sequence[Criterion]) -> str:
    """The reply's form in words, for the corrective note after an unusable reply."""
    turn = '"first_failing_turn" (an integer user-turn number, or null when'
    if not criteria:
        return (
            f'"reasoning" (a string), {turn} the verdict is pass) and "verdict" ("pass" or "fail")'
        )
    strict = [c.id for c in criteria if not c.may_not_apply]
    loose = [c.id for c in criteria if c.may_not_apply]
    answers = f"true or false for each of {', '.join(strict)}"
    if loose:
        answers += f"; true, false or null (does not apply) for each of {', '.join(loose)}"
    return f'"reasoning" (a string), "criteria" (an object: {answers}) and {turn} none is false)'


def judge_model_id(llm: LLM) -> str:
    """The judge's pinned model id for ``run.json``: ``backend:model``."""
    return f"{llm.name}:{llm.model}"


def judge_seed(setup: SessionSetup) -> int:
    """The seed of a session's judge calls: sha256 over the session's user seed.

    Derived like the engine's seeds (63 bits of a sha256 over canonical JSON),
    so it is the same on every machine; never Python's salted ``hash()``.
    """
    canonical = json.dumps([setup.user_seed, JUDGE], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(canonical.encode("utf-8")).digest()[:8], "big") >> 1


class LLMJudge:
    """Grades a finished session against a rubric with an LLM.

    An instance is the engine's ``Judge``: ``await judge(setup, transcript, checks)``
    returns the ``judge`` check. It keeps no per-session state, so one instance
    serves every session of a run concurrently.

    Args:
        llm: The judge's model (from ``simlab.llm.create_llm``).
        rubric_path: A rubric file replacing the shipped ``rubrics/session.md``;
            it becomes the system prompt, read once here, with the criteria it
            names (``rubric_criteria``).
        max_attempts: Calls per session before unusable output raises ``JudgeError``.

    Raises:
        FileNotFoundError: The rubric file does not exist.
        SpecError: The rubric names a criterion id twice.
        ValueError: ``max_attempts`` is below 1.
    """

    def __init__(
        self, llm: LLM, rubric_path: str | Path | None = None, max_attempts: int = 3
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        path = Path(rubric_path) if rubric_path is not None else DEFAULT_RUBRIC
        if not path.is_file():
            raise FileNotFoundError(f"judge rubric {path} not found: give an existing file")
        self.llm = llm
        self.rubric_path = path
        self.rubric = path.read_text(encoding="utf-8")
        self.criteria = rubric_criteria(self.rubric, str(path))
        self.max_attempts = max_attempts
        self._form = answer_form(self.criteria)

    @property
    def model_id(self) -> str:
        """``judge_model_id`` of this judge's model."""
        return judge_model_id(self.llm)

    async def __call__(
        self, setup: SessionSetup, transcript: Transcript, checks: dict[str, Check]
    ) -> Check:
        """Grade one session.

        Args:
            setup: The session's setup: goal, persona, seeds and the meter every
                call is reported to.
            transcript: The finished session.
            checks: The code graders' checks. Deliberately not shown to the
                model: the judge's verdict must stay an independent measurement
                for calibration against human labels to mean anything.

        Returns:
            ``passed`` = no criterion is false (the verdict), ``detail`` = the
            broken criteria and the reasoning (clipped), ``turn`` = the first
            failing turn, ``criteria`` = the answer per criterion.

        Raises:
            JudgeError: The provider failed, or no attempt gave usable output.
        """
        case = render_case(setup.goal, setup.persona.language, transcript)
        messages = [LLMMessage(role="user", content=case)]
        seed = judge_seed(setup)
        problem = ""
        for _ in range(self.max_attempts):
            text = await self._ask(setup, tuple(messages), seed)
            try:
                verdict = parse_judge_output(text, transcript.n_user_turns, self.criteria)
                return verdict.check()
            except JudgeOutputError as e:
                problem = str(e)
            # The model sees its own unusable answer and what was wrong with it.
            messages.append(LLMMessage(role="assistant", content=text.strip() or "(empty)"))
            note = _CORRECTION.substitute(problem=problem, form=self._form)
            messages.append(LLMMessage(role="user", content=note))
        raise JudgeError(
            f"judge output unusable after {self.max_attempts} attempt(s) "
            f"({self.model_id}): {problem}"
        )

    async def _ask(self, setup: SessionSetup, messages: tuple[LLMMessage, ...], seed: int) -> str:
        req = LLMRequest(
            messages=messages,
            system=self.rubric,
            temperature=0.0,
            seed=seed,
            json_output=True,
            role="judge",
        )
        try:
            resp = await metered_complete(self.llm, req, setup.meter)
        except LLMError as e:
            raise JudgeError(f"judge call failed ({self.model_id}): {e}") from e
        return resp.text
