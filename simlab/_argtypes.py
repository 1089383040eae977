"""Value types for the command lines' options (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse


def at_least_one(text: str) -> int:
    """A whole number of at least 1 (repetitions, a limit, a 1-based turn).

    Raises:
        argparse.ArgumentTypeError: ``text`` is not a whole number, or is below 1;
            argparse prints the message and exits 2.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
