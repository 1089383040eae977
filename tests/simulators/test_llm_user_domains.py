"""The LLM user's prompts and fidelity audit speak of the goal's domain, not of travel.

The bank domain (money, identifiers, enums, a date of birth) and the Spanish
pharmacy of the third-language test (its own month names) are read from their
YAML alone: the prompt describes each fact by its slot, the audit finds each value
by its slot's type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from simlab.simulators import FidelityAudit, Finding
from simlab.simulators.prompts import load_prompts
from simlab.spec import Domain, Goal, Persona, load_domain, shipped_domain

from .sim_driver import make_persona

BANK = shipped_domain("bank")
DISPUTE = Goal.model_validate(
    {
        "id": "dispute",
        "title": "Dispute a transaction",
        "domain": "bank",
        "final_tool": "open_dispute",
        "facts": [
            {"id": "customer_id", "slot": "customer_id", "value": "C10001"},
            {"id": "dob", "slot": "dob", "value": "1980-04-09"},
            {"id": "transaction_id", "slot": "transaction_id", "value": "T300412"},
            {"id": "amount", "slot": "amount", "value": 120},
            {"id": "reason", "slot": "reason", "value": "lost"},
            {"id": "phone", "slot": "phone", "value": "0912345678"},
        ],
        "constraints": [{"fact": "transaction_id", "field": "transaction_id"}],
    }
)


def kinds(found: list[Finding]) -> list[str]:
    return [f["kind"] for f in found]


def check(audit: FidelityAudit, text: str, **kw: Any) -> list[Finding]:
    kw.setdefault("stated", {})
    return audit.check(3, text, **kw)


def test_the_system_prompt_names_the_goals_domain() -> None:
    prompts = load_prompts()
    system = prompts.system_prompt(make_persona("en"), BANK)
    assert "What the assistant serves: Card and account support. Customers of a retail bank" in (
        system
    )
    assert "travel" not in system.lower() and "flight" not in system.lower()


def test_a_fact_line_is_the_slots_description_and_the_value_as_said() -> None:
    prompts = load_prompts()
    en, vi = make_persona("en"), make_persona("vi")
    line = prompts.fact_line(en, "amount", "amount", 120, None, domain=BANK)
    assert line == "- amount: the amount of the transaction, as the customer remembers it: 120 USD"
    assert prompts.fact_line(vi, "reason", "reason", "stolen", None, domain=BANK) == (
        "- reason: why the card is frozen: bị đánh cắp"
    )
    # en names months, vi does not: day/month
    assert prompts.describe(en, "dob", "1980-04-09", BANK).endswith(": 9 April 1980")
    assert prompts.describe(vi, "dob", "1980-04-09", BANK).endswith(": 9/4/1980")
    changed = prompts.fact_line(en, "amount", "amount", 150, 120, domain=BANK)
    assert changed.endswith("(you changed your mind: it was 120 USD before)")


def test_a_prompt_folder_may_word_one_slot_itself(tmp_path: Path) -> None:
    (tmp_path / "user_facts.yaml").write_text(
        'slots:\n  amount: "the disputed sum is {amount} {currency} (raw {value})"\n'
    )
    prompts = load_prompts(tmp_path)
    line = prompts.describe(make_persona("en"), "amount", 120, BANK)
    assert line == "the disputed sum is 120 USD (raw 120)"


def test_a_prompt_folder_changed_between_runs_is_read_anew(tmp_path: Path) -> None:
    words = tmp_path / "user_facts.yaml"
    words.write_text('slots:\n  amount: "first {amount}"\n')
    assert load_prompts(tmp_path).describe(make_persona("en"), "amount", 1, BANK) == "first 1"
    words.write_text('slots:\n  amount: "then {amount}"\n')  # the same path, edited
    assert load_prompts(tmp_path).describe(make_persona("en"), "amount", 1, BANK) == "then 1"


def test_the_audit_finds_bank_values_by_their_slot_types() -> None:
    audit = FidelityAudit(DISPUTE, make_persona("en"), BANK)
    planned: dict[str, Any] = {"transaction_id": "T300412", "amount": 120, "reason": "lost"}
    text = "It's about T300412: 120 dollars, and the card was lost."
    assert check(audit, text, planned=planned) == []
    dropped = check(audit, "It's about a transaction of 120 dollars.", planned=planned)
    assert sorted(f["detail"] for f in dropped) == [
        "reason='lost' is planned but unsaid",
        "transaction_id='T300412' is planned but unsaid",
    ]
    # the phone number, all digits, is an identifier: held back it leaks, said it is no invention
    leak = check(audit, "Call me on 0912345678.", planned={})
    assert kinds(leak) == ["leaked_fact"] and "phone='0912345678'" in leak[0]["detail"]
    assert check(audit, "Call me on 0912345678.", planned={"phone": "0912345678"}) == []
    # another value of the goal's enum slot is invented; the date of birth reads in words
    assert [f["detail"] for f in check(audit, "It was stolen, or lost.", planned=planned)] == [
        "transaction_id='T300412' is planned but unsaid",
        "amount=120 is planned but unsaid",
        "reason stolen is no goal value",
    ]
    assert check(audit, "Born on April 9th, 1980.", planned={"dob": "1980-04-09"}) == []


PHARMACY = """\
id: farmacia
languages:
  es:
    confirm_cues: ["lo confirmo"]
    month_names: [enero, febrero, marzo, abril, mayo, junio, julio, agosto, septiembre,
                  octubre, noviembre, diciembre]
    phrases:
      mind_change: ["Perdón, cambié de idea."]
      answer_yes: ["Sí, adelante."]
      answer_none: ["No, ninguno."]
      reassert: ["Eso no es lo que pedí."]
      nothing_to_add: ["Eso es todo."]
      done: ["Perfecto, muchas gracias."]
      gave_up: ["Olvídelo."]
