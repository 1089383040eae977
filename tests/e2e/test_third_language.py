"""A domain in a third language runs end to end: a Spanish pharmacy, a callable agent, the
scripted user speaking, asking back and correcting itself from the domain's data alone."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import simlab
from simlab.cli import main
from simlab.simulators._reading import fold
from simlab.spec import Domain, load_domain
from simlab.store import ChainRerun

ROOT = Path(__file__).resolve().parents[2]

DOMAIN = """\
# yaml-language-server: $schema=../../schemas/domain.schema.json
id: farmacia
title: Reservas de una farmacia
languages:
  es:
    confirm_cues: ["lo confirmo"]
    month_names: [enero, febrero, marzo, abril, mayo, junio, julio, agosto, septiembre,
                  octubre, noviembre, diciembre]
    phrases:
      mind_change: ["Perdón, cambié de idea."]
      answer_yes: {neutral: ["Sí, adelante."], terse: ["sí"]}
      answer_none: ["No, ninguno."]
      reassert: ["Eso no es lo que pedí."]
      nothing_to_add: ["Eso es todo."]
      done: ["Perfecto, muchas gracias."]
      gave_up: ["Olvídelo, iré a otra farmacia."]
slots:
  - name: medicamento
    type: enum
    values:
      - {value: IBU400, say: {es: ibuprofeno de 400}}
      - {value: PARA500, say: {es: paracetamol de 500}}
    say:
      es: {state: ["Necesito {value}."], ask: ["qué medicamento"]}
  - name: cajas
    type: integer
    say:
      es:
        state: {neutral: ["Quiero {value} cajas."], terse: ["{value} cajas"]}
        correct: ["Mejor que sean {value} cajas."]
        ask: ["cuántas cajas"]
  - name: recogida
    type: date
    say:
      es: {state: ["Lo recojo el {day} de {month_name}."], ask: ["qué día"]}
  - name: receta
    type: identifier
    pattern: "R[0-9]{4}"
    say:
      es: {state: ["Mi receta es la {value}."], ask: ["número de receta"]}
intents:
  - tool: reservar
    openings: {es: ["Hola, quiero reservar un medicamento."]}
"""

TOOLS = """\
# yaml-language-server: $schema=../../schemas/domain.schema.json
tools:
  - name: reservar
    description: Reserva cajas de un medicamento con receta para recoger un día.
    effect: write
    reversible: true
    parameters:
      type: object
      properties:
        medicamento: {type: string}
        cajas: {type: integer, minimum: 1}
        recogida: {type: string, format: date}
        receta: {type: string, pattern: "^R[0-9]{4}$"}
      required: [medicamento, cajas, recogida, receta]
    returns: [reserva, precio_caja]
    fixtures:
      - {when: {medicamento: IBU400}, result: {reserva: RX-7001, precio_caja: 4}}
      - {when: {medicamento: PARA500}, result: {reserva: RX-7002, precio_caja: 3}}
"""

GOAL = """\
id: reservar_ibuprofeno
title: Reservar ibuprofeno para el viernes
final_tool: reservar
facts:
  - {id: medicamento, slot: medicamento, value: IBU400}
  - {id: cajas, slot: cajas, value: 2}
  - {id: recogida, slot: recogida, value: "2027-03-15"}
  - {id: receta, slot: receta, value: R1234}
mind_changes:
  - {fact: cajas, value: 3}
constraints:
  - {fact: medicamento, field: medicamento}
  - {fact: cajas, field: cajas}
  - {fact: recogida, field: recogida}
  - {fact: receta, field: receta}
