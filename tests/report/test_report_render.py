import re

from rich.console import Console

from simlab.report import escape_cell, render_markdown, render_terminal, summarize
from simlab.store import RunSummary, SessionRecord

from .conftest import BUCKETS, record, small_run


def _terminal_text(records: list[SessionRecord]) -> str:
    console = Console(record=True, width=200)
    render_terminal(RunSummary.model_validate(summarize(records, BUCKETS, seed=7)), console)
    return console.export_text()


def _line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.strip("│ ").startswith(start))


def test_terminal_rows_carry_n_and_intervals(records: list[SessionRecord]) -> None:
    text = _terminal_text(records)
    bob = _line(text, "bob")  # first bob row: the persona table
    # n=5, 1/5 = 20.0%, Wilson [3.6%, 62.4%], aptitude 87 over two cells, gave up 2/5
    for expected in ("5", "20.0%", "[3.6%, 62.4%]", "87.0 [", "64.0 ["):
        assert expected in bob
    summary = summarize(records, BUCKETS, seed=7)
    for name in ("aptitude", "unreliability"):
        lo, hi = summary["by_persona"]["bob"][f"{name}_ci"]
        assert f"[{lo:.1f}, {hi:.1f}]" in bob
    gave_up = text[text.index("Giving up by persona") :]
    assert "40.0% (2/5) │ [11.8%, 76.9%]" in _line(gave_up, "bob")
    bucket = _line(text, "5-9")
    assert "66.7%" in bucket and "[20.8%, 93.9%]" in bucket
    assert "other" in text
    by_length = text[text.index("Pass rate by persona × planned length") :]
    cells = [c.strip() for c in _line(by_length, "alice").split("│")[2:-1]]
    assert cells == [
        "0.0% (0/1) [0.0%, 79.3%]",
        "66.7% (2/3) [20.8%, 93.9%]",
        "0.0% (0/1) [0.0%, 79.3%]",
        "100.0% (1/1) [20.7%, 100.0%]",
    ]
    assert "— (0/0)" in _line(by_length, "bob")
    full = _line(text, "full")
    # two cells, each of several reps: real intervals, never a zero-width "[50.0, 50.0]"
    assert "50.0 [" in full and "90.0 [" in full
    assert not re.search(r"\[(-?\d+\.\d)%?, \1%?\]", text)
    assert "sharded − full (paired)" in text
    assert "k=2" in text and "8.3%" in text  # mean over 4 cells of C(c,2)/C(n,2) = (1/3)/4
    assert "infra_error" in text and "HTTP 503 | <upstream> `x`" in text


def test_terminal_overall_is_the_last_line(records: list[SessionRecord]) -> None:
    lines = _terminal_text(records).rstrip("\n").splitlines()
    assert lines[-1].startswith("Overall: pass rate 36.4% [15.2%, 64.6%] (n=11, 1 error excluded)")
    assert "aptitude 91.0" in lines[-1] and "unreliability 56.0" in lines[-1]
    assert sum("Overall" in line for line in lines) == 1


def test_terminal_no_errors_line() -> None:
    text = _terminal_text([record("a", "full", 0, 100, 3), record("a", "full", 1, 0, 3)])
    assert "No errors (0 of 2 sessions)." in text
    assert "Example errors" not in text


def test_terminal_does_not_interpret_markup_in_ids() -> None:
    text = _terminal_text([record("[bold]x[/bold]", "full", 0, 100, 3)])
    assert "[bold]x[/bold]" in text


def test_markdown_escapes_a_pipe_in_a_persona_id() -> None:
    md = render_markdown(
        RunSummary.model_validate(summarize(small_run("al|ice"), BUCKETS, seed=7)),
        "Run `r1` <nightly>",
    )
    assert md.startswith("# Run \\`r1\\` &lt;nightly&gt;\n")
    row = next(line for line in md.splitlines() if line.startswith("| al\\|ice |"))
    header = next(line for line in md.splitlines() if line.startswith("| Persona | n |"))
    # unescaped pipes delimit cells: the escaped one must not add a column
    assert row.replace("\\|", "").count("|") == header.count("|")
    assert "HTTP 503 \\| &lt;upstream&gt; \\`x\\`" in md
    assert md.rstrip().splitlines()[-1].startswith("Overall: pass rate 36.4%")


def test_markdown_tables_are_well_formed(records: list[SessionRecord]) -> None:
    md = render_markdown(RunSummary.model_validate(summarize(records, BUCKETS, seed=7)), "r")
    blocks = [b for b in md.split("\n\n") if b.startswith("|")]
    # persona, giving up, goal, planned length, persona x planned length, realised length,
    # modes, pass^k, checks, efficiency, errors (no trajectory: no record has tool use)
    assert len(blocks) == 11
    for block in blocks:
        widths = {line.replace("\\|", "").count("|") for line in block.splitlines()}
        assert len(widths) == 1, block


def test_escape_cell() -> None:
    assert escape_cell("a|b") == "a\\|b"
    assert escape_cell("<i>&`") == "&lt;i&gt;&amp;\\`"
    assert escape_cell("two\nlines") == "two lines"
    assert escape_cell("back\\slash") == "back\\\\slash"
