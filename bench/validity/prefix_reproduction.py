"""Prefix replay on recorded failures of a stateful target: how many does it reproduce?

Runs the default suite (``simlab.yaml``, ``reference:v1``, whose anchoring keeps
state across turns), cuts every failed session before the agent turn that
failed, and replays each prefix K times to ``reference:v1`` twice: once as a
``RestorableTarget`` (it re-lives the prefix with the logged session's seed,
then answers) and once through a wrapper that hides ``restore`` (a fresh agent
given the prefix as history only). For each it prints what the continuations
did (broke a constraint, acted and kept every one, took no action) and the
reproduction rate of the recorded breaks with its Wilson interval and n.

    python bench/validity/prefix_reproduction.py [--k 10] [--seed N] [--out DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio

from simlab.agents.reference import reference_agent
from simlab.contracts import SessionSetup, TargetAgent
from simlab.core import AgentCapabilities, AgentReply, Message, SessionContext
from simlab.replay import (
    PrefixCase,
    PrefixResult,
    case_from_record,
    reproduction_rate,
    run_prefix_case,
)
from simlab.spec import load_goals, load_suite, suite_domains
from simlab.store import read_sessions

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "simlab.yaml"
SPEC = load_suite(SUITE)
DOMAINS = suite_domains(SPEC, SUITE)
"""The default suite's domains: each case is replayed to the agent of its own."""


class Forgetful:
    """``reference:v1`` without its restore: the prefix is its history only."""

    def __init__(self, setup: SessionSetup) -> None:
        self._agent = reference_agent("v1", setup.agent_seed, DOMAINS.of(setup.goal.domain))
        self.capabilities: AgentCapabilities = self._agent.capabilities

    async def reply(self, history: Sequence[Message], ctx: SessionContext) -> AgentReply:
        """The wrapped agent's reply."""
        return await self._agent.reply(history, ctx)


def restoring(setup: SessionSetup) -> TargetAgent:
    """``reference:v1`` as shipped: a ``RestorableTarget``."""
    return reference_agent("v1", setup.agent_seed, DOMAINS.of(setup.goal.domain))


def forgetful(setup: SessionSetup) -> TargetAgent:
    """``reference:v1`` with its restore hidden."""
    return Forgetful(setup)


def cases_of(run_dir: Path) -> list[PrefixCase]:
    """One prefix case per failed session with a failing turn."""
    goals = load_goals([SUITE.parent / d for d in SPEC.goal_dirs])
    cases = []
    for r in read_sessions(run_dir).records:
        if r.status == "ok" and r.passed is False:
            goal = goals[r.key.goal]
            domain = DOMAINS.of(goal.domain)
            case = case_from_record(r, f"{run_dir}#{r.key.id}", goal, domain=domain)
            if case is not None:
                cases.append(case)
    return cases


def report(name: str, results: list[PrefixResult]) -> None:
    """Print one target's outcomes and reproduction rate."""
    rate = reproduction_rate(results)
    broken = sum(r.broken for r in results)
    kept = sum(r.kept for r in results)
    none = sum(r.no_action for r in results)
    errors = sum(r.errors for r in results)
    print(f"{name}:")
    print(
        f"  continuations: {broken} broke a constraint, {kept} acted and kept them, "
        f"{none} took no action, {errors} errors"
    )
    lo, hi = rate.ci
    share = 0.0 if rate.rate is None else rate.rate
    print(
        f"  reproduced {rate.reproduced} of {rate.n} recorded constraint breaks: "
        f"{100 * share:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%] (Wilson 95%, n={rate.n} cases); "
        f"{rate.not_breaks} cases whose logged reply broke no constraint left out; "
        f"state restored in {rate.restored} cases"
    )


def main() -> None:
    """Run the default suite, replay its failures with and without restore, print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=10, help="replays per case")
    parser.add_argument("--seed", type=int, default=None, help="the run's seed (suite's default)")
    parser.add_argument("--out", type=Path, default=None, help="keep the run here")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="simlab-prefix-"))
    cmd = [sys.executable, "-m", "simlab.cli", "run", str(SUITE), "--out", str(out)]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    subprocess.run([*cmd, "--quiet"], check=True, capture_output=True)
    (run_dir,) = sorted(out.iterdir())[-1:]
    cases = cases_of(run_dir)
    print(f"{run_dir}: {len(cases)} failed sessions cut before their failing turn, k={args.k}")

    async def replay_all(make: Callable[[SessionSetup], TargetAgent]) -> list[PrefixResult]:
        return [
            await run_prefix_case(c, make, args.k, seed=0, domain=DOMAINS.of(c.domain))
            for c in cases
        ]

    report("reference:v1, restoring its state", anyio.run(replay_all, restoring))
    report("reference:v1, prefix as history only", anyio.run(replay_all, forgetful))


if __name__ == "__main__":
    main()
