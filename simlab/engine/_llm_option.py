"""``--llm``: put LLMs in a suite's roles from the command line.

``--llm anthropic`` (or ``anthropic:MODEL``) puts every LLM role on that
backend: the simulated user, the judge, and the target when the suite's target
is an LLM agent (``target: {kind: llm, agent: ...}``). Any other target (the
reference agent, a callable, an endpoint) is kept as it is: a target is never
swapped behind the user's back. ``--llm user=local`` or ``agent=openai:MODEL``
or ``judge=anthropic`` sets one role; ``agent=`` on a suite whose target is not
an LLM agent is refused, saying how to point the suite at one. Several values
apply in order. A value changes the backend (and the model, when given) of the
spec already in force, so what the suite file sets (``record_dir``,
``timeout_s``, limits) is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from simlab.llm import Backend, LLMSpec
from simlab.spec import LLMJudgeSpec, LLMSimulatorSpec, Problem, SpecError, Suite, shipped_dir

ROLES = ("user", "agent", "judge")


def shipped_llm_agents() -> list[Path]:
    """The LLM agent files the shipped domains carry (``domains/NAME/agents/*.yaml``),
    named when ``--llm agent=`` needs an LLM target."""
    return sorted(shipped_dir("domains").glob("*/agents/*.yaml"))


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
        update["simulator"] = LLMSimulatorSpec(llm=role_spec)
    if role in (None, "judge"):
        update["judge"] = LLMJudgeSpec(llm=role_spec)
    if role in (None, "agent"):
        target = suite.target
        if target.kind == "llm":  # None: the suite's ``llm``, which every-role just set
            update["target"] = target.model_copy(update={"llm": role_spec})
        elif role == "agent":
            raise _problem(
                f"--llm agent=...: the suite's target is {target_label(suite)}, not an LLM "
                "agent, so it has no model to set; to run an LLM agent, point the suite at "
                f"one: `target: {{kind: llm, agent: PATH}}`{_examples()}"
            )
    return suite.model_copy(update=update)


def _examples() -> str:
    found = shipped_llm_agents()
    return f" (simlab ships {', '.join(map(str, found))})" if found else ""


def target_label(suite: Suite) -> str:
    """Which target a run talks to, in one line (``reference:v1``, ``my_mod:reply``...)."""
    t = suite.target
    if t.kind == "reference":
        return f"reference:{t.version}"
    if t.kind == "callable":
        return t.ref
    if t.kind == "http":
        return f"{t.url} (model {t.model})" if t.model else t.url
    if t.kind == "anthropic_http":
        api = f"{t.url} (Messages API"
        return f"{api}, model {t.model})" if t.model else f"{api})"
    llm = t.llm or suite.llm
    on = f"{llm.backend}:{llm.model}" if llm and llm.model else llm.backend if llm else "no model"
    return f"LLM agent {t.agent} on {on}"


def _problem(message: str) -> SpecError:
    return SpecError([Problem("command line", None, "--llm", message)])
