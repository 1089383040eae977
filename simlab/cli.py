"""The ``simlab`` command line."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.abc
import anyio.lowlevel
from rich.console import Console

from simlab._argtypes import at_least_one
from simlab.agents import HttpAgentError, TargetLoadError
from simlab.api import PartError
from simlab.core import simlab_version
from simlab.llm import LLMError
from simlab.spec import SPEC_KINDS, SpecError, parse_executor
from simlab.store import RunDirError, RunSummary

if TYPE_CHECKING:
    from simlab.engine import RunPlan
    from simlab.store import SessionsFile

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
T = TypeVar("T")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``simlab`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # SIGTERM ends like Ctrl-C from the first moment, start-up included (a run
    # replaces both while its sessions run, to cancel them cleanly).
    previous = _on_sigterm(_raise_interrupt)
    try:
        return _dispatch(argv)
    except KeyboardInterrupt:
        _eprint("\ninterrupted")
        return EXIT_INTERRUPTED
    finally:
        _on_sigterm(signal.SIG_DFL if previous is None else previous)


def _dispatch(argv: list[str]) -> int:
    try:
        if argv and argv[0] in _DELEGATED:  # these parse their own options
            return _DELEGATED[argv[0]](argv[1:])
        parser = _parser()
        args = parser.parse_args(argv)
        if not hasattr(args, "handler"):
            parser.print_help()
            return EXIT_USAGE
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except SpecError as e:
        n = len(e.problems)
        _eprint(f"{n} problem{'s' if n != 1 else ''}:")
        for p in e.problems:
            _eprint(f"  {p}")
        return EXIT_USAGE
    except (RunDirError, TargetLoadError, LLMError, HttpAgentError, PartError) as e:
        _eprint(f"error: {e}")
        return EXIT_USAGE
    except OSError as e:  # a path that is a folder, a file, unreadable: say which, no traceback
        _eprint(os_error_message(e))
        return EXIT_USAGE


_OS_ERROR_FIXES: dict[type[OSError], str] = {
    FileNotFoundError: "check the path",
    IsADirectoryError: "a folder is in the way: move it or choose another path",
    NotADirectoryError: "part of the path is a file, not a folder: choose another path",
    FileExistsError: "something is already there: move it or choose another path",
    PermissionError: "check the permissions of the file and its folder",
}


def os_error_message(e: OSError) -> str:
    """``error: <path>: <why>; <fix>`` for a file system error (no errno: its own text)."""
    if e.errno is None or e.filename is None:
        return f"error: {e}"
    where = str(e.filename) if e.filename2 is None else f"{e.filename} -> {e.filename2}"
    fix = next((text for kind, text in _OS_ERROR_FIXES.items() if isinstance(e, kind)), None)
    return f"error: {where}: {e.strerror}" + (f"; {fix}" if fix else "")


def _not_a_folder(path: Path, option: str) -> str | None:
    """Why ``path`` cannot be the output folder of ``option``, or None when it can."""
    if path.exists() and not path.is_dir():
        return f"error: {option} {path} is a file, not a folder; give a folder (it is created)"
    return None


def _on_sigterm(handler: Any) -> Any:
    """Install ``handler`` for SIGTERM; the one it replaced (a no-op off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _eprint(text: str) -> None:
    # Plain writes, not rich: messages with file:line must never be wrapped.
    print(text, file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simlab", description="Stress-test conversational agents with simulated users."
    )
    parser.add_argument("--version", action="version", version=f"simlab {simlab_version()}")
    sub = parser.add_subparsers(metavar="COMMAND")

    run = sub.add_parser("run", help="run a suite (default: simlab.yaml) and report")
    run.add_argument("suite", nargs="?", type=Path, default=None, help="suite file")
    run.add_argument("--seed", type=int, default=None, help="override the suite's seed")
    run.add_argument(
        "--target",
        default=None,
        metavar="SPEC",
        help="the agent to test, over the suite's `target:`: reference:VERSION, module:attr "
        "(a Python callable or class, found from the suite's folder) or an http(s):// URL; "
        "one suite then tests each release",
    )
    run.add_argument(
        "--reps", type=at_least_one, default=None, help="override the suite's repetitions"
    )
    run.add_argument(
        "--llm",
        action="append",
        default=[],
        metavar="[ROLE=]BACKEND[:MODEL]",
        help="LLM roles: 'anthropic' for every role, or user=/agent=/judge= one role "
        "(backends: anthropic, openai, local, replay); repeatable",
    )
    run.add_argument("--out", type=Path, default=Path("results"), help="results folder")
    run.add_argument(
        "--resume", type=Path, default=None, metavar="RUN_DIR", help="continue an interrupted run"
    )
    run.add_argument(
        "--retry-errors",
        action="store_true",
        help="with --resume: also run again, with the same seed, every session whose status is "
        "error (infra_error, agent_error including turn timeouts, simulator_error); graded "
        "sessions are never re-run. The new record is appended and supersedes the error",
    )
    run.add_argument(
        "--executor",
        type=_executor_arg,
        default=None,
        metavar="local|ray[:ADDRESS]",
        help="where sessions run, over the suite's `executor:`: this process (local) or "
        "Ray workers (ray starts a local cluster, ray:auto or ray:HOST:PORT joins one; "
        "pip install 'simlab[ray]'); records do not depend on it",
    )
    run.add_argument(
        "--quiet", action="store_true", help="no progress bar or tables: the overall line only"
    )
    run.add_argument(
        "--junit",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the sessions as JUnit XML",
    )
    run.add_argument(
        "--yes", action="store_true", help="start a run past --confirm-above without asking"
    )
    run.add_argument(
        "--confirm-above",
        type=at_least_one,
        default=100_000,
        metavar="N",
        help="ask (or want --yes) before running more than N sessions, saying how long, how "
        "much disk and memory they will take (default 100000)",
    )
    run.set_defaults(handler=_cmd_run)

    report = sub.add_parser("report", help="re-render a run's reports from its files alone")
    report.add_argument("run_dir", type=Path)
    report.add_argument(
        "--tracebacks",
        action="store_true",
        help="show error sessions' tracebacks (local paths, code) in report.html; by default "
        "only their error's type and message are published",
    )
    report.set_defaults(handler=_cmd_report)

    init = sub.add_parser(
        "init", help="write a small working project (domain, personas, goals, suite, agent)"
    )
    init.add_argument(
        "dir", nargs="?", type=Path, default=Path("."), help="the project folder (default: here)"
    )
    init.add_argument(
        "--force", action="store_true", help="write into a non-empty folder, replacing same names"
    )
    init.set_defaults(handler=_cmd_init)

    validate = sub.add_parser(
        "validate", help="check persona, goal, suite, perturbation and agent files"
    )
    validate.add_argument(
        "paths", nargs="*", type=Path, help="files or folders (default: " + _DEFAULT_SPECS + ")"
    )
    validate.add_argument(
        "--kind",
        choices=SPEC_KINDS,
        default=None,
        help="read every file as this kind (default: from its folder's name, else its fields)",
    )
    validate.set_defaults(handler=_cmd_validate)

    # Listed for --help; main() hands their arguments to their own parsers.
    sub.add_parser("fake-provider", help="serve a fake Anthropic/OpenAI LLM provider on loopback")
    sub.add_parser("memory-test", help="check a memory store: simlab memory-test module:Factory")
    sub.add_parser("brittleness", help="cumulative perturbations until each session breaks")
    sub.add_parser("calibrate", help="judge vs human labels: simlab calibrate LABELS.jsonl RUN_DIR")
    sub.add_parser("kappa", help="agreement of two label files: simlab kappa A.jsonl B.jsonl")
    sub.add_parser("compare", help="compare two runs with gates: simlab compare RUN_A RUN_B")
    sub.add_parser("diagnose", help="why sessions failed, verified by counterfactual replay")
    sub.add_parser("import", help="production logs to a run: simlab import FILE --format openai")
    sub.add_parser("runs", help="the runs in results/, their headline figures and the trend")
    sub.add_parser("replay", help="replay a failing prefix K times to a target: simlab replay")
    sub.add_parser("routing", help="cost and risk of per-step model routing: simlab routing RUNS")

    schema = sub.add_parser(
        "schema", help="write JSON schemas of the YAML files (for editors) and of the run files"
    )
    schema.add_argument("--out", type=Path, default=Path("schemas"))
    schema.set_defaults(handler=_cmd_schema)
    return parser


def _executor_arg(text: str) -> str:
    try:
        parse_executor(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _fake_provider(argv: list[str]) -> int:
    from simlab.testing import cli_main

    return cli_main(argv)


def _memory_test(argv: list[str]) -> int:
    from simlab.memory import cli_main

    return cli_main(argv)


def _brittleness(argv: list[str]) -> int:
    from simlab.perturb import cli_main

    return cli_main(argv)


def _calibrate(argv: list[str]) -> int:
    from simlab.graders import calibrate_cli

    return calibrate_cli(argv)


def _kappa(argv: list[str]) -> int:
    from simlab.graders import kappa_cli

    return kappa_cli(argv)


def _compare(argv: list[str]) -> int:
    from simlab.compare import cli_main

    return cli_main(argv)


def _diagnose(argv: list[str]) -> int:
    from simlab.diagnose import cli_main

    return cli_main(argv)


def _import(argv: list[str]) -> int:
    from simlab.replay import import_cli

    return import_cli(argv)


def _replay(argv: list[str]) -> int:
    from simlab.replay import replay_cli

    return replay_cli(argv)


def _routing(argv: list[str]) -> int:
    from simlab.routing import cli_main

    return cli_main(argv)


def _runs(argv: list[str]) -> int:
    from simlab.report import runs_cli

    return runs_cli(argv)


_DELEGATED: dict[str, Callable[[list[str]], int]] = {
    "fake-provider": _fake_provider,
    "memory-test": _memory_test,
    "brittleness": _brittleness,
    "calibrate": _calibrate,
    "kappa": _kappa,
    "compare": _compare,
    "diagnose": _diagnose,
    "import": _import,
    "replay": _replay,
    "routing": _routing,
    "runs": _runs,
}
"""Commands that parse their own options (each imports its package when used)."""


# ------------------------------------------------------------------ run


def _cmd_run(args: argparse.Namespace) -> int:
    from simlab.api import RunInterrupted, execute_plan
    from simlab.engine import target_label
    from simlab.report import analysis_tables, overall_line, render_terminal, stdout_console

    run_plan = _plan_run(args)
    if run_plan is None:
        return EXIT_USAGE
    if not _large_run_confirmed(run_plan, args):
        if args.resume is None:
            _discard_if_empty(run_plan)
        return EXIT_USAGE
    # never a surprise which agent runs
    _eprint(f"target: {run_plan.overrides.target_name or target_label(run_plan.suite)}")
    sigterm = signal.getsignal(signal.SIGTERM)
    work = execute_plan(run_plan, progress=not args.quiet, junit=args.junit, say=_eprint, slim=True)
    signalled = False
    try:
        result, signalled = anyio.run(_until_signalled, work)
    except (KeyboardInterrupt, RunInterrupted):
        result = None
    except Exception:
        _discard_if_empty(run_plan)  # a run that could not start leaves no folder behind
        raise
    finally:
        # the loop's signal receiver left SIGTERM at its default on exit: what follows
        # must still end like Ctrl-C
        _on_sigterm(sigterm)
    if result is None:
        resume = f"  simlab run --resume {run_plan.run_dir}"
        resume += " --retry-errors" if run_plan.retried else ""
        _eprint(f"\ninterrupted; every finished session is saved. Continue with:\n{resume}")
        return EXIT_INTERRUPTED
    summary = result.summary
    if not args.quiet:
        render_terminal(summary, stdout_console(), analysis_tables(run_plan.run_dir))
    else:  # no tables, but the headline with its n and interval
        _eprint(overall_line(summary))
    _eprint(f"results: {run_plan.run_dir}")
    if signalled:  # it came while the reports were written: they are whole, the run ran
        _eprint("interrupted after every session ran and the reports were written")
        return EXIT_INTERRUPTED
    ungraded = _nothing_graded(summary, run_plan.run_dir)
    if ungraded is not None:
        _eprint(ungraded)
        return EXIT_FAIL
    return EXIT_OK


def _large_run_confirmed(plan: RunPlan, args: argparse.Namespace) -> bool:
    """Whether a run past ``--confirm-above`` sessions may start: ``--yes``, or a yes
    typed at a terminal, after an estimate of its time, disk and memory."""
    from simlab.engine import estimate_run

    n = len(plan.pending)
    if n <= args.confirm_above:
        return True
    estimate = anyio.run(estimate_run, plan)
    _eprint(f"this run is large: {estimate.describe()}")
    if args.yes:
        return True
    if not sys.stdin.isatty():
        _eprint(
            f"error: {n:,} sessions is past --confirm-above {args.confirm_above:,}; pass --yes "
            "to start it, or lower --reps"
        )
        return False
    answer = input("start it? [y/N] ").strip().lower()
    if answer in ("y", "yes"):
        return True
    _eprint("not started")
    return False


def _discard_if_empty(run_plan: Any) -> None:
    import shutil

    from simlab.store import SESSIONS_FILE

    sessions = run_plan.run_dir / SESSIONS_FILE
    if not run_plan.done and (not sessions.exists() or sessions.stat().st_size == 0):
        shutil.rmtree(run_plan.run_dir, ignore_errors=True)


def _nothing_graded(summary: RunSummary, run_dir: Path) -> str | None:
    """Why a run that graded no session failed, or None when one was graded.

    A run whose every session errored measured nothing about the target: exit 1,
    so a script does not take its empty report for a result.
    """
    n = summary.overall.n_sessions or 0
    if summary.overall.n or not n:
        return None
    first = next(iter(summary.errors.by_stop_reason.items()), None)
    why = ""
    if first is not None:
        reason, seen = first
        from simlab.report import escape_controls  # a target's text: inert in a terminal

        text = next(iter(seen.examples), "")[:160]
        example = escape_controls(text).replace("\n", "\\n")  # one line on stderr
        why = f" (e.g. {reason}: {example})" if example else f" (e.g. {reason})"
    return (
        f"error: no session was graded: all {n} ended in error{why}; fix the cause and run "
        f"again (after an outage: simlab run --resume {run_dir} --retry-errors)"
    )


def _plan_run(args: argparse.Namespace) -> RunPlan | None:
    """The run to execute (new or resumed), or None when the options clash (said on stderr)."""
    from simlab.api import plan

    if args.resume is None:
        if args.retry_errors:
            _eprint(
                "error: --retry-errors needs --resume RUN_DIR: it re-runs an earlier run's errors"
            )
            return None
        problem = _not_a_folder(args.out, "--out")
        if problem is not None:
            _eprint(problem)
            return None
        suite = args.suite if args.suite is not None else _suite_here_or_shipped()
        return plan(
            suite,
            target=args.target,
            out=args.out,
            seed=args.seed,
            reps=args.reps,
            llm=args.llm,
            executor=args.executor,
        )
    clashing = [
        flag
        for flag, value in (
            ("--seed", args.seed),
            ("--reps", args.reps),
            ("--llm", args.llm),
            ("--target", args.target),
        )
        if value
    ]
    if clashing:
        _eprint(
            f"error: {', '.join(clashing)} cannot change a run being resumed (it keeps the "
            "options it started with); start a new run to use them"
        )
        return None
    run_plan = plan(
        args.suite, resume=args.resume, retry_errors=args.retry_errors, executor=args.executor
    )
    line = (
        f"resuming {run_plan.run_dir}: {len(run_plan.done)} of {len(run_plan.jobs)} sessions done"
    )
    if args.retry_errors:
        line += f"; retrying {len(run_plan.retried)} error session{_s(len(run_plan.retried))}"
    _eprint(line)
    return run_plan


def _suite_here_or_shipped() -> Path:
    """``./simlab.yaml``, or the shipped default suite when this folder has none (said)."""
    from simlab.spec import DEFAULT_SUITE, default_suite

    here = Path(DEFAULT_SUITE)
    if here.exists():
        return here
    shipped = default_suite()
    _eprint(f"no {DEFAULT_SUITE} here: running the shipped default suite ({shipped})")
    return shipped


def _s(n: int) -> str:
    return "" if n == 1 else "s"


async def _until_signalled(work: Awaitable[T]) -> tuple[T | None, bool]:
    """``work``'s result (None when Ctrl-C or SIGTERM cancelled it), and whether such a
    signal came at all: one that came while the last of ``work`` ran without awaiting
    (the reports are written so) finds it done, and the run still ends as interrupted.

    Cancelling (instead of letting KeyboardInterrupt tear through the event
    loop) lets the run close its files and clients on the way out.
    """
    result: list[T] = []
    signalled: list[int] = []

    async def run(tg: anyio.abc.TaskGroup) -> None:
        result.append(await work)
        # a signal that came during synchronous work is handed over at the loop's next
        # turns: let the watcher see it before it is cancelled
        for _ in range(3):
            await anyio.lowlevel.checkpoint()
        tg.cancel_scope.cancel()

    async def watch(tg: anyio.abc.TaskGroup) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                signalled.append(signum)
                tg.cancel_scope.cancel()
                return

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch, tg)
            tg.start_soon(run, tg)
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:  # say what went wrong, not that a task group failed
            raise group.exceptions[0] from None
        raise
    return (result[0] if result else None), bool(signalled)


# ------------------------------------------------------------------ reports


def _write_reports(
    run_dir: Path,
    sessions: Sequence[Any] | SessionsFile | None,
    console: Console | None,
    tracebacks: bool = False,
) -> RunSummary:
    """Write the run's reports, print the summary and return it; ``sessions`` saves a re-read."""
    from simlab.report import analysis_tables, render_terminal, write_run_reports
    from simlab.store import SessionsFile

    if isinstance(sessions, SessionsFile):
        summary = write_run_reports(run_dir, sessions.records, sessions.replaced, tracebacks)
    else:
        summary = write_run_reports(run_dir, sessions, tracebacks=tracebacks)
    if console is not None:
        render_terminal(summary, console, analysis_tables(run_dir))
    return summary


def _cmd_report(args: argparse.Namespace) -> int:
    from simlab.report import stdout_console
    from simlab.store import has_sessions, read_run_info

    read_run_info(args.run_dir)  # a missing folder or a file says so, not "no sessions"
    if not has_sessions(args.run_dir):  # the reports read the file: not twice
        raise RunDirError(f"{args.run_dir} has no finished sessions to report on")
    _write_reports(args.run_dir, None, stdout_console(), args.tracebacks)  # reads it slim
    return EXIT_OK


# ------------------------------------------------------------------ specs


def _cmd_init(args: argparse.Namespace) -> int:
    from simlab.spec import shipped_guide, write_starter

    dest: Path = args.dir
    if dest.exists() and not dest.is_dir():
        _eprint(f"error: {dest} is a file, not a folder; give a new or empty folder")
        return EXIT_USAGE
    there = sorted(p.name for p in dest.iterdir()) if dest.is_dir() else []
    if there and not args.force:
        shown = ", ".join(there[:5]) + (", ..." if len(there) > 5 else "")
        _eprint(
            f"error: {dest} is not empty ({len(there)} entr{'ies' if len(there) != 1 else 'y'}: "
            f"{shown}); give a new or empty folder, or pass --force to write the project "
            "into it (files of the same name are replaced)"
        )
        return EXIT_USAGE
    written = write_starter(dest)
    _eprint(f"wrote {len(written)} files in {dest}:")
    for path in written:
        if path.parts[0] != "schemas":
            _eprint(f"  {path.as_posix()}")
    _eprint("  schemas/ (editor schemas for the YAML files)")
    cd = "" if dest.resolve() == Path.cwd().resolve() else f"cd {dest} && "
    _eprint(f"next: {cd}simlab run   (then read results/<run>/report.md)")
    _eprint(f"guide: {shipped_guide()}   (your agent, your domain, personas, goals, the report)")
    return EXIT_OK


_DEFAULT_SPECS = "domains/, personas/, goals/, perturbations/, simlab.yaml"


def _cmd_validate(args: argparse.Namespace) -> int:
    from collections import Counter

    from simlab.spec import SPEC_KINDS, validate_specs

    paths = args.paths or _specs_here_or_shipped()
    result = validate_specs(paths, args.kind)
    for warning in result.warnings:
        _eprint(f"warning: {warning}")
    if not result.files and not result.problems:
        where = ", ".join(map(str, paths))
        _eprint(f"error: no spec files (*.yaml, *.yml) found in {where}; give files or folders")
        return EXIT_USAGE
    if result.problems:
        wrong = {p.file for p in result.problems}
        for f in result.files:
            if f.guessed and str(f.path) in wrong:  # its problems may be those of another kind
                _eprint(
                    f"{f.path}: checked as a {f.kind}, {f.why}; if it is another kind, pass "
                    f"--kind {'|'.join(SPEC_KINDS)}"
                )
        raise SpecError(result.problems)
    kinds = Counter(f.kind for f in result.files)
    domains = len({f.path.parent.resolve() for f in result.files if f.kind == "domain"})
    counts = ", ".join(
        f"{domains} domain{_s(domains)} ({n} files)"
        if kind == "domain" and n != domains  # a domain's folder may hold several files
        else f"{n} {kind}{_s(n)}"
        for kind, n in sorted(kinds.items())
    )
    _eprint(f"{len(result.files)} file{_s(len(result.files))} valid: {counts}")
    return EXIT_OK


def _specs_here_or_shipped() -> list[Path]:
    """The default spec paths found here, or the shipped ones when none is here (said)."""
    from simlab.spec import DEFAULT_SUITE, shipped_root

    defaults = [Path(p.strip()) for p in _DEFAULT_SPECS.split(",")]
    here = [p for p in defaults if p.exists()]
    if here:
        return here
    root = shipped_root()
    _eprint(
        f"no {DEFAULT_SUITE} here: validating the shipped default suite and its library ({root})"
    )
    return [root / p for p in defaults]


def _cmd_schema(args: argparse.Namespace) -> int:
    from simlab.diagnose import DiagnosisReport
    from simlab.spec import AgentSpec, DomainFile, Goal, Persona, Perturbation, Suite
    from simlab.store import (
        Brittleness,
        ChainRerun,
        PrefixCases,
        RunInfo,
        RunSummary,
        SessionRecord,
    )

    problem = _not_a_folder(args.out, "--out")
    if problem is not None:
        _eprint(problem)
        return EXIT_USAGE
    args.out.mkdir(parents=True, exist_ok=True)
    models: list[tuple[str, type[Any]]] = [
        ("persona", Persona),
        ("goal", Goal),
        ("suite", Suite),
        ("perturbation", Perturbation),
        ("agent", AgentSpec),
        ("domain", DomainFile),
        # the files a run writes: run.json, each line of sessions.jsonl, summary.json,
        # diagnosis.json, brittleness.json (and each line of brittleness_sessions.jsonl),
        # prefix_cases.json
        ("run", RunInfo),
        ("session", SessionRecord),
        ("summary", RunSummary),
        ("diagnosis", DiagnosisReport),
        ("brittleness", Brittleness),
        ("prefix_cases", PrefixCases),
        ("brittleness_session", ChainRerun),
    ]
    for name, model in models:
        path = args.out / f"{name}.schema.json"
        path.write_text(json.dumps(model.model_json_schema(), indent=2) + "\n", encoding="utf-8")
        _eprint(f"wrote {path}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
