"""Gate results as JUnit XML, one testcase per gate, for CI."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from simlab.compare._analysis import Comparison, RowTest
from simlab.compare._gates import GateResult
from simlab.compare._tables import no_test_reason
from simlab.report import escape_controls


def _properties(ts: ET.Element, c: Comparison) -> None:
    """The comparison's p-values (raw and Holm-adjusted) and warnings as suite properties."""
    props = ET.SubElement(ts, "properties")
    groups = {"overall": c.overall}
    groups.update({f"bucket:{g.name}": g for g in c.by_bucket})
    groups.update({f"persona:{g.name}": g for g in c.by_persona})
    groups.update({f"check:{g.name}": g for g in c.by_check})
    tests = {family: g.test for family, g in groups.items() if g.test is not None}
    tests.update({f"paired:{g.name}": RowTest("McNemar", g.mcnemar.p_value) for g in c.by_bucket})
    for family, adjusted in c.p_adjusted.items():
        raw, test = tests[family].p_value, tests[family].name
        ET.SubElement(
            props,
            "property",
            {
                "name": escape_controls(f"p:{family}"),
                "value": f"{test}: p={raw:.3g}, Holm-adjusted p={adjusted:.3g}",
            },
        )
    for family, g in groups.items():
        if g.test is None:  # no data, no test: said, and not in the Holm family
            ET.SubElement(
                props,
                "property",
                {
                    "name": escape_controls(f"p:{family}"),
                    "value": f"no test: {no_test_reason(g)} (left out of the Holm family)",
                },
            )
    warnings = [*c.warnings, *([c.simpson.message] if c.simpson.warn else [])]
    for i, warning in enumerate(warnings, 1):
        ET.SubElement(
            props, "property", {"name": f"warning:{i}", "value": escape_controls(warning)}
        )


def render_junit(
    results: Sequence[GateResult],
    suite: str = "simlab compare",
    *,
    comparison: Comparison | None = None,
) -> str:
    """Render gate results as a JUnit XML document.

    Args:
        results: The gates' verdicts.
        suite: The testsuite's name (escaped by the XML writer).
        comparison: When given, its p-values (raw and Holm-adjusted) and warnings
            become the testsuite's properties.

    Returns:
        The XML text with its declaration.
    """
    # escape_controls: XML 1.0 cannot carry control characters even escaped; shown as
    # \x1b they read as in every other report.
    failures = sum(1 for r in results if r.status == "failed")
    # an inconclusive gate (too few sessions to judge) is reported as skipped
    skipped = sum(1 for r in results if r.status in ("skipped", "inconclusive"))
    counts = {"tests": str(len(results)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", {"name": escape_controls(suite), **counts})
    ts = ET.SubElement(
        root, "testsuite", {"name": escape_controls(suite), **counts, "skipped": str(skipped)}
    )
    if comparison is not None:
        _properties(ts, comparison)
    for r in results:
        case = ET.SubElement(
            ts, "testcase", {"classname": "simlab.compare", "name": escape_controls(r.name)}
        )
        message = escape_controls(r.message)
        if r.status == "failed":
            ET.SubElement(
                case, "failure", {"message": message, "type": "GateFailed"}
            ).text = message
        elif r.status in ("skipped", "inconclusive"):
            ET.SubElement(case, "skipped", {"message": message})
        else:
            ET.SubElement(case, "system-out").text = message
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
