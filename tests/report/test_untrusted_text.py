"""Untrusted text (ids, error messages, imported task ids) in the terminal, markdown,
HTML and JUnit outputs: control characters shown as escapes, markdown read as text."""

from __future__ import annotations

import io
import json
import os
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from rich.console import Console
from run_simlab import simlab

from simlab.compare import cli_main as compare_main
from simlab.replay import import_cli
from simlab.report import (
    escape_cell,
    escape_controls,
    render_html,
    render_markdown,
    render_terminal,
    summarize,
)
from simlab.store import RunSummary, SessionRecord
from tests.compare.conftest import make_record, write_run
from tests.report.conftest import BUCKETS, record

ROOT = Path(__file__).resolve().parents[2]

# A crashing target's message: colour, a window-title OSC ended by BEL, an 8-bit CSI, DEL, NUL, CR.
HOSTILE_ERROR = "boom \x1b[31mRED\x1b[0m \x1b]0;title\x07 csi\x9b2J del\x7f nul\x00 cr\rend"
HOSTILE_SHOWN = (
    "boom \\x1b[31mRED\\x1b[0m \\x1b]0;title\\x07 csi\\x9b2J del\\x7f nul\\x00 cr\\x0dend"
)
HOSTILE_ID = "p\x1b[31m"
HOSTILE_ID_SHOWN = "p\\x1b[31m"
INJECTION = "[link](http://evil.example)*bold*"


