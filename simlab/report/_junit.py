"""A run's sessions as JUnit XML, one testcase per session, for CI test views."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from simlab.report._tables import escape_controls
from simlab.report._unheard import session_note
from simlab.store import RunSummary, SessionRecord


def render_run_junit(records: Iterable[SessionRecord], summary: RunSummary, name: str) -> str:
    """Every session as a testcase: a failed one lists its failing checks, an
    error one (never the target's verdict) is a JUnit ``error``.

    The overall pass rate, its n and Wilson interval ride along as properties.
    ``records`` is read once, in order: an iterator of full records read one at a
    time (``store.iter_lines``) keeps a large run's memory to the page's own.
    """
    root = ET.Element("testsuites", {"name": escape_controls(name)})
    suite = ET.SubElement(root, "testsuite", {"name": escape_controls(name)})
    props = ET.SubElement(suite, "properties")
    overall = summary.overall
    lo, hi = overall.pass_ci or (None, None)
    for key, value in (
        ("n_graded", overall.n),
        ("pass_rate", overall.pass_rate),
        ("pass_ci_low", lo),
        ("pass_ci_high", hi),
    ):
        ET.SubElement(props, "property", {"name": key, "value": str(value)})
    tests = failures = errors = 0
    for r in records:
        tests += 1
        k = r.key
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": escape_controls(f"simlab.{k.persona}.{k.goal}"),
                "name": escape_controls(k.id),
                "time": f"{r.duration_s:.3f}",
            },
        )
        _grader_failures(case, r)
        if r.status == "error":
            # the error's first line: tracebacks stay in sessions.jsonl, not in CI pages
            first = r.error.headline.strip() if r.error else ""
            message = escape_controls(f"{r.stop_reason}: {first}")
            ET.SubElement(case, "error", {"message": message, "type": str(r.stop_reason)})
            errors += 1
        elif not r.passed:
            failures += 1
            failed = [f"{n}: {c.detail}" for n, c in r.checks.items() if not c.passed]
            note = session_note(r)  # a failure that may be the domain's cues, not the agent
            if note is not None:
                failed.append(note)
            message = escape_controls("; ".join(failed) or f"score {r.score}")
            ET.SubElement(
                case, "failure", {"message": message, "type": "SessionFailed"}
            ).text = message
    counts = {"tests": str(tests), "failures": str(failures), "errors": str(errors)}
    for element in (root, suite):  # attributes in the order they always had: name first
        element.attrib.update(counts)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _grader_failures(case: ET.Element, record: SessionRecord) -> None:
    """The session's checks whose grader raised, as testcase properties (a failed
    session's message lists them with its other failed checks too)."""
    failed = [(name, c.error) for name, c in record.checks.items() if c.error is not None]
    if not failed:
        return
    props = ET.SubElement(case, "properties")
    for name, error in failed:
        value = escape_controls(f"{name}: {error.headline}")
        ET.SubElement(props, "property", {"name": "grader_failure", "value": value})
