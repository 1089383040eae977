"""Every figure the reports print travels with its n and its interval, or says why it has none."""

from __future__ import annotations

from rich.console import Console

from simlab.report import render_html, render_markdown, render_terminal, summarize
from simlab.store import RunSummary, SessionRecord

from .conftest import BUCKETS, record, small_run

EMPTY_INTERVAL = "[0.0%, 100.0%]"


def outputs(records: list[SessionRecord], width: int = 160) -> tuple[str, str, str]:
    """The terminal text (at ``width`` columns), report.md and report.html of a run."""
    summary = summarize(records, BUCKETS, seed=7, n_resamples=200)
    console = Console(record=True, width=width)
    render_terminal(RunSummary.model_validate(summary), console)
    return (
        console.export_text(),
        render_markdown(RunSummary.model_validate(summary), "r"),
        render_html(RunSummary.model_validate(summary), records, "r"),
    )


def table_lines(text: str, title: str) -> list[str]:
    """The lines of one terminal table, from its title to the blank line after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == title)
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return lines[start:end]


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("│")[1:-1]]


def test_giving_up_carries_its_interval() -> None:
    terminal, md, html = outputs(small_run())
    bob = next(line for line in table_lines(terminal, "Giving up by persona") if "bob" in line)
    # bob: 5 graded sessions, 2 gave up (Wilson [11.8%, 76.9%]), 1 before any action
    assert cells(bob) == [
        "bob",
        "5",
        "40.0% (2/5)",
        "[11.8%, 76.9%]",
        "20.0% (1/5)",
        "[3.6%, 62.4%]",
    ]
    assert "| bob | 5 | 40.0% (2/5) | [11.8%, 76.9%] | 20.0% (1/5) | [3.6%, 62.4%] |" in md
    row = '<td>bob</td><td class="n">5</td><td class="n">40.0% (2/5)</td><td>[11.8%, 76.9%]</td>'
    assert row in html


def only_errors_in_10_plus() -> list[SessionRecord]:
    return [
        record("alice", "full", 0, 100, 3),
        record("alice", "full", 1, 0, 3),
        record("alice", "full", 2, None, 12),  # the 10+ bucket holds only an error
        record("carol", "full", 0, None, 3),  # carol has no graded session at all
    ]


def test_no_sessions_no_interval() -> None:
    terminal, md, html = outputs(only_errors_in_10_plus())
    for text in (terminal, md, html):
        assert EMPTY_INTERVAL not in text
    ten = next(
        line
        for line in table_lines(terminal, "Pass rate by planned length (user turns the plan needs)")
        if "10+" in line
    )
    assert cells(ten)[:4] == ["10+", "0", "—", "—"]
    carol = next(line for line in table_lines(terminal, "Pass rate by persona") if "carol" in line)
    assert cells(carol)[:4] == ["carol", "0", "—", "—"]
    gave_up = next(
        line for line in table_lines(terminal, "Giving up by persona") if "carol" in line
    )
    assert cells(gave_up) == ["carol", "0", "— (0/0)", "—", "— (0/0)", "—"]
    by_length = next(
        line
        for line in table_lines(terminal, "Pass rate by persona × planned length")
        if "alice" in line
    )
    assert cells(by_length)[2] == "— (0/0)"
    assert "| 10+ | 0 | — | — |" in md
    assert "length: 10+ user turns" in html and "95% CI —, n=0" in html


def test_one_cell_says_it_has_no_interval() -> None:
    records = [record("alice", "full", 0, 100, 3), record("alice", "full", 1, 0, 3)]
    terminal, md, html = outputs(records)
    # one cell of two reps scored 100 and 0: aptitude P90 = 90, unreliability P90 - P10 = 80
    overall = terminal.rstrip().splitlines()[-1]
    assert overall == (
        "Overall: pass rate 50.0% [9.5%, 90.5%] (n=2, 0 errors excluded); "
        "aptitude 90.0; unreliability 80.0 (1 cell: no interval)."
    )
    assert md.rstrip().splitlines()[-1] == overall
    assert "over 1 cells" not in terminal + md + html and "(1 cells)" not in terminal + md
    alice = next(line for line in table_lines(terminal, "Pass rate by persona") if "alice" in line)
    assert cells(alice)[4:6] == ["90.0 (1 cell: no interval)", "80.0 (1 cell: no interval)"]
    pass_k = next(
        line
        for line in table_lines(terminal, "pass^k by goal (all k trials pass)")
        if "all goals" in line
    )
    assert cells(pass_k)[:6] == ["all goals", "1", "2", "2", "1", "50.0% (1 task: no interval)"]
    assert "aptitude 90.0 (1 cell: no interval)" in html


def test_errors_are_counted_in_the_singular_too() -> None:
    terminal, md, _ = outputs(small_run())
    assert "(n=11, 1 error excluded)" in terminal.splitlines()[-1]
    assert "(n=11, 1 error excluded)" in md


def test_persona_by_length_cells_carry_wilson_intervals_at_160_columns() -> None:
    long_name = "impatient_customer_en"
    terminal, md, html = outputs(small_run(long_name), width=160)
    lines = table_lines(terminal, "Pass rate by persona × planned length")
    assert max(len(line) for line in lines) <= 160
    row = next(line for line in lines if long_name in line)  # one line: nothing wrapped
    assert cells(row) == [
        long_name,
        "0.0% (0/1) [0.0%, 79.3%]",
        "66.7% (2/3) [20.8%, 93.9%]",
        "0.0% (0/1) [0.0%, 79.3%]",
        "100.0% (1/1) [20.7%, 100.0%]",
    ]
    assert "| 66.7% (2/3) [20.8%, 93.9%] |" in md
    assert '<td class="n">66.7% (2/3) [20.8%, 93.9%]</td>' in html
    assert "intervals per cell are in summary.json" not in terminal + md + html
