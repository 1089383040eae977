"""The default suite written elsewhere: its library folders made absolute, fields changed.

The validity scripts run the default suite with another target or repetition count
from a temporary folder; a suite's folders are relative to its file, so they are
rewritten to the checkout's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def default_suite_copy(path: Path, **changes: Any) -> Path:
    """Write the default suite to ``path`` with ``changes`` (``target=``, ``reps=``...)."""
    data = yaml.safe_load((ROOT / "simlab.yaml").read_text(encoding="utf-8"))
    for key, default in (("persona_dirs", ["personas"]), ("goal_dirs", ["goals"])):
        data[key] = [str(ROOT / d) for d in data.get(key, default)]
    data.update(changes)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path
