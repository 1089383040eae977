from pathlib import Path

import pytest
from run_simlab import simlab

from simlab.spec import (
    Goal,
    Persona,
    SpecError,
    Suite,
    load_personas,
    parse_model,
    validate_paths,
    validate_specs,
)

BAD_PERSONA = """\
id: bad_one
name: Bad
traits:
  patiense: 4
  verbosity: lots
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_every_problem_in_a_file_is_reported_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "personas" / "bad.yaml", BAD_PERSONA)
    with pytest.raises(SpecError) as caught:
        parse_model(Persona, path)
    problems = {p.field: p for p in caught.value.problems}
    assert set(problems) == {"language", "traits.patiense", "traits.verbosity"}
    assert problems["traits.patiense"].line == 4
    assert "did you mean 'patience'" in problems["traits.patiense"].message
    assert problems["traits.verbosity"].line == 5
    assert "'lots'" in problems["traits.verbosity"].message
    assert problems["language"].line == 1
    assert "en, vi" in problems["language"].message


def test_cli_validate_prints_all_three_and_exits_2_without_traceback(tmp_path: Path) -> None:
    path = write(tmp_path / "personas" / "bad.yaml", BAD_PERSONA)
    proc = simlab("validate", str(path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{path}:4: traits.patiense" in proc.stderr
    assert f"{path}:5: traits.verbosity" in proc.stderr
    assert f"{path}:1: language" in proc.stderr


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "x.yaml", "name: a\nseed: [1,\n")
    with pytest.raises(SpecError) as caught:
        parse_model(Suite, path)
    assert caught.value.problems[0].line == 3
    assert "invalid YAML" in caught.value.problems[0].message


def test_duplicate_ids_across_files_are_an_error(tmp_path: Path) -> None:
    text = "id: same\nname: A\nlanguage: en\n"
    write(tmp_path / "personas" / "a.yaml", text)
    write(tmp_path / "personas" / "b.yaml", text)
    with pytest.raises(SpecError, match="duplicate id 'same'"):
        load_personas([tmp_path / "personas"])


def test_suite_short_forms() -> None:
    suite = Suite.model_validate({"target": "reference:v2", "buckets": ["1-3", "4+"]})
    assert suite.target.kind == "reference" and suite.target.version == "v2"
    assert [(b.min, b.max) for b in suite.buckets] == [(1, 3), (4, None)]
    assert suite.bucket_of(3) == "1-3" and suite.bucket_of(40) == "4+"
    assert suite.bucket_of(0) is None
    callable_suite = Suite.model_validate({"target": "my_pkg.agent:reply"})
    assert callable_suite.target.kind == "callable"


@pytest.mark.parametrize(
    ("buckets", "message"),
    [
        (["4-2"], "max 2 is below min 4"),
        (["2-4", "3-9"], "'2-4' and '3-9' overlap"),
        (["10+", "5-9", "7+"], r"'5-9' and '7\+' overlap"),
        (["2-4", "5+", "2-4"], "bucket names repeat"),
    ],
)
def test_buckets_must_be_ordered_and_disjoint(buckets: list[str], message: str) -> None:
    # each session counts in one bucket: an inverted or overlapping one mislabels its row
    with pytest.raises(ValueError, match=message):
        Suite.model_validate({"buckets": buckets})
    Suite.model_validate({"buckets": ["10+", "2-4", "5-9"]})  # any order, if disjoint


def test_goal_rejects_unknown_fact_references() -> None:
    with pytest.raises(ValueError, match="unknown fact 'nope'"):
        Goal.model_validate(
            {
                "id": "g",
                "title": "G",
                "final_tool": "refund",
                "facts": [{"id": "ref", "slot": "booking_ref", "value": "ABC123"}],
                "constraints": [{"fact": "nope", "field": "x"}],
            }
        )


def test_shipped_library_is_valid() -> None:
    root = Path(__file__).resolve().parents[2]
    n_files, problems = validate_paths([root / "personas", root / "goals", root / "simlab.yaml"])
    assert problems == []
    assert n_files >= 13


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("shipped", "kind"),
    [
        ("personas/terse_en.yaml", "persona"),
        ("goals/one_way.yaml", "goal"),
        ("perturbations/typos.yaml", "perturbation"),
        ("domains/travel/agents/booking_llm.yaml", "agent"),
        ("simlab.yaml", "suite"),
    ],
)
def test_a_file_outside_its_folder_is_told_by_its_fields(
    tmp_path: Path, shipped: str, kind: str
) -> None:
    moved = write(tmp_path / "elsewhere" / "x.yaml", (ROOT / shipped).read_text())
    told = validate_specs([moved])
    assert [(f.kind, f.guessed) for f in told.files] == [(kind, True)]
    assert told.problems == [] or kind == "suite"  # the moved suite's library paths break


def test_kind_option_overrides_the_guess_and_the_folder(tmp_path: Path) -> None:
    path = write(tmp_path / "personas" / "p.yaml", (ROOT / "personas/terse_en.yaml").read_text())
    told = validate_specs([path], kind="goal")
    assert [(f.kind, f.why, f.guessed) for f in told.files] == [("goal", "--kind", False)]
    assert {p.field for p in told.problems} >= {"final_tool", "facts", "traits"}


def test_a_suite_pattern_matching_nothing_is_found_by_validate(tmp_path: Path) -> None:
    suite = write(
        tmp_path / "s.yaml",
        f"personas: [nobody, terse_*]\ngoals: [one_way]\n"
        f"persona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [{ROOT / 'goals'}, missing]\n",
    )
    problems = validate_specs([suite]).problems
    assert [str(p) for p in problems] == [
        f"{suite}:1: personas: 'nobody' matches no persona; valid: "
        + ", ".join(sorted(p.stem for p in (ROOT / "personas").glob("*.yaml"))),
        f"{tmp_path / 'missing'}: no such file or folder; check the suite's *_dirs "
        "(relative to the suite file)",
    ]
