"""A domain's lookups supply a write's arguments: which lookup, which row (``where``,
``order_by``), and what the write's result may not exceed (``limits``), all as data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from simlab.agents.reference import DomainReader, DomainSkill, Plan
from simlab.cli import main
from simlab.spec import Domain, load_domain, shipped_domain

FERRY = """id: ferry
languages:
  en:
    confirm_cues: ["shall i"]
    month_names: [January, February, March, April, May, June, July, August, September,
                  October, November, December]
    phrases:
      mind_change: ["Actually,"]
      answer_yes: ["Yes."]
      answer_none: ["None."]
      reassert: ["No."]
      nothing_to_add: ["That's all."]
      done: ["Thanks."]
      gave_up: ["Bye."]
slots:
  - name: port
    type: enum
    values: [{value: NTH, say: {en: North Harbour}}, {value: STH, say: {en: South Harbour}}]
    say: {en: {state: ["I sail from {value}.", "I am back from {value}."], ask: ["which port"]}}
  - name: day
    type: date
    season_start: "2026-11-01"
    say: {en: {state: ["I sail on {day} {month_name}."], ask: ["which day"]}}
  - name: back_day
    type: date
    season_start: "2026-11-01"
    say: {en: {state: ["I come back on {day} {month_name}."], ask: ["which day back"]}}
  - name: adults
    type: integer
    asked_with: [kids]
    say: {en: {state: ["We are {value} adults."], ask: ["how many adults"]}}
  - name: kids
    type: integer
    none_value: 0
    say: {en: {state: ["We have {value} kids."], ask: ["how many kids"]}}
  - name: latest
    type: time
    say:
      en:
        state: ["We leave by {hour24}:{minute}."]
        heard: ["out by {hour24}:{minute}"]
        ask: ["latest time"]
  - name: budget
    type: money
    currency: EUR
    say: {en: {state: ["At most {amount} {currency}."], ask: ["budget"]}}
  - name: ticket
    type: identifier
    pattern: "T[0-9]{3}"
    say: {en: {state: ["My ticket is {value}."], ask: ["ticket"]}}
intents:
  - tool: book
    openings: {en: ["I want to sail."]}
  - tool: rebook
    openings: {en: ["I want another sailing."]}
"""

TOOLS = """tools:
  - name: sailings
    description: A day's sailings from a port.
    parameters:
      {type: object, properties: {port: {type: string}, day: {type: string}}, required: [port, day]}
    returns: [id, time, adult_fare, kid_fare, seats]
    fixtures:
      - when: {port: NTH, day: "2027-01-10"}
        result:
          - {id: S1, time: "07:00", adult_fare: 30, kid_fare: 10, seats: 9}
          - {id: S2, time: "11:00", adult_fare: 20, kid_fare: 20, seats: 9}
          - {id: S3, time: "12:00", adult_fare: 20, kid_fare: 5, seats: 2}
          - {id: S4, time: "19:00", adult_fare: 10, kid_fare: 10, seats: 9}
      - when: {port: NTH, day: "2027-01-12"}
        result: [{id: R1, time: "09:00", adult_fare: 25, kid_fare: 25, seats: 9}]
  - name: ticket
    description: A ticket with its sailing.
    parameters: {type: object, properties: {ticket: {type: string}}, required: [ticket]}
    returns: [ticket, port, sailing, adults, kids]
    fixtures:
      - when: {ticket: T100}
        result: {ticket: T100, port: NTH, sailing: S2, adults: 1, kids: 2}
  - name: book
    description: Books a sailing.
    effect: write
    parameters:
      type: object
      properties:
        sailing: {type: string}
        adults: {type: integer}
        kids: {type: integer, default: 0}
        back: {type: string}
      required: [sailing, adults]
    returns: [total]
    lookups:
      - tool: sailings
        pick: {sailing: id}
        where:
          - {field: seats, op: ge, value: [adults, kids]}
          - {field: time, op: le, value: latest}
        order_by: [{adult_fare: adults, kid_fare: kids}, time]
      - tool: sailings
        args: {port: port, day: back_day}
        pick: {back: id}
    limits: [{slot: budget, field: total}]
    fixtures:
      - when: {sailing: S2, adults: 2, kids: 1}
        result: {total: 60}
      - when: {sailing: S3, adults: 1, kids: 1}
        result: {total: 25}
      - when: {sailing: S4, adults: 2}
        result: {total: 20}
  - name: rebook
    description: Moves a ticket to another sailing.
    effect: write
    parameters:
      type: object
      properties: {ticket: {type: string}, sailing: {type: string}}
      required: [ticket, sailing]
    returns: [fee]
    requires: [ticket]
    lookups:
      - tool: sailings
        args: {port: ticket.port, day: day}
        pick: {sailing: id}
        where:
          - {field: id, op: ne, value: ticket.sailing}
          - {field: seats, op: ge, value: [ticket.adults, ticket.kids]}
        order_by: [{adult_fare: ticket.adults, kid_fare: ticket.kids}, time]
