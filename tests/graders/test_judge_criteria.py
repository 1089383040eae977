"""The judge criterion by criterion: the rubric's ids, replies that answer them, the verdict rule,
and the seed's v2 rules judged end to end against the fake provider on loopback."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from simlab.contracts import SessionSetup
from simlab.core import AgentReply, Check, SessionKey, StopSignal, ToolCall, Transcript, Turn
from simlab.core import UserTurn as U
from simlab.graders import (
    DEFAULT_RUBRIC,
    Criterion,
    JudgeError,
    JudgeOutputError,
    LLMJudge,
    calibrate_cli,
    criteria_verdict,
    parse_judge_output,
    render_case,
    rubric_criteria,
)
from simlab.llm import LLMSpec, create_llm, zero_retry_waits
from simlab.spec import Goal, Mode, Persona, SpecError
from simlab.store import SessionRecord, SessionWriter, StopReason
from simlab.testing import FakeProvider, fake_judge, scripted

pytestmark = pytest.mark.anyio

RUBRICS = DEFAULT_RUBRIC.parent
CRITERIA = rubric_criteria(DEFAULT_RUBRIC.read_text(encoding="utf-8"))
HOLD: dict[str, bool | None] = {c.id: True for c in CRITERIA}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_waits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with zero_retry_waits():
        yield


# ------------------------------------------------------------------ the rubric


def test_the_shipped_rubric_names_its_criteria_with_stable_ids() -> None:
    assert (
        Criterion("resolved"),
        Criterion("constraints_kept", may_not_apply=True),
        Criterion("confirmed", may_not_apply=True),
        Criterion("amounts_correct"),
        Criterion("no_repeat"),
        Criterion("in_policy"),
    ) == CRITERIA
    # Its example reply answers exactly those criteria, so it parses as a pass.
    text = DEFAULT_RUBRIC.read_text(encoding="utf-8")
    example = text[text.rindex('{"reasoning"') :]
    verdict = parse_judge_output(example, n_turns=3, criteria=CRITERIA)
    assert verdict.verdict == "pass" and verdict.criteria == HOLD


def test_the_seed_v2_rules_are_criteria_of_the_rubric() -> None:
    text = DEFAULT_RUBRIC.read_text(encoding="utf-8")
    resolved = _criterion_line(text, "resolved")
    assert "no available option could meet" in resolved and "offered an alternative" in resolved
    assert "holds here even though the final action never ran" in resolved
    assert "more than twice" in _criterion_line(text, "no_repeat")
    assert "left uncorrected is broken" in _criterion_line(text, "amounts_correct")


# Words of the travel domain; the rubric is about "the user's request" and "the action".
TRAVEL = re.compile(
    r"\b(flights?|book(ing|ings|ed)?|hotels?|baggage|luggage|passengers?|airlines?|airports?|"
    r"fares?|tickets?|seats?|hanoi|saigon|ho chi minh|da nang|danang|bangkok|singapore|han|sgn)\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", sorted(RUBRICS.glob("*.md")), ids=lambda p: p.name)
def test_rubric_files_are_domain_neutral(path: Path) -> None:
    assert TRAVEL.findall(path.read_text(encoding="utf-8")) == []


async def test_a_criterion_named_twice_is_a_spec_problem_with_file_and_line(
    tmp_path: Path,
) -> None:
    rubric = tmp_path / "mine.md"
    rubric.write_text("Grade.\n1. `kept`: a.\n2. `tone`: b.\n3. `kept`: c.\n", encoding="utf-8")
    llm = create_llm(LLMSpec(backend="openai", base_url="http://127.0.0.1:9", model="m"))
    try:
        with pytest.raises(SpecError) as info:
            LLMJudge(llm, rubric_path=rubric)
    finally:
        await llm.aclose()
    want = f"{rubric}:4: criteria: `kept` is named twice: give each criterion its own id"
    assert str(info.value) == want


def test_a_rubric_without_criteria_is_graded_on_its_verdict() -> None:
    assert rubric_criteria("Grade harshly.\n1. Be fair.\nAnswer JSON.") == ()
    verdict = parse_judge_output('{"reasoning": "r", "verdict": "fail"}', n_turns=2)
    assert (verdict.verdict, verdict.criteria) == ("fail", None)
    assert verdict.check().criteria is None


# ------------------------------------------------------------------ replies


def _reply(criteria: dict[str, Any], turn: int | None = None, **extra: Any) -> str:
    return json.dumps({"reasoning": "r", "criteria": criteria, "first_failing_turn": turn, **extra})


GOOD = [
    # every criterion holds: pass
    (_reply(HOLD), "pass", None),
    # no feasible option, alternative offered: no final action, so the two conditional
    # criteria do not apply (null) and the rest hold: pass (the seed's rule a)
    (_reply({**HOLD, "constraints_kept": None, "confirmed": None}), "pass", None),
    # the user had to repeat a fact twice: fail (rule b)
    (_reply({**HOLD, "no_repeat": False}, 4), "fail", 4),
    # a wrong price never corrected: fail (rule c), even with the final action right
    (_reply({**HOLD, "amounts_correct": False}, 2), "fail", 2),
    # no final action and no alternative: fail, the conditional ones null
    (
        _reply({**HOLD, "resolved": False, "constraints_kept": None, "confirmed": None}),
        "fail",
        None,
    ),
    # a verdict in the reply is optional; when it agrees it is accepted (any case)
    (_reply({**HOLD, "in_policy": False}, 1, verdict="FAIL"), "fail", 1),
    # keys other than the schema's are ignored
    (_reply(HOLD, score=9), "pass", None),
]


@pytest.mark.parametrize(("text", "verdict", "turn"), GOOD)
def test_the_verdict_is_derived_from_the_criteria(
    text: str, verdict: str, turn: int | None
) -> None:
    got = parse_judge_output(text, n_turns=5, criteria=CRITERIA)
    assert (got.verdict, got.first_failing_turn) == (verdict, turn)
    assert got.criteria == json.loads(text)["criteria"]
    assert list(got.criteria) == [c.id for c in CRITERIA]  # the rubric's order
    assert (got.verdict == "pass") == criteria_verdict(got.criteria)


BAD = [
    ('{"reasoning": "r", "verdict": "pass"}', '"criteria" must be an object answering each'),
    (_reply([True] * 6), '"criteria" must be an object answering each criterion (resolved, '),
    (
        _reply({k: v for k, v in HOLD.items() if k not in ("no_repeat", "confirmed")}),
        '"criteria" is missing criteria "confirmed", "no_repeat": answer every one (resolved, ',
    ),
    (
        _reply({**HOLD, "politeness": False}),
        '"criteria" has unknown criterion "politeness": answer only the rubric\'s criteria',
    ),
    (
        _reply({**HOLD, **{f"x{i}": True for i in range(12)}}),
        '"criteria" has unknown criteria "x0", "x1", "x2", "x3", "x4" and 7 more: answer only',
    ),
    (_reply({**HOLD, "no_repeat": None}), '"criteria"."no_repeat" must be true or false, got null'),
    (
        _reply({**HOLD, "confirmed": "yes"}),
        '"criteria"."confirmed" must be true, false or null (does not apply), got "yes"',
    ),
    (_reply({**HOLD, "resolved": 1}), '"criteria"."resolved" must be true or false, got 1'),
    (
        _reply({**HOLD, "no_repeat": False}, 2, verdict="pass"),
        '"verdict" "pass" contradicts the criteria (no_repeat false)',
    ),
    (_reply(HOLD, verdict="fail"), '"verdict" "fail" contradicts the criteria (none is false)'),
    (_reply(HOLD, 2), "no criterion is false, so there is no failing turn: use null"),
    (_reply({**HOLD, "in_policy": False}, 7), "(1..5)"),
]


@pytest.mark.parametrize(("text", "problem"), BAD)
def test_missing_extra_or_mistyped_criteria_are_errors_never_defaults(
    text: str, problem: str
) -> None:
    with pytest.raises(JudgeOutputError) as info:
        parse_judge_output(text, n_turns=5, criteria=CRITERIA)
    assert problem in str(info.value)


def test_the_check_names_the_broken_criteria_before_the_reasoning() -> None:
    text = _reply({**HOLD, "no_repeat": False, "amounts_correct": False}, 3)
    check = parse_judge_output(text, n_turns=5, criteria=CRITERIA).check()
    assert check.detail == "Broken: amounts_correct, no_repeat. r"
    assert (check.passed, check.turn, check.criteria) == (
        False,
        3,
        {**HOLD, "no_repeat": False, "amounts_correct": False},
    )


async def test_a_half_answered_rubric_is_sent_back_then_a_judge_error() -> None:
    half = _reply({"resolved": True})
    fake = FakeProvider(responder=scripted([half]))
    async with fake.serve() as url:
        llm = create_llm(LLMSpec(backend="openai", base_url=url, model="j"))
        try:
            with pytest.raises(
                JudgeError, match='"criteria" is missing criteria "constraints_kept"'
            ):
                await LLMJudge(llm, max_attempts=2)(_setup(), _repeated(2), {})
        finally:
            await llm.aclose()
    assert len(fake.requests) == 2
    note = fake.requests[1].messages[-1].text
    assert note.startswith('Your previous answer could not be used: "criteria" is missing')


# ------------------------------------------------------------------ end to end


def _goal() -> Goal:
    return Goal.model_validate(
        {
            "id": "order",
            "title": "Order a part",
            "final_tool": "place_order",
            "facts": [
                {"id": "part", "slot": "part", "value": "X1"},
                {"id": "budget", "slot": "budget", "value": 300},
            ],
            "constraints": [{"fact": "budget", "field": "total", "op": "le"}],
            "confirm_fields": ["order_id"],
        }
    )


def _setup() -> SessionSetup:
    persona = Persona(id="terse_en", name="Terse", language="en")
    return SessionSetup(
        key=SessionKey(persona="terse_en", goal="order", mode="sharded", rep=0),
        persona=persona,
        goal=_goal(),
        mode=Mode.SHARDED,
        user_seed=5,
        agent_seed=6,
    )


def _turn(
    i: int, text: str, reply: str | None, calls: list[ToolCall] | None = None, **facts: Any
) -> Turn:
    agent = None if reply is None else AgentReply(text=reply, tool_calls=calls or [])
    return Turn(index=i, user=U(text=text, disclosed=facts), agent=agent)


def _repeated(times: int) -> Transcript:
    """The user states the budget, then has to repeat it ``times`` times; the order is right."""
    order = ToolCall(
        name="place_order", args={"part": "X1"}, result={"order_id": "Q7", "total": 280}
    )
    turns = []
    for i in range(1, times + 2):
        last = i == times + 1
        reply, calls = ("Ordered: Q7, total 280.", [order]) if last else ("Your budget?", [])
        text = "Part X1, budget 300." if i == 1 else "300, as I said."
        facts: dict[str, Any] = {"part": "X1", "budget": 300} if i == 1 else {"budget": 300}
        turns.append(_turn(i, text, reply, calls, **facts))
    turns.append(Turn(index=times + 2, user=U(text="Thanks.", stop=StopSignal.DONE)))
    return Transcript(turns=turns)


def _no_feasible_option(alternative_after_empty_result: bool) -> Transcript:
    """Nothing meets the budget; the agent says so and offers another option (or never searches)."""
    search = ToolCall(name="search_parts", args={"part": "X1", "max_total": 300}, result=[])
    calls = [search] if alternative_after_empty_result else []
    reply = (
        "No X1 is available within 300. The closest is X2 at 320, or I can notify you when "
        "X1 is back. Which would you like?"
    )
    return Transcript(
        turns=[
            _turn(1, "Part X1, budget 300.", reply, calls, part="X1", budget=300),
            Turn(index=2, user=U(text="I'll think about it.", stop=StopSignal.GAVE_UP)),
        ]
    )


async def _judge(transcript: Transcript) -> tuple[Check, str]:
    """The real judge over HTTP on loopback, the fake provider playing the judge."""
    fake = FakeProvider(responder=fake_judge)
    async with fake.serve() as url:
        llm = create_llm(LLMSpec(backend="openai", base_url=url, model="judge"))
        try:
            check = await LLMJudge(llm)(_setup(), transcript, {})
        finally:
            await llm.aclose()
    [request] = fake.requests
    return check, request.last_user_text


async def test_a_fact_the_user_had_to_repeat_twice_fails_no_repeat() -> None:
    check, case = await _judge(_repeated(2))
    # the case counts the repeats by code; the judge answers the criterion from them
    assert "- budget = 300 (stated in turn 1, restated in turns 2, 3 (2 repeats))" in case
    assert check.criteria == {**HOLD, "no_repeat": False}
    assert not check.passed and check.turn == 2  # the reply before the second repeat
    assert check.detail.startswith("Broken: no_repeat. The user had to repeat budget 2 times.")


async def test_a_fact_repeated_once_is_fine() -> None:
    check, case = await _judge(_repeated(1))
    assert "- budget = 300 (stated in turn 1, restated in turn 2 (1 repeat))" in case
    assert check.passed and check.criteria == HOLD and check.turn is None


async def test_no_feasible_option_with_an_alternative_offered_passes() -> None:
    check, case = await _judge(_no_feasible_option(alternative_after_empty_result=True))
    assert '[T1] TOOL search_parts {"part":"X1","max_total":300} -> []' in case
    assert check.passed
    assert check.criteria == {**HOLD, "constraints_kept": None, "confirmed": None}


async def test_no_final_action_and_no_option_ruled_out_fails_resolved() -> None:
    check, _ = await _judge(_no_feasible_option(alternative_after_empty_result=False))
    assert not check.passed and check.turn == 1
    assert check.criteria == {
        **HOLD,
        "resolved": False,
        "constraints_kept": None,
        "confirmed": None,
    }


def test_the_rendered_case_lists_every_repeat_with_its_turn() -> None:
    case = render_case(_goal(), "en", _repeated(2))
    assert "C1. budget: the final action's `total` must be at most 300 (stated in turn 1, " in case
    assert "- part = X1 (stated in turn 1)\n" in case


def _criterion_line(text: str, cid: str) -> str:
    match = re.search(rf"^\d+\. `{cid}`.*$", text, re.MULTILINE)
    assert match is not None, cid
    return match.group(0)


# ------------------------------------------------------------------ calibration


def test_calibrate_names_the_criteria_behind_each_false_alarm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    # the judge fails reps 0 and 1, on no_repeat and on nothing named; humans pass both
    answers: list[dict[str, bool | None] | None] = [{**HOLD, "no_repeat": False}, None, HOLD, HOLD]
    with SessionWriter(run) as writer:
        for rep, criteria in enumerate(answers):
            judge = Check(passed=rep > 1, detail="r", criteria=criteria)
            writer.append(
                SessionRecord(
                    key=SessionKey(persona="p", goal="g", mode="full", rep=rep),
                    seed=rep,
                    status="ok",
                    stop_reason=StopReason.GOAL_REACHED,
                    n_user_turns=2,
                    score=100.0,
                    passed=True,
                    checks={"judge": judge},
                )
            )
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(json.dumps({"key": f"p/g/full/{rep}", "passed": True}) + "\n" for rep in range(4)),
        encoding="utf-8",
    )
    assert calibrate_cli([str(labels), str(run)]) == 0
    out = capsys.readouterr().out
    assert "passes the judge failed (2): p/g/full/0 (broken: no_repeat), p/g/full/1\n" in out


# ------------------------------------------------------------------ records


def test_criteria_are_an_addition_to_the_record_only_where_a_judge_gave_them() -> None:
    # A check without criteria writes the same keys as before the field existed, so
    # records of unjudged runs (and older readers of them) are unchanged.
    assert json.loads(Check(passed=True, detail="d").model_dump_json()) == {
        "passed": True,
        "score": None,
        "detail": "d",
        "turn": None,
    }
    # A line written before criteria existed reads on; one with them round-trips.
    old = '{"passed": false, "score": null, "detail": "r", "turn": 2}'
    assert Check.model_validate_json(old).criteria is None
    new = Check(passed=False, detail="r", turn=2, criteria={**HOLD, "confirmed": None})
    assert Check.model_validate_json(new.model_dump_json()) == new