def controls(text: str) -> list[str]:
    """Every control character in ``text`` but newline and tab."""
    return sorted({c for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t"})


def hostile_run() -> list[SessionRecord]:
    return [
        record(HOSTILE_ID, "full", 0, 100, 3),
        record(HOSTILE_ID, "full", 1, 0, 3),
        record("bob", "full", 0, None, 3, error=HOSTILE_ERROR),
    ]


def gfm(markdown: str) -> str:
    """Markdown rendered as HTML by a CommonMark parser with GFM tables and strikethrough."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


# ------------------------------------------------------------------ control characters


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mRED\x1b[0m", "\\x1b[31mRED\\x1b[0m"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x9b2J", "\\x9b2J"),  # C1 CSI: one byte that starts an escape sequence
        ("next\x85line", "next\\x85line"),  # C1 NEL, which str.split() reads as whitespace
        ("a\x7fb\x00c\x08d", "a\\x7fb\\x00c\\x08d"),
        ("over\rwrite", "over\\x0dwrite"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),  # cannot be written as UTF-8
        ("not a char \ufffe\uffff", "not a char \\ufffe\\uffff"),  # not allowed in XML
        ("tab\tand\nnewline", "tab\tand\nnewline"),  # layout, left to each renderer
        ("abc\u202edcba", "abc\\u202edcba"),  # a right-to-left override reorders what follows
        ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
        ("Hà Nội → Đà Nẵng ✈\u00a0ok", "Hà Nội → Đà Nẵng ✈\u00a0ok"),
    ],
)
def test_escape_controls(raw: str, shown: str) -> None:
    assert escape_controls(raw) == shown


def test_escape_controls_leaves_no_control_character() -> None:
    every = "".join(chr(c) for c in range(0x20)) + "".join(chr(c) for c in range(0x7F, 0xA0))
    assert controls(escape_controls(every)) == []
    assert escape_controls(escape_controls(every)) == escape_controls(every)  # idempotent


def test_terminal_shows_controls_as_escapes() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=250, color_system=None)
    render_terminal(RunSummary.model_validate(summarize(hostile_run(), BUCKETS, seed=7)), console)
    out = buf.getvalue()
    assert controls(out) == []
    assert HOSTILE_SHOWN in out
    assert HOSTILE_ID_SHOWN in out


def test_markdown_shows_controls_as_escapes() -> None:
    md = render_markdown(
        RunSummary.model_validate(summarize(hostile_run(), BUCKETS, seed=7)), "run \x1b[2J"
    )
    assert controls(md) == []
    shown = gfm(md)
    # rendered, the markdown reads exactly as the terminal does
    assert HOSTILE_SHOWN in shown and HOSTILE_ID_SHOWN in shown and "run \\x1b[2J" in shown


def test_html_tables_show_controls_as_escapes() -> None:
    records = hostile_run()
    html = render_html(
        RunSummary.model_validate(summarize(records, BUCKETS, seed=7, n_resamples=50)), records, "r"
    )
    tables = html[html.index('<section id="tables">') : html.index('<section id="sessions">')]
    assert controls(tables) == []
    assert HOSTILE_SHOWN in tables and HOSTILE_ID_SHOWN in tables


CRASHING_TARGET = f"""
async def crash(messages, ctx):
    if ctx.session_id.split("/")[3] == "0":  # rep 0 crashes, rep 1 is graded
        raise RuntimeError({HOSTILE_ERROR!r})
    return "Which date?"
"""


def test_run_of_a_crashing_target_prints_and_writes_no_control_character(
    tmp_path: Path,
) -> None:
    (tmp_path / "crashing_target.py").write_text(CRASHING_TARGET)
    suite = {
        "name": "crash",
        "seed": 1,
        "personas": ["terse_en"],
        "goals": ["one_way"],
        "modes": ["full"],
        "reps": 2,
        "target": "crashing_target:crash",
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    proc = simlab("run", str(tmp_path / "suite.yaml"), "--out", str(out), env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = list(out.iterdir())
    records = [json.loads(line) for line in (run_dir / "sessions.jsonl").read_text().splitlines()]
    (error,) = [r["error"] for r in records if r["status"] == "error"]
    assert "\x1b[31mRED" in error["message"]  # the record keeps the message as it was
    assert controls(proc.stdout) == [] and "\\x1b[31mRED\\x1b[0m" in proc.stdout
    md = (run_dir / "report.md").read_bytes()
    assert b"\x1b" not in md and b"\x07" not in md
    assert "\\x1b[31mRED\\x1b[0m" in gfm(md.decode())


def test_imported_task_id_reaches_no_output_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = f"t\x1b[31m {INJECTION}"
    line = {
        "task_id": task,
        "reward": 1.0,
        "messages": [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi"},
        ],
    }
    log = tmp_path / "f.jsonl"
    log.write_text(json.dumps(line) + "\n")
    argv = [str(log), "--format", "openai", "--out", str(tmp_path), "--run-id", "r"]
    assert import_cli(argv) == 0
    out = capsys.readouterr().out
    assert controls(out) == [] and "t\\x1b[31m" in out
    md = (tmp_path / "r" / "report.md").read_text()
    assert controls(md) == []
    html = gfm(md)
    assert "t\\x1b[31m [link](http://evil.example)*bold*" in html
    assert "<a " not in html and "<em>bold</em>" not in html  # (notes are in italics)


# ------------------------------------------------------------------ markdown injection


@pytest.mark.parametrize(
    "hostile",
    [
        INJECTION,
        "![img](http://evil.example/x.png)",
        "[ref]: http://evil.example",
        "**strong** __strong__ _em_ ~~gone~~ ~gone~",
        "<http://evil.example> <b>x</b> &amp; &#60;",
        "`code` \\*escaped\\* back\\",
        "[a\\](b)",
    ],
)
def test_markdown_metacharacters_render_as_text(hostile: str) -> None:
    html = gfm(f"| x |\n|---|\n| {escape_cell(hostile)} |\n")
    for tag in ("<a", "<img", "<em>", "<strong>", "<del>", "<s>", "<code>", "<b>"):
        assert tag not in html
    cell = html.split("<td>", 1)[1].split("</td>", 1)[0]
    expected = hostile.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert cell == expected


@pytest.mark.parametrize(
    ("hostile", "escaped"),
    [
        # GitHub links bare URLs, www. names and e-mail addresses (GFM autolinks)
        ("see http://evil.example", "see http\\://evil.example"),
        ("go to WWW.evil.example", "go to WWW\\.evil.example"),
        ("mail a@evil.example", "mail a\\@evil.example"),
        ("$x^2$ dollars", "\\$x^2\\$ dollars"),  # GitHub renders math between dollars
    ],
)
def test_markdown_escapes_what_github_would_link_or_typeset(hostile: str, escaped: str) -> None:
    assert escape_cell(hostile) == escaped
    assert gfm(escaped).strip() == f"<p>{hostile}</p>"


def test_markdown_leaves_simlab_figures_and_snake_case_ids_alone() -> None:
    for trusted in ("[39.1%, 86.2%]", "87.0 [84.0, 90.0]", "40.0% (2/5)", "terse_en", "k=2"):
        assert escape_cell(trusted) == trusted


def test_report_md_reads_an_injected_goal_as_text() -> None:
    records = [record("alice", "full", 0, 100, 3), record("alice", "full", 1, 0, 3)]
    records = [
        r.model_copy(update={"key": r.key.model_copy(update={"goal": INJECTION})}) for r in records
    ]
    md = render_markdown(RunSummary.model_validate(summarize(records, BUCKETS, seed=7)), "r")
    html = gfm(md)
    assert "<a " not in html and "<em>bold</em>" not in html  # (notes are in italics)
    assert html.count(INJECTION) == 2  # by goal, pass^k
    assert "| [9.5%, 90.5%] |" in md  # the interval simlab wrote is not escaped


def test_compare_markdown_and_junit_use_the_same_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = f"{INJECTION}\x1b[31m"
    a = write_run(tmp_path / "A\x1b]0;title\x07", [make_record(evil, checks={"safety:x": True})])
    b = write_run(
        tmp_path / "B",
        [
            make_record(evil, passed=False, checks={"safety:x": False}),
            make_record("q", error=HOSTILE_ERROR),
        ],
    )
    md, junit = tmp_path / "c.md", tmp_path / "j.xml"
    assert compare_main([str(a), str(b), "--markdown", str(md), "--junit", str(junit)]) == 1
    assert controls(capsys.readouterr().out) == []  # the terminal tables too
    text = md.read_text()
    assert controls(text) == []
    html = gfm(text)
    assert "<em>bold</em>" not in html and 'href="http' not in html
    assert HOSTILE_SHOWN in html and f"{INJECTION}\\x1b[31m" in html
    failure = next(
        tc.find("failure")
        for tc in ET.parse(junit).getroot().iter("testcase")
        if tc.get("name") == "no_new_safety_violations"
    )
    assert failure is not None
    assert f"{INJECTION}\\x1b[31m" in (failure.text or "")  # shown, not replaced by U+FFFD
