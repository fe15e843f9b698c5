"""The campaign report's plots, drawn with matplotlib and returned as inline SVG text.

Each plotted mark carries an id (`PLOT-points`, `PLOT-bar-I`, `PLOT-value-I`, `PLOT-cell-R-C`)
so a reader of the SVG (a test, a script) can count the points and bars and read their values.
Text stays text (`svg.fonttype = none`): the page is searchable and the values readable.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # no display: files only

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

STYLE = {
    "svg.fonttype": "none",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titleweight": "bold",
}
COLORS = {"cases": "#4c72b0", "findings": "#dd8452", "root": "#c44e52", "gpu": "#8172b3", "cpu": "#55a868", "after": "#55a868"}
WIDTH_IN = 7.5


def _svg(fig) -> str:
    """The figure as an `<svg>` element to inline in HTML (no XML prolog or doctype)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def timeline(plot_id: str, case_minutes: Sequence[float], finding_minutes: Sequence[float], root_minutes: Sequence[float]) -> str:
    """Cases, cases with a finding and distinct root causes, cumulative over campaign time.

    One marker per case (`PLOT-points`), one per case with a finding (`PLOT-finding-points`),
    one per new root cause (`PLOT-root-points`, right axis).
    """
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.2))
        cases = list(range(1, len(case_minutes) + 1))
        ax.plot(case_minutes, cases, color=COLORS["cases"], linewidth=1, drawstyle="steps-post")
        ax.scatter(case_minutes, cases, s=6, color=COLORS["cases"], label="cases", gid=f"{plot_id}-points", zorder=3)
        found = list(range(1, len(finding_minutes) + 1))
        ax.scatter(finding_minutes, found, s=6, color=COLORS["findings"], label="cases with a finding", gid=f"{plot_id}-finding-points", zorder=3)
        ax.set_xlabel("campaign time (minutes)")
        ax.set_ylabel("cases (cumulative)")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        roots = ax.twinx()
        roots.spines["right"].set_visible(True)
        roots.step(root_minutes, range(1, len(root_minutes) + 1), where="post", color=COLORS["root"], linewidth=1)
        roots.scatter(root_minutes, range(1, len(root_minutes) + 1), s=14, marker="D", color=COLORS["root"], label="distinct root causes", gid=f"{plot_id}-root-points", zorder=3)
        roots.set_ylabel("distinct root causes", color=COLORS["root"])
        roots.set_ylim(bottom=0, top=max(1, len(root_minutes)) * 1.15)
        roots.yaxis.set_major_locator(MaxNLocator(integer=True))
        handles = ax.get_legend_handles_labels()[0] + roots.get_legend_handles_labels()[0]
        ax.legend(handles=handles, loc="upper left", frameon=False)
        ax.set_title("Cases and findings over time")
        return _svg(fig)


def bars(plot_id: str, title: str, counts: dict[str, int], highlight: frozenset[str] = frozenset(), note: str = "") -> str:
    """Horizontal bars, largest first, each labelled with its value; `highlight`ed labels in another color."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.6 + 0.28 * max(1, len(items))))
        labels = [label for label, _ in items]
        colors = [COLORS["gpu"] if label in highlight else COLORS["findings"] for label in labels]
        drawn = ax.barh(range(len(items)), [n for _, n in items], color=colors)
        for i, patch in enumerate(drawn):
            patch.set_gid(f"{plot_id}-bar-{i}")
        for i, text in enumerate(ax.bar_label(drawn, padding=2)):
            text.set_gid(f"{plot_id}-value-{i}")
        ax.set_yticks(range(len(items)), labels)
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(note or "findings")
        ax.set_title(title)
        return _svg(fig)


def heatmap(plot_id: str, title: str, rows: Sequence[str], columns: Sequence[str], values: Sequence[Sequence[int]], note: str = "") -> str:
    """A count per (row, column); each non-zero cell annotated with its count (`PLOT-cell-R-C`)."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(max(5.0, min(WIDTH_IN * 1.6, 1.6 + 0.6 * len(columns))), 1.2 + 0.3 * len(rows)))
        image = ax.imshow(values, cmap="Blues", aspect="auto")
        peak = max((v for row in values for v in row), default=0)
        for r, row in enumerate(values):
            for c, value in enumerate(row):
                if value:
                    color = "white" if value > peak / 2 else "black"
                    ax.text(c, r, str(value), ha="center", va="center", fontsize=7, color=color, gid=f"{plot_id}-cell-{r}-{c}")
        ax.set_xticks(range(len(columns)), columns, rotation=35, ha="right")
        ax.set_yticks(range(len(rows)), rows)
        ax.spines[:].set_visible(False)
        fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02, label=note)
        ax.set_title(title)
        return _svg(fig)


def before_after(plot_id: str, title: str, labels: Sequence[str], before: Sequence[int], after: Sequence[int], unit: str) -> str:
    """Paired bars per reduction, log scale: size before (`PLOT-before-I`) and after (`PLOT-after-I`)."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.8 + 0.45 * max(1, len(labels))))
        ys = range(len(labels))
        first = ax.barh([y - 0.2 for y in ys], before, height=0.4, color=COLORS["cases"], label="before")
        second = ax.barh([y + 0.2 for y in ys], after, height=0.4, color=COLORS["after"], label="after")
        for name, drawn in (("before", first), ("after", second)):
            for i, patch in enumerate(drawn):
                patch.set_gid(f"{plot_id}-{name}-{i}")
            for i, text in enumerate(ax.bar_label(drawn, padding=2, fontsize=7)):
                text.set_gid(f"{plot_id}-{name}-value-{i}")
        ax.set_xscale("log")
        ax.set_yticks(list(ys), labels)
        ax.invert_yaxis()
        ax.set_xlabel(unit)
        ax.legend(frameon=False, loc="lower right")
        ax.set_title(title)
        return _svg(fig)
