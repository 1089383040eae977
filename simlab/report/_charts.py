"""The HTML report's charts: small functions from plain data to an inline ``<svg>`` string.

Each chart is drawn with matplotlib (object API, no pyplot state) and serialised
as SVG with text kept as text, then trimmed for inlining in HTML: no XML
prologue, no namespace URLs, element ids prefixed per chart so several charts
in one page never share an id. Other modules (brittleness, diagnosis, compare)
feed these functions directly.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox

Interval = tuple[float, float]


class PointCI(NamedTuple):
    """One labelled point with an optional interval on each axis."""

    label: str
    x: float
    x_ci: Interval | None
    y: float
    y_ci: Interval | None


class RateCI(NamedTuple):
    """A 0-1 rate over n trials with its interval (None when n is 0)."""

    label: str
    n: int
    rate: float | None
    ci: Interval | None


class SurvivalStep(NamedTuple):
    """One step of a Kaplan-Meier curve: at ``t``, survival and its interval."""

    t: float
    survival: float
    lo: float
    hi: float


class ForestRow(NamedTuple):
    """One row of a forest plot: a labelled difference and its interval."""

    label: str
    delta: float
    lo: float
    hi: float


_RC: dict[Any, Any] = {  # typed loosely: matplotlib types keys as a Literal of every rc name
    "svg.fonttype": "none",  # text stays text: smaller, searchable, selectable
    "svg.hashsalt": "simlab",  # stable ids, so the same data gives the same bytes
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_PASS_COLOUR = "#2a6f97"
_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.S)
_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
_HEIGHT = re.compile(r'\s+height="[\d.]+pt"')
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(href="#|url\(#)([^")]+)')


def _label(text: str) -> str:
    """Text as matplotlib shows it literally: a ``$`` would start mathtext."""
    return text.replace("$", r"\$")


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure  # lazy: matplotlib only costs when a chart is drawn

    return Figure(figsize=(width, height), layout="constrained")


def _to_svg(fig: Figure, title: str) -> str:
    """The figure as an inline ``<svg>`` element with ids unique in the page."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    svg = _PROLOGUE.sub("", buf.getvalue(), count=1)
    # Width kept (text at its drawn size; CSS shrinks it to fit), height follows the viewBox.
    svg = _METADATA.sub("", _HEIGHT.sub("", _XMLNS.sub("", svg)))
    # Ids named after the chart's content: unique across a page's charts, and stable.
    prefix = "c" + hashlib.sha256(svg.encode()).hexdigest()[:8] + "-"
    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = _REF.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)
    aria = title.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return svg.replace("<svg", f'<svg class="chart" role="img" aria-label="{aria}"', 1).strip()


def _draw(width: float, height: float, title: str) -> tuple[Figure, Axes]:
    """A figure with one axes; call inside ``rc_context(_RC)``, as text styles apply on creation."""
    fig = _figure(width, height)
    ax = fig.add_subplot()
    ax.set_title(_label(title), loc="left", fontsize=10)
    return fig, ax


def _err(value: float, ci: Interval | None) -> tuple[float, float]:
    """Error-bar half-lengths below and above ``value`` (zero without an interval)."""
    if ci is None:
        return (0.0, 0.0)
    return (max(0.0, value - ci[0]), max(0.0, ci[1] - value))


def _dodge(fig: Figure, ax: Axes, labels: Sequence[Annotation]) -> None:
    """Move overlapping point labels up until none overlaps; a thin line ties each moved one.

    The layout is computed once here and then frozen, so the positions measured
    are the positions saved.
    """
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    to_data = ax.transData.inverted()
    points_per_pixel = 72.0 / fig.dpi
    placed: list[Bbox] = []
    for ann in sorted(labels, key=lambda a: (a.xy[1], a.xy[0])):
        box = ann.get_window_extent()
        shift = 0.0
        for _ in range(len(labels)):
            hit = next((b for b in placed if b.overlaps(box.translated(0, shift))), None)
            if hit is None:
                break
            shift = hit.y1 - box.y0 + 1.0
        if shift:
            x, y = ann.xyann
            ann.xyann = (x, y + shift * points_per_pixel)
            end = to_data.transform((box.x0, box.y0 + shift + box.height / 2))
            ax.plot(
                [ann.xy[0], end[0]], [ann.xy[1], end[1]], color="#999999", linewidth=0.5, zorder=2
            )
        placed.append(box.translated(0, shift))


