"""Every report of a run directory, written from its files: summary.json, report.md, report.html.

Analyses that ran on the run (``diagnosis.json``, ``brittleness.json``) add
their charts to the HTML report when present; its prefix regression cases
(``prefix_cases.json``) add their table to report.md and report.html.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from simlab.report._diagnosis import causes_table
from simlab.report._failures import failed_indices, failures_section
from simlab.report._html import ViewerSelection, select_viewer, write_html_report
from simlab.report._markdown import render_markdown
from simlab.report._prefix_cases import prefix_cases_table
from simlab.report._report_table import ReportTable
from simlab.report._summary import summarize
from simlab.store import (
    BRITTLENESS_FILE,
    DIAGNOSIS_FILE,
    PREFIX_CASES_FILE,
    REPORT_FILE,
    SUMMARY_FILE,
    Brittleness,
    DiagnosisReport,
    Estimate,
    PrefixCases,
    RunDirError,
    RunInfo,
    RunSummary,
    SessionRecord,
    Share,
    first_problem,
    read_lines,
    read_run_info,
    read_sessions,
    write_atomic,
    write_json,
)

NO_TRUTH = (
    "no accuracy figures: the target does not report the true cause of its failures "
    "(the reference agent does)"
)


def write_run_reports(
    run_dir: Path,
    records: Sequence[SessionRecord] | None = None,
    replaced: Sequence[SessionRecord] = (),
    tracebacks: bool = False,
) -> RunSummary:
    """Write the run's summary and reports; return the summary.

    ``records`` (with ``replaced``, the error records a retry replaced: the
    cost section counts them) saves re-reading ``sessions.jsonl`` when the
    caller has them. Error sessions' tracebacks (local paths, code) stay in
    ``sessions.jsonl`` unless ``tracebacks`` asks to publish them in report.html.
    """
    info = read_run_info(run_dir)
    suite = info.suite
    selection: ViewerSelection | None = None
    if records is None:  # slim records; the viewer reads the transcripts it shows
        sessions = read_sessions(run_dir, slim=True)
        summary = summarize(sessions.records, suite.buckets, suite.seed, replaced=sessions.replaced)
        selection = select_viewer(sessions.records, sessions.lines)
        listed = [sessions.lines[i] for i in failed_indices(sessions.records)]
        n_failed = sum(1 for r in sessions.records if r.status == "ok" and not r.passed)
        del sessions  # let the run's records go before the page is built
        full = read_lines(run_dir, listed) if listed else {}  # slim ones hold no detail
        summary["failed_sessions"] = failures_section([full[n] for n in listed], n_failed)
    else:
        summary = _summary(info, records, replaced)
    summary["run_id"] = info.run_id
    write_json(run_dir / SUMMARY_FILE, summary)
    model = RunSummary.model_validate(summary)
    del summary
    kind = "imported" if info.imported is not None else "simlab run"
    title = f"{kind} {info.run_id}"
    more = analysis_tables(run_dir)
    write_atomic(run_dir / REPORT_FILE, render_markdown(model, title=title, more=more))
    write_html_report(
        run_dir,
        summary=model,
        records=records,
        extras=analysis_charts(run_dir),
        tracebacks=tracebacks,
        selection=selection,
        more=more,
    )
    return model


def summary_of(
    info: RunInfo, records: Sequence[SessionRecord], replaced: Sequence[SessionRecord] = ()
) -> RunSummary:
    """The summary ``write_run_reports`` would write for these records, written nowhere."""
    summary = _summary(info, records, replaced)
    summary["run_id"] = info.run_id
    return RunSummary.model_validate(summary)


def _summary(
    info: RunInfo, records: Sequence[SessionRecord], replaced: Sequence[SessionRecord]
) -> dict[str, Any]:
    summary = summarize(records, info.suite.buckets, info.suite.seed, replaced=replaced)
    n_failed = sum(1 for r in records if r.status == "ok" and not r.passed)
    shown = [records[i] for i in failed_indices(records)]
    summary["failed_sessions"] = failures_section(shown, n_failed)
    return summary


def analysis_tables(run_dir: Path) -> list[ReportTable]:
    """Tables from the analyses saved in ``run_dir`` beside its sessions (its diagnosed
    causes, its prefix regression cases); none when absent.

    Raises:
        RunDirError: an analysis file is not what simlab writes (file and field named).
    """
    tables: list[ReportTable] = []
    diagnosis = _read_model(run_dir / DIAGNOSIS_FILE, DiagnosisReport)
    if diagnosis is not None and diagnosis.n_failed:
        tables.append(causes_table(diagnosis))
    cases = _read_model(run_dir / PREFIX_CASES_FILE, PrefixCases)
    if cases is not None and cases.cases:
        tables.append(prefix_cases_table(cases))
    return tables


def analysis_charts(run_dir: Path) -> dict[str, Any]:
    """Chart data from the analyses saved in ``run_dir`` (none when absent).

    Raises:
        RunDirError: an analysis file is not what simlab writes (file and field named).
    """
    extras: dict[str, Any] = {}
    diagnosis = _read_model(run_dir / DIAGNOSIS_FILE, DiagnosisReport)
    if diagnosis is not None:
        confusion = diagnosis.confusion
        if confusion is None:  # a user's own target: no record carries a true cause
            extras["confusion"] = {"note": NO_TRUTH}
        else:
            extras["confusion"] = {  # the chart wants rows = the true cause
                "labels": [str(c) for c in confusion.labels],
                "matrix": [list(col) for col in zip(*confusion.matrix, strict=True)],
                "caption": agreement_caption(diagnosis),
            }
        heatmap = diagnosis.heatmap
        if heatmap.n:
            extras["transitions"] = {
                "from_states": heatmap.from_states,
                "to_states": heatmap.in_states,
                "counts": heatmap.counts,
            }
    brittleness = _read_model(run_dir / BRITTLENESS_FILE, Brittleness)
    if brittleness is not None and brittleness.curves:
        extras["survival"] = {t: [list(s) for s in c] for t, c in brittleness.curves.items()}
    return extras


def _share(share: Share | None) -> str:
    return "-" if share is None else share.shown(with_n=True)


def _estimate(e: Estimate | None) -> str:
    return "-" if e is None else e.shown(with_n=True)


def agreement_caption(diagnosis: DiagnosisReport) -> str:
    """The diagnosis's agreement with the hidden truth in one line: accuracy beside the
    commonest-cause baseline, Cohen's kappa and balanced accuracy (95% intervals, n),
    reading the agent's view and as a black box, and the false verification rate."""
    parts = []
    for name, conf in (("diagnosis", diagnosis.confusion), ("black box", diagnosis.black_box)):
        if conf is None:
            continue
        parts.append(
            f"{name}: accuracy {_share(conf.accuracy)} (always the commonest cause: "
            f"{_share(conf.majority)}), Cohen's kappa {_estimate(conf.kappa)}, "
            f"balanced accuracy {_estimate(conf.balanced_accuracy)}"
        )
    if diagnosis.false_verification_all is not None:
        parts.append(f"false verification {_share(diagnosis.false_verification_all)}")
    return "; ".join(parts)


M = TypeVar("M", bound=BaseModel)


def _read_model(path: Path, model: type[M]) -> M | None:
    data = _read_json(path)
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise RunDirError(
            f"{path}: {first_problem(e)}; re-run the analysis that wrote it, or remove it"
        ) from None


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise RunDirError(f"{path}: cannot be read ({e})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RunDirError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
