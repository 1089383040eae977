"""``simlab memory-test module:Factory``: the aspect table for a user's store."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from simlab.agents import TargetLoadError, import_ref
from simlab.memory._adapter import MemoryStoreError, as_memory_store
from simlab.memory._e2e import run_memory_e2e
from simlab.memory._result import AspectResult
from simlab.memory._suite import run_memory_suite


class _BadReference(Exception):
    """The ``module:Factory`` argument does not name a usable store factory."""


def _load_factory(ref: str) -> Callable[[], object]:
    """The factory ``ref`` names, checked by making one store with it."""
    try:
        factory: object = import_ref(ref)
    except TargetLoadError as e:
        raise _BadReference(str(e).replace("target", "store factory", 1)) from None
    except Exception as e:  # a module that fails while importing: say so, no traceback
        raise _BadReference(f"importing {ref!r} raised {type(e).__name__}: {e}") from None
    if not callable(factory):
        raise _BadReference(
            f"{ref!r} is a {type(factory).__name__}; it must be a class or function "
            "that returns an empty memory store"
        )
    try:
        as_memory_store(factory())
    except MemoryStoreError as e:
        raise _BadReference(f"{ref!r}: {e}") from None
    except Exception as e:
        raise _BadReference(f"calling {ref}() raised {type(e).__name__}: {e}") from None
    return factory


def render(results: Sequence[AspectResult], title: str, console: Console) -> None:
    """Print the PASS/FAIL table, then the evidence of every failure.

    Evidence carries text that came out of the store under test: it is escaped,
    never interpreted as markup.
    """
    table = Table(title=escape(title), title_justify="left")
    table.add_column("aspect")
    table.add_column("result")
    table.add_column("checks ok", justify="right")
    for r in results:
        verdict = "[green]PASS[/green]" if r.passed else "[bold red]FAIL[/bold red]"
        ok = len(r.evidence) - len(r.failures)
        table.add_row(escape(r.aspect), verdict, f"{ok}/{len(r.evidence)}")
    console.print(table)
    for r in results:
        if r.passed:
            continue
        console.print(f"\n[bold red]{escape(r.aspect)} failed:[/bold red]")
        for line in r.failures or r.evidence or ["no checks ran"]:
            console.print(f"  {escape(line)}", soft_wrap=True)


def cli_main(argv: list[str]) -> int:
    """Run the memory aspect suite (and the end-to-end variants) on ``module:Factory``.

    Args:
        argv: ``["module:Factory", "--seed", "N", "--no-e2e"]``; only the factory is required.

    Returns:
        0 when every aspect passes, 1 when one fails, 2 on a bad reference or bad arguments.
    """
    parser = argparse.ArgumentParser(
        prog="simlab memory-test",
        description="Check a memory store for storage, retrieval, update, staleness, "
        "deletion and isolation between users, on a simulated clock.",
    )
    parser.add_argument(
        "factory", help="module:attr making an empty store, e.g. simlab.memory:KeyedStore"
    )
    parser.add_argument("--seed", type=int, default=0, help="chooses users, facts and gaps")
    parser.add_argument(
        "--no-e2e", action="store_true", help="skip the end-to-end MemoryAgent variants"
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse has printed its message; hand back its code
        return e.code if isinstance(e.code, int) else 2
    try:
        factory = _load_factory(args.factory)
    except _BadReference as e:
        print(f"simlab memory-test: {e}", file=sys.stderr)
        return 2
    results = run_memory_suite(factory, args.seed)
    if not args.no_e2e:
        results += run_memory_e2e(factory, args.seed)
    console = Console(highlight=False)
    render(results, f"{args.factory}, seed {args.seed}", console)
    failed = [r.aspect for r in results if not r.passed]
    if failed:
        console.print(f"\n{len(failed)} of {len(results)} failed: {escape(', '.join(failed))}")
        return 1
    console.print(f"\nall {len(results)} passed")
    return 0