slots:
  - name: medicamento
    type: enum
    values:
      - {value: IBU400, say: {es: ibuprofeno de 400}}
      - {value: PARA500, say: {es: paracetamol de 500}}
    say: {es: {state: ["Necesito {value}."]}}
  - name: recogida
    type: date
    say: {es: {state: ["Lo recojo el {day} de {month_name}."]}}
intents:
  - tool: reservar
    openings: {es: ["Hola, quiero reservar un medicamento."]}
tools:
  - {name: reservar, description: Reserva., effect: write}
"""


@pytest.fixture(scope="module")
def pharmacy(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    folder = tmp_path_factory.mktemp("farmacia")
    (folder / "domain.yaml").write_text(PHARMACY, encoding="utf-8")
    return load_domain(folder)


def test_the_audit_reads_a_third_languages_month_names(pharmacy: Domain) -> None:
    goal = Goal.model_validate(
        {
            "id": "g",
            "title": "Reserve",
            "final_tool": "reservar",
            "facts": [
                {"id": "recogida", "slot": "recogida", "value": "2027-03-15"},
                {"id": "medicamento", "slot": "medicamento", "value": "IBU400"},
            ],
        }
    )
    ana = Persona(id="ana", name="Ana", language="es")
    audit = FidelityAudit(goal, ana, pharmacy)
    planned: dict[str, Any] = {"recogida": "2027-03-15", "medicamento": "IBU400"}
    assert (
        check(audit, "Quiero ibuprofeno de 400, lo recojo el 15 de marzo.", planned=planned) == []
    )
    other = check(audit, "Paracetamol de 500 el 16 de marzo.", planned=planned)
    assert sorted(f["detail"] for f in other) == [
        "date 16/3 is no goal value",
        "medicamento PARA500 is no goal value",
        "medicamento='IBU400' is planned but unsaid",
        "recogida='2027-03-15' is planned but unsaid",
    ]
    prompts = load_prompts()
    assert prompts.describe(ana, "recogida", "2027-03-15", pharmacy) == "recogida: 15 marzo 2027"
    assert "(español)" in prompts.system_prompt(ana, pharmacy)