def aptitude_unreliability_chart(
    points: Sequence[PointCI], title: str = "Aptitude vs unreliability by persona"
) -> str:
    """Scatter of aptitude (x) against unreliability (y), one labelled point each.

    Args:
        points: One point per group; ``x`` is aptitude, ``y`` unreliability
            (both 0-100), each with its interval or None.
        title: The chart's title.

    Returns:
        An ``<svg>`` element; best is bottom right (able and steady).
    """
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = _draw(6.4, 4.4, title)
        labels = []
        for p in points:
            ex, ey = _err(p.x, p.x_ci), _err(p.y, p.y_ci)
            ax.errorbar(
                [p.x],
                [p.y],
                xerr=[[ex[0]], [ex[1]]],
                yerr=[[ey[0]], [ey[1]]],
                fmt="o",
                color=_PASS_COLOUR,
                ecolor="#b9cfdd",
                elinewidth=0.8,
                capsize=2,
                markersize=4,
                zorder=3,
            )
            labels.append(
                ax.annotate(
                    _label(p.label),
                    (p.x, p.y),
                    xytext=(5, 3),
                    textcoords="offset points",
                    fontsize=7.5,
                    zorder=4,
                )
            )
        ax.set_xlabel("aptitude (mean over cells of P90 score) →  better")
        ax.set_ylabel("unreliability (P90 − P10) →  worse")
        # Zoom to the data (personas often crowd one corner), never past the 0-100 scale.
        ax.margins(0.08)
        x0, x1 = ax.get_xlim()
        y0, y1 = ax.get_ylim()
        ax.set_xlim(max(x0, -2.0), min(x1, 102.0))
        ax.set_ylim(max(y0, -2.0), min(y1, 102.0))
        ax.grid(True, color="#e5e5e5", linewidth=0.6)
        _dodge(fig, ax, labels)
        return _to_svg(fig, title)


def pass_rate_chart(
    bars: Sequence[RateCI],
    title: str = "Pass rate by conversation length",
    xlabel: str = "user turns",
) -> str:
    """Pass rate per group as points with Wilson-interval error bars, n under each label.

    Args:
        bars: One entry per group, in display order; a None rate draws no point.
        title: The chart's title.
        xlabel: What the groups are.

    Returns:
        An ``<svg>`` element.
    """
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = _draw(max(3.2, 1.1 * len(bars) + 1.6), 3.4, title)
        xs = list(range(len(bars)))
        for x, b in zip(xs, bars, strict=True):
            if b.rate is None:
                continue
            e = _err(100 * b.rate, None if b.ci is None else (100 * b.ci[0], 100 * b.ci[1]))
            ax.bar([x], [100 * b.rate], width=0.55, color="#cfe0ea")
            ax.errorbar(
                [x], [100 * b.rate], yerr=[[e[0]], [e[1]]], fmt="o", color=_PASS_COLOUR, capsize=4
            )
            ax.annotate(
                f"{100 * b.rate:.0f}%",
                (x, 100 * b.rate),
                xytext=(8, -3),
                textcoords="offset points",
                fontsize=7.5,
            )
        ax.set_xticks(xs, [_label(f"{b.label}\nn={b.n}") for b in bars])
        ax.set_xlabel(_label(xlabel))
        ax.set_ylabel("pass rate (%) with 95% Wilson interval")
        ax.set_ylim(0, 105)
        ax.set_xlim(-0.6, len(bars) - 0.4)
        ax.grid(True, axis="y", color="#e5e5e5", linewidth=0.6)
        return _to_svg(fig, title)


def survival_chart(
    curves: Mapping[str, Sequence[SurvivalStep | tuple[float, float, float, float]]],
    title: str = "Brittleness: survival under cumulative perturbations",
    xlabel: str = "perturbations applied",
) -> str:
    """Kaplan-Meier survival curves as steps, each with its interval as a band.

    Args:
        curves: Curve name to its steps ``(t, survival, lo, hi)`` in increasing t;
            survival and bounds are 0-1.
        title: The chart's title.
        xlabel: What t counts.

    Returns:
        An ``<svg>`` element.
    """
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = _draw(6.4, 3.8, title)
        for name, steps in curves.items():
            if not steps:
                continue
            t = [s[0] for s in steps]
            line = ax.step(t, [s[1] for s in steps], where="post", label=_label(name))[0]
            ax.fill_between(
                t,
                [s[2] for s in steps],
                [s[3] for s in steps],
                step="post",
                alpha=0.18,
                color=line.get_color(),
                linewidth=0,
            )
        ax.set_ylim(0, 1.03)
        ax.set_xlabel(_label(xlabel))
        ax.set_ylabel("share of sessions still passing")
        ax.grid(True, color="#e5e5e5", linewidth=0.6)
        if curves:
            ax.legend(fontsize=7.5, frameon=False)
        return _to_svg(fig, title)


