"""``simlab calibrate LABELS.jsonl RUN_DIR``: the judge against human labels.

LABELS.jsonl holds one human label per line::

    {"key": "terse_en/one_way/sharded/3", "passed": true}
    {"key": {"persona": "terse_en", "goal": "one_way", "mode": "full", "rep": 0}, "passed": false}

with an optional ``"note"`` string. The judge's verdicts are the ``judge``
checks of RUN_DIR's ``sessions.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab.core import SessionKey, escape_controls
from simlab.graders._calibration import DEFAULT_BOOTSTRAP, CalibrationReport, Rate, calibrate
from simlab.graders._judge import JUDGE
from simlab.graders._label_split import DEFAULT_DEV_SHARE, split_keys
from simlab.graders._rubric import broken_criteria
from simlab.stats import Kappa
from simlab.store import SESSIONS_FILE, RunDirError, SessionRecord, read_sessions

EXIT_OK = 0
EXIT_USAGE = 2

_LABEL_FIELDS = ("key", "passed", "note")


class LabelsError(Exception):
    """Labels or a run that cannot be compared; ``problems`` lists every one, with file:line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Label:
    """One human label: the session's key id, the verdict, where it was read."""

    key: str
    passed: bool
    line: int


def read_labels(path: Path) -> list[Label]:
    """Every label in a LABELS.jsonl file (blank lines skipped).

    Raises:
        LabelsError: Every malformed or duplicate line, each as ``file:line: what``.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise LabelsError([f"{path}: cannot read labels ({e.strerror or e})"]) from None
    except UnicodeDecodeError as e:
        raise LabelsError(
            [f"{path}: not UTF-8 text (byte {e.start}); labels are JSON lines in UTF-8"]
        ) from None
    labels: list[Label] = []
    problems: list[str] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            label = _label(raw, number)
        except ValueError as e:
            problems.append(f"{path}:{number}: {e}")
            continue
        if label.key in first_line:
            problems.append(
                f"{path}:{number}: session {label.key!r} is already labelled on line "
                f"{first_line[label.key]}; keep one label per session"
            )
            continue
        first_line[label.key] = number
        labels.append(label)
    if problems:
        raise LabelsError(problems)
    if not labels:
        raise LabelsError([f"{path}: no labels (one JSON object per line expected)"])
    return labels


def _label(raw: str, number: int) -> Label:
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise ValueError("nested too deeply to read; a label is one flat object") from None
    if not isinstance(data, dict):
        raise ValueError('expected an object like {"key": "persona/goal/mode/rep", "passed": true}')
    unknown = sorted(set(data) - set(_LABEL_FIELDS))
    missing = [f for f in ("key", "passed") if f not in data]
    wrong: list[str] = []
    if unknown:
        wrong.append(f"unknown field(s) {', '.join(unknown)} (valid: {', '.join(_LABEL_FIELDS)})")
    if missing:
        wrong.append(f"missing field(s) {', '.join(missing)}")
    if "passed" in data and not isinstance(data["passed"], bool):
        wrong.append(f'"passed" must be true or false, got {json.dumps(data["passed"])}')
    if "note" in data and not isinstance(data["note"], str):
        wrong.append('"note" must be a string')
    key = _key_id(data["key"], wrong) if "key" in data else ""
    if wrong:
        raise ValueError("; ".join(wrong))
    return Label(key, bool(data["passed"]), number)


def _key_id(value: Any, wrong: list[str]) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, dict):
        try:
            return SessionKey.model_validate(value).id
        except ValidationError as e:
            fields = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'key'}: {err['msg']}"
                for err in e.errors()
            )
            wrong.append(f'"key" is not a session key ({fields})')
            return ""
    wrong.append(
        '"key" must be "persona/goal/mode/rep[/perturbations]" or an object with '
        "persona, goal, mode, rep and optional perturbations"
    )
    return ""


def judge_verdicts(run_dir: Path) -> tuple[dict[str, bool], dict[str, SessionRecord]]:
    """The judge's verdict by session key id, and every record of the run by key id.

    Raises:
        LabelsError: No sessions, or no session with a ``judge`` check.
    """
    path = run_dir / SESSIONS_FILE
    if not path.is_file():
        raise LabelsError([f"{path} not found: is {run_dir} a simlab run directory?"])
    records = {r.key.id: r for r in read_sessions(run_dir).records}
    verdicts = {k: r.checks[JUDGE].passed for k, r in records.items() if JUDGE in r.checks}
    if not verdicts:
        raise LabelsError(
            [
                f"{path}: none of its {len(records)} sessions has a {JUDGE!r} check; "
                "run the suite with a judge (judge: {kind: llm} in the suite file) first"
            ]
        )
    return verdicts, records


def match_labels(
    labels: Sequence[Label],
    path: Path,
    verdicts: dict[str, bool],
    records: dict[str, SessionRecord],
) -> list[tuple[str, bool]]:
    """``(key id, human passed)`` for each label; every label must have a judge verdict.

    Raises:
        LabelsError: Labels naming sessions the run does not have or did not judge.
    """
    problems: list[str] = []
    for label in labels:
        if label.key in verdicts:
            continue
        record = records.get(label.key)
        if record is None:
            problems.append(f"{path}:{label.line}: unknown session key {label.key!r}: not in run")
        elif record.status == "error":
            problems.append(
                f"{path}:{label.line}: session {label.key!r} ended in error "
                f"({record.stop_reason.value}); it has no judge verdict, drop its label"
            )
        else:
            why = record.meta.get("grader_error", "no judge check")
            first = str(why).splitlines()[0] if str(why) else "no judge check"
            problems.append(
                f"{path}:{label.line}: session {label.key!r} has no judge verdict ({first})"
            )
    if problems:
        raise LabelsError(problems)
    return [(label.key, label.passed) for label in labels]


def render_report(report: CalibrationReport, console: Console) -> None:
    """Print the calibration table."""
    pct = f"{report.level:.0%}"
    table = Table(title="Judge calibration against human labels", title_justify="left")
    table.add_column("measure")
    table.add_column("estimate", justify="right")
    table.add_column(f"{pct} interval", justify="right")
    table.add_column("n", justify="right")
    table.add_row(
        "TPR: failures caught (judge fails | human fail)", *_rate_cells(report.tpr, "Wilson")
    )
    table.add_row("TNR (judge passes | human pass)", *_rate_cells(report.tnr, "Wilson"))
    table.add_row("agreement", *_rate_cells(report.agreement, "Wilson"))
    table.add_row("Cohen's kappa (judge vs human)", *kappa_cells(report.kappa))
    table.add_row("judge pass rate (raw, whole run)", *_rate_cells(report.raw_pass_rate, "Wilson"))
    est = "n/a" if report.corrected is None else f"{report.corrected:.3f}"
    lo, hi = report.corrected_ci
    table.add_row(
        "corrected pass rate (Rogan-Gladen)",
        est,
        f"[{lo:.3f}, {hi:.3f}] bootstrap",
        str(report.raw_pass_rate.n),
    )
    console.print(table)
    console.print(
        f"corrected = (raw + TPR - 1) / (TPR + TNR - 1), clipped to [0, 1]; interval: "
        f"{report.n_boot} seeded (seed {report.seed}) bootstrap replicates resampling the "
        "human-pass labels, human-fail labels and run verdicts independently."
    )
    if report.corrected is None:
        console.print(
            "The corrected rate is undefined: the judge is no better than chance "
            "(TPR + TNR <= 1) or a label group is empty."
        )
    elif report.undefined_share > (1.0 - report.level) / 2.0:
        console.print(
            f"{report.undefined_share:.1%} of replicates had TPR + TNR <= 1, so the interval "
            "is [0, 1]: label more sessions to bound the pass rate."
        )
    elif report.undefined_share > 0:
        console.print(f"{report.undefined_share:.1%} of replicates had TPR + TNR <= 1 (left out).")


def kappa_cells(kappa: Kappa) -> tuple[str, str, str]:
    """Estimate, interval and n of a kappa, as table cells."""
    if kappa.kappa is None:
        why = "undefined: one category only" if kappa.n else "no item"
        return "n/a", why, str(kappa.n)
    lo, hi = kappa.ci
    return f"{kappa.kappa:.3f}", f"[{lo:.3f}, {hi:.3f}] Wilson-mapped", str(kappa.n)


def _rate_cells(rate: Rate, method: str) -> tuple[str, str, str]:
    value = "n/a" if rate.value is None else f"{rate.value:.3f}"
    lo, hi = rate.ci
    return value, f"[{lo:.3f}, {hi:.3f}] {method}", f"{rate.successes}/{rate.n}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simlab calibrate",
        description="Compare the run's LLM judge with human labels: TPR (failures "
        "caught), TNR, Cohen's kappa and the corrected pass-rate estimate, each with an interval.",
    )
    parser.add_argument("labels", type=Path, help='LABELS.jsonl: {"key": ..., "passed": bool}')
    parser.add_argument("run_dir", type=Path, help="a run directory with judge checks")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument(
        "--n-boot", type=int, default=DEFAULT_BOOTSTRAP, help="bootstrap replicates"
    )
    parser.add_argument(
        "--split",
        choices=("all", "dev", "test"),
        default="all",
        help="measure on the dev half (to tune the judge's prompt on), the test half "
        "(to measure the tuned prompt) or all labels (default)",
    )
    parser.add_argument(
        "--dev-share",
        type=float,
        default=DEFAULT_DEV_SHARE,
        help=f"expected share of labels in the dev half (default {DEFAULT_DEV_SHARE})",
    )
    parser.add_argument(
        "--split-seed", type=int, default=0, help="seed of the dev/test split (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


def calibrate_cli(argv: list[str]) -> int:
    """Run ``simlab calibrate LABELS.jsonl RUN_DIR [--split all|dev|test] [--seed N] [--json]``.

    ``--split dev`` measures the judge on the dev half of the labels (to tune
    its prompt on, with the disagreeing sessions listed), ``--split test`` on
    the other half (to report); see ``label_half``.

    Returns:
        0 after printing the report; 2 for bad arguments, malformed labels,
        unknown keys or a run without judge checks (every problem printed with
        file:line, no traceback).
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage and the problem
        return EXIT_OK if e.code == 0 else EXIT_USAGE
    if args.n_boot < 1:
        return _fail([f"--n-boot must be at least 1, got {args.n_boot}"])
    if not 0.0 < args.dev_share < 1.0:
        return _fail([f"--dev-share must be between 0 and 1 (exclusive), got {args.dev_share}"])
    try:
        labels = read_labels(args.labels)
        halves = split_keys([label.key for label in labels], args.split_seed, args.dev_share)
        if args.split != "all":
            chosen = set(halves[args.split])
            labels = [label for label in labels if label.key in chosen]
            if not labels:
                raise LabelsError(
                    [
                        f"{args.labels}: none of its labels is in the {args.split} half "
                        f"(--dev-share {args.dev_share}, --split-seed {args.split_seed}); "
                        "label more sessions or change the share"
                    ]
                )
        verdicts, records = judge_verdicts(args.run_dir)
        pairs = match_labels(labels, args.labels, verdicts, records)
    except LabelsError as e:
        return _fail(e.problems)
    except RunDirError as e:
        return _fail([str(e)])
    run_verdicts = [verdicts[k] for k in records if k in verdicts]
    report = calibrate(pairs, verdicts, run_verdicts, args.seed, n_boot=args.n_boot)
    split = {
        "half": args.split,
        "dev_share": args.dev_share,
        "seed": args.split_seed,
        "n_dev": len(halves["dev"]),
        "n_test": len(halves["test"]),
    }
    if args.json:
        print(json.dumps({**report.as_json(), "split": split}, indent=2))
    else:
        # Wide enough off a terminal that no row wraps (logs, CI, pipes).
        width = None if sys.stdout.isatty() else 160
        console = Console(width=width, highlight=False)
        render_report(report, console)
        _print_split(console, split, pairs, verdicts, records)
    return EXIT_OK