"""


def ferry(tmp_path: Path, tools: str = TOOLS) -> Path:
    folder = tmp_path / "domains" / "ferry"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(FERRY, encoding="utf-8")
    (folder / "tools.yaml").write_text(tools, encoding="utf-8")
    return folder


@pytest.fixture
def skill(tmp_path: Path) -> DomainSkill:
    return DomainSkill(load_domain(ferry(tmp_path)))


TRIP = {"port": "NTH", "day": "2027-01-10", "adults": 2}


def test_a_write_asks_for_the_slots_its_lookup_takes(skill: DomainSkill) -> None:
    assert skill.decide("book", {"adults": 2}, None).ask == ("port", "day")
    assert skill.decide("rebook", {}, None).ask == ("day", "ticket")  # the domain's order
    assert skill.infer_task({"ticket": "T100", "day": "2027-01-10"}) == "rebook"


def test_the_chosen_row_is_the_first_by_order_among_those_that_pass(skill: DomainSkill) -> None:
    calls: list = []
    # cheapest for two adults: S4 (evening); the kids argument's default 0 is left out
    assert skill.decide("book", TRIP, calls).plan == Plan(
        "book", (("sailing", "S4"), ("adults", 2))
    )
    assert [c.name for c in calls] == ["sailings"]  # the return lookup had no back_day
    # leaving by 12:00 and a party of three: S3 has 2 seats, S1 costs 70, S2 60
    plan = skill.decide("book", {**TRIP, "kids": 1, "latest": "12:00"}, None).plan
    assert plan is not None and plan.kwargs == {"sailing": "S2", "adults": 2, "kids": 1}
    # one adult and a kid: S3 (25) beats S2 (40); the weights are the slots' values
    plan = skill.decide("book", {**TRIP, "adults": 1, "kids": 1, "latest": "12:00"}, None).plan
    assert plan is not None and plan.kwargs["sailing"] == "S3"


def test_nothing_fits_and_over_a_limit_are_said_not_proposed(skill: DomainSkill) -> None:
    early = skill.decide("book", {**TRIP, "latest": "06:00"}, None)
    assert early.plan is None and early.problem == "no_fit"
    assert "nothing fits" in skill.problem(early, "en", alone=True)
    over = skill.decide("book", {**TRIP, "kids": 1, "latest": "12:00", "budget": 50}, None)
    assert over.plan is None and over.problem == "over_limit"
    assert "60" in skill.problem(over, "en", alone=True) and "50 EUR" in skill.problem(
        over, "en", alone=True
    )
    fits = skill.decide("book", {**TRIP, "kids": 1, "latest": "12:00", "budget": 60}, None)
    assert fits.plan is not None


def test_an_optional_lookup_runs_when_its_slots_are_known(skill: DomainSkill) -> None:
    calls: list = []
    plan = skill.decide("book", {**TRIP, "back_day": "2027-01-12"}, calls).plan
    assert plan is not None and plan.kwargs["back"] == "R1"
    assert [c.args for c in calls] == [
        {"port": "NTH", "day": "2027-01-10"},
        {"port": "NTH", "day": "2027-01-12"},
    ]


def test_a_lookup_takes_fields_of_an_earlier_record(skill: DomainSkill) -> None:
    calls: list = []
    plan = skill.decide("rebook", {"ticket": "T100", "day": "2027-01-10"}, calls).plan
    # the ticket's party (1 adult, 2 kids) on its port; not its own sailing S2; S3 too small
    assert [c.name for c in calls] == ["ticket", "sailings"]
    assert plan is not None and plan.kwargs == {"ticket": "T100", "sailing": "S4"}


def test_a_date_without_a_year_falls_in_the_slots_season(skill: DomainSkill) -> None:
    assert skill.read("I sail on 20 December.", ()).slots == {"day": "2026-12-20"}
    assert skill.read("I sail on 10 January.", ()).slots == {"day": "2027-01-10"}


def test_a_statement_inside_another_slots_longer_one_is_not_read_twice(
    skill: DomainSkill,
) -> None:
    # "I come back on 12 January" holds "on 12 January" only as the day back
    got = skill.read("I sail on 10 January. I come back on 12 January.", ())
    assert got.slots == {"day": "2027-01-10", "back_day": "2027-01-12"}


def test_a_phrasing_of_a_value_alone_is_tried_on_every_message(tmp_path: Path) -> None:
    # the reader tries a phrasing only when its longest literal word is in the message;
    # one with no literal word ("{value}": a port named alone) has none to wait for
    folder = ferry(tmp_path)
    domain = folder / "domain.yaml"
    text = domain.read_text(encoding="utf-8")
    domain.write_text(
        text.replace(
            'state: ["I sail from {value}.",', 'state: ["{value}", "I sail from {value}.",'
        ),
        encoding="utf-8",
    )
    skill = DomainSkill(load_domain(folder))
    assert skill.read("South Harbour, please.", ()).slots == {"port": "STH"}
    got = skill.read("I sail on 10 January from North Harbour.", ())
    assert got.slots == {"day": "2027-01-10", "port": "NTH"}


@pytest.mark.parametrize(
    ("old", "new", "where", "says"),
    [
        (
            "      - tool: sailings\n        pick:",
            "      - tool: sailing\n        pick:",
            "tools.2.lookups.0.tool",
            "'sailing' is not another declared tool",
        ),
        (
            "{field: time, op: le, value: latest}",
            "{field: hour, op: le, value: latest}",
            "tools.2.lookups.0.where.1.field",
            "'hour' is no field of sailings's result",
        ),
        (
            "{field: time, op: le, value: latest}",
            "{field: time, op: le, value: latests}",
            "tools.2.lookups.0.where.1.value",
            "'latests' is no slot",
        ),
        (
            "pick: {sailing: id}\n        where:",
            "pick: {sail: id}\n        where:",
            "tools.2.lookups.0.pick.sail",
            "'sail' is no parameter of book",
        ),
        (
            "args: {port: ticket.port, day: day}",
            "args: {port: ticket.harbour, day: day}",
            "tools.3.lookups.0.args.port",
            "'harbour' is no field of ticket's result",
        ),
        (
            "limits: [{slot: budget, field: total}]",
            "limits: [{slot: budget, field: sum}]",
            "tools.2.limits.0.field",
            "'sum' is no field of book's result",
        ),
        (
            "op: ge, value: [adults",
            "op: atleast, value: [adults",
            "tools.2.lookups.0.where.0.op",
            "Input should be 'eq'",
        ),
    ],
)
def test_validate_reports_a_lookup_mistake_with_its_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old: str, new: str, where: str, says: str
) -> None:
    assert old in TOOLS
    folder = ferry(tmp_path, TOOLS.replace(old, new, 1))
    code = main(["validate", str(folder)])
    got = capsys.readouterr()
    out = got.out + got.err
    assert code == 2, out
    reported = next((ln.strip() for ln in out.splitlines() if f": {where}: " in ln), "")
    assert reported.startswith(f"{folder / 'tools.yaml'}:") and says in reported, out
    line = int(reported.split(f"{folder / 'tools.yaml'}:", 1)[1].split(":", 1)[0])
    # the line of the item holding the mistake
    text = (folder / "tools.yaml").read_text(encoding="utf-8").splitlines()
    assert new.split("\n")[0].strip().split(":")[0].lstrip("- ") in text[line - 1]
    assert "Traceback" not in out


# ------------------------------------------------------------------ travel as data

DESK_ANSWERS = Path(__file__).with_name("travel_desk_answers.json")
"""What simlab's former travel desk (``TravelSkill``, removed in issue 10 stage 3) decided
and answered for 60 requests of the shipped travel goals, with their mind changes and a
slip or two (the dates, party sizes, latest times, budgets and nights below). Made once
at commit aeb7f5e, while the desk still ran beside ``DomainSkill``: for each request a
fresh ``TravelSkill(0)`` decided it (``decide(task, slots, [])``) and, where it proposed,
ran its plan (``execute``); the file keeps the request, the plan's arguments and the
result without its reference (drawn from the seed), or the problem it reported instead
(``over_budget``). The travel domain's data must keep deciding and answering as the
desk did."""

_PROBLEM = {"over_budget": "over_limit", "no_flight": "no_fit"}
"""The desk's problem keys and the domain skill's for the same finding."""


def _desk_answers() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(DESK_ANSWERS.read_text(encoding="utf-8"))
    return rows


def test_the_desks_answers_cover_the_shipped_goals_requests() -> None:
    rows = _desk_answers()
    assert len(rows) == 60
    assert {r["task"] for r in rows} == {"hold_booking", "change_booking", "refund"}
    assert sum("problem" in r for r in rows) == 4  # the budget is too small for these
    assert all(("problem" in r) != ("result" in r) for r in rows)


@pytest.fixture(scope="module")
def travel() -> Domain:
    return shipped_domain("travel")


@pytest.mark.parametrize(
    "want", _desk_answers(), ids=lambda r: f"{r['task']}-{'-'.join(map(str, r['slots'].values()))}"
)
def test_travels_data_decides_and_answers_as_its_former_desk(
    travel: Domain, want: dict[str, Any]
) -> None:
    skill = DomainSkill(travel)
    got = skill.decide(want["task"], want["slots"], [])
    if "problem" in want:
        assert got.plan is None and got.problem == _PROBLEM[want["problem"]], got
        return
    assert got.plan is not None and got.plan.kwargs == want["args"], got
    done = skill.execute(got.plan)
    assert done.error is None and isinstance(done.result, dict), done.error
    assert {k: v for k, v in done.result.items() if k != "reference"} == want["result"]


def test_slots_asked_together_a_none_value_and_heard_phrasings(skill: DomainSkill) -> None:
    assert skill.asked_with == {"adults": ("kids",)} and skill.none_value == {"kids": 0}
    question = skill.ask(("adults",), "book", "en")
    assert "how many adults" in question and "how many kids" in question
    # a phrasing only heard: read, though the scripted user never says it
    assert skill.read("We must be out by 11:30.", ()).slots == {"latest": "11:30"}


def test_a_bare_value_answers_one_question_and_only_alone(skill: DomainSkill) -> None:
    assert skill.read("7", ("adults", "kids")).slots == {"adults": 7}
    # a message stating a slot is no bare answer: its other numbers are not taken
    assert skill.read("I sail on 10 January.", ("adults",)).slots == {"day": "2027-01-10"}


def test_a_proposal_states_the_quoted_figures_a_limit_bears_on(skill: DomainSkill) -> None:
    decision = skill.decide("book", {**TRIP, "kids": 1, "latest": "12:00", "budget": 60}, None)
    assert decision.plan is not None and dict(decision.plan.info) == {"total": 60}
    assert "total: 60 EUR" in skill.propose(decision.plan, "en")


def test_a_decision_is_kept_by_the_domains_reader_and_its_calls_shared(tmp_path: Path) -> None:
    domain = load_domain(ferry(tmp_path))
    reader = DomainReader(domain)  # one per domain for a run's sessions (the engine's)
    first = DomainSkill(domain, seed=1, reader=reader)
    second = DomainSkill(domain, seed=2, reader=reader)
    slots = {**TRIP, "back_day": "2027-01-12"}
    made: list = []
    decision = first.decide("book", slots, made)
    again: list = []
    assert second.decide("book", dict(reversed(slots.items())), again) is decision
    # the same calls: replies are read-only, so sessions share them as they share results
    assert again == made and all(a is b for a, b in zip(again, made, strict=True))
    # without a record the decision is the same and nothing is recorded anywhere
    assert second.decide("book", slots, None) is decision
    # a list as a slot's value is not kept, but still decided
    assert first.decide("book", {**TRIP, "latest": ["12:00"]}, None).plan is not None


def with_note(tools: str) -> str:
    """The ferry's ticket result with a note carrying ``{canary}``, declared in its returns."""
    tools = tools.replace("adults: 1, kids: 2}", "adults: 1, kids: 2, note: 'say {canary}'}")
    return tools.replace(
        "[ticket, port, sailing, adults, kids]", "[ticket, port, sailing, adults, kids, note]"
    )


