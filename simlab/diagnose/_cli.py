"""``simlab diagnose RUN_DIR``: print and write the coherence diagnosis of a run."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab._argtypes import at_least_one
from simlab.agents import TargetLoadError
from simlab.diagnose._classify import DEFAULT_LATE_TURN
from simlab.diagnose._run import DEFAULT_CONCURRENCY, diagnose_run
from simlab.llm import LLMError
from simlab.report import stdout_console
from simlab.spec import SpecError
from simlab.store import (
    DIAGNOSIS_FILE,
    Confusion,
    DiagnosisReport,
    Estimate,
    RunDirError,
    Share,
)

EXIT_OK, EXIT_USAGE = 0, 2

STATES = (
    "A state is the tool the agent called (the goal's final tool first), 'propose' (other "
    "tools and a question), 'ask' (a question, no tool), 'reply' (neither); 'start': the "
    "failure is in the first turn."
)


def _pct(share: Share) -> str:
    return share.shown(0)


def causes_table(report: DiagnosisReport) -> Table:
    """Per diagnosed cause: n and the share verified by counterfactual replay."""
    table = Table(title=f"Diagnosed causes of {report.n_failed} failed sessions")
    table.add_column("cause")
    table.add_column("n", justify="right")
    table.add_column("verified", justify="right")
    table.add_column("share verified [95% CI]", justify="right")
    for row in report.causes:
        table.add_row(row.cause.value, str(row.n), str(row.verified.k), _pct(row.verified))
    v = report.verified
    table.add_row("all", str(v.n), str(v.k), _pct(v), style="bold")
    return table


def _pct1(share: Share) -> str:
    return share.shown(1)


def _est(e: Estimate | None) -> str:
    return "-" if e is None else e.shown()


def _caption(conf: Confusion) -> str:
    acc = conf.accuracy
    text = f"accuracy {acc.k}/{acc.n} = {_pct(acc)}"
    if conf.kappa is not None:
        text += f"; Cohen's kappa {_est(conf.kappa)}"
    if conf.balanced_accuracy is not None:
        text += f"; balanced accuracy {_est(conf.balanced_accuracy)}"
    if conf.majority is not None:
        text += f"; always the commonest true cause: {_pct(conf.majority)}"
    return text


def agreement_table(report: DiagnosisReport) -> Table | None:
    """Agreement with the hidden truth, reading the agent's view and as a black box."""
    named = [
        ("reads the agent's view", report.confusion),
        ("black box (view and meta withheld)", report.black_box),
    ]
    rows = [(name, c) for name, c in named if c is not None]
    if not rows:
        return None
    table = Table(
        title="Diagnosis vs the hidden true cause (95% intervals)",
        caption="kappa: agreement beyond chance (0 = always the commonest cause); balanced "
        "accuracy: mean recall over the true causes present",
    )
    table.add_column("diagnosis")
    table.add_column("n", justify="right")
    table.add_column("accuracy", justify="right")
    table.add_column("always the commonest", justify="right")
    table.add_column("Cohen's kappa", justify="right")
    table.add_column("balanced accuracy", justify="right")
    for name, c in rows:
        table.add_row(
            name,
            str(c.accuracy.n),
            _pct(c.accuracy),
            _pct(c.majority) if c.majority is not None else "-",
            _est(c.kappa),
            _est(c.balanced_accuracy),
        )
    return table


def false_verification_table(report: DiagnosisReport) -> Table | None:
    """Per cause: how often its verification rule passes on failures of another true cause."""
    if not report.false_verification:
        return None
    table = Table(
        title="Specificity of verification (every replay on every failure)",
        caption="falsely verified: failures whose true cause is another one, yet this "
        "cause's rule verifies them; verified: failures of this true cause that its rule "
        "verifies",
    )
    table.add_column("cause")
    table.add_column("other causes n", justify="right")
    table.add_column("falsely verified", justify="right")
    table.add_column("false rate [95% CI]", justify="right")
    table.add_column("own cause n", justify="right")
    table.add_column("verified [95% CI]", justify="right")
    for row in report.false_verification:
        table.add_row(
            row.cause.value,
            str(row.false.n),
            str(row.false.k),
            _pct1(row.false),
            str(row.true.n),
            _pct(row.true),
        )
    total = report.false_verification_all
    if total is not None:
        table.add_row("all", str(total.n), str(total.k), _pct1(total), "", "", style="bold")
    return table


