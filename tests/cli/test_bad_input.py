"""Bad input and file system trouble: one message naming the file and the fix, exit 2.

Each command is run in-process through ``simlab.cli.main``: an exception that
escaped it (a traceback for the user) fails the test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simlab.cli import main
from simlab.store import SCHEMA_VERSION, read_sessions

ROOT = Path(__file__).resolve().parents[2]


def simlab(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    """Run ``simlab ARGS`` in-process: (exit code, stderr and stdout)."""
    capsys.readouterr()  # drop what earlier calls printed
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.err + out.out


def write_suite(folder: Path, **fields: str) -> Path:
    """A two-session suite against the reference agent (chatty_en fails one_way)."""
    base = {
        "name": "tiny",
        "personas": "[chatty_en, terse_en]",
        "goals": "[one_way]",
        "modes": "[full]",
        "reps": "1",
        "target": "reference:v1",
        "persona_dirs": f"[{ROOT / 'personas'}]",
        "goal_dirs": f"[{ROOT / 'goals'}]",
    }
    base.update(fields)
    path = folder / "suite.yaml"
    path.write_text("".join(f"{k}: {v}\n" for k, v in base.items()), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run directory: one session passed, one failed."""
    folder = tmp_path_factory.mktemp("finished")
    assert main(["run", str(write_suite(folder)), "--out", str(folder / "res"), "--quiet"]) == 0
    (run_dir,) = (folder / "res").iterdir()
    return run_dir


@pytest.fixture()
def run_copy(finished_run: Path, tmp_path: Path) -> Path:
    """A copy of the finished run this test may damage."""
    return Path(shutil.copytree(finished_run, tmp_path / "run"))


# ------------------------------------------------------------- 1. OS errors, not tracebacks


@pytest.mark.parametrize("command", ["report", "compare", "diagnose", "brittleness", "replay"])
def test_a_sessions_file_that_is_a_folder_is_named(
    capsys: pytest.CaptureFixture[str], finished_run: Path, run_copy: Path, command: str
) -> None:
    (run_copy / "sessions.jsonl").unlink()
    (run_copy / "sessions.jsonl").mkdir()
    args = [command, finished_run, run_copy] if command == "compare" else [command, run_copy]
    code, out = simlab(capsys, *args)
    assert code == 2
    assert f"{run_copy / 'sessions.jsonl'} is a directory, not a file" in out


def test_resume_of_a_file_says_it_is_not_a_run_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("x")
    code, out = simlab(capsys, "run", "--resume", tmp_path / "notes.txt")
    assert code == 2
    assert f"{tmp_path / 'notes.txt'} is not a directory; give a run directory" in out


def test_run_out_that_is_a_file_is_refused_before_running(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "results").write_text("x")
    code, out = simlab(capsys, "run", write_suite(tmp_path), "--out", tmp_path / "results")
    assert code == 2
    assert f"--out {tmp_path / 'results'} is a file, not a folder" in out


def test_report_on_a_missing_folder_or_a_file_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = simlab(capsys, "report", tmp_path / "nope")
    assert code == 2 and f"{tmp_path / 'nope'} not found: no such run directory" in out
    (tmp_path / "file").write_text("x")
    code, out = simlab(capsys, "report", tmp_path / "file")
    assert code == 2 and f"{tmp_path / 'file'} is not a directory" in out


def test_unreadable_run_json_is_one_message(
    capsys: pytest.CaptureFixture[str], run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_read_text = Path.read_text

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        if self.name == "run.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", denied)
    code, out = simlab(capsys, "report", run_copy)
    assert code == 2
    assert f"{run_copy / 'run.json'}: cannot read (Permission denied)" in out


def test_an_os_error_anywhere_is_one_line_naming_the_path(
    capsys: pytest.CaptureFixture[str], run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import simlab.report as report

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(run_copy / "summary.json"))

    monkeypatch.setattr(report, "write_run_reports", denied)
    code, out = simlab(capsys, "report", run_copy)
    assert code == 2
    assert out.strip() == (
        f"error: {run_copy / 'summary.json'}: Permission denied; "
        "check the permissions of the file and its folder"
    )


