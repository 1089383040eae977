"""Untrusted YAML: the audit's minimal cases end in exit 2 with a message, never a traceback.

Each case runs ``simlab validate`` in-process (an exception escaping ``main`` fails
the test); the billion laughs also runs as a subprocess under a memory cap, so
an expansion that the limits miss fails by memory rather than by a slow test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from simlab.cli import main
from simlab.spec import SpecError, Suite, parse_model

ROOT = Path(__file__).resolve().parents[2]

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def validate(
    capsys: pytest.CaptureFixture[str], path: Path, *extra: str, kind: str = "persona"
) -> tuple[int, str]:
    """``simlab validate --kind KIND PATH`` in-process: (exit code, what it printed)."""
    capsys.readouterr()
    code = main(["validate", "--kind", kind, str(path), *extra])
    out = capsys.readouterr()
    return code, out.err + out.out


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "line", "said"),
    [
        pytest.param(BILLION_LAUGHS, 5, "SIMLAB_YAML_MAX_NODES", id="billion-laughs"),
        pytest.param("id: x\nname: &a [*a]\n", 2, "recursive alias", id="recursive-alias"),
        pytest.param("a: &a {b: *a}\n", 1, "recursive alias", id="recursive-alias-map"),
        pytest.param("id: " + "[" * 3000 + "]" * 3000, 1, "SIMLAB_YAML_MAX_DEPTH", id="deep-flow"),
        pytest.param(
            "".join(f"{'  ' * i}k:\n" for i in range(400)), 101, "SIMLAB_YAML_MAX_DEPTH", id="deep"
        ),
        pytest.param("id: x\nname: \x01\n", 2, "U+0001", id="control-char"),
        pytest.param("id: x\nname: \x7f\n", 2, "U+007F", id="delete-char"),
        pytest.param("id: x\nname: !!float abc\n", 2, "as !!float", id="float-abc"),
        pytest.param("id: x\nname: !!timestamp abc\n", 2, "as !!timestamp", id="timestamp-abc"),
        pytest.param("id: x\nname: !!float\n", 2, "as !!float", id="empty-float"),
        pytest.param("id: x\nname: 2026-13-45\n", 2, "as !!timestamp", id="month-13"),
        pytest.param("id: x\nname: !!bool maybe\n", 2, "true or false", id="bool-maybe"),
        pytest.param("id: x\nname: 1" + "0" * 5000 + "\n", 2, "4,300 digits", id="huge-int"),
        pytest.param("id: x\nname: 0x" + "f" * 5000 + "\n", 2, "4,300 digits", id="huge-hex"),
        pytest.param('id: x\nname: "\\ud800"\n', 2, "invalid Unicode character escape", id="esc"),
        pytest.param(
            'id: x\nname: "\\ud800"\n' + "".join(f"k{i}: v\n" for i in range(30_000)),
            2,
            "invalid Unicode character escape",
            id="esc-then-30k-keys",
        ),
        pytest.param("id: x\nname: !!python/object:os.system x\n", 2, "constructor", id="pytag"),
    ],
)
def test_hostile_yaml_is_one_message_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, line: int, said: str
) -> None:
    path = write(tmp_path, text)
    code, out = validate(capsys, path)
    assert code == 2, out
    assert f"{path}:{line}: " in out, out
    assert said in out, out


def test_a_file_over_the_size_limit_is_refused_before_reading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMLAB_YAML_MAX_BYTES", "1000")
    path = write(tmp_path, "id: x\nname: " + "y" * 2000 + "\n")
    code, out = validate(capsys, path)
    assert code == 2
    assert "2,013 bytes" in out and "SIMLAB_YAML_MAX_BYTES=10000" in out


def test_100k_keys_are_refused_by_the_node_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "".join(f"k{i}: v\n" for i in range(100_000)))
    code, out = validate(capsys, path)
    assert code == 2
    assert "too many nodes" in out and "SIMLAB_YAML_MAX_NODES" in out


def test_raising_a_limit_lets_the_file_through(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = "id: x\nname: " + "[" * 150 + "]" * 150 + "\n"
    path = write(tmp_path, deep)
    assert validate(capsys, path)[0] == 2
    monkeypatch.setenv("SIMLAB_YAML_MAX_DEPTH", "200")
    code, out = validate(capsys, path)
    assert code == 2  # the YAML reads now; the persona itself is wrong
    assert "SIMLAB_YAML" not in out and "name: Input should be a valid string" in out


def test_a_limit_that_is_not_a_number_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMLAB_YAML_MAX_NODES", "lots")
    code, out = validate(capsys, write(tmp_path, "id: x\n"))
    assert code == 2
    assert "SIMLAB_YAML_MAX_NODES must be a whole number >= 1, got 'lots'" in out


def test_aliases_within_the_limits_still_read(tmp_path: Path) -> None:
    text = "name: s\nbase: &b [full]\nmodes: *b\n"
    with pytest.raises(SpecError) as caught:  # `base` is no suite field: the alias itself read
        parse_model(Suite, write(tmp_path, text))
    assert [p.field for p in caught.value.problems] == ["base"]


def test_billion_laughs_in_a_subprocess_stays_small(tmp_path: Path) -> None:
    path = write(tmp_path, BILLION_LAUGHS)
    cmd = (
        "import resource, runpy, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))\n"
        "sys.argv = ['simlab', 'validate', sys.argv[1]]\n"
        "runpy.run_module('simlab.cli', run_name='__main__')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", cmd, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "too many nodes" in proc.stderr


SUITE_WITHOUT_BACKEND = f"""\
name: t
personas: [chatty_en]
goals: [one_way]
modes: [full]
reps: 1
target: reference:v1
persona_dirs: [{ROOT / "personas"}]
goal_dirs: [{ROOT / "goals"}]
llm: {{model: x}}
"""


@pytest.mark.parametrize("command", ["validate", "run"])
def test_an_llm_without_backend_names_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    path = write(tmp_path, SUITE_WITHOUT_BACKEND, "suite.yaml")
    capsys.readouterr()
    extra = ["--out", str(tmp_path / "res"), "--quiet"] if command == "run" else []
    code = main([command, str(path), *extra])
    out = capsys.readouterr().err
    assert code == 2
    assert f"{path}:9: llm.backend: missing required field; add `backend:`" in out
    assert "anthropic, openai, local, replay" in out


def test_an_llm_in_a_union_keeps_its_own_field_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = "name: t\ntarget: {kind: llm, agent: a.yaml, llm: {modle: x}}\n"
    code, out = validate(capsys, write(tmp_path, text), kind="suite")
    assert code == 2
    assert "target.llm.modle: unknown field (did you mean 'model'?)" in out
    assert "target.llm.backend: missing required field" in out


AGENT = """\
name: a
system_prompt: hi
tools:
  - name: t
    description: d
    parameters: {params}
"""


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ('{properties: "x"}', "properties: 'x' is not of type 'object'"),
        ("{type: [{a: 1}]}", "type: [{'a': 1}] is not one of"),
        ("{type: object, required: x}", "required: 'x' is not of type 'array'"),
        ("{type: object, properties: {a: 5}}", "properties.a: 5 is not of type 'object'"),
        ("{type: object, properties: {a: {type: []}}}", "properties.a.type: [] is not one of"),
        ("{type: object, properties: {a: {enum: 3}}}", "properties.a.enum: 3 is not of type"),
    ],
)
def test_an_agent_tool_schema_of_the_wrong_shape_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, params: str, said: str
) -> None:
    path = write(tmp_path, AGENT.format(params=params))
    code, out = validate(capsys, path, kind="agent")
    assert code == 2, out
    assert f"{path}:6: tools.0.parameters: " in out and said in out