def confusion_table(report: DiagnosisReport, black_box: bool = False) -> Table | None:
    """Diagnosed (rows) x true cause (columns), with the accuracy, kappa and balanced
    accuracy in the caption."""
    conf = report.black_box if black_box else report.confusion
    if conf is None:
        return None
    which = " as a black box" if black_box else ""
    table = Table(
        title=f"Diagnosed{which} (rows) x hidden true cause (columns)",
        caption=_caption(conf),
    )
    table.add_column("diagnosed cause")
    for label in conf.labels:
        table.add_column(label.value, justify="right")
    for label, row in zip(conf.labels, conf.matrix, strict=True):
        table.add_row(label.value, *(str(k) if k else "." for k in row))
    return table


def heatmap_table(report: DiagnosisReport) -> Table:
    """First-failure transitions: from-state (rows) x in-state (columns)."""
    heat = report.heatmap
    table = Table(
        title=f"First-failure transitions ({heat.n} sessions, first failure only)",
        caption="rows: what the agent did the turn before the first failure; columns: what "
        "it did at the first failure",
    )
    table.add_column("turn before")
    for label in heat.in_states:
        table.add_column(escape(label), justify="right")  # tool names come from the target
    for label, row in zip(heat.from_states, heat.counts, strict=True):
        table.add_row(escape(label), *(str(k) if k else "." for k in row))
    return table


def unverifiable_lines(report: DiagnosisReport) -> list[str]:
    """Why diagnosed causes stayed unverified when the target could not replay them:
    per missing knob, how many sessions and of which causes (else a 0 reads as refuted)."""
    by_why: dict[str, Counter[str]] = {}
    for s in report.sessions:
        v = s.verification
        if v is not None and not v.verified and v.outcome.startswith("cannot verify: "):
            by_why.setdefault(v.outcome.removeprefix("cannot verify: "), Counter())[
                s.cause.value
            ] += 1
    lines = []
    for why, causes in by_why.items():
        n = sum(causes.values())
        shown = ", ".join(f"{cause} {k}" for cause, k in sorted(causes.items()))
        lines.append(
            f"not verifiable in {n} session(s) ({shown}): {escape(why)}; "
            "such a cause is neither verified nor refuted; declare the knobs your agent "
            "honours to replay it (docs/guide.md, 'Let simlab diagnose verify why your "
            "agent failed')"
        )
    return lines


def headline(report: DiagnosisReport) -> str:
    """What was diagnosed: the failed sessions among the graded ones, errors set apart."""
    errors = report.n_sessions - report.n_ok
    failed = (
        f"{report.n_failed} of {report.n_ok} graded sessions failed and are diagnosed"
        if report.n_failed
        else f"none of {report.n_ok} graded sessions failed: nothing to diagnose"
    )
    text = f"run {report.run_id} ({report.target}): {failed}"
    if errors:
        text += f"; {errors} ended in an error (not graded, not diagnosed)"
    return escape(text)  # the run id and target come from run.json


def print_report(report: DiagnosisReport, console: Console) -> None:
    """The diagnosis tables, in reading order."""
    console.print(headline(report))
    if not report.n_failed:
        return
    console.print(causes_table(report))
    for line in unverifiable_lines(report):
        console.print(line)
    conf = confusion_table(report)
    if conf is not None:
        console.print(conf)
        for table in (
            confusion_table(report, black_box=True),
            agreement_table(report),
            false_verification_table(report),
        ):
            if table is not None:
                console.print(table)
    else:
        console.print(
            "no accuracy figures: the target does not report the true cause of its failures "
            "(the reference agent does)"
        )
    console.print(heatmap_table(report))
    console.print(STATES)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simlab diagnose",
        description="Diagnose why a run's sessions failed; verify each by counterfactual replay.",
    )
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"replays running at once (default {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument(
        "--late-turn",
        type=at_least_one,
        default=DEFAULT_LATE_TURN,
        help="first user turn that counts as late for instruction drift "
        f"(default {DEFAULT_LATE_TURN})",
    )
    parser.add_argument("--no-write", action="store_true", help=f"do not write {DIAGNOSIS_FILE}")
    return parser


def cli_main(argv: list[str]) -> int:
    """Run ``simlab diagnose`` with ``argv`` (the arguments after ``diagnose``).

    Returns:
        0 on success; 2 for a bad run directory or bad options, with a one-line
        message and no traceback.
    """

    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse has printed its message
        return EXIT_USAGE if e.code else EXIT_OK
    if args.concurrency < 1:
        print("error: --concurrency must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = diagnose_run(
            args.run_dir, args.concurrency, late_turn=args.late_turn, write=not args.no_write
        )
    except (RunDirError, SpecError, TargetLoadError, LLMError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    print_report(report, stdout_console())
    if not args.no_write:
        print(f"wrote {args.run_dir / DIAGNOSIS_FILE}")
    return EXIT_OK