def test_runs_lists_unreadable_run_folders_with_why(
    capsys: pytest.CaptureFixture[str], finished_run: Path, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    shutil.copytree(finished_run, results / "a_good")
    for name, content in (("b_empty", ""), ("c_list", "[1]"), ("d_future", None)):
        (results / name).mkdir()
        if content is not None:
            (results / name / "run.json").write_text(content)
    info = (
        (finished_run / "run.json")
        .read_text()
        .replace(f'"schema_version": {SCHEMA_VERSION}', '"schema_version": 99')
    )
    (results / "d_future" / "run.json").write_text(info)
    (results / "e_folder" / "run.json").mkdir(parents=True)
    code, out = simlab(capsys, "runs", results, "--json")
    assert code == 0
    import json

    rows = {row["run_id"]: row for row in json.loads(out)}
    assert len(rows) == 5
    good = next(r for r in rows.values() if r["pass_rate"] is not None)
    assert good["problem"] is None
    assert rows["b_empty"]["problem"].startswith("run.json:1: not valid JSON")
    assert rows["c_list"]["problem"] == "run.json: expected a JSON object, got list"
    assert "schema_version 99 is newer" in rows["d_future"]["problem"]
    assert rows["e_folder"]["problem"].startswith("run.json is a directory")
    code, out = simlab(capsys, "runs", results)
    assert code == 0 and out.count("unreadable: run.json") == 4


# ------------------------------------------------------------- 2. files that are not UTF-8

NOT_UTF8 = b"\xff\xfe\x00bad"


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{bin}"],
        ["run", "{bin}"],
        ["compare", "{run}", "{run}", "--gates", "{bin}"],
        ["calibrate", "{bin}", "{run}"],
        ["import", "{bin}", "--out", "{tmp}"],
        ["brittleness", "--suite", "{bin}"],
        ["replay", "{bin}"],
        ["replay", "{log}"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_a_file_that_is_not_utf8_is_named_with_the_byte(
    capsys: pytest.CaptureFixture[str], finished_run: Path, tmp_path: Path, command: list[str]
) -> None:
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(NOT_UTF8)
    log = tmp_path / "bin.jsonl"
    log.write_bytes(NOT_UTF8)
    paths = {"bin": binary, "log": log, "run": finished_run, "tmp": tmp_path / "out"}
    code, out = simlab(capsys, *(part.format(**paths) for part in command))
    assert code == 2
    named = log if "{log}" in command else binary
    assert f"{named}: not UTF-8 text (byte 0)" in out
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------- 3. output paths already taken


def test_schema_out_that_is_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "schemas").write_text("x")
    code, out = simlab(capsys, "schema", "--out", tmp_path / "schemas")
    assert code == 2 and f"--out {tmp_path / 'schemas'} is a file, not a folder" in out


@pytest.mark.parametrize("option", ["--junit", "--markdown"])
def test_compare_output_that_is_a_folder_leaves_no_temporary_file(
    capsys: pytest.CaptureFixture[str], finished_run: Path, tmp_path: Path, option: str
) -> None:
    (tmp_path / "out").mkdir()
    code, out = simlab(capsys, "compare", finished_run, finished_run, option, tmp_path / "out")
    assert code == 2
    assert f"error: {tmp_path / 'out'}: Is a directory; a folder is in the way" in out
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_report_md_that_is_a_folder(capsys: pytest.CaptureFixture[str], run_copy: Path) -> None:
    (run_copy / "report.md").unlink()
    (run_copy / "report.md").mkdir()
    code, out = simlab(capsys, "report", run_copy)
    assert code == 2 and f"error: {run_copy / 'report.md'}: Is a directory" in out
    assert not list(run_copy.glob(".*.tmp"))


def test_replay_save_cases_onto_a_file(
    capsys: pytest.CaptureFixture[str], finished_run: Path, tmp_path: Path
) -> None:
    (tmp_path / "cases").write_text("x")
    code, out = simlab(capsys, "replay", finished_run, "--save-cases", tmp_path / "cases")
    assert code == 2 and f"--save-cases {tmp_path / 'cases'} is a file; give a folder" in out


def test_import_into_a_taken_run_id_or_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(LOG_LINE + "\n")
    (tmp_path / "imp" / "taken").mkdir(parents=True)
    code, out = simlab(capsys, "import", log, "--out", tmp_path / "imp", "--run-id", "taken")
    assert code == 2 and f"{tmp_path / 'imp' / 'taken'} already exists; choose another" in out
    assert list((tmp_path / "imp" / "taken").iterdir()) == []
    code, out = simlab(capsys, "import", log, "--out", log)
    assert code == 2 and f"--out {log} is a file, not a folder" in out


LOG_LINE = (
    '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], '
    '"reward": 1}'
)


# ------------------------------------------------------------- 5. run ids stay inside --out


@pytest.mark.parametrize("run_id", ["../../escape", "{abs}", "..", ".", "a/b", "x..y"])
def test_import_run_id_that_would_leave_out_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, run_id: str
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(LOG_LINE + "\n")
    out_dir = tmp_path / "a" / "b" / "imp"
    run_id = run_id.format(abs=tmp_path / "abs")
    with pytest.raises(SystemExit) as exit_:
        main(["import", str(log), "--out", str(out_dir), "--run-id", run_id])
    assert exit_.value.code == 2
    assert f"run id {run_id!r} must be one folder name" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl"]


def test_write_run_refuses_an_escaping_run_id(tmp_path: Path) -> None:
    from simlab.replay import import_logs, write_run

    log = tmp_path / "log.jsonl"
    log.write_text(LOG_LINE + "\n")
    with pytest.raises(ValueError, match="must be one folder name"):
        write_run(import_logs(log, "openai"), tmp_path / "out", "../escape")
    assert not (tmp_path / "escape").exists() and not (tmp_path / "out").exists()


# ------------------------------------------------------------- 6. messages that say what and where


def test_a_bad_sessions_line_names_the_field(
    capsys: pytest.CaptureFixture[str], run_copy: Path
) -> None:
    sessions = run_copy / "sessions.jsonl"
    first, *rest = sessions.read_text().splitlines(keepends=True)
    damaged = first.replace('"rep":0', '"rep":"zero"')
    assert damaged != first
    sessions.write_text("".join([damaged, *rest]))
    code, out = simlab(capsys, "report", run_copy)
    assert code == 2
    assert f"{sessions}:1: not a session record: key.rep: Input should be a valid integer" in out


def test_replay_with_an_unknown_target_names_the_valid_ones(
    capsys: pytest.CaptureFixture[str], finished_run: Path
) -> None:
    code, out = simlab(capsys, "replay", finished_run, "--target", "reference:v9")
    assert code == 2
    assert "--target reference:v9: version: Input should be 'v1' or 'v2'" in out
    assert "a target is reference:VERSION (v1, v2), module:attr" in out
    assert "pydantic.dev" not in out and "validation error" not in out


def test_import_of_a_folder_says_it_is_a_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = simlab(capsys, "import", tmp_path)
    assert code == 2 and f"{tmp_path} is a directory; give a log file" in out


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--faults", "bogus=1", "unknown fault kind 'bogus'; choose from rate_limit, overloaded"),
        ("--port", "99999", "a port is 0..65535 (0: any free port), got 99999"),
        ("--port", "-1", "a port is 0..65535"),
    ],
)
def test_fake_provider_bad_options_say_the_valid_ones(
    capsys: pytest.CaptureFixture[str], option: str, value: str, says: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["fake-provider", option, value])
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


