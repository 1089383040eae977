"""The fake provider's judge: a per-criterion verdict from what code can read in the case.

It answers simlab's judge (a rubric with criteria as the system prompt, the
case as the first user message) so judged runs and tests work offline. It reads
only what the case states mechanically, and knows three of the shipped
rubric's criteria by id:

* ``no_repeat`` is false when the FACTS section counts two or more repeats
  of one fact; its failing turn is the agent reply before the second repeat;
* ``resolved`` holds when the goal's final tool succeeded, or when a tool
  returned an empty result (no feasible option) and the agent replied after it
  (it cannot read whether that reply offered an alternative: it assumes so);
  otherwise it is false, failing at the last turn the agent replied to;
* a criterion that may not apply is null when the final tool never succeeded.

Every other criterion holds. It is a stand-in that exercises the judge's real
path (prompt, HTTP, parsing, records, reports), not a judge.
"""

from __future__ import annotations

import json
import re

from simlab.graders import Criterion, broken_criteria, rubric_criteria
from simlab.spec import SpecError
from simlab.testing._request import FakeRequest
from simlab.testing._responders import default_responder

_FINAL = re.compile(r"Completed by a successful call of the tool `([^`]+)`")
_REPEATS = re.compile(r"^- (\S+).*, restated in turns? ([\d, ]+) \((\d+) repeats?\)", re.MULTILINE)
_AGENT = re.compile(r"^\[T(\d+)\] AGENT:", re.MULTILINE)
_EMPTY = re.compile(r"^\[T(\d+)\] TOOL \S+ .* -> (\[\]|\{\})$", re.MULTILINE)


def judge_reply(request: FakeRequest) -> str | None:
    """The judge's JSON reply to ``request``, or None when it is not a judge request.

    A judge request has a system prompt naming criteria (``rubric_criteria``) and a
    first user message holding a case (``GOAL`` ... ``TRANSCRIPT``).
    """
    case = next((m.text for m in request.messages if m.role == "user"), "")
    if not case.startswith("GOAL\n") or "\nTRANSCRIPT\n" not in case:
        return None
    try:
        criteria = rubric_criteria(request.system)
    except SpecError:
        return None
    if not criteria:
        return None
    return json.dumps(_verdict(case, criteria), ensure_ascii=False)


def fake_judge(request: FakeRequest) -> str:
    """A responder that plays the judge (``judge_reply``), else the default responder."""
    judged = judge_reply(request)
    return judged if judged is not None else default_responder(request)


def _verdict(case: str, criteria: tuple[Criterion, ...]) -> dict[str, object]:
    facts, transcript = _section(case, "FACTS"), _section(case, "TRANSCRIPT")
    final = _FINAL.search(case)
    tool = re.escape(final.group(1)) if final else None
    done = tool is not None and bool(
        re.search(rf"^\[T\d+\] TOOL {tool} .* -> (?!ERROR: )", transcript, re.MULTILINE)
    )
    replied = [int(t) for t in _AGENT.findall(transcript)]
    empty = [int(t) for t, _ in _EMPTY.findall(transcript)]
    answers: dict[str, bool | None] = {}
    turns: dict[str, int] = {}
    reasons: list[str] = []
    for c in criteria:
        answers[c.id] = None if c.may_not_apply and not done else True
    if "resolved" in answers and not done:
        if empty and replied and max(replied) >= min(empty):
            reasons.append(f"No option was feasible (empty result in turn {min(empty)}).")
        else:
            answers["resolved"] = False
            turns["resolved"] = max(replied, default=1)
            reasons.append("The final action never succeeded and no option was ruled out.")
    if "no_repeat" in answers:
        for fact, repeat_turns, _count in _REPEATS.findall(facts):
            repeated = [int(t) for t in repeat_turns.split(",")]
            if len(repeated) >= 2:
                answers["no_repeat"] = False
                turn = max(1, repeated[1] - 1)
                turns["no_repeat"] = min(turns.get("no_repeat", turn), turn)
                reasons.append(f"The user had to repeat {fact} {len(repeated)} times.")
    failing = broken_criteria(answers)
    return {
        "reasoning": " ".join(reasons) or "Every criterion the case shows holds.",
        "criteria": answers,
        "first_failing_turn": min((turns[c] for c in failing if c in turns), default=None),
    }


def _section(case: str, name: str) -> str:
    """The text of the FACTS or TRANSCRIPT section of the case (the template's order)."""
    _, _, after = case.partition(f"\n{name}\n")
    return after.partition("\nTRANSCRIPT\n")[0] if name == "FACTS" else after
