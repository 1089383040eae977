"""``simlab replay FILE_OR_RUN_DIR --target T --k K``: prefix replay from the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import anyio
from rich.console import Console
from rich.table import Table

from simlab._argtypes import at_least_one
from simlab.agents import TargetLoadError
from simlab.contracts import TargetFactory
from simlab.engine import target_factory
from simlab.llm import LLMError
from simlab.replay._case import PrefixCase, load_prefix_cases, save_prefix_case
from simlab.replay._import import import_logs
from simlab.replay._import_cli import add_field_options, options_from
from simlab.replay._options import FORMATS
from simlab.replay._prefix import (
    Continuation,
    PrefixResult,
    ReproductionRate,
    case_from_record,
    reproduction_rate,
    run_prefix_case,
)
from simlab.spec import (
    DEFAULT_DOMAIN,
    TARGET_FORMS,
    DomainSet,
    Goal,
    PartSpecError,
    SpecError,
    load_domains,
    load_goals,
    shipped_domains,
    suite_with_part,
)
from simlab.store import RUN_FILE, RunDirError, SessionRecord, read_run_info, read_sessions

EXIT_OK = 0
EXIT_NOTHING = 1
EXIT_USAGE = 2


def replay_parser() -> argparse.ArgumentParser:
    """The argument parser of ``simlab replay``."""
    p = argparse.ArgumentParser(
        prog="simlab replay",
        description="Cut failed conversations before their failing agent turn and replay "
        "the prefix to a target K times: how often does it keep the stated constraints?",
    )
    p.add_argument(
        "source",
        type=Path,
        help="a run directory, a log file (see --format), or prefix cases (.yaml file or dir)",
    )
    p.add_argument("--target", default="reference:v1", help=TARGET_FORMS)
    p.add_argument("--k", type=int, default=None, help="replays per case (default: the case's)")
    p.add_argument("--seed", type=int, default=0, help="seed the replays' seeds derive from")
    p.add_argument("--save-cases", type=Path, default=None, help="write each case as YAML here")
    p.add_argument(
        "--limit", type=at_least_one, default=None, help="replay at most this many cases"
    )
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="openai", help="log format")
    p.add_argument(
        "--domain",
        default=None,
        help="the domain the conversations are in, whose phrasings read their values: a "
        "shipped domain's name or a domain folder (default: a run's own domains; for logs "
        f"and saved cases the default domain, {DEFAULT_DOMAIN})",
    )
    add_field_options(p)
    return p


def replay_cli(argv: Sequence[str]) -> int:
    """Run ``simlab replay``; returns the exit code (0 ok, 1 no case, 2 bad input)."""
    args = replay_parser().parse_args(list(argv))
    if args.k is not None and args.k < 1:
        print("simlab replay: --k must be >= 1", file=sys.stderr)
        return EXIT_USAGE
    if args.save_cases is not None and args.save_cases.exists() and not args.save_cases.is_dir():
        print(
            f"simlab replay: --save-cases {args.save_cases} is a file; give a folder "
            "(each case is written there as <id>.yaml)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        world = _world(args)
        cases = _cases(args, world)
        world = world.with_cases(cases)
        make_target = _target(args.target, world)
    except (RunDirError, SpecError, ValueError, TargetLoadError, LLMError) as e:
        print(f"simlab replay: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.limit is not None:
        cases = cases[: args.limit]
    if not cases:
        print(
            "simlab replay: no failed conversation with a failing turn to replay", file=sys.stderr
        )
        return EXIT_NOTHING
    if args.save_cases is not None:
        try:
            for case in cases:
                save_prefix_case(case, args.save_cases)
        except OSError as e:
            print(
                f"simlab replay: cannot save the cases: {e.filename}: {e.strerror}", file=sys.stderr
            )
            return EXIT_USAGE
        print(f"saved {len(cases)} cases to {args.save_cases}", file=sys.stderr)

    async def run_all() -> list[PrefixResult]:
        return [
            await run_prefix_case(
                c, make_target, args.k, args.seed, domain=world.domains.of(c.domain)
            )
            for c in cases
        ]

    results = anyio.run(run_all)
    _print(cases, results, args.target)
    return EXIT_OK


@dataclass(frozen=True, slots=True)
class _World:
    """The domains a replay reads and serves: a suite's ``domains`` entries, their base."""

    entries: list[str]
    base: Path
    domains: DomainSet

    @classmethod
    def of(cls, entries: list[str], base: Path) -> _World:
        return cls(entries, base, load_domains(entries, base))

    def with_cases(self, cases: Sequence[PrefixCase]) -> _World:
        """This world with each shipped domain a saved case names and it lacks."""
        named = dict.fromkeys(c.domain for c in cases)
        missing = [n for n in named if n and not self.domains.of(n)]
        unknown = [n for n in missing if n not in shipped_domains()]
        if unknown:
            raise ValueError(
                f"the cases are in domain {unknown[0]!r}, which simlab does not ship: give its "
                "folder with --domain"
            )
        return _World.of([*self.entries, *missing], self.base) if missing else self


def _world(args: argparse.Namespace) -> _World:
    if args.domain is not None:
        return _World.of([args.domain], Path.cwd())
    src: Path = args.source
    if (src / RUN_FILE).exists():
        info = read_run_info(src)
        if info.suite_path and info.imported is None and Path(info.suite_path).is_file():
            return _World.of(list(info.suite.domains), Path(info.suite_path).parent)
    return _World.of([DEFAULT_DOMAIN], Path.cwd())


def _target(spec: str, world: _World) -> TargetFactory:
    try:
        suite = suite_with_part({"domains": world.entries}, "target", spec)
    except PartSpecError as e:
        raise ValueError(f"--target {spec}: {e}") from None
    return target_factory(suite, world.base)