# ------------------------------------------------------------- 7. validate checks what run needs


def test_validate_a_persona_outside_personas_says_its_kind_only_with_its_problems(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a valid file was said "read as a persona (its fields ...)": a notice that read as
    # a warning; the count says its kind
    persona = tmp_path / "persona.yaml"
    persona.write_text((ROOT / "personas" / "terse_en.yaml").read_text())
    code, out = simlab(capsys, "validate", persona)
    assert code == 0, out
    assert out.strip() == "1 file valid: 1 persona"
    code, out = simlab(capsys, "validate", persona, "--kind", "suite")
    assert code == 2 and "unknown field" in out and "checked as" not in out
    # broken, it is said which kind its problems are those of, every field that told it
    goal = tmp_path / "goal.yaml"
    goal.write_text((ROOT / "goals" / "one_way.yaml").read_text() + "priority: high\n")
    code, out = simlab(capsys, "validate", goal)
    assert code == 2, out
    assert (
        f"{goal}: checked as a goal, the kind its fields say (confirm_fields, constraints, "
        "expected_tools, facts, final_tool, mind_changes, title_vi); if it is another kind, "
        "pass --kind persona|goal|suite|perturbation|agent|domain"
    ) in out
    assert "priority: unknown field; remove it, or use one of the valid fields: agency," in out


def test_validate_with_no_spec_files_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.txt").write_text("x")
    code, out = simlab(capsys, "validate", tmp_path)
    assert code == 2 and f"no spec files (*.yaml, *.yml) found in {tmp_path}" in out
    monkeypatch.chdir(tmp_path)  # no args and no spec file here: the shipped ones are checked
    code, out = simlab(capsys, "validate")
    assert code == 0 and "no simlab.yaml here: validating the shipped default suite" in out


def test_validate_refuses_the_suite_run_would_refuse(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = write_suite(tmp_path, personas="[nobody]")
    code, out = simlab(capsys, "validate", suite)
    assert code == 2 and f"{suite}:2: personas: 'nobody' matches no persona" in out
    code, run_out = simlab(capsys, "run", suite, "--out", tmp_path / "res")
    assert code == 2 and "'nobody' matches no persona" in run_out


# ------------------------------------------------------------- 8. exit codes that mean something

HALF_DOWN_TARGET = '''
def reply(history, ctx):
    """Down for chatty_en's sessions; a polite refusal for the others."""
    if ctx.session_id.startswith("chatty_en/"):
        raise ConnectionError("provider outage")
    return "Sorry, I cannot book that."
'''


def test_a_run_that_graded_no_session_exits_1_and_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = write_suite(tmp_path, target="os:getcwd")
    code, out = simlab(capsys, "run", suite, "--out", tmp_path / "res", "--quiet")
    assert code == 1
    (run_dir,) = (tmp_path / "res").iterdir()
    assert "error: no session was graded: all 2 ended in error (e.g. agent_error: turn 1:" in out
    assert f"simlab run --resume {run_dir} --retry-errors" in out
    assert (run_dir / "report.md").is_file()  # the errors are reported all the same


def test_a_run_with_some_errors_still_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "half_down.py").write_text(HALF_DOWN_TARGET)
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = write_suite(tmp_path, target="half_down:reply")
    code, out = simlab(capsys, "run", suite, "--out", tmp_path / "res", "--quiet")
    assert code == 0, out
    assert "no session was graded" not in out
    (run_dir,) = (tmp_path / "res").iterdir()
    statuses = sorted(r.status for r in read_sessions(run_dir).records)
    assert statuses == ["error", "ok"]


def test_replay_of_a_folder_with_nothing_to_replay_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = simlab(capsys, "replay", tmp_path)
    assert code == 2 and f"{tmp_path} holds no run.json and no prefix case (*.yaml)" in out


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (["replay", "{run}", "--limit", "0"], "argument --limit: must be at least 1, got 0"),
        (["diagnose", "{run}", "--late-turn", "-3"], "must be at least 1, got -3"),
    ],
)
def test_counts_below_one_are_refused_when_parsed(
    capsys: pytest.CaptureFixture[str], finished_run: Path, command: list[str], says: str
) -> None:
    argv = [part.format(run=finished_run) for part in command]
    try:
        code = main(argv)
    except SystemExit as e:  # the delegated parsers exit as argparse does
        code = int(e.code or 0)
    assert code == 2 and says in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("", 2),  # empty: no log at all
        ("hello\nworld\n", 2),  # no JSON value: no log at all
        ('{"a": 1}\n', 1),  # JSON records, none importable: a log with nothing to import
    ],
)
def test_import_exit_code_tells_no_log_from_nothing_importable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, code: int
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(content)
    got, out = simlab(capsys, "import", log, "--out", tmp_path / "imp", "--quiet")
    assert got == code
    assert ("holds no JSON record" in out) == (code == 2)
    assert not (tmp_path / "imp").exists()


def test_the_no_session_graded_line_shows_control_characters_inert(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hostile.py").write_text(
        'def reply(history, ctx):\n    raise RuntimeError("boom \\x1b[31mRED\\x07")\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = write_suite(tmp_path, target="hostile:reply")
    code, out = simlab(capsys, "run", suite, "--out", tmp_path / "res", "--quiet")
    assert code == 1
    assert "RuntimeError: boom \\x1b[31mRED\\x07)" in out and "\x1b" not in out
