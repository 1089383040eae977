"""``--llm``: put LLMs in a suite's roles from the command line.

``--llm anthropic`` (or ``anthropic:MODEL``) makes every role an LLM: the
simulated user, the judge, and the target — a reference target becomes the
shipped LLM booking agent. ``--llm user=local`` or ``agent=openai:MODEL`` or
``judge=anthropic`` sets one role. Several values apply in order. A value
changes the backend (and the model, when given) of the spec already in force,
so what the suite file sets (``record_dir``, ``timeout_s``, limits) is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from simlab.llm import Backend, LLMSpec
from simlab.spec import LLMJudge, LLMSimulator, LLMTarget, Problem, SpecError, Suite

ROLES = ("user", "agent", "judge")
BOOKING_AGENT = Path(__file__).resolve().parents[1] / "agents" / "data" / "booking_llm.yaml"
"""The LLM booking agent a reference target becomes under ``--llm``."""


def parse_llm_value(value: str) -> tuple[str | None, str, str | None]:
    """``[ROLE=]BACKEND[:MODEL]`` -> (role or None for every role, backend, model)."""
    role: str | None = None
    if "=" in value:
        role, value = value.split("=", 1)
        if role not in ROLES:
            raise _problem(f"--llm {role}=...: unknown role; choose one of {', '.join(ROLES)}")
    backend, _, model = value.partition(":")
    backends = get_args(Backend)
    if backend not in backends:
        raise _problem(
            f"--llm {value!r}: unknown backend {backend!r}; choose one of {', '.join(backends)}"
        )
    return role, backend, model or None


def apply_llm_options(suite: Suite, values: Sequence[str]) -> Suite:
    """The suite with each ``--llm`` value applied, in order."""
    for value in values:
        role, backend, model = parse_llm_value(value)
        suite = _apply(suite, role, backend, model)
    return suite


def _role_llm(suite: Suite, role: str) -> LLMSpec | None:
    current = {
        "user": getattr(suite.simulator, "llm", None),
        "agent": getattr(suite.target, "llm", None),
        "judge": suite.judge.llm if suite.judge is not None else None,
    }[role]
    return current or suite.llm


def _merged(base: LLMSpec | None, backend: str, model: str | None) -> LLMSpec:
    if base is None:
        return LLMSpec.model_validate({"backend": backend, "model": model})
    same = base.backend == backend
    return base.model_copy(
        update={"backend": backend, "model": model or (base.model if same else None)}
    )


def _apply(suite: Suite, role: str | None, backend: str, model: str | None) -> Suite:
    update: dict[str, object] = {}
    if role is None:
        update["llm"] = _merged(suite.llm, backend, model)
    role_spec = None if role is None else _merged(_role_llm(suite, role), backend, model)
    if role in (None, "user"):
        update["simulator"] = LLMSimulator(llm=role_spec)
    if role in (None, "judge"):
        update["judge"] = LLMJudge(llm=role_spec)
    if role in (None, "agent"):
        target = suite.target
        if target.kind in ("reference", "llm"):
            agent = target.agent if target.kind == "llm" else str(BOOKING_AGENT)
            update["target"] = LLMTarget(agent=agent, llm=role_spec)
        elif role == "agent":
            raise _problem(
                f"--llm agent=...: the suite's target is {target.kind!r}, which has no model "
                "to set; use a reference or llm target"
            )
    return suite.model_copy(update=update)


def _problem(message: str) -> SpecError:
    return SpecError([Problem("command line", None, "--llm", message)])
