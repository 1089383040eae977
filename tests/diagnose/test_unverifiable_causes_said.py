"""``simlab diagnose`` on a user's callable target: causes it cannot verify are said.

A callable honours none of the counterfactual knobs, so a cause whose replay needs
one stays unverified; the table's "verified 0" must not read as refuted. Real files:
a ``simlab init`` project whose agent keeps the first value it read (it anchors on
it), run and diagnosed through the CLI.
"""

import re
from pathlib import Path

from run_simlab import simlab


def test_a_cause_the_target_cannot_replay_is_said_unverifiable(tmp_path: Path) -> None:
    assert simlab("init", "proj", cwd=tmp_path).returncode == 0
    root = tmp_path / "proj"
    agent = (root / "agent.py").read_text()
    latest = "        facts.update({name: value for name, (_, value) in latest.items()})\n"
    assert latest in agent
    first = (
        "        for name, (_, value) in latest.items():\n"
        "            facts.setdefault(name, value)\n"
    )
    (root / "first_agent.py").write_text(agent.replace(latest, first))
    suite = (root / "simlab.yaml").read_text()
    (root / "first.yaml").write_text(suite.replace("agent:reply", "first_agent:reply"))
    assert simlab("run", "first.yaml", "--quiet", cwd=root).returncode == 0
    (run_dir,) = (root / "results").iterdir()
    diagnosed = simlab("diagnose", str(run_dir), cwd=root)
    assert diagnosed.returncode == 0, diagnosed.stderr
    out = " ".join(diagnosed.stdout.split())  # the console wraps long lines
    diagnosed_anchoring = re.search(r"anchoring\W+(\d+)\W+0\W", out)  # n, none verified
    assert diagnosed_anchoring and int(diagnosed_anchoring.group(1)) > 0, out
    said = out.split("not verifiable in ")[1:]
    assert said, out
    assert "anchoring" in said[0].split(":")[0]
    assert "the target does not honour context_window" in said[0]
    assert "neither verified nor refuted" in said[0]
