"""Reports of a run: ``summary.json`` content, terminal tables, markdown and HTML."""

from simlab.report._charts import (
    ForestRow,
    PointCI,
    RateCI,
    SurvivalStep,
    aptitude_unreliability_chart,
    confusion_chart,
    forest_chart,
    pass_rate_chart,
    survival_chart,
    transition_heatmap_chart,
)
from simlab.report._failures import failed_indices, failures_section
from simlab.report._html import EXTRA_CHARTS, render_html, write_html_report
from simlab.report._html_viewer import first_failing_turn, json_for_script, session_anchor
from simlab.report._junit import render_run_junit
from simlab.report._lengths import (
    REALISED_NOTE,
    UNPLANNED,
    bucket_order,
    planned_bucket,
    realised_bucket,
)
from simlab.report._markdown import escape_cell, render_markdown
from simlab.report._run_reports import (
    analysis_charts,
    analysis_tables,
    summary_of,
    write_run_reports,
)
from simlab.report._runs import (
    RunRow,
    render_runs,
    run_rows,
    trend_checks,
    trend_interval,
    trends,
)

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.report._runs import runs_cli as runs_cli
from simlab.report._summary import SUMMARY_SCHEMA_VERSION, UNBUCKETED, summarize
from simlab.report._tables import escape_controls, overall_line
from simlab.report._terminal import PIPED_WIDTH, render_terminal, stdout_console
from simlab.store import BRITTLENESS_FILE, DIAGNOSIS_FILE, HTML_REPORT_FILE

__all__ = [
    "BRITTLENESS_FILE",
    "DIAGNOSIS_FILE",
    "EXTRA_CHARTS",
    "HTML_REPORT_FILE",
    "PIPED_WIDTH",
    "REALISED_NOTE",
    "SUMMARY_SCHEMA_VERSION",
    "UNBUCKETED",
    "UNPLANNED",
    "ForestRow",
    "PointCI",
    "RateCI",
    "RunRow",
    "SurvivalStep",
    "analysis_charts",
    "analysis_tables",
    "aptitude_unreliability_chart",
    "bucket_order",
    "confusion_chart",
    "escape_cell",
    "escape_controls",
    "failed_indices",
    "failures_section",
    "first_failing_turn",
    "forest_chart",
    "json_for_script",
    "overall_line",
    "pass_rate_chart",
    "planned_bucket",
    "realised_bucket",
    "render_html",
    "render_markdown",
    "render_run_junit",
    "render_runs",
    "render_terminal",
    "run_rows",
    "session_anchor",
    "stdout_console",
    "summarize",
    "summary_of",
    "survival_chart",
    "transition_heatmap_chart",
    "trend_checks",
    "trend_interval",
    "trends",
    "write_html_report",
    "write_run_reports",
]
