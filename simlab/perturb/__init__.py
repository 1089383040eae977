"""Perturbations of the simulated user and the cumulative brittleness experiment.

``perturbations/*.yaml`` declares each perturbation (``Perturbation``); a
session activates some by id (``SessionKey.perturbations``) and the simulated
user applies them through a ``PerturbationStack``: the scripted one in its
templates, the LLM one by voicing the perturbed plan and taking the text-level
ones (typos, stripped diacritics, injections) on its audited words. The brittleness
experiment (``brittleness_from_run``, ``brittleness_from_suite``) re-runs
every passing baseline session with 1, 2, ... perturbations stacked in a
seeded order until it fails, and summarises the result as Kaplan-Meier
survival curves (``simlab brittleness``, ``cli_main``).
"""

from simlab.perturb._brittleness import (
    BrittlenessResult,
    SessionBrittleness,
    TargetBrittleness,
    brittleness_for_target,
    perturbed_roles,
    perturbed_simulator_factory,
    run_baseline,
    shuffled_order,
)

# the command line's entry point: importable for simlab.cli, not in __all__
from simlab.perturb._cli import cli_main as cli_main
from simlab.perturb._experiment import (
    Experiment,
    brittleness_from_run,
    brittleness_from_suite,
    target_name,
    with_target,
    write_results,
)
from simlab.perturb._summary import brittleness_summary, comparison, curve_of, group_summary
from simlab.store import BRITTLENESS_FILE, BRITTLENESS_SESSIONS_FILE

__all__ = [
    "BRITTLENESS_FILE",
    "BRITTLENESS_SESSIONS_FILE",
    "BrittlenessResult",
    "Experiment",
    "SessionBrittleness",
    "TargetBrittleness",
    "brittleness_for_target",
    "brittleness_from_run",
    "brittleness_from_suite",
    "brittleness_summary",
    "comparison",
    "curve_of",
    "group_summary",
    "perturbed_roles",
    "perturbed_simulator_factory",
    "run_baseline",
    "shuffled_order",
    "target_name",
    "with_target",
    "write_results",
]
