"""The HTML report: escaping of untrusted text, no network references, charts, viewer."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.core import AgentReply, Check, StopSignal, ToolCall, Transcript, Turn, UserTurn
from simlab.report import (
    HTML_REPORT_FILE,
    first_failing_turn,
    json_for_script,
    render_html,
    session_anchor,
    summarize,
    write_html_report,
)
from simlab.store import RunSummary, SessionRecord, StopReason
from tests.report.conftest import BUCKETS, record, small_run

ROOT = Path(__file__).resolve().parents[2]
INJECTED = "<script>alert(1)</script>"
BREAKOUT = '</script><img src=x onerror="window.__pwned=1">'
URL = "https://evil.example/steal?x=1"
LINE_SEP = "a\u2028b\u2029c"
BLOB_OPEN = '<script type="application/json" id="simlab-sessions">'


def hostile_record() -> SessionRecord:
    """A failing session whose every text field is hostile."""
    turns = [
        Turn(
            index=1,
            user=UserTurn(text=f"hi {INJECTED} see {URL}", disclosed={"date": "<b>x</b>"}),
            agent=AgentReply(
                text=f"ok {BREAKOUT}",
                tool_calls=[
                    ToolCall(name="search", args={"q": "</script>"}, result={"v": LINE_SEP})
                ],
            ),
        ),
        Turn(index=2, user=UserTurn(text="I said Monday & <i>not</i> Tuesday"), agent=None),
        Turn(index=3, user=UserTurn(text="bye", stop=StopSignal.GAVE_UP)),
    ]
    return record(
        "alice",
        "full",
        9,
        40,
        3,
        StopReason.USER_GAVE_UP,
        transcript=Transcript(turns=turns),
        checks={
            "goal_completed": Check(passed=True, detail="ok", turn=1),
            "constraint:date": Check(passed=False, detail=f"date {INJECTED}", turn=2),
            "constraint:pax": Check(passed=False, detail="pax", turn=3),
            "trajectory": Check(passed=False, detail="no turn", turn=None),
        },
    )


def page(extras: dict[str, object] | None = None) -> tuple[str, list[SessionRecord]]:
    if extras is None:
        return plain_page()
    return render_page(extras)


def render_page(extras: dict[str, object] | None) -> tuple[str, list[SessionRecord]]:
    records = [*small_run(), hostile_record()]
    summary = summarize(records, BUCKETS, seed=1, n_resamples=200)
    return render_html(
        RunSummary.model_validate(summary), records, f"run {INJECTED}", extras
    ), records


@functools.cache
def plain_page() -> tuple[str, list[SessionRecord]]:
    """The page without extras, rendered once: the charts take a moment to draw."""
    return render_page(None)


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data


def parse(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


def blob_text(html: str) -> str:
    start = html.index(BLOB_OPEN) + len(BLOB_OPEN)
    return html[start : html.index("</script>", start)]  # where a browser ends the element


def without_blob(html: str) -> str:
    start = html.index(BLOB_OPEN)
    return html[:start] + html[html.index("</script>", start) :]


# ------------------------------------------------------------------ escaping


def test_injected_markup_is_text_in_the_server_rendered_html() -> None:
    html, _ = page()
    outside = without_blob(html)
    assert INJECTED not in outside
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in outside  # title and failing check detail
    tags = parse(html)
    # only the page's own two script elements and no injected tags at all
    assert [a.get("type") for t, a in tags.tags if t == "script"] == ["application/json", None]
    assert not any(t in {"img", "b", "i"} for t, _ in tags.tags)


def test_the_json_blob_cannot_end_its_script_element_and_reads_back_exactly() -> None:
    html, records = page()
    blob = blob_text(html)
    assert "<" not in blob and ">" not in blob and "&" not in blob
    assert "\u2028" not in blob and "\u2029" not in blob
    data = json.loads(blob)
    ordered = sorted(records, key=lambda r: r.key.id)
    hostile = data[[r.key.id for r in ordered].index("alice/g/full/9")]
    first = hostile["t"][0]
    assert first["u"] == f"hi {INJECTED} see {URL}"
    assert first["a"] == f"ok {BREAKOUT}"
    assert first["d"] == {"date": "<b>x</b>"}
    assert first["c"] == [{"n": "search", "a": {"q": "</script>"}, "r": {"v": LINE_SEP}, "e": None}]
    assert hostile["t"][2]["s"] == "GAVE_UP"
    assert len(data) == len(records)


def test_json_for_script_escapes_exactly_the_dangerous_characters() -> None:
    text = json_for_script({"k": "</script><!--&\u2028\u2029é"})
    assert text == '{"k":"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\\u2029é"}'
    assert json.loads(text) == {"k": "</script><!--&\u2028\u2029é"}


def test_persona_names_are_escaped_in_attributes_tables_and_charts() -> None:
    evil = '"><script>x</script>$a$'
    records = small_run(alice=evil)
    summary = summarize(records, BUCKETS, seed=1, n_resamples=200)
    html = render_html(RunSummary.model_validate(summary), records, "t")
    assert "<script>x</script>" not in without_blob(html)
    tags = parse(html)
    personas = {a["data-persona"] for t, a in tags.tags if "data-persona" in a}
    assert personas == {evil, "bob"}  # the attribute parses back to the exact name
    # the scatter labels the persona literally: "$a$" stays text, not mathtext
    assert "&lt;script&gt;x&lt;/script&gt;$a$" in html


# ------------------------------------------------------------------ no network


def test_no_url_outside_transcript_text_and_every_reference_is_in_page() -> None:
    html, _ = page(extras=all_extras())
    assert re.findall(r"(?i)https?:|//[a-z]", without_blob(html)) == []
    assert URL in blob_text(html)  # the transcript keeps it, as text
    for _tag, attrs in parse(html).tags:
        assert "src" not in attrs
        for name in ("href", "xlink:href"):
            if name in attrs:
                assert (attrs[name] or "").startswith("#"), (name, attrs[name])


def test_the_csp_forbids_requests_and_allows_only_the_pages_own_script() -> None:
    html, _ = page()
    tags = parse(html)
    (csp,) = [a["content"] for t, a in tags.tags if t == "meta" and a.get("http-equiv")]
    assert csp is not None
    assert "default-src 'none'" in csp and "img-src data:" in csp
    script = tags.scripts[-1]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    # the meta tag comes before anything that could load
    assert html.index("Content-Security-Policy") < html.index("<style>")


# ------------------------------------------------------------------ charts


def all_extras() -> dict[str, object]:
    return {
        "survival": {"v1": [(0, 1.0, 1.0, 1.0), (1, 0.8, 0.7, 0.9), (2, 0.5, 0.35, 0.65)]},
        "confusion": {"labels": ["truncation", "drift"], "matrix": [[7, 1], [2, 5]]},
        "transitions": {
            "from_states": ["asking", "proposing"],
            "to_states": ["wrong_date", "gave_up"],
            "counts": [[3, 0], [1, 4]],
        },
        "comparison": [("2-4", 1.5, -1.0, 4.0), ("10+", -12.0, -20.0, -4.0)],
    }


def test_charts_are_inline_svg_and_absent_extras_are_omitted() -> None:
    html, _ = page()
    assert html.count("<svg") == 2  # aptitude vs unreliability, pass rate by bucket
    assert 'aria-label="Aptitude vs unreliability by persona"' in html
    assert 'aria-label="Pass rate by planned conversation length"' in html
    one, _ = page(extras={"comparison": all_extras()["comparison"]})
    assert one.count("<svg") == 3 and 'aria-label="Comparison: B − A"' in one
    full, _ = page(extras=all_extras())
    assert full.count("<svg") == 6
    # ids stay unique across the page's charts and its sessions
    ids = re.findall(r'\bid="([^"]+)"', full)
    assert len(ids) == len(set(ids))


def test_unknown_extras_are_refused_with_the_valid_keys() -> None:
    with pytest.raises(ValueError, match="survival, confusion, transitions, comparison"):
        page(extras={"surival": {}})


def test_forest_rows_wholly_below_zero_are_red() -> None:
    from simlab.report import forest_chart

    red = "#b23a48"
    assert red in forest_chart([("10+", -12.0, -20.0, -4.0)])
    assert red not in forest_chart([("10+", -12.0, -20.0, 1.0)])
    assert forest_chart([("a", 1.0, 0.0, 2.0)]) == forest_chart([("a", 1.0, 0.0, 2.0)])


def test_confusion_chart_writes_each_count_in_its_cell() -> None:
    from simlab.report import confusion_chart

    svg = confusion_chart(["truncation", "drift"], [[7, 1], [2, 5]])
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    for label in ("7", "1", "2", "5", "truncation", "drift", "true", "diagnosed"):
        assert label in texts, label


# ------------------------------------------------------------------ viewer


def test_every_session_has_an_anchor_filters_and_a_first_failing_turn() -> None:
    html, records = page()
    tags = parse(html)
    rows = [a for t, a in tags.tags if t == "details"]
    assert len(rows) == len(records)
    hostile = hostile_record()
    assert session_anchor(hostile) == "session-alice-g-full-9"
    (row,) = [a for a in rows if a["id"] == "session-alice-g-full-9"]
    # 3 user turns: bucket 2-4; the constraints (stated in turns 2 and 3) were broken by
    # the final action, taken in turn 1: that is where the session went wrong
    assert row["data-bucket"] == "2-4" and row["data-status"] == "failed"
    assert row["data-goal"] == "g" and row["data-persona"] == "alice"
    assert first_failing_turn(hostile) == 1
    blob = json.loads(blob_text(html))
    assert blob[int(row["data-i"] or "-1")]["ff"] == 1
    assert [f[0] for f in blob[int(row["data-i"] or "-1")]["f"]] == [
        "constraint:date",
        "constraint:pax",
        "trajectory",
    ]
    options = [a["value"] for t, a in tags.tags if t == "option"]  # every select's, in order
    assert options == [
        "", "alice", "bob",  # persona
        "", "g",  # goal
        "", "2-4", "5-9", "10+", "other",  # bucket (one session has a single turn)
        "", "passed", "failed", "error",  # status
    ]  # fmt: skip


def test_a_session_without_its_final_action_fails_at_its_last_agent_turn() -> None:
    turns = [
        Turn(index=1, user=UserTurn(text="a"), agent=AgentReply(text="b")),
        Turn(index=2, user=UserTurn(text="c"), agent=AgentReply(text="d")),
        Turn(index=3, user=UserTurn(text="bye", stop=StopSignal.GAVE_UP)),
    ]
    checks = {"goal_completed": Check(passed=False, detail="never called")}
    gave_up = record("a", "full", 1, 10, 3, transcript=Transcript(turns=turns), checks=checks)
    assert first_failing_turn(gave_up) == 2


def test_first_failing_turn_is_none_without_a_failing_turn() -> None:
    ok = record("a", "full", 0, 100, 2, checks={"x": Check(passed=True, turn=1)})
    assert first_failing_turn(ok) is None
    untimed = record("a", "full", 0, 0, 2, checks={"x": Check(passed=False, turn=None)})
    assert first_failing_turn(untimed) is None


def test_overall_comes_last_in_the_overview_and_the_tables() -> None:
    html, _ = page()
    overview = html[html.index('id="overview"') : html.index('id="charts"')]
    labels = re.findall(r'<div class="k">([^<]*)</div>', overview)
    assert labels == [
        "mode: full",
        "mode: sharded",
        "planned length: 2-4 user turns",
        "planned length: 5-9 user turns",
        "planned length: 10+ user turns",
        "planned length: other",
        "overall",
    ]
    tables = html[html.index('id="tables"') :]
    tables = tables[: tables.index("</section>")]
    assert re.search(r'<p class="line overall">Overall: pass rate [^<]*</p>$', tables)
    assert tables.rindex("Overall: pass rate") > tables.rindex("<table")
    # the markdown report's tables, escaped: the error example keeps its "<upstream>" as text
    for title in ("Pass rate by persona", "Full vs sharded", "pass^k by goal", "Errors: 1 of"):
        assert title in tables, title
    assert "HTTP 503 | &lt;upstream&gt; `x`" in tables


# ------------------------------------------------------------------ run directory


def test_write_html_report_reads_the_run_directory(tmp_path: Path) -> None:
    suite = {
        "name": "tiny",
        "seed": 3,
        "personas": ["terse_en", "fickle_vi"],
        "goals": ["one_way", "refund"],
        "modes": ["full", "sharded"],
        "reps": 2,
        "target": "reference:v1",
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    out = tmp_path / "out"
    done = simlab("run", str(path), "--out", str(out), "--quiet", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    written = write_html_report(run_dir)
    assert written == run_dir / HTML_REPORT_FILE
    html = written.read_text(encoding="utf-8")
    assert f"<title>simlab run {run_dir.name}</title>" in html
    n_lines = len((run_dir / "sessions.jsonl").read_text(encoding="utf-8").splitlines())
    assert n_lines == 16
    assert html.count('<details class="session"') == n_lines
    assert len(json.loads(blob_text(html))) == n_lines


def test_the_page_is_the_same_bytes_for_the_same_sessions_in_any_order() -> None:
    html, records = page()
    summary = summarize(records, BUCKETS, seed=1, n_resamples=200)
    again = render_html(
        RunSummary.model_validate(summary), list(reversed(records)), f"run {INJECTED}"
    )
    assert again == html
