"""The report says how many failed sessions had agent turns the simulated user did not
understand, with their n, and shows the agent's words as text in every renderer."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from typing import Any

from rich.console import Console

from simlab.report import (
    render_html,
    render_markdown,
    render_run_junit,
    render_terminal,
    summarize,
)
from simlab.store import UNHEARD_META, RunSummary, SessionRecord, StopReason
from tests.report.conftest import BUCKETS, record
from tests.report.test_untrusted_text import controls, gfm

PROCEED = "Would you like me to proceed?"
LINE = "failed sessions had agent turns the scripted user did not understand"


def _unheard(count: int, text: str = PROCEED) -> dict[str, Any]:
    return {"meta": {UNHEARD_META: {"count": count, "first_turn": 2, "first_text": text}}}


def _run(first_text: str = PROCEED) -> list[SessionRecord]:
    gave_up = StopReason.USER_GAVE_UP
    return [
        record("a", "full", 0, 0, 9, gave_up, **_unheard(5, first_text)),
        record("a", "full", 1, 0, 9, gave_up, **_unheard(3, first_text)),
        record("a", "full", 2, 0, 9, gave_up, **_unheard(1, "Anything else?")),
        record("a", "full", 3, 0, 4),  # failed, every question understood
        record("a", "full", 4, 100, 4, **_unheard(1)),  # passed all the same
        record("a", "full", 5, 100, 4),
        record("a", "full", 6, None, 3, **_unheard(2)),  # an error: neither failed nor passed
    ]


def test_failed_and_passed_sessions_are_counted_with_their_n() -> None:
    summary = summarize(_run(), BUCKETS, seed=0, n_resamples=50)
    assert summary["unheard"] == {
        "failed": 4,
        "failed_unheard": 3,
        "failed_unheard_turns": 9,
        "passed": 2,
        "passed_unheard": 1,
        "questions": [
            {"text": PROCEED, "sessions": 2},
            {"text": "Anything else?", "sessions": 1},
        ],
        "sessions": ["a/g/full/0", "a/g/full/1", "a/g/full/2"],
    }
    md = render_markdown(RunSummary.model_validate(summary), "run")
    assert (
        f"3 of 4 {LINE} (9 turns; first: 'Would you like me to proceed?' in 2 of them; "
        "1 of 2 passed sessions had such turns too)"
    ) in md
    assert "(docs/domains.md#when-the-scripted-user-does-not-understand-your-agent)." in md
    # next to the headline figure, which stays last
    lines = [line for line in md.splitlines() if line]
    assert LINE in lines[-2] and lines[-1].startswith("Overall:")


def test_each_failed_sessions_junit_failure_names_its_first_unheard_question() -> None:
    records = _run()
    junit = render_run_junit(
        records, RunSummary.model_validate(summarize(records, BUCKETS, seed=0, n_resamples=50)), "r"
    )
    failures = {
        case.get("name"): failure.get("message", "")
        for case in ET.fromstring(junit.split("\n", 1)[1]).iter("testcase")
        for failure in case.iter("failure")
    }
    assert failures["a/g/full/0"].endswith(
        "the scripted user did not understand 5 agent turns (first, turn 2: "
        "'Would you like me to proceed?'); add cues for them in your domain "
        "(docs/domains.md#when-the-scripted-user-does-not-understand-your-agent)"
    )
    assert "did not understand" not in failures["a/g/full/3"]  # failed, understood
    assert set(failures) == {"a/g/full/0", "a/g/full/1", "a/g/full/2", "a/g/full/3"}


def test_no_line_when_no_failed_session_had_such_turns() -> None:
    passed_only = [record("a", "full", 0, 100, 4, **_unheard(2)), record("a", "full", 1, 0, 4)]
    summary = summarize(passed_only, BUCKETS, seed=0, n_resamples=50)
    assert summary["unheard"]["failed_unheard"] == 0
    assert summary["unheard"]["passed_unheard"] == 1
    assert LINE not in render_markdown(RunSummary.model_validate(summary), "run")


def test_a_summary_from_before_the_count_renders_without_the_line() -> None:
    summary = summarize(_run(), BUCKETS, seed=0, n_resamples=50)
    del summary["unheard"]
    assert LINE not in render_markdown(RunSummary.model_validate(summary), "run")


HOSTILE = "Proceed?\x1b[31m <script>alert(1)</script> [x](http://evil.example) *b* | `c`\nnext?"


def test_the_agents_words_are_text_in_the_terminal_markdown_and_html() -> None:
    records = _run(HOSTILE)
    summary = summarize(records, BUCKETS, seed=0, n_resamples=50)

    buf = io.StringIO()
    render_terminal(
        RunSummary.model_validate(summary), Console(file=buf, width=400, color_system=None)
    )
    terminal = buf.getvalue()
    assert controls(terminal) == []
    assert "\\x1b[31m" in terminal

    md = render_markdown(RunSummary.model_validate(summary), "run")
    assert controls(md) == []
    (line,) = [p for p in gfm(md).split("<p>") if LINE in p]  # the line, rendered
    for tag in ("<a", "<script", "<em>", "<code>"):
        assert tag not in line
    words = "&lt;script&gt;alert(1)&lt;/script&gt; [x](http://evil.example) *b* | `c` next?"
    assert f"Proceed?\\x1b[31m {words}" in line

    html = render_html(RunSummary.model_validate(summary), records, "r")
    tables = html[html.index('<section id="tables">') : html.index('<section id="sessions">')]
    assert controls(tables) == []
    assert "<script>alert" not in tables
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in tables