def _heatmap(
    ax: Axes, rows: Sequence[str], cols: Sequence[str], counts: Sequence[Sequence[float]]
) -> None:
    """Counts as a shaded grid with each count written in its cell."""
    import numpy as np

    data = np.asarray(counts, dtype=np.float64).reshape(len(rows), len(cols))
    # pcolormesh, not imshow: vector cells, where imshow would embed a PNG
    ax.pcolormesh(
        np.arange(len(cols) + 1) - 0.5,
        np.arange(len(rows) + 1) - 0.5,
        data,
        cmap="Blues",
        vmin=0,
        edgecolors="white",
        linewidth=1,
    )
    ax.invert_yaxis()  # first row on top, as in a table
    top = float(data.max()) if data.size else 0.0
    for i, j in itertools.product(range(len(rows)), range(len(cols))):
        v = data[i, j]
        text = f"{v:.0f}" if float(v).is_integer() else f"{v:.2f}"
        colour = "white" if top and v > 0.6 * top else "#222222"
        ax.text(j, i, text, ha="center", va="center", fontsize=7.5, color=colour)
    ax.set_xticks(range(len(cols)), [_label(c) for c in cols], rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), [_label(r) for r in rows])
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)


def confusion_chart(
    labels: Sequence[str],
    matrix: Sequence[Sequence[float]],
    title: str = "Diagnosis: true cause vs diagnosed cause",
) -> str:
    """A confusion matrix: rows are true labels, columns predicted labels.

    Args:
        labels: The class labels, in the matrix's order.
        matrix: ``matrix[i][j]`` counts items of true label i diagnosed as j.
        title: The chart's title.

    Returns:
        An ``<svg>`` element.
    """
    import matplotlib

    with matplotlib.rc_context(_RC):
        side = max(3.6, 0.55 * len(labels) + 2.2)
        fig, ax = _draw(side + 0.6, side, title)
        _heatmap(ax, labels, labels, matrix)
        ax.set_xlabel("diagnosed")
        ax.set_ylabel("true")
        return _to_svg(fig, title)


def transition_heatmap_chart(
    from_states: Sequence[str],
    to_states: Sequence[str],
    counts: Sequence[Sequence[float]],
    title: str = "First failure: transitions",
) -> str:
    """A heatmap of transitions between states (e.g. the state before and at the first failure).

    Args:
        from_states: Row labels.
        to_states: Column labels.
        counts: ``counts[i][j]`` transitions from ``from_states[i]`` to ``to_states[j]``.
        title: The chart's title.

    Returns:
        An ``<svg>`` element.
    """
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = _draw(
            max(3.8, 0.6 * len(to_states) + 2.4), max(3.0, 0.45 * len(from_states) + 1.8), title
        )
        _heatmap(ax, from_states, to_states, counts)
        ax.set_xlabel("to")
        ax.set_ylabel("from")
        return _to_svg(fig, title)


def forest_chart(
    rows: Sequence[ForestRow | tuple[str, float, float, float]],
    title: str = "Comparison: B − A",
    xlabel: str = "difference (B − A)",
) -> str:
    """A forest plot: one labelled difference per row with its interval, zero marked.

    Args:
        rows: ``(label, delta, lo, hi)`` per row, drawn top to bottom in order.
        title: The chart's title.
        xlabel: What the differences measure.

    Returns:
        An ``<svg>`` element; intervals entirely below zero are drawn in red.
    """
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = _draw(6.4, max(2.4, 0.32 * len(rows) + 1.3), title)
        ys = list(range(len(rows)))[::-1]
        for y, (_, delta, lo, hi) in zip(ys, rows, strict=True):
            colour = "#b23a48" if hi < 0 else _PASS_COLOUR
            ax.errorbar(
                [delta],
                [y],
                xerr=[[max(0.0, delta - lo)], [max(0.0, hi - delta)]],
                fmt="s",
                color=colour,
                capsize=3,
                markersize=4,
            )
        ax.axvline(0, color="#777777", linewidth=0.8, linestyle="--")
        ax.set_yticks(ys, [_label(r[0]) for r in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_xlabel(_label(xlabel))
        ax.grid(True, axis="x", color="#e5e5e5", linewidth=0.6)
        return _to_svg(fig, title)
