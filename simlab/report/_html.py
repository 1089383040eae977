"""The HTML report (``report.html``): one self-contained file that works offline.

Overview, the markdown report's tables, charts as inline SVG, and a transcript
viewer. Nothing is fetched: no external CSS, scripts, fonts or images, and a
Content-Security-Policy that forbids every request, so the page provably makes
none. Every string from a record or a user file is escaped where it is written.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from simlab.report._charts import (
    PointCI,
    RateCI,
    aptitude_unreliability_chart,
    confusion_chart,
    forest_chart,
    pass_rate_chart,
    survival_chart,
    transition_heatmap_chart,
)
from simlab.report._html_assets import SCRIPT, STYLE
from simlab.report._html_viewer import outcome, render_viewer
from simlab.report._lengths import UNBUCKETED, UNPLANNED
from simlab.report._summary import summarize
from simlab.report._tables import (
    ReportTable,
    Section,
    build_sections,
    escape_controls,
    metric,
    pct,
    plural,
    rate_ci,
)
from simlab.spec import Bucket
from simlab.store import (
    HTML_REPORT_FILE,
    GroupStats,
    Interval,
    RunSummary,
    SessionRecord,
    read_lines,
    read_run_info,
    read_sessions,
    write_atomic,
)

EXTRA_CHARTS = ("survival", "confusion", "transitions", "comparison")
"""The keys ``extras`` may hold; each draws one more chart when present."""


def _csp() -> str:
    # The page's one script is allowed by its hash, not by 'unsafe-inline': even
    # markup that slipped through escaping could not run a script.
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _interval(ci: Interval | None) -> tuple[float, float] | None:
    return None if ci is None else (float(ci[0]), float(ci[1]))


def _text(s: str) -> str:
    # Control characters shown as escapes, as in the terminal and markdown reports.
    return escape(escape_controls(s))


# ------------------------------------------------------------------ overview


def _card(label: str, row: GroupStats, cls: str = "card") -> str:
    spreads = f"aptitude {metric(row, 'aptitude')} · unreliability {metric(row, 'unreliability')}"
    errors = f", {plural(row.n_errors, 'error')} excluded" if row.n_errors else ""
    interval = rate_ci(row.pass_ci, row.n)
    return (
        f'<div class="{cls}"><div class="k">{_text(label)}</div>'
        f'<div class="v">{pct(row.pass_rate)}</div>'
        f'<div class="d">pass rate, 95% CI {interval}, n={row.n}{errors}</div>'
        f'<div class="d">{escape(spreads)}</div></div>'
    )


def _overview(summary: RunSummary) -> str:
    cards = [_card(f"mode: {m}", r) for m, r in summary.by_mode.items()]
    cards += [
        _card(
            f"planned length: {b}"
            if b in (UNBUCKETED, UNPLANNED)
            else f"planned length: {b} user turns",
            r,
        )
        for b, r in summary.by_bucket.items()
    ]
    cards.append(_card("overall", summary.overall, "card overall"))  # last, never the headline
    o = summary.overall
    level = 0.95 if summary.level is None else summary.level
    facts = (
        f"{plural(summary.n_sessions, 'session')} over "
        f"{plural(o.n_cells, 'cell')}; "
        f"{plural(o.n_errors, 'error')}, counted neither as passes nor as failures; "
        f"intervals at {100 * level:.0f}%, bootstrap seed "
        f"{'—' if summary.seed is None else summary.seed}."
    )
    return f'<p class="line">{escape(facts)}</p><div class="cards">{"".join(cards)}</div>'


# ------------------------------------------------------------------ tables


def _table(t: ReportTable) -> str:
    def cls(i: int) -> str:
        return ' class="n"' if i in t.numeric else ""

    head = "".join(f"<th{cls(i)}>{_text(h)}</th>" for i, h in enumerate(t.headers))
    body = "".join(
        "<tr>" + "".join(f"<td{cls(i)}>{_text(c)}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in t.rows
    )
    note = f'<p class="note">{_text(t.note)}</p>' if t.note else ""
    return (
        f'<h3>{_text(t.title)}</h3><table class="t"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>{note}"
    )


def _tables(summary: RunSummary, more: Sequence[Section]) -> str:
    sections = build_sections(summary, more)
    parts = []
    for i, s in enumerate(sections):
        if isinstance(s, ReportTable):
            parts.append(_table(s))
        else:
            last = i == len(sections) - 1
            parts.append(f'<p class="line{" overall" if last else ""}">{_text(s)}</p>')
    return "\n".join(parts)


# ------------------------------------------------------------------ charts


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"


def _summary_charts(summary: RunSummary) -> list[str]:
    points = [
        PointCI(
            escape_controls(name),
            float(r.aptitude),
            _interval(r.aptitude_ci),
            float(r.unreliability),
            _interval(r.unreliability_ci),
        )
        for name, r in summary.by_persona.items()
        if r.aptitude is not None and r.unreliability is not None
    ]
    bars = [
        RateCI(
            escape_controls(name),
            r.n,
            r.pass_rate,
            _interval(r.pass_ci) if r.n else None,
        )
        for name, r in summary.by_bucket.items()
    ]
    out = []
    if points:
        out.append(
            _figure(
                aptitude_unreliability_chart(points),
                "One point per persona: mean over its cells of aptitude (P90 score) and "
                "unreliability (P90 − P10); bars are 95% bootstrap intervals over cells.",
            )
        )
    if bars:
        out.append(
            _figure(
                pass_rate_chart(
                    bars, "Pass rate by planned conversation length", "user turns the plan needs"
                ),
                "Pass rate per planned-length bucket (the user turns the plan needs, fixed "
                "before the session runs) with its n and 95% Wilson interval.",
            )
        )
    stages = summary.tool_stages
    t = stages.transitions if stages is not None else None
    if t is not None and t.n:
        rows = [f"{escape_controls(r)} ({k})" for r, k in zip(t.rows, t.row_totals, strict=True)]
        cols = [
            f"{escape_controls(c)} ({k})" for c, k in zip(t.columns, t.column_totals, strict=True)
        ]
        out.append(
            _figure(
                transition_heatmap_chart(
                    rows, cols, t.counts, "Tool use: first failing stage to the next"
                ),
                f"{t.n} failed sessions: rows are the stage of the first tool-use failure, "
                "columns the next distinct stage to fail (or none); totals in brackets.",
            )
        )
    return out


def _extra_charts(extras: Mapping[str, Any]) -> list[str]:
    unknown = sorted(set(extras) - set(EXTRA_CHARTS))
    if unknown:
        raise ValueError(f"unknown extras {unknown}; valid keys: {', '.join(EXTRA_CHARTS)}")
    out = []
    if extras.get("survival"):
        out.append(
            _figure(
                survival_chart(extras["survival"]),
                "Kaplan-Meier survival: share of sessions still passing as perturbations "
                "accumulate; bands are 95% intervals.",
            )
        )
    if extras.get("confusion"):
        c = extras["confusion"]
        if "note" in c:  # no confusion matrix: say why instead of drawing one
            out.append(f'<p class="note">Diagnosis accuracy: {_text(c["note"])}</p>')
        else:
            out.append(
                _figure(
                    confusion_chart(c["labels"], c["matrix"]),
                    "Rows: the true cause (ground truth); columns: the diagnosed cause."
                    + (f" {c['caption']}." if c.get("caption") else ""),
                )
            )
    if extras.get("transitions"):
        t = extras["transitions"]
        out.append(
            _figure(
                transition_heatmap_chart(t["from_states"], t["to_states"], t["counts"]),
                "Counts of transitions into the first failure.",
            )
        )
    if extras.get("comparison"):
        c = extras["comparison"]
        rows, kw = (
            (c["rows"], {k: c[k] for k in ("title", "xlabel") if k in c})
            if isinstance(c, Mapping)
            else (c, {})
        )
        out.append(
            _figure(
                forest_chart(rows, **kw),
                "Each row: the difference with its 95% interval; red when wholly below zero.",
            )
        )
    return out


# ------------------------------------------------------------------ page


def _buckets(summary: RunSummary) -> list[Bucket]:
    return [Bucket(name=b.name, min=b.min, max=b.max) for b in summary.buckets]


def render_html(
    summary: RunSummary,
    records: Sequence[SessionRecord],
    title: str,
    extras: Mapping[str, Any] | None = None,
    tracebacks: bool = False,
    n_sessions: int | None = None,
    more: Sequence[Section] = (),
) -> str:
    """Render a run as one self-contained HTML page.

    Args:
        summary: The run's summary (``summarize`` for ``records``, as a model).
        records: The run's sessions, for the transcript viewer.
        title: The page's title (escaped).
        extras: Optional data for more charts, each drawn only when present:
            ``survival`` {name: [(t, survival, lo, hi), ...]};
            ``confusion`` {"labels": [...], "matrix": [[...]]} (rows true, columns diagnosed,
            with an optional "caption": the agreement figures), or {"note": str}
            saying why there is none;
            ``transitions`` {"from_states": [...], "to_states": [...], "counts": [[...]]};
            ``comparison`` [(label, delta, lo, hi), ...] or
            {"rows": [...], "title": str, "xlabel": str}.
        tracebacks: Show error sessions' tracebacks (local paths, code); by
            default only their error's type and message are published.
        n_sessions: How many sessions the run has, when ``records`` (the
            viewer's) are fewer (see ``viewer_choice``); the page says so.
        more: Tables of analyses made on the run (see ``build_sections``).

    Returns:
        The HTML text. It makes no network request: a Content-Security-Policy
        forbids all, and nothing refers outside the file.

    Raises:
        ValueError: ``extras`` holds a key other than those above.
    """
    charts = _summary_charts(summary) + _extra_charts(extras or {})
    t = _text(title)
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_csp()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{t}</title>
<style>{STYLE}</style>
</head>
<body>
<header><h1>{t}</h1>
<p>simlab report: pass rates with n and Wilson intervals; aptitude and unreliability with
bootstrap intervals over cells. Transcripts are shown as text, exactly as recorded.</p>
<nav><a href="#overview">Overview</a><a href="#charts">Charts</a><a href="#tables">Tables</a>
<a href="#sessions">Sessions</a></nav></header>
<main>
<section id="overview"><h2>Overview</h2>{_overview(summary)}</section>
<section id="charts"><h2>Charts</h2><div class="charts">{"".join(charts)}</div></section>
<section id="tables"><h2>Tables</h2>{_tables(summary, more)}</section>
<section id="sessions"><h2>Sessions</h2>{_viewer_note(len(records), n_sessions)}
{render_viewer(records, _buckets(summary), tracebacks)}
</section>
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""
    # Every renderer above escapes what it writes; this pass makes sure of it: no raw
    # control or bidi character reaches the file, whatever a new section forgets.
    return escape_controls(page)


MAX_VIEWER_SESSIONS = 2000
"""The most sessions the transcript viewer holds: the report of a 100,000-session run
stays a file a browser opens, and its writing takes bounded memory."""


def viewer_choice(records: Sequence[SessionRecord], limit: int) -> list[int]:
    """The indices of the sessions the viewer shows: all of them up to ``limit``, else
    the errors, then the failures, then the passes, each by key."""
    if len(records) <= limit:
        return list(range(len(records)))
    rank = {"error": 0, "failed": 1, "passed": 2}
    order = sorted(
        range(len(records)), key=lambda i: (rank[outcome(records[i])], records[i].key.id)
    )
    return sorted(order[:limit])


@dataclass(frozen=True, slots=True)
class ViewerSelection:
    """The sessions the viewer shows, by their line in ``sessions.jsonl``, of how many."""

    lines: list[int]
    n_sessions: int


def select_viewer(records: Sequence[SessionRecord], lines: Sequence[int]) -> ViewerSelection:
    """The viewer's sessions among ``records`` (slim ones will do), found at ``lines``."""
    chosen = viewer_choice(records, MAX_VIEWER_SESSIONS)
    return ViewerSelection([lines[i] for i in chosen], len(records))


def _viewer_note(shown: int, total: int | None) -> str:
    if total is None or total <= shown:
        return ""
    return (
        f'<p class="line">The viewer holds {shown:,} of the run\'s {total:,} sessions: its '
        "errors, then its failures, then passes, by key. Every session is in sessions.jsonl; "
        "every figure above counts them all.</p>"
    )


def write_html_report(
    run_dir: Path,
    *,
    summary: RunSummary | None = None,
    records: Sequence[SessionRecord] | None = None,
    extras: Mapping[str, Any] | None = None,
    tracebacks: bool = False,
    lines: Sequence[int] | None = None,
    selection: ViewerSelection | None = None,
    more: Sequence[Section] = (),
) -> Path:
    """Write ``run_dir/report.html`` from the run directory alone (or from what is given).

    Args:
        run_dir: A run directory (``run.json``, ``sessions.jsonl``).
        summary: The run's summary, when the caller has it; else computed with
            the run's buckets and seed.
        records: The run's sessions, when the caller has them; else read.
        extras: More charts; see ``render_html``.
        tracebacks: Publish error sessions' tracebacks; see ``render_html``.
        lines: The line of each of ``records`` in ``sessions.jsonl`` when they are
            slim (``store.slim_record``): the viewer's sessions are read from there.
        selection: The viewer's sessions, chosen beforehand (``select_viewer``):
            ``records`` are not needed, so a caller can let go of them first.
        more: Tables of analyses made on the run; see ``render_html``.

    Returns:
        The path written.

    Raises:
        RunDirError: The run directory cannot be read.
    """
    info = read_run_info(run_dir)
    shown: Sequence[SessionRecord] = []
    if selection is None:
        if records is None:
            sessions = read_sessions(run_dir, slim=True)
            records, lines = sessions.records, sessions.lines
        if summary is None:
            summary = RunSummary.model_validate(
                summarize(records, info.suite.buckets, info.suite.seed)
            )
        if lines is None:  # full records in hand: no need to read them again
            chosen = viewer_choice(records, MAX_VIEWER_SESSIONS)
            shown = [records[i] for i in chosen]
            selection = ViewerSelection([], len(records))
        else:
            selection = select_viewer(records, lines)
        records = None  # from here on the page needs only the sessions it shows
    if selection.lines:
        full = read_lines(run_dir, selection.lines)
        shown = [full[n] for n in selection.lines]
    if summary is None:
        raise ValueError("a ViewerSelection comes with the summary it was made with")
    title = f"simlab run {info.run_id}"
    page = render_html(summary, shown, title, extras, tracebacks, selection.n_sessions, more)
    path = run_dir / HTML_REPORT_FILE
    write_atomic(path, page)
    return path