def _cases(args: argparse.Namespace, world: _World) -> list[PrefixCase]:
    src: Path = args.source
    if (src / RUN_FILE).exists():
        return _cases_from_run(src, world.domains)
    if src.is_dir() and not any(src.glob("*.yaml")):
        raise ValueError(
            f"{src} holds no run.json and no prefix case (*.yaml); give a run directory, "
            "a log file or a folder of cases saved with --save-cases"
        )
    if src.is_dir() or src.suffix in (".yaml", ".yml"):
        return load_prefix_cases([src])
    if not src.is_file():
        raise ValueError(f"{src}: no such file or run directory")
    options = options_from(args, "simlab replay")
    if options is None:
        raise ValueError("invalid field options")
    logs = import_logs(src, args.fmt, options)
    for problem in logs.problems:
        print(f"skipped {problem}", file=sys.stderr)
    return _from_records(logs.records, lambda r: str(r.meta.get("source", src)), {}, world.domains)


def _cases_from_run(run_dir: Path, domains: DomainSet) -> list[PrefixCase]:
    info = read_run_info(run_dir)
    records = read_sessions(run_dir).records
    goals: dict[str, Goal] = {}
    suite_path = info.suite_path
    if suite_path and info.imported is None:
        suite = info.suite
        base = Path(suite_path).parent
        dirs = [base / d for d in suite.goal_dirs if (base / d).is_dir()]
        if dirs:
            goals = load_goals(dirs)
    return _from_records(records, lambda r: f"{run_dir}#{r.key.id}", goals, domains)


def _from_records(
    records: list[SessionRecord],
    source: Callable[[SessionRecord], str],
    goals: dict[str, Goal],
    domains: DomainSet,
) -> list[PrefixCase]:
    cases = []
    for r in records:
        if r.status != "ok" or r.passed is not False:
            continue
        goal = goals.get(r.key.goal)
        domain = domains.of(goal.domain if goal is not None else None)
        case = case_from_record(r, source(r), goal, domain=domain)
        if case is not None:
            cases.append(case)
    return cases


def _print(cases: list[PrefixCase], results: list[PrefixResult], target: str) -> None:
    console = Console(width=None if sys.stdout.isatty() else 160, highlight=False)
    table = Table(
        title=f"prefix replay against {target}: what each continuation did with the "
        "stated constraints"
    )
    cols = ("case", "turn", "constraints", "logged", "broken", "kept", "no action", "errors")
    for col in (*cols, "keep-rate", "95% CI", "restored"):
        left = col in ("case", "constraints", "logged")
        # a case id is what a user copies: whole on one line where it fits, never cut
        width = min(60, max((len(c.id) for c in cases), default=4)) if col == "case" else None
        table.add_column(col, justify="left" if left else "right", overflow="fold", min_width=width)
    for case, res in zip(cases, results, strict=True):
        rate = "-" if res.keep_rate is None else f"{100 * res.keep_rate:.1f}% of {res.n}"
        restored = "-" if not res.restored else f"{res.restored}"
        if res.diverged:
            restored += f" ({res.diverged} diverged)"
        table.add_row(
            case.id,
            str(case.failing_turn),
            ", ".join(c.describe() for c in case.constraints) or "-",
            "-" if res.logged is None else _LOGGED[res.logged],
            str(res.broken),
            str(res.kept),
            str(res.no_action),
            str(res.errors),
            rate,
            "-" if res.n == 0 else f"[{100 * res.ci[0]:.1f}, {100 * res.ci[1]:.1f}]",
            restored,
        )
    console.print(table)
    examples: list[tuple[str, Continuation]] = []
    for res in results:
        first = next((c for c in res.continuations if c.broken), None)
        if first is not None:
            examples.append((res.case_id, first))
    for case_id, c in examples[:_EXAMPLES]:
        console.print(f"{case_id}: e.g. replay {c.index}: {c.broken[0]}", soft_wrap=True)
    if len(examples) > _EXAMPLES:
        console.print(f"... and {len(examples) - _EXAMPLES} more cases with a break.")
    console.print(
        "keep-rate: continuations that acted (a successful action call) and kept every "
        "constraint, over those that acted or broke one; a continuation that neither acted "
        "nor broke anything counts as 'no action', never as kept.",
        soft_wrap=True,
    )
    _print_reproduction(console, reproduction_rate(results), len(results))


_EXAMPLES = 10
_LOGGED = {"broken": "broke", "kept": "kept", "no_action": "no action"}


def _print_reproduction(console: Console, rate: ReproductionRate, cases: int) -> None:
    if rate.n:
        assert rate.rate is not None
        lo, hi = rate.ci
        console.print(
            f"reproduced {rate.reproduced} of {rate.n} recorded constraint breaks: "
            f"{100 * rate.rate:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%] (Wilson 95%, n={rate.n} "
            "cases; a case is reproduced when most of its graded continuations break a "
            "constraint again).",
            soft_wrap=True,
        )
    else:
        console.print("no case's logged reply broke a constraint: no reproduction rate.")
    if rate.not_breaks:
        console.print(
            f"{rate.not_breaks} of {cases} cases are left out of that rate: their logged reply "
            "broke no constraint (it took no action, or the failure lies in a check prefix "
            "replay does not grade).",
            soft_wrap=True,
        )
    state = (
        f"the target rebuilt its state from the prefix in {rate.restored} of {cases} cases"
        if rate.restored
        else "the target cannot restore state (not a RestorableTarget): each replay "
        "had the prefix as its history only"
    )
    console.print(f"{state}.", soft_wrap=True)