expected_tools: [reservar]
confirm_fields: [reserva]
"""

PERSONAS = {
    "ana": "id: ana\nname: Ana\nlanguage: es\n"
    "traits: {change_mind: 1.0, disclosure: drip, facts_per_turn: 1, verbosity: 0}\n",
    "luis": "id: luis\nname: Luis\nlanguage: es\n"
    "traits: {disclosure: batch, style: terse, verbosity: 0}\n",
}


def project(root: Path) -> Path:
    """The pharmacy project: its domain folder, personas, goal and suite; the suite file."""
    folder = root / "domains" / "farmacia"
    folder.mkdir(parents=True)
    (folder / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    (folder / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    (root / "goals").mkdir()
    (root / "goals" / "reservar_ibuprofeno.yaml").write_text(GOAL, encoding="utf-8")
    (root / "personas").mkdir()
    for name, text in PERSONAS.items():
        (root / "personas" / f"{name}.yaml").write_text(text, encoding="utf-8")
    suite = root / "simlab.yaml"
    suite.write_text(
        "domains: [domains/farmacia]\nmodes: [full, sharded]\nreps: 3\nmax_turns: 12\n",
        encoding="utf-8",
    )
    return suite


class PharmacyAgent:
    """A Spanish pharmacy agent that knows only the domain's data: it asks for each
    missing slot with the slot's cue, proposes, books on a yes, states the reservation."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        medicine = domain.slot("medicamento")
        assert medicine is not None
        self.medicines = {fold(v.said("es")): v.value for v in medicine.values}
        self.months = [fold(m) for m in domain.languages["es"].month_names]
        self.tool = domain.tool("reservar")

    def facts(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """What the user said so far, the latest statement of each slot winning."""
        found: dict[str, Any] = {}
        for m in messages:
            if m["role"] != "user":
                continue
            text = fold(m["content"])
            for said, code in self.medicines.items():
                if said in text:
                    found["medicamento"] = code
            if boxes := re.search(r"(\d+) cajas", text):
                found["cajas"] = int(boxes.group(1))
            if day := re.search(r"el (\d{1,2}) de ([a-z]+)", text):
                month = self.months.index(day.group(2)) + 1
                found["recogida"] = f"2027-{month:02d}-{int(day.group(1)):02d}"
            if ref := re.search(r"\b(r\d{4})\b", text):
                found["receta"] = ref.group(1).upper()
        return found

    def reply(self, messages: list[dict[str, Any]], ctx: Any) -> dict[str, Any]:
        facts = self.facts(messages)
        for slot in self.domain.slots:
            if slot.name not in facts:
                return {"text": f"¿Me dice {slot.say['es'].ask[0]}?"}
        proposed = [m for m in messages if m["role"] == "assistant"][-1:]
        said_yes = fold(messages[-1]["content"]).startswith("si")
        if proposed and "lo confirmo" in fold(proposed[0]["content"]) and said_yes:
            assert self.tool is not None
            call = self.tool.call(facts)
            result = call.result or {}
            text = f"Listo: su reserva es {result.get('reserva')}."
            return {
                "text": text,
                "tool_calls": [{"name": call.name, "args": call.args, "result": call.result}],
            }
        return {
            "text": f"Reservo {facts['cajas']} cajas de {facts['medicamento']} para el "
            f"{facts['recogida']} con la receta {facts['receta']}. ¿Lo confirmo?"
        }


def test_validate_accepts_the_pharmacy_and_refuses_a_language_it_does_not_speak(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = project(tmp_path)
    assert main(["validate", str(suite)]) == 0, capsys.readouterr().err
    bad = tmp_path / "personas" / "luis.yaml"
    bad.write_text(PERSONAS["luis"].replace("language: es", "language: fr"), encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", str(suite)]) == 2
    err = capsys.readouterr().err
    assert (f"{bad}:3: language: domain 'farmacia' has no phrasings in 'fr'; use one of: es") in err


def test_the_scripted_user_speaks_spanish_from_the_domain_end_to_end(tmp_path: Path) -> None:
    suite = project(tmp_path)
    domain = load_domain(tmp_path / "domains" / "farmacia")
    agent = PharmacyAgent(domain)
    result = simlab.run(suite, target=agent.reply, out=tmp_path / "res", progress=False)
    records = result.records
    assert len(records) == 2 * 2 * 3
    assert all(r.status == "ok" for r in records), [r.error for r in records]
    assert all(r.passed for r in records), [(r.key, r.checks) for r in records]
    users = [t.user.text for r in records for t in r.transcript.turns]
    assert all(r.transcript.turns[0].user.text.startswith("Hola, quiero reservar") for r in records)
    assert any("Lo recojo el 15 de marzo." in u for u in users)  # date as the domain says it
    assert any(u == "¿Me dice cuántas cajas?" for r in records for u in _agent_texts(r))
    # Ana changes her mind with the slot's own correction, and the booking follows it
    ana = [r for r in records if r.key.persona == "ana"]
    assert any("Mejor que sean 3 cajas." in t.user.text for r in ana for t in r.transcript.turns)
    assert all(r.transcript.tool_calls()[-1][1].args["cajas"] == 3 for r in ana)
    assert not any("Perdón, cambié de idea." in u for u in users)  # no lead-in needed
    luis = [r for r in records if r.key.persona == "luis"]
    assert all(r.transcript.tool_calls()[-1][1].args["cajas"] == 2 for r in luis)


def _agent_texts(record: Any) -> list[str]:
    return [t.agent.text for t in record.transcript.turns if t.agent is not None]


# ------------------------------------------------------------------ perturbations

PERTURBATIONS = {
    # the shipped pushback, unchanged: its own phrasings are English and Vietnamese only
    "pushback": (ROOT / "perturbations" / "pushback.yaml").read_text(encoding="utf-8"),
    "mas_cajas": "id: mas_cajas\nkind: goal_change\noutcome: new_value\n"
    "lands: {earliest: 2, latest: 3}\nchanges:\n  - {slot: cajas, goal_alternative: true}\n",
    "digression": (ROOT / "perturbations" / "digression.yaml").read_text(encoding="utf-8"),
}
SPANISH_PERTURBATIONS = """\
    perturbations:
      pushback: ["¿Seguro que es la mejor opción? Creo que hay algo más barato."]
      goal_change: ["Perdone, cambio de planes."]
      digression: ["Por cierto, hoy hace un tiempo estupendo."]
"""


def perturbed_project(root: Path) -> Path:
    """The pharmacy with a perturbation library and the brittleness experiment."""
    suite = project(root)
    suite.write_text(
        suite.read_text(encoding="utf-8") + "experiments: [brittleness]\n", encoding="utf-8"
    )
    (root / "perturbations").mkdir()
    for name, text in PERTURBATIONS.items():
        (root / "perturbations" / f"{name}.yaml").write_text(text, encoding="utf-8")
    return suite


def speak_spanish_perturbations(root: Path) -> None:
    domain = root / "domains" / "farmacia" / "domain.yaml"
    text = domain.read_text(encoding="utf-8")
    marker = "    phrases:\n"
    domain.write_text(text.replace(marker, SPANISH_PERTURBATIONS + marker), encoding="utf-8")


def test_validate_says_which_perturbation_a_language_cannot_say(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = perturbed_project(tmp_path)
    assert main(["validate", str(suite)]) == 2
    err = capsys.readouterr().err
    for persona in ("ana", "luis"):
        for pid, kind in (("digression", "digression"), ("mas_cajas", "goal_change")):
            assert (
                f"{tmp_path / 'personas' / persona}.yaml:3: language: perturbation {pid!r} "
                f"({kind}) has no 'es' phrasings and domain 'farmacia' gives none for {kind}: "
                f"add `perturbations: {{{kind}: [...]}}` under `languages.es` in "
                f"{tmp_path / 'domains' / 'farmacia'} (or `phrasings: {{es: [...]}}` to its "
                f"file in {tmp_path / 'perturbations'})"
            ) in err
    assert err.count("has no 'es' phrasings") == 6  # 2 personas x 3 perturbations
    # a run refuses before any session, with the same words
    with pytest.raises(simlab.SpecError, match="'pushback' \\(pushback\\) has no 'es' phrasings"):
        simlab.run(suite, target="reference:v2", out=tmp_path / "res", progress=False)
    assert not (tmp_path / "res").exists()
    speak_spanish_perturbations(tmp_path)
    assert main(["validate", str(suite)]) == 0, capsys.readouterr().err


def test_perturbations_speak_the_domains_spanish_end_to_end(tmp_path: Path) -> None:
    suite = perturbed_project(tmp_path)
    speak_spanish_perturbations(tmp_path)
    agent = PharmacyAgent(load_domain(tmp_path / "domains" / "farmacia"))
    result = simlab.run(suite, target=agent.reply, out=tmp_path / "res", progress=False)
    assert all(r.passed for r in result.records)
    lines = (result.run_dir / "brittleness_sessions.jsonl").read_text(encoding="utf-8")
    reruns = [ChainRerun.model_validate_json(line) for line in lines.splitlines()]
    assert reruns and all(r.record.status == "ok" for r in reruns), [
        r.record.error for r in reruns if r.record.status != "ok"
    ]
    said = [t.user.text for r in reruns for t in r.record.transcript.turns]
    landed = {p for r in reruns for t in r.record.transcript.turns for p in t.user.perturbations}
    assert landed == {"pushback", "mas_cajas", "digression"}
    assert "¿Seguro que es la mejor opción? Creo que hay algo más barato." in said
    assert "Por cierto, hoy hace un tiempo estupendo." in said
    assert any(u.startswith("Perdone, cambio de planes. ") for u in said)
    # nothing of the files' own English or Vietnamese phrasings is said
    assert not any("football" in u or "cheaper" in u or "bóng đá" in u for u in said)
