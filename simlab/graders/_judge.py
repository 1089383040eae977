"""The LLM judge: a session rubric, JSON verdicts, retries on unusable output.

The judge is one grader among the others. It reads the rubric (a file), the
constraints code extracted (latest value and turn of each) and a compact
transcript, and answers ``{"reasoning", "first_failing_turn", "verdict"}``.
Output that does not parse or fit the schema is sent back with a corrective
note; after ``max_attempts`` the judge raises ``JudgeError``, which the engine
records as a grader error, never as a failure of the target.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, Literal

from simlab.contracts import SessionSetup
from simlab.core import Check, Transcript
from simlab.graders._judge_case import RUBRIC_DIR, render_case
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
    """A parsed judge reply."""

    reasoning: str
    first_failing_turn: int | None
    verdict: Literal["pass", "fail"]

    def check(self) -> Check:
        """The verdict as the session's ``judge`` check (reasoning clipped to fit a report)."""
        return Check(
            passed=self.verdict == "pass",
            detail=clip_reasoning(self.reasoning),
            turn=self.first_failing_turn,
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


def parse_judge_output(text: str, n_turns: int) -> JudgeVerdict:
    """Read a judge reply: one JSON object with reasoning, first failing turn and verdict.

    Code fences and prose around the object are tolerated (small models add
    them); the object itself must fit the schema. Extra keys are ignored.

    Args:
        text: The model's reply.
        n_turns: User turns in the transcript; a failing turn must be in 1..n_turns.

    Returns:
        The verdict.

    Raises:
        JudgeOutputError: With a message fit to send back to the model.
    """
    data = _first_object(text)
    reasoning = data.get("reasoning")
    if not isinstance(reasoning, str) or not reasoning.strip():
        raise JudgeOutputError('"reasoning" must be a non-empty string')
    verdict = data.get("verdict")
    verdict = verdict.strip().lower() if isinstance(verdict, str) else verdict
    if verdict not in _VERDICTS:
        raise JudgeOutputError(f'"verdict" must be "pass" or "fail", got {_short(verdict)}')
    turn = data.get("first_failing_turn")
    if turn is not None:
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise JudgeOutputError(
                f'"first_failing_turn" must be an integer or null, got {_short(turn)}'
            )
        if verdict == "pass":
            raise JudgeOutputError('a "pass" verdict has no failing turn: use null')
        if not 1 <= turn <= n_turns:
            raise JudgeOutputError(
                f'"first_failing_turn" {turn} is not a turn of this conversation (1..{n_turns})'
            )
    return JudgeVerdict(reasoning.strip(), turn, "pass" if verdict == "pass" else "fail")


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
            it becomes the system prompt, read once here.
        max_attempts: Calls per session before unusable output raises ``JudgeError``.

    Raises:
        FileNotFoundError: The rubric file does not exist.
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
        self.max_attempts = max_attempts

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
            ``passed`` = verdict is pass, ``detail`` = the reasoning (clipped),
            ``turn`` = the first failing turn.

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
                return parse_judge_output(text, transcript.n_user_turns).check()
            except JudgeOutputError as e:
                problem = str(e)
            # The model sees its own unusable answer and what was wrong with it.
            messages.append(LLMMessage(role="assistant", content=text.strip() or "(empty)"))
            messages.append(
                LLMMessage(role="user", content=_CORRECTION.substitute(problem=problem))
            )
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
