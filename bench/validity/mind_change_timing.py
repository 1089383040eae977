"""When a mind change lands against the agent's first commitment, and what it costs.

Reads a finished run (``sessions.jsonl``) and the suite it ran, and classes each
session of a goal with mind changes by where its first mind change was stated
relative to the agent's first commitment: the first reply that proposes (reads as
a confirmation request by the domain's ``confirm_cues``) or calls the goal's final
tool.

* ``before``: the change came in the user turn the commitment answered, or earlier;
* ``after_proposal``: after a proposal, before the final tool ran;
* ``after_action``: after the final tool ran;
* ``no_commitment``: the agent never proposed nor acted;
* ``no_change``: the session's plan drew no mind change (or the goal has none).

It prints, per domain, persona group (mind-changers: ``change_mind >= 0.5``), mode
and class: sessions, passes with a Wilson 95% interval, mean score, and the user
turn of the first commitment. It explains the full-vs-sharded gap of mind-changing
personas: with an agent that anchors on its first proposal (reference v1), a change
after the commitment almost never passes, and full mode puts nearly every change
there (all facts in turn 1, so the proposal is in turn 1).

    simlab run examples/bank/reference.yaml --out results/mc
    python bench/validity/mind_change_timing.py results/mc/<run> \
        --suite examples/bank/reference.yaml
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simlab.spec import Goal, load_domains, load_goals, load_personas, load_suite
from simlab.stats import wilson_interval

CLASSES = ("no_change", "before", "after_proposal", "after_action", "no_commitment")
MIND_CHANGER = 0.5


@dataclass(frozen=True)
class Timed:
    """One session's mind-change timing."""

    domain: str
    group: str
    mode: str
    cls: str
    commit: int | None
    passed: bool
    score: float


def _first_change(goal: Goal, turns: list[dict[str, Any]]) -> int | None:
    """The user turn that first states a mind change's new value."""
    new = {(m.fact, str(m.value)) for m in goal.mind_changes}
    for t in turns:
        for fact, value in t["user"]["disclosed"].items():
            if (fact, str(value)) in new:
                return int(t["index"])
    return None


def _commitments(
    goal: Goal, turns: list[dict[str, Any]], cues: list[str]
) -> tuple[int | None, int | None]:
    """The turn of the agent's first commitment and of its first final action."""
    commit = act = None
    for t in turns:
        agent = t["agent"]
        if agent is None:
            continue
        acted = any(
            c["name"] == goal.final_tool and c["error"] is None for c in agent["tool_calls"]
        )
        if acted and act is None:
            act = int(t["index"])
        text = agent["text"].lower()
        if commit is None and (acted or any(cue in text for cue in cues)):
            commit = int(t["index"])
    return commit, act


def classify(goal: Goal, turns: list[dict[str, Any]], cues: list[str]) -> tuple[str, int | None]:
    """A session's class (see the module docstring) and its first commitment's turn."""
    fired = _first_change(goal, turns)
    commit, act = _commitments(goal, turns, cues)
    if fired is None:
        return "no_change", commit
    if commit is None:
        return "no_commitment", commit
    if fired <= commit:
        return "before", commit
    if act is not None and fired > act:
        return "after_action", commit
    return "after_proposal", commit


def timed_sessions(run: Path, suite_path: Path) -> Iterator[Timed]:
    """Every finished session of ``run`` with its class."""
    suite = load_suite(suite_path)
    base = suite_path.resolve().parent
    personas = load_personas([base / d for d in suite.persona_dirs])
    goals = load_goals([base / d for d in suite.goal_dirs])
    domains = load_domains(suite.domains, base)
    with (run / "sessions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec["status"] != "ok":
                continue
            key = rec["key"]
            persona, goal = personas[key["persona"]], goals[key["goal"]]
            domain = domains.of(goal.domain)
            assert domain is not None
            cues = [c.lower() for c in domain.languages[persona.language].confirm_cues]
            cls, commit = classify(goal, rec["transcript"]["turns"], cues)
            group = "mind-changers" if persona.traits.change_mind >= MIND_CHANGER else "others"
            yield Timed(domain.id, group, key["mode"], cls, commit, rec["passed"], rec["score"])


def _row(label: str, rows: list[Timed]) -> str:
    n, k = len(rows), sum(r.passed for r in rows)
    lo, hi = wilson_interval(k, n)
    mean = sum(r.score for r in rows) / n
    commits = Counter(r.commit for r in rows)
    shown = ", ".join(
        f"{t}:{c}" for t, c in sorted(commits.items(), key=lambda x: (x[0] is None, x[0]))
    )
    return (
        f"  {label:16} n={n:4}  pass {k:4} = {k / n:6.1%} [{lo:.1%}, {hi:.1%}]  "
        f"mean {mean:5.1f}  first commitment at turn {{{shown}}}"
    )


def main() -> None:
    """Print the table for one run."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", type=Path, help="a run folder (holds sessions.jsonl)")
    ap.add_argument("--suite", type=Path, default=Path("simlab.yaml"), help="the suite it ran")
    args = ap.parse_args()
    cells: dict[tuple[str, str, str], list[Timed]] = defaultdict(list)
    for t in timed_sessions(args.run, args.suite):
        cells[(t.domain, t.group, t.mode)].append(t)
    for (domain, group, mode), rows in sorted(cells.items()):
        print(f"{domain} {group} {mode}")
        print(_row("all", rows))
        for cls in CLASSES:
            sel = [r for r in rows if r.cls == cls]
            if sel:
                print(_row(cls, sel))


if __name__ == "__main__":
    main()
