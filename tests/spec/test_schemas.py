"""The committed ``schemas/`` and the ``$schema`` lines of the shipped YAML files stay true.

Editors (the VS Code YAML extension) read ``# yaml-language-server: $schema=...``
on a file's first line and check the file against that JSON schema as it is
typed: the schemas must be what ``simlab schema`` writes today, and every
shipped file must pass its schema, or the editor flags correct files.
"""

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml
from run_simlab import simlab

from simlab.spec import SpecError, kind_for, load_personas, load_suite

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
SCHEMA_LINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)\n")
SHIPPED = sorted(
    [
        *(p for d in ("personas", "goals", "perturbations") for p in (ROOT / d).glob("*.yaml")),
        *(ROOT / "domains").glob("*/*.yaml"),
        ROOT / "simlab.yaml",
        ROOT / "domains" / "travel" / "agents" / "booking_llm.yaml",
    ]
)


def _schema_of(path: Path) -> Path:
    text = path.read_text(encoding="utf-8")
    m = SCHEMA_LINE.match(text)
    assert m, f"{path}: the first line must be `# yaml-language-server: $schema=...`"
    return (path.parent / m.group(1)).resolve()


def test_the_committed_schemas_are_what_simlab_schema_writes(tmp_path: Path) -> None:
    proc = simlab("schema", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    written = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
    committed = {p.name: p.read_text(encoding="utf-8") for p in SCHEMAS.iterdir()}
    stale = sorted(
        n for n in written.keys() | committed.keys() if written.get(n) != committed.get(n)
    )
    assert not stale, (
        f"schemas/ differs from `simlab schema` for {stale}: run `simlab schema --out schemas` "
        "and commit the result"
    )


def test_there_is_a_shipped_file_of_every_kind() -> None:
    kinds = {kind_for(p)[0] for p in SHIPPED}
    assert kinds == {"persona", "goal", "perturbation", "suite", "agent", "domain"}
    assert len(SHIPPED) == 12 + 6 + 8 + 2 + 3 + 4


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_shipped_file_names_its_kinds_schema_and_passes_it(path: Path) -> None:
    kind, _ = kind_for(path, yaml.safe_load(path.read_text(encoding="utf-8")))
    schema = _schema_of(path)
    assert schema == SCHEMAS / f"{kind}.schema.json"  # relative to the file, as editors read it
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft202012Validator(json.loads(schema.read_text())).iter_errors(data))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_the_suite_schema_takes_the_short_forms_and_refuses_a_misspelled_field(
    tmp_path: Path,
) -> None:
    schema = json.loads((SCHEMAS / "suite.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"target": "reference:v2", "buckets": ["1-1", "2-3", "4+"]})
    assert validator.is_valid({"target": "my_agent:make", "buckets": [{"name": "x", "min": 1}]})
    assert validator.is_valid({"target": {"kind": "http", "url": "http://localhost:1/chat"}})
    assert not validator.is_valid({"buckets": ["two to four"]})
    assert not validator.is_valid({"rep": 3})  # additionalProperties: false
    for text in ("buckets: ['two to four']\n", "rep: 3\n"):  # the loader refuses them too
        path = tmp_path / "suite.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SpecError):
            load_suite(path)
    path.write_text("target: reference:v2\nbuckets: ['1-1', '2-3', '4+']\n", encoding="utf-8")
    assert [b.name for b in load_suite(path).buckets] == ["1-1", "2-3", "4+"]


def test_file_line_in_errors_counts_the_schema_line(tmp_path: Path) -> None:
    # the persona's `language:` is on line 5 of the shipped file, below the $schema line
    shipped = (ROOT / "personas" / "terse_en.yaml").read_text(encoding="utf-8")
    lines = shipped.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("language:"))
    assert at == 4 and SCHEMA_LINE.match(lines[0])
    lines[at] = "language: French\n"
    path = tmp_path / "personas" / "terse_en.yaml"
    path.parent.mkdir()
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        load_personas([path.parent])
    (problem,) = raised.value.problems
    assert (problem.file, problem.line, problem.field) == (str(path), 5, "language")
    assert str(problem).startswith(f"{path}:5: language:")
