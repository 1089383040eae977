"""Gate results as JUnit XML, one testcase per gate, for CI."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from simlab.compare._gates import GateResult
from simlab.report import escape_controls


def render_junit(results: Sequence[GateResult], suite: str = "simlab compare") -> str:
    """Render gate results as a JUnit XML document.

    Args:
        results: The gates' verdicts.
        suite: The testsuite's name (escaped by the XML writer).

    Returns:
        The XML text with its declaration.
    """
    # escape_controls: XML 1.0 cannot carry control characters even escaped; shown as
    # \x1b they read as in every other report.
    failures = sum(1 for r in results if r.status == "failed")
    skipped = sum(1 for r in results if r.status == "skipped")
    counts = {"tests": str(len(results)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", {"name": escape_controls(suite), **counts})
    ts = ET.SubElement(
        root, "testsuite", {"name": escape_controls(suite), **counts, "skipped": str(skipped)}
    )
    for r in results:
        case = ET.SubElement(
            ts, "testcase", {"classname": "simlab.compare", "name": escape_controls(r.name)}
        )
        message = escape_controls(r.message)
        if r.status == "failed":
            ET.SubElement(
                case, "failure", {"message": message, "type": "GateFailed"}
            ).text = message
        elif r.status == "skipped":
            ET.SubElement(case, "skipped", {"message": message})
        else:
            ET.SubElement(case, "system-out").text = message
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
