"""A domain is data: the shipped travel folder, the loader's messages, goals checked against it.

Every mistake is reported through the real command line (in-process ``main``):
exit 2, each problem as ``file:line: field: what and the fix``, no traceback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simlab.cli import main
from simlab.spec import (
    DomainSet,
    SpecError,
    load_domain,
    load_domains,
    load_goals,
    shipped_domains,
    value_problem,
)

ROOT = Path(__file__).resolve().parents[2]
TRAVEL = ROOT / "domains" / "travel"


def simlab(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    """``simlab ARGS`` in-process: (exit code, what it printed)."""
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.err + out.out


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` holding ``text``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


# ------------------------------------------------------------------ the shipped domain


def test_the_travel_domain_is_split_over_files_and_merges_whole() -> None:
    domain = load_domain(TRAVEL)
    assert domain.id == "travel" and sorted(domain.languages) == ["en", "vi"]
    assert [i.tool for i in domain.intents] == [
        "hold_booking",
        "change_booking",
        "refund",
        "baggage_policy",
    ]
    assert {t.name for t in domain.tools} >= {i.tool for i in domain.intents}
    writes = {t.name: t.reversible for t in domain.tools if t.effect == "write"}
    assert writes == {"hold_booking": True, "change_booking": True, "refund": False}
    assert shipped_domains() == ["bank", "travel"]
    assert load_domain(TRAVEL / "domain.yaml") == domain  # its main file names the folder


def test_the_travel_vocabulary_lives_in_the_yaml() -> None:
    domain = load_domain(TRAVEL)
    origin, destination = domain.slot("origin"), domain.slot("destination")
    assert origin is not None and origin.type == "enum" and destination is not None
    # what simlab's former travel desk held as Python literals, now the slots' data
    cities = [(v.value, v.say["en"], v.say["vi"], tuple(v.aliases)) for v in origin.values]
    assert [c[0] for c in cities] == ["HAN", "SGN", "DAD", "PQC", "CXR", "BKK", "SIN"]
    assert cities[2][1:3] == ("Da Nang", "Đà Nẵng")
    assert cities[1][3] == (
        ("saigon", "sài gòn", "ho chi minh", "hồ chí minh", "hcmc", "tp hcm", "tp. hcm", "tphcm")
    )
    assert destination.values == origin.values
    fare, route = domain.slot("fare"), domain.slot("route")
    assert fare is not None and route is not None
    assert {v.value: v.say for v in fare.values} == {
        "economy": {"en": "economy", "vi": "phổ thông"},
        "business": {"en": "business", "vi": "thương gia"},
    }
    assert {v.value: v.say for v in route.values}["international"] == {
        "en": "international",
        "vi": "quốc tế",
    }
    # the cue words moved from Python (the old simlab.domain.travel.ASK_CUES) to the YAML
    date = domain.slot("date")
    assert date is not None
    assert (date.say["en"].ask, date.say["vi"].ask) == (
        ("which date", "departure date"),
        ("ngày nào", "ngày đi"),
    )
    assert domain.languages["en"].confirm_cues == ("shall i", "should i go ahead")


def test_every_shipped_goal_fits_the_travel_domain() -> None:
    domains = load_domains(["travel"], ROOT)
    goals = load_goals([ROOT / "goals"])
    from simlab.spec import goal_problems

    assert {g: goal_problems(goal, domains, g) for g, goal in goals.items()} == {
        g: [] for g in goals
    }


def test_a_tools_fixture_answers_its_arguments() -> None:
    tool = load_domain(TRAVEL).tool("get_booking")
    assert tool is not None
    call = tool.call({"booking_ref": "MB4T9R"})
    assert call.error is None and call.result["total_paid"] == 63
    assert tool.call({"booking_ref": "NOPE00"}).error is not None


@pytest.mark.parametrize(
    ("kind", "value", "ok"),
    [
        ("integer", 2, True),
        ("integer", "2", False),
        ("integer", True, False),
        ("number", "2.5", True),
        ("number", "two", False),
        ("date", "2026-12-20", True),
        ("date", "2026-02-30", False),
        ("date", "20/12/2026", False),
        ("time", "09:05", True),
        ("time", "9:05", False),
        ("time", "24:00", False),
        ("text", "plans changed", True),
        ("text", 3, False),
    ],
)
def test_a_value_is_checked_against_its_slots_type(kind: str, value: object, ok: bool) -> None:
    from simlab.spec import DomainSlot

    slot = DomainSlot(name="x", type=kind)  # type: ignore[arg-type]
    assert (value_problem(slot, value) is None) is ok  # type: ignore[arg-type]


def test_money_enum_and_identifier_values() -> None:
    from simlab.spec import DomainSlot

    money = DomainSlot(name="limit", type="money", currency="VND")
    assert value_problem(money, 5_000_000) is None
    assert "in VND" in (value_problem(money, "lots") or "")
    enum = DomainSlot(name="card", type="enum", values=[{"value": "debit"}])  # type: ignore[list-item]
    assert value_problem(enum, "debit") is None
    assert "takes one of: debit" in (value_problem(enum, "credit") or "")
    ident = DomainSlot(name="ref", type="identifier", pattern="[A-Z0-9]{6}")
    assert value_problem(ident, "MB4T9R") is None
    assert "must match" in (value_problem(ident, "mb4t9r") or "")
    with pytest.raises(ValueError, match="add `currency:`"):
        DomainSlot(name="amount", type="money")


# ------------------------------------------------------------------ goals that do not fit


@pytest.fixture()
def bad_goal(tmp_path: Path) -> Path:
    path = tmp_path / "goals" / "one_way.yaml"
    path.parent.mkdir()
    shutil.copy(ROOT / "goals" / "one_way.yaml", path)
    return path


@pytest.mark.parametrize(
    ("old", "new", "field", "says"),
    [
        (
            "slot: passengers, value: 2}",
            "slot: pasengers, value: 2}",
            "facts.3.slot",
            "unknown slot 'pasengers' in domain 'travel'; use one of: origin,",
        ),
        (
            'slot: date, value: "2026-12-20"}',
            'slot: date, value: "20 Dec"}',
            "facts.2.value",
            "date is a date slot: write YYYY-MM-DD in quotes (got '20 Dec')",
        ),
        (
            "slot: origin, value: HAN}",
            "slot: origin, value: XXX}",
            "facts.0.value",
            "origin takes one of: HAN, SGN,",
        ),
        (
            'fact: date, value: "2026-12-19"}',
            "fact: date, value: 19}",
            "mind_changes.0.value",
            "date is a date slot",
        ),
        (
            "final_tool: hold_booking",
            "final_tool: book_flight",
            "final_tool",
            "'book_flight' is not an intent of domain 'travel'; use one of: hold_booking, "
            "change_booking, refund, baggage_policy (or add an intent for it in",
        ),
        (
            "field: dep_time, op: le}",
            "field: departure, op: le}",
            "constraints.5.field",
            "no 'departure' in what hold_booking takes or returns; use one of: flight_id,",
        ),
        (
            "expected_tools: [search_flights, hold_booking]",
            "expected_tools: [find_flights, hold_booking]",
            "expected_tools.0",
            "'find_flights' is not a tool of domain 'travel'",
        ),
        (
            "expected_tools: [search_flights, hold_booking]",
            "must_call: [find_flights]\nexpected_tools: [search_flights, hold_booking]",
            "must_call.0",
            "'find_flights' is not a tool of domain 'travel'",
        ),
        (
            "expected_tools: [search_flights, hold_booking]",
            "allowed_tools: [search_flights, book]\nexpected_tools: [search_flights]",
            "allowed_tools.1",
            "'book' is not a tool of domain 'travel'",
        ),
    ],
)
def test_validate_reports_a_goal_that_does_not_fit_its_domain(
    capsys: pytest.CaptureFixture[str], bad_goal: Path, old: str, new: str, field: str, says: str
) -> None:
    text = bad_goal.read_text(encoding="utf-8")
    assert old in text
    bad_goal.write_text(text.replace(old, new), encoding="utf-8")
    code, out = simlab(capsys, "validate", bad_goal.parent)
    assert code == 2, out
    line = line_of(bad_goal, new.split(",")[0].split("[")[0])
    assert f"{bad_goal}:{line}: {field}: {says}" in out
    assert "Traceback" not in out


def test_run_refuses_a_goal_its_domain_cannot_voice_before_any_session(
    capsys: pytest.CaptureFixture[str], bad_goal: Path, tmp_path: Path
) -> None:
    text = bad_goal.read_text(encoding="utf-8").replace("hold_booking\n", "book_flight\n")
    bad_goal.write_text(text, encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"personas: [terse_en]\ngoals: [one_way]\nmodes: [full]\nreps: 1\n"
        f"persona_dirs: [{ROOT / 'personas'}]\ngoal_dirs: [goals]\n",
        encoding="utf-8",
    )
    code, out = simlab(capsys, "run", suite, "--out", tmp_path / "res", "--quiet")
    assert code == 2, out
    assert f"{bad_goal}:{line_of(bad_goal, 'final_tool:')}: final_tool: 'book_flight'" in out
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").iterdir())


# ------------------------------------------------------------------ domain folders


def small_domain(folder: Path) -> Path:
    """A two-file domain: domain.yaml (languages, intents) and tools.yaml."""
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(
        """id: shop