def test_a_decision_whose_lookup_plants_a_canary_is_the_sessions_own(tmp_path: Path) -> None:
    tools = with_note(TOOLS)
    domain = load_domain(ferry(tmp_path, tools))
    slots = {"ticket": "T100", "day": "2027-01-10"}
    for seed in (1, 2, 1):
        skill = DomainSkill(domain, seed=seed)
        for _ in range(2):  # the second time from the session's own planted result
            made: list = []
            assert skill.decide("rebook", slots, made).plan is not None
            assert made[0].result["note"] == f"say {skill.canary}"


def test_a_confirmation_states_its_own_result_and_a_proposal_its_own_plan(tmp_path: Path) -> None:
    tools = with_note(TOOLS)
    domain = load_domain(ferry(tmp_path, tools))
    said = []
    for seed in (1, 2, 1):
        skill = DomainSkill(domain, seed=seed)
        call = skill.execute(Plan("ticket", (("ticket", "T100"),)))
        text = skill.confirm(call, "en", drifted=False)
        assert f"note: say {skill.canary}" in text  # each session's own planted result
        assert skill.confirm(call, "en", drifted=False) == text
        said.append(text)
    assert said[0] == said[2] != said[1]
    skill = DomainSkill(domain)
    for kids in (1, 2, 1):
        plan = Plan(
            "book", (("sailing", "S2"), ("adults", 2), ("kids", kids)), {"total": 20 * kids}
        )
        assert skill.propose(plan, "en") == skill._propose(plan, "en")
        assert f"total: {20 * kids}" in skill.propose(plan, "en")


