"""``simlab kappa LABELS_A.jsonl LABELS_B.jsonl``: how far two raters' labels agree.

Two people (or a person and a judge's export) label sessions pass/fail in the
``simlab calibrate`` label format. Over the sessions both labelled, this
prints each rater's pass rate, the observed agreement and Cohen's kappa, each
with its n and interval, the 2x2 table, and the sessions they disagree on
(reading those is how a rubric's vague spots show). Sessions only one file
labels are counted and left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab.core import escape_controls
from simlab.graders._calibration import Rate
from simlab.graders._calibration_cli import LabelsError, kappa_cells, read_labels
from simlab.stats import Kappa, cohen_kappa

EXIT_OK = 0
EXIT_USAGE = 2
_SHOWN = 10


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simlab kappa",
        description="Agreement of two label files (the simlab calibrate format) over the "
        "sessions both label: each rater's pass rate, observed agreement and Cohen's kappa.",
    )
    parser.add_argument("first", type=Path, help='LABELS_A.jsonl: {"key": ..., "passed": bool}')
    parser.add_argument("second", type=Path, help="LABELS_B.jsonl, the other rater's labels")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


@dataclass(frozen=True, slots=True)
class LabelAgreement:
    """Two label files compared over the sessions both label.

    Attributes:
        n: Sessions both files label.
        only_first: Sessions only the first file labels (left out).
        only_second: Sessions only the second file labels (left out).
        first_pass_rate: The first rater's pass rate over the common sessions.
        second_pass_rate: The second rater's.
        agreement: The share both rate alike.
        kappa: Cohen's kappa, with its interval.
        table: ``both_pass``, ``first_pass_second_fail``, ``first_fail_second_pass``, ``both_fail``.
        disagreements: The sessions they rate differently, in the first file's order.
    """

    n: int
    only_first: int
    only_second: int
    first_pass_rate: Rate
    second_pass_rate: Rate
    agreement: Rate
    kappa: Kappa
    table: dict[str, int]
    disagreements: list[str]

    def as_json(self) -> dict[str, Any]:
        """Every figure, for ``--json``."""
        return {
            "n": self.n,
            "only_first": self.only_first,
            "only_second": self.only_second,
            "first_pass_rate": self.first_pass_rate.as_json(),
            "second_pass_rate": self.second_pass_rate.as_json(),
            "agreement": self.agreement.as_json(),
            "kappa": {
                "value": self.kappa.kappa,
                "ci": list(self.kappa.ci),
                "expected": self.kappa.expected,
            },
            "table": self.table,
            "disagreements": self.disagreements,
        }


def label_agreement(first: Path, second: Path) -> LabelAgreement:
    """The agreement of two label files over the sessions both label.

    Raises:
        LabelsError: A file is unreadable or malformed, or no session is in both.
    """
    problems: list[str] = []
    read: list[dict[str, bool]] = []
    for path in (first, second):
        try:
            read.append({label.key: label.passed for label in read_labels(path)})
        except LabelsError as e:
            problems.extend(e.problems)
    if problems:
        raise LabelsError(problems)
    a, b = read
    common = [k for k in a if k in b]
    if not common:
        raise LabelsError(
            [
                f"{first} and {second} label no session in common ({len(a)} and {len(b)} "
                "labels): kappa needs the same sessions labelled by both"
            ]
        )
    pairs = [(a[k], b[k]) for k in common]
    table = {
        "both_pass": sum(1 for p, q in pairs if p and q),
        "first_pass_second_fail": sum(1 for p, q in pairs if p and not q),
        "first_fail_second_pass": sum(1 for p, q in pairs if q and not p),
        "both_fail": sum(1 for p, q in pairs if not p and not q),
    }
    n = len(common)
    return LabelAgreement(
        n=n,
        only_first=len(a) - n,
        only_second=len(b) - n,
        first_pass_rate=Rate.of(sum(p for p, _ in pairs), n),
        second_pass_rate=Rate.of(sum(q for _, q in pairs), n),
        agreement=Rate.of(table["both_pass"] + table["both_fail"], n),
        kappa=cohen_kappa([p for p, _ in pairs], [q for _, q in pairs]),
        table=table,
        disagreements=[k for k in common if a[k] != b[k]],
    )


def kappa_cli(argv: list[str]) -> int:
    """Run ``simlab kappa LABELS_A.jsonl LABELS_B.jsonl [--json]``.

    Returns:
        0 after printing; 2 for bad arguments, malformed files or no session in common.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:
        return EXIT_OK if e.code == 0 else EXIT_USAGE
    try:
        figures = label_agreement(args.first, args.second)
    except LabelsError as e:
        n = len(e.problems)
        print(f"simlab kappa: {n} problem{'s' if n != 1 else ''}:", file=sys.stderr)
        for p in e.problems:
            print(f"  {p}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(figures.as_json(), indent=2))
        return EXIT_OK
    _render(figures, _shown(str(args.first)), _shown(str(args.second)))
    return EXIT_OK


def _shown(text: str) -> str:
    """A file name or session key (from a user's file, a production log) as rich markup
    that prints it as it is: brackets escaped, control characters shown as escapes."""
    return escape(escape_controls(text))


def _render(f: LabelAgreement, first: str, second: str) -> None:
    console = Console(width=None if sys.stdout.isatty() else 160, highlight=False)
    table = Table(
        title=f"Agreement of {first} and {second} over the {f.n} sessions both label",
        title_justify="left",
    )
    for col in ("measure", "estimate", "95% interval", "n"):
        table.add_column(col, justify="left" if col == "measure" else "right")
    for name, rate in (
        (f"pass rate, {first}", f.first_pass_rate),
        (f"pass rate, {second}", f.second_pass_rate),
        ("observed agreement", f.agreement),
    ):
        lo, hi = rate.ci
        value = "n/a" if rate.value is None else f"{rate.value:.3f}"
        table.add_row(name, value, f"[{lo:.3f}, {hi:.3f}] Wilson", f"{rate.successes}/{rate.n}")
    table.add_row("Cohen's kappa", *kappa_cells(f.kappa))
    console.print(table)
    t = f.table
    chance = "n/a" if f.kappa.expected is None else f"{f.kappa.expected:.3f}"
    console.print(
        f"both pass {t['both_pass']}, both fail {t['both_fail']}, only {first} passes "
        f"{t['first_pass_second_fail']}, only {second} passes {t['first_fail_second_pass']}; "
        f"chance agreement {chance}; labelled by one file only: {f.only_first} and "
        f"{f.only_second} (left out).",
        soft_wrap=True,
    )
    keys = f.disagreements
    more = f" (+{len(keys) - _SHOWN} more)" if len(keys) > _SHOWN else ""
    shown = ", ".join(_shown(k) for k in keys[:_SHOWN]) or "-"
    console.print(f"disagreements ({len(keys)}): {shown}{more}", soft_wrap=True)