_SHOWN = 10


def _print_split(
    console: Console,
    split: dict[str, Any],
    pairs: Sequence[tuple[str, bool]],
    verdicts: dict[str, bool],
    records: dict[str, SessionRecord],
) -> None:
    half, n_dev, n_test = split["half"], split["n_dev"], split["n_test"]
    where = (
        f"--dev-share {split['dev_share']}, --split-seed {split['seed']}: "
        f"{n_dev} dev, {n_test} test labels"
    )
    if half == "all":
        console.print(
            f"Measured on all {len(pairs)} labels. If the judge's prompt was tuned on them these "
            f"figures are optimistic: tune with --split dev, report --split test ({where}).",
            soft_wrap=True,
        )
    elif half == "dev":
        console.print(
            f"Measured on the dev half ({where}): tune the judge's prompt here, "
            "then report --split test.",
            soft_wrap=True,
        )
    else:
        console.print(
            f"Measured on the test half ({where}), kept apart from tuning.", soft_wrap=True
        )
    missed = [k for k, human in pairs if not human and verdicts[k]]
    false_alarms = [k for k, human in pairs if human and not verdicts[k]]
    if half == "test":
        console.print(
            f"Disagreements: {len(missed)} failures the judge passed, {len(false_alarms)} "
            "passes it failed (not listed: reading them would tune the prompt on the test half).",
            soft_wrap=True,
        )
        return
    for title, keys in (
        ("failures the judge passed", missed),
        ("passes the judge failed", false_alarms),
    ):
        more = f" (+{len(keys) - _SHOWN} more)" if len(keys) > _SHOWN else ""
        shown = ", ".join(_shown(k) + _broken(records[k]) for k in keys[:_SHOWN])
        console.print(f"{title} ({len(keys)}): {shown or '-'}{more}", soft_wrap=True)


def _fail(problems: list[str]) -> int:
    # Plain writes, not rich: file:line messages must never be wrapped.
    n = len(problems)
    print(f"simlab calibrate: {n} problem{'s' if n != 1 else ''}:", file=sys.stderr)
    for p in problems:
        print(f"  {p}", file=sys.stderr)
    return EXIT_USAGE


def _broken(record: SessionRecord) -> str:
    """`` (broken: a, b)``: the criteria the judge failed a session on, if it names any
    (which criterion its false alarms come from is what to rewrite in the rubric)."""
    failing = broken_criteria(record.checks[JUDGE].criteria or {})
    return f" (broken: {escape(', '.join(failing))})" if failing else ""


def _shown(text: str) -> str:
    """A session key (from a label file, a production log) as rich markup that prints it
    as it is: brackets escaped, control characters shown as escapes."""
    return escape(escape_controls(text))