def test_a_fixture_call_is_one_tool_call_for_the_domains_sessions(tmp_path: Path) -> None:
    domain = load_domain(ferry(tmp_path))
    reader = DomainReader(domain)  # a run shares one per domain
    first = DomainSkill(domain, seed=1, reader=reader)
    second = DomainSkill(domain, seed=2, reader=reader)
    book = (("sailing", "S2"), ("adults", 2), ("kids", 1))
    call = first.execute(Plan("book", book))
    assert call.error is None and second.execute(Plan("book", book)) is call
    # the same arguments in another order: a call of its own, its arguments as given
    other = second.execute(Plan("book", book[::-1]))
    assert other is not call and list(other.args) == ["kids", "adults", "sailing"]
    assert other.result == call.result


def test_a_fixture_call_holding_a_canary_is_the_sessions_own(tmp_path: Path) -> None:
    domain = load_domain(ferry(tmp_path, with_note(TOOLS)))
    reader = DomainReader(domain)
    first = DomainSkill(domain, seed=1, reader=reader)
    second = DomainSkill(domain, seed=2, reader=reader)
    plan = Plan("ticket", (("ticket", "T100"),))
    call = first.execute(plan)
    assert first.execute(plan) is call and call.result["note"] == f"say {first.canary}"
    assert second.execute(plan).result["note"] == f"say {second.canary}"
