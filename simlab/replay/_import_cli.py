"""``simlab import FILE --format openai|anthropic|otel``: logs into a run directory."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from simlab.replay._import import check_run_id, import_logs, write_run
from simlab.replay._options import FORMATS, ImportOptions
from simlab.replay._source import LogFileError
from simlab.report import render_terminal, write_run_reports
from simlab.store import RunDirError

EXIT_OK = 0
EXIT_NOTHING = 1
EXIT_USAGE = 2


def import_parser() -> argparse.ArgumentParser:
    """The argument parser of ``simlab import``."""
    p = argparse.ArgumentParser(
        prog="simlab import",
        description="Import logged conversations as a run directory (pass^k, aptitude, "
        "unreliability and length buckets then work on them).",
    )
    p.add_argument("file", type=Path, help="JSONL, one JSON array, or (otel) an OTLP JSON export")
    p.add_argument("--format", dest="fmt", choices=FORMATS, default="openai")
    p.add_argument("--out", type=Path, default=Path("results"), help="parent of the run directory")
    p.add_argument(
        "--run-id",
        type=_run_id,
        default=None,
        help="name of the run directory inside --out (default: dated)",
    )
    add_field_options(p)
    p.add_argument("--quiet", action="store_true", help="print only the summary line")
    return p


def _run_id(text: str) -> str:
    try:
        return check_run_id(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_field_options(p: argparse.ArgumentParser) -> None:
    """The options naming a record's fields, the threshold and span grouping."""
    for name, what in (
        ("messages", "the list of messages"),
        ("task-id", "the task id"),
        ("trial", "the trial index"),
        ("reward", "a numeric reward"),
        ("label", "a pass/fail label"),
        ("failing-turn", "the 1-based user turn whose agent reply failed"),
    ):
        p.add_argument(f"--{name}-field", default=None, help=f"dotted path of {what}")
    p.add_argument("--threshold", type=float, default=1.0, help="reward >= this passes")
    p.add_argument("--max-reward", type=float, default=1.0, help="the reward that scores 100")
    p.add_argument(
        "--group-by",
        choices=("conversation", "trace"),
        default="conversation",
        help="otel: group spans by gen_ai.conversation.id (else trace id), or by trace id",
    )


def options_from(args: argparse.Namespace, prog: str) -> ImportOptions | None:
    """``ImportOptions`` from parsed arguments; None (after saying why) when invalid."""
    try:
        return ImportOptions(
            messages_field=args.messages_field,
            task_id_field=args.task_id_field,
            trial_field=args.trial_field,
            reward_field=args.reward_field,
            label_field=args.label_field,
            failing_turn_field=args.failing_turn_field,
            threshold=args.threshold,
            max_reward=args.max_reward,
            group_by=args.group_by,
        )
    except ValidationError as e:
        err = e.errors()[0]
        print(f"{prog}: --{str(err['loc'][0]).replace('_', '-')}: {err['msg']}", file=sys.stderr)
        return None


def import_cli(argv: Sequence[str]) -> int:
    """Run ``simlab import``; returns the exit code.

    Prints each skipped record with ``file:line`` and why, then
    ``N imported, M skipped`` and the run directory, and writes its report.
    Exit 0 when something was imported; 1 when the file holds JSON records but
    none could be imported (each is listed with why); 2 on bad usage or when
    the file is no log at all (empty, no JSON value, not UTF-8, a folder).
    """
    args = import_parser().parse_args(list(argv))
    refused = _usage_problem(args)
    if refused is not None:
        print(f"simlab import: {refused}", file=sys.stderr)
        return EXIT_USAGE
    options = options_from(args, "simlab import")
    if options is None:
        return EXIT_USAGE
    try:
        logs = import_logs(args.file, args.fmt, options)
    except LogFileError as e:
        print(f"simlab import: {e}", file=sys.stderr)
        return EXIT_USAGE
    for problem in logs.problems:
        print(f"skipped {problem}", file=sys.stderr)
    print(logs.summary_line(), file=sys.stderr)
    if not logs.n_values:  # not one JSON value: whatever it is, it is no log
        print(
            f"simlab import: {args.file} holds no JSON record; a log is JSONL (one JSON "
            "object per line), one JSON array, or (otel) an OTLP JSON export",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not logs.records:
        return EXIT_NOTHING
    try:
        run_dir = write_run(logs, args.out, args.run_id)
    except RunDirError as e:
        print(f"simlab import: {e}", file=sys.stderr)
        return EXIT_USAGE
    _report(run_dir, quiet=args.quiet)
    print(f"results: {run_dir}", file=sys.stderr)
    return EXIT_OK


def _usage_problem(args: argparse.Namespace) -> str | None:
    """Why the paths given cannot work, before any reading: the log, --out, --run-id."""
    if args.file.is_dir():
        return f"{args.file} is a directory; give a log file (JSONL or JSON)"
    if not args.file.is_file():
        return f"{args.file}: no such file"
    if args.out.exists() and not args.out.is_dir():
        return f"--out {args.out} is a file, not a folder; give a folder for the run"
    if args.run_id is not None and (args.out / args.run_id).exists():
        return f"{args.out / args.run_id} already exists; choose another --run-id or move it"
    return None


def _report(run_dir: Path, quiet: bool) -> None:
    """The reports every run has (summary.json, report.md, report.html), as ``simlab report``."""
    from rich.console import Console

    summary = write_run_reports(run_dir)
    if not quiet:
        render_terminal(summary, Console(width=None if sys.stdout.isatty() else 160))