languages:
  en:
    confirm_cues: ["shall i"]
    phrases:
      mind_change: ["Actually,"]
      answer_yes: ["Yes."]
      answer_none: ["None."]
      reassert: ["No."]
      nothing_to_add: ["That's all."]
      done: ["Thanks."]
      gave_up: ["Bye."]
slots:
  - name: item
    type: text
    say:
      en: {state: ["I want {value}."], ask: ["which item"]}
intents:
  - tool: order
    openings: {en: ["I want to order."]}
""",
        encoding="utf-8",
    )
    (folder / "tools.yaml").write_text(
        """tools:
  - name: order
    description: Orders an item.
    effect: write
    parameters: {type: object, properties: {item: {type: string}}, required: [item]}
    returns: [order_id]
""",
        encoding="utf-8",
    )
    return folder


def test_a_small_domain_in_two_files_loads(tmp_path: Path) -> None:
    domain = load_domain(small_domain(tmp_path / "shop"))
    assert (domain.id, [s.name for s in domain.slots], [t.name for t in domain.tools]) == (
        "shop",
        ["item"],
        ["order"],
    )
    assert domain.languages["en"].phrases["answer_yes"] == {"neutral": ("Yes.",)}


@pytest.mark.parametrize(
    ("file", "old", "new", "where", "says"),
    [
        (
            "domain.yaml",
            "  - tool: order\n",
            "  - tool: ordr\n",
            "intents.0.tool",
            "intent's tool 'ordr' is not a declared tool; declare it under `tools:` or use "
            "one of: order",
        ),
        (
            "domain.yaml",
            "    type: text\n",
            "    type: money\n",
            "slots.0.currency",
            "a money slot needs its currency: add `currency:`",
        ),
        (
            "domain.yaml",
            "    type: text\n",
            "    type: txt\n",
            "slots.0.type",
            "Input should be 'text', 'integer'",
        ),
        (
            "domain.yaml",
            "      en: {state:",
            "      fr: {state:",
            "slots.0.say.fr",
            "language 'fr' is not one the domain speaks (en)",
        ),
        (
            "domain.yaml",
            '      gave_up: ["Bye."]\n',
            "",
            "languages.en.phrases",
            "add a neutral phrasing for each of ['gave_up']",
        ),
        (
            "domain.yaml",
            '    confirm_cues: ["shall i"]\n',
            '    open_cue: ["anything else"]\n    confirm_cues: ["shall i"]\n',
            "languages.en.open_cue",
            "unknown field (did you mean 'open_cues'?); valid fields: confirm_cues,",
        ),
        (
            "domain.yaml",
            '{state: ["I want {value}."], ask:',
            '{state: ["I want {value}."], asks:',
            "slots.0.say.en.asks",
            "unknown field (did you mean 'ask'?)",
        ),
        (
            "tools.yaml",
            "    effect: write\n",
            "    effect: writes\n",
            "tools.0.effect",
            "Input should be 'read' or 'write'",
        ),
    ],
)
def test_validate_reports_a_domain_mistake_with_its_file_and_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    file: str,
    old: str,
    new: str,
    where: str,
    says: str,
) -> None:
    folder = small_domain(tmp_path / "domains" / "shop")
    path = folder / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    code, out = simlab(capsys, "validate", folder)
    assert code == 2, out
    assert f"{path}:" in out and f": {where}: " in out and says in out, out
    reported = next(ln for ln in out.splitlines() if f": {where}: " in ln)
    line = int(reported.split(f"{path}:", 1)[1].split(":", 1)[0])
    # the line of the field, or of the item holding it when the field is missing
    on = {"slots.0.currency": "name: item", "languages.en.phrases": "phrases:"}.get(where)
    anchor = on or new.strip().split(":")[0].lstrip("- ")
    assert anchor in path.read_text(encoding="utf-8").splitlines()[line - 1]
    assert "Traceback" not in out


def test_a_slot_declared_in_two_files_is_reported_at_the_second(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = small_domain(tmp_path / "domains" / "shop")
    (folder / "slots.yaml").write_text(
        "slots:\n  - name: item\n    type: text\n    say: {en: {state: ['{value}']}}\n",
        encoding="utf-8",
    )
    code, out = simlab(capsys, "validate", folder)
    assert code == 2
    assert (
        f"{folder / 'slots.yaml'}:2: slots.0.name: slot 'item' is already declared in "
        f"{folder / 'domain.yaml'}; declare it once"
    ) in out


def test_a_suite_names_its_domains_and_goals_name_theirs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    small_domain(tmp_path / "domains" / "shop")
    goals = tmp_path / "goals"
    goals.mkdir()
    (goals / "buy.yaml").write_text(
        "id: buy\ntitle: Buy\ndomain: shop\nfinal_tool: order\n"
        "facts: [{id: item, slot: item, value: tea}]\n"
        "constraints: [{fact: item, field: item}, {fact: item, field: order_id}]\n",
        encoding="utf-8",
    )
    (goals / "wrong.yaml").write_text(
        "id: wrong\ntitle: Wrong\ndomain: bakery\nfinal_tool: order\n"
        "facts: [{id: item, slot: item, value: tea}]\n",
        encoding="utf-8",
    )
    suite = tmp_path / "simlab.yaml"
    suite.write_text(
        f"domains: [travel, domains/shop]\npersona_dirs: [{ROOT / 'personas'}]\n",
        encoding="utf-8",
    )
    code, out = simlab(capsys, "validate", suite)
    assert code == 2, out
    assert (
        f"{goals / 'wrong.yaml'}:3: domain: unknown domain 'bakery'; known domains: shop, travel"
    ) in out
    assert "buy.yaml" not in out
    (goals / "wrong.yaml").unlink()
    code, out = simlab(capsys, "validate", suite)
    assert code == 0, out
    suite.write_text("domains: [domains/nowhere]\n", encoding="utf-8")
    code, out = simlab(capsys, "validate", suite)
    assert code == 2 and "domain 'domains/nowhere' not found" in out


def test_a_domain_set_defaults_to_its_first_domain(tmp_path: Path) -> None:
    small_domain(tmp_path / "shop")
    domains = load_domains(["shop", "travel"], tmp_path)
    assert isinstance(domains, DomainSet) and domains.default == "shop"
    assert domains.of(None) is domains.domains["shop"]
    with pytest.raises(SpecError, match="two domains named 'shop'"):
        load_domains(["shop", str(tmp_path / "shop")], tmp_path)


def test_a_domain_declares_failure_stages_of_its_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = small_domain(tmp_path / "domains" / "shop")
    stages = folder / "stages.yaml"
    stages.write_text(
        "stages:\n  - name: stock\n    checks: ['constraint:item', 'safety:*']\n",
        encoding="utf-8",
    )
    domain = load_domain(folder)
    assert [(s.name, s.checks) for s in domain.stages] == [
        ("stock", ("constraint:item", "safety:*"))
    ]
    stages.write_text("stages:\n  - name: output\n    checks: [confirmation]\n", encoding="utf-8")
    code, out = simlab(capsys, "validate", folder)
    assert code == 2 and "Traceback" not in out
    assert f"{stages}:2: stages.0.name: " in out
    assert "'output' is a built-in stage (selection, arguments, execution, output)" in out
