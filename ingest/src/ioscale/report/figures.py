"""The report's figures, drawn with matplotlib as inline SVG, each with the numbers it plots.

Every figure returns a ``Figure``: its SVG text and ``data`` -- the plotted series as plain lists, keyed the way
the HTML exposes them (``data-values`` on the <figure>, and a table beside it), so a reader or a test can take
the numbers back without parsing a drawing.

Print-readable: units on every axis, latency on a log axis, the Okabe-Ito palette (distinguishable with the
common colour-vision deficiencies and in greyscale, helped by distinct markers and dash patterns), text kept
as text in the SVG (searchable, crisp at any zoom).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ioscale.report.model import LOAD_AXIS_TITLES, RunData

#: Okabe & Ito (2008), "Color Universal Design": safe for protanopia, deuteranopia and tritanopia.
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7"}
RUN_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
RUN_MARKERS = ("o", "s", "^", "D", "v", "P", "X")

WIDTH_IN, HEIGHT_IN = 7.2, 3.6


@dataclass(frozen=True)
class Figure:
    key: str                 # unique in the page: '<run index>-throughput', 'compare-iops', ...
    title: str
    svg: str
    data: dict[str, Any]     # x, x_title, series {name: [values]}, and figure-specific extras


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _style() -> dict[str, Any]:
    return {"svg.fonttype": "none", "font.family": "DejaVu Sans", "font.size": 9, "axes.titlesize": 10,
            "axes.grid": True, "grid.color": "#d9d9d9", "grid.linewidth": 0.6, "axes.spines.top": False,
            "axes.spines.right": False, "legend.fontsize": 8, "legend.frameon": False, "svg.hashsalt": None}


def _svg(fig: Any, key: str) -> str:
    """The figure as an <svg> element for inlining: no XML prolog or DOCTYPE, ids unique to this figure."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"ioscale-{key}"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    _pyplot().close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    # Inlined SVGs share one id space: prefix every id (and its references) with the figure's key.
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", key) + "-"
    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'url\(#([^)]+)\)', lambda m: f"url(#{prefix}{m.group(1)})", text)
    text = re.sub(r'xlink:href="#([^"]+)"', lambda m: f'xlink:href="#{prefix}{m.group(1)}"', text)
    return text


def geometric(loads: Sequence[float]) -> bool:
    """A sweep that multiplies its load at every step (queue depth 1, 2, 4 ... 256): it reads best on a log2
    axis. One that adds (20, 40, 60 ... VMs) stays linear, where its ticks do not collide."""
    xs = sorted(set(loads))
    return (len(xs) > 2 and xs[0] > 0 and xs[-1] / xs[0] >= 8
            and all(b / a >= 1.5 for a, b in zip(xs, xs[1:])))


def _load_scale(ax: Any, loads: Sequence[float]) -> None:
    if geometric(loads):
        ax.set_xscale("log", base=2)
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

        ax.xaxis.set_major_locator(FixedLocator(sorted(set(loads))))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _clean(values: Sequence[float | None]) -> list[float]:
    return [math.nan if v is None else v for v in values]


def _x_title(run: RunData) -> str:
    return LOAD_AXIS_TITLES.get(run.load_axis, run.load_axis)


def throughput(run: RunData, key: str) -> Figure:
    """IOPS and MB/s against the load, with the linear-scaling reference, the saturation point and the USL
    curve with its predicted peak (on the panel of the metric the job fitted)."""
    plt = _pyplot()
    from matplotlib.ticker import FuncFormatter

    steps = run.steps
    loads = [s.load for s in steps]
    sat = run.saturation_step
    usl = run.usl if run.usl is not None and run.usl.load_axis == run.load_axis else None
    data: dict[str, Any] = {"x": loads, "x_title": _x_title(run), "series": {}, "saturation": None, "usl": None}
    with plt.rc_context(_style()):
        fig, axes = plt.subplots(1, 2, figsize=(WIDTH_IN, HEIGHT_IN))
        for ax, metric, unit, name in ((axes[0], "iops", "IOPS (I/Os per second)", "IOPS"),
                                       (axes[1], "mb_per_s", "throughput, MB/s (10⁶ bytes/s)", "MB/s")):
            measured = [getattr(s, metric) for s in steps]
            linear = run.linear_reference(metric)
            data["series"][metric] = measured
            data["series"][f"{metric}_linear"] = [None if v is None else round(v, 3) for v in linear]
            ax.plot(loads, _clean(linear), color=OKABE_ITO["black"], linestyle=":", linewidth=1.2,
                    label="linear scaling from the first step")
            ax.plot(loads, _clean(measured), color=OKABE_ITO["blue"], marker="o", linewidth=1.8,
                    label=f"measured {name}")
            if usl is not None and usl.metric == metric:
                top = max(loads + ([usl.peak_n] if usl.peak_n and usl.peak_n <= 4 * max(loads) else []))
                lo = min(loads)
                grid = [lo + (top - lo) * i / 200 for i in range(201)] if lo > 0 else []
                if geometric(loads):
                    grid = [lo * (top / lo) ** (i / 200) for i in range(201)]
                ax.plot(grid, [usl.x(n) for n in grid], color=OKABE_ITO["orange"], linestyle="--", linewidth=1.4,
                        label=f"USL fit (σ={usl.sigma:.3g}, κ={usl.kappa:.3g})")
                data["usl"] = {"metric": usl.metric, "lambda": usl.lam, "sigma": usl.sigma, "kappa": usl.kappa,
                               "peak_n": usl.peak_n, "peak_x": usl.peak_x, "r_squared": usl.r_squared,
                               "peak_extrapolated": usl.peak_extrapolated}
                if usl.peak_n is not None and usl.peak_x is not None and usl.peak_n <= 4 * max(loads):
                    ax.plot([usl.peak_n], [usl.peak_x], marker="*", markersize=13, color=OKABE_ITO["orange"],
                            markeredgecolor=OKABE_ITO["black"], linestyle="none",
                            label=f"USL predicted peak {usl.peak_x:,.0f} at {usl.peak_n:,.1f}"
                                  + (" (extrapolated)" if usl.peak_extrapolated else ""))
            if sat is not None and getattr(sat, metric) is not None:
                ax.axvline(sat.load, color=OKABE_ITO["vermillion"], linestyle="-.", linewidth=1.0)
                ax.plot([sat.load], [getattr(sat, metric)], marker="X", markersize=10, linestyle="none",
                        color=OKABE_ITO["vermillion"], label=f"saturated at {sat.load:g} ({sat.bottleneck})")
            _load_scale(ax, loads)
            ax.set_xlabel(_x_title(run) if len(_x_title(run)) < 40 else run.load_axis.replace("-", " "))
            ax.set_ylabel(unit)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            # The linear reference runs off far above a saturated curve: keep the measured one readable.
            shown = [v for v in measured if v is not None]
            if usl is not None and usl.metric == metric and usl.peak_x is not None:
                shown.append(usl.peak_x)
            ax.set_ylim(0, 1.15 * max(shown) if shown and max(shown) > 0 else None)
            # Under the panel: inside, five entries hide the knee they describe.
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
        data["x_scale"] = axes[0].get_xscale()
        if sat is not None:
            data["saturation"] = {"step_index": sat.step_index, "load": sat.load, "bottleneck": sat.bottleneck,
                                  "iops": sat.iops, "mb_per_s": sat.mb_per_s}
        fig.suptitle(f"Throughput vs load — {run.run_id}", fontsize=10)
        fig.tight_layout()
        return Figure(key, "Throughput vs load", _svg(fig, key), data)


def latency(run: RunData, key: str) -> Figure:
    """Mean, p99 and p99.999 against the load on a log axis. A p99.999 standing on N < 10^6 is the step's
    max: drawn hollow and labelled so; N is written at every p99.999 point."""
    plt = _pyplot()
    steps = run.steps
    loads = [s.load for s in steps]
    data: dict[str, Any] = {"x": loads, "x_title": _x_title(run), "series": {
        "mean_latency_us": [s.mean_latency_us for s in steps], "p99_us": [s.p99_us for s in steps],
        "p99_999_us": [s.p99_999_us for s in steps], "latency_n": [s.latency_n for s in steps],
        "p99_999_too_few": [s.p99_999_too_few for s in steps]}}
    with plt.rc_context(_style()):
        fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN))
        ax.plot(loads, _clean(data["series"]["mean_latency_us"]), marker="o", color=OKABE_ITO["blue"],
                label="mean")
        ax.plot(loads, _clean(data["series"]["p99_us"]), marker="s", linestyle="--", color=OKABE_ITO["orange"],
                label="p99")
        ax.plot(loads, _clean(data["series"]["p99_999_us"]), linestyle=":", color=OKABE_ITO["vermillion"])
        ok = [(s.load, s.p99_999_us) for s in steps if s.p99_999_us is not None and not s.p99_999_too_few]
        few = [(s.load, s.p99_999_us) for s in steps if s.p99_999_us is not None and s.p99_999_too_few]
        if ok:
            ax.plot(*zip(*ok), marker="^", linestyle="none", color=OKABE_ITO["vermillion"], label="p99.999")
        if few:
            ax.plot(*zip(*few), marker="^", linestyle="none", markerfacecolor="white",
                    color=OKABE_ITO["vermillion"], label="p99.999 shown as the max: too few I/Os (N < 10⁶)")
        for s in steps:
            if s.p99_999_us is not None:
                ax.annotate(f"N={s.latency_n:,}", (s.load, s.p99_999_us), textcoords="offset points",
                            xytext=(0, 6), ha="center", fontsize=6.5, color="#444444")
        if not any(v is not None for v in data["series"]["p99_us"]):
            ax.text(0.5, 0.02, "no latency histogram in this run: no percentiles (N = 0)",
                    transform=ax.transAxes, ha="center", fontsize=8)
        if any(v for v in data["series"]["mean_latency_us"] if v):
            ax.set_yscale("log")
        _load_scale(ax, loads)
        ax.set_xlabel(_x_title(run))
        ax.set_ylabel("latency, µs (log scale)")
        data["x_scale"], data["y_scale"] = ax.get_xscale(), ax.get_yscale()
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
        ax.set_title(f"Latency vs load — {run.run_id}")
        fig.tight_layout()
        return Figure(key, "Latency vs load", _svg(fig, key), data)


def host_load(run: RunData, key: str) -> Figure:
    """Where the load went: host CPU (mean and busiest host), the busiest port direction's utilization, and
    interrupts per second on their own axis."""
    plt = _pyplot()
    steps = run.steps
    loads = [s.load for s in steps]
    data: dict[str, Any] = {"x": loads, "x_title": _x_title(run), "series": {
        "cpu_pct": [s.cpu_pct for s in steps], "cpu_max_pct": [s.cpu_max_pct for s in steps],
        "port_max_pct": [s.port_max_pct for s in steps], "interrupts_per_s": [s.interrupts_per_s for s in steps]},
        "port_hottest": [s.port_hottest for s in steps]}
    with plt.rc_context(_style()):
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(WIDTH_IN, HEIGHT_IN))
        ax.plot(loads, _clean(data["series"]["cpu_pct"]), marker="o", color=OKABE_ITO["blue"],
                label="CPU, mean over hosts")
        ax.plot(loads, _clean(data["series"]["cpu_max_pct"]), marker="s", linestyle="--",
                color=OKABE_ITO["sky"], label="CPU, busiest host")
        ports = sorted({p for p in data["port_hottest"] if p})
        ax.plot(loads, _clean(data["series"]["port_max_pct"]), marker="^", linestyle="-.",
                color=OKABE_ITO["vermillion"],
                label="busiest port" + (f" ({ports[0]})" if len(ports) == 1 else " (per step, see table)"))
        ax.set_ylim(0, 105)
        ax.set_ylabel("utilization, %")
        ax.set_xlabel(_x_title(run) if len(_x_title(run)) < 40 else run.load_axis.replace("-", " "))
        _load_scale(ax, loads)
        ax.legend(loc="upper left")
        ax.set_title("CPU and busiest port")
        irq = data["series"]["interrupts_per_s"]
        ax2.plot(loads, _clean(irq), marker="D", color=OKABE_ITO["green"], label="interrupts/s, all hosts")
        if not any(v is not None for v in irq):
            ax2.text(0.5, 0.5, "no interrupt counters for this run", transform=ax2.transAxes, ha="center")
            ax2.set_xlim(min(loads) * 0.9, max(loads) * 1.1)
        ax2.set_ylabel("interrupts per second")
        ax2.set_xlabel(run.load_axis.replace("-", " "))
        ax2.set_ylim(bottom=0)
        _load_scale(ax2, loads)
        ax2.set_title("Interrupts")
        fig.suptitle(f"Host resources vs load — {run.run_id}", fontsize=10)
        fig.tight_layout()
        return Figure(key, "CPU, interrupts and busiest port vs load", _svg(fig, key), data)


def efficiency(run: RunData, key: str) -> Figure:
    """Per-step gain over the previous step and efficiency against linear scaling, as bars per step."""
    plt = _pyplot()
    steps = run.steps
    labels = [f"{s.load:g}" for s in steps]
    data: dict[str, Any] = {"x": [s.load for s in steps], "x_title": _x_title(run), "series": {
        "gain_pct": [s.gain_pct for s in steps], "efficiency_pct": [s.efficiency_pct for s in steps]}}
    with plt.rc_context(_style()):
        fig, ax = plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN * 0.85))
        pos = list(range(len(steps)))
        ax.bar([p - 0.2 for p in pos], _clean(data["series"]["gain_pct"]), width=0.4, color=OKABE_ITO["sky"],
               edgecolor=OKABE_ITO["black"], linewidth=0.4, label="gain over the previous step, %")
        ax.bar([p + 0.2 for p in pos], _clean(data["series"]["efficiency_pct"]), width=0.4,
               color=OKABE_ITO["orange"], edgecolor=OKABE_ITO["black"], linewidth=0.4, hatch="//",
               label="efficiency vs linear scaling, %")
        ax.axhline(100, color=OKABE_ITO["black"], linestyle=":", linewidth=1)
        ax.set_xticks(pos, labels)
        ax.set_xlabel(_x_title(run))
        ax.set_ylabel("%")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
        ax.set_title(f"Gain and efficiency per step — {run.run_id}")
        fig.tight_layout()
        return Figure(key, "Gain and efficiency per step", _svg(fig, key), data)


def overlay(runs: Sequence[RunData], key: str) -> Figure:
    """Several runs on one pair of axes: IOPS and p99 against the load."""
    plt = _pyplot()
    data: dict[str, Any] = {"runs": {}}
    with plt.rc_context(_style()):
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(WIDTH_IN, HEIGHT_IN))
        all_loads: list[float] = []
        for i, run in enumerate(runs):
            loads = [s.load for s in run.steps]
            all_loads += loads
            colour, marker = RUN_COLOURS[i % len(RUN_COLOURS)], RUN_MARKERS[i % len(RUN_MARKERS)]
            style = ("-", "--", "-.", ":")[i % 4]
            iops = [s.iops for s in run.steps]
            p99 = [s.p99_us for s in run.steps]
            data["runs"][run.run_id] = {"x": loads, "iops": iops, "p99_us": p99}
            ax.plot(loads, _clean(iops), marker=marker, linestyle=style, color=colour, label=run.run_id)
            ax2.plot(loads, _clean(p99), marker=marker, linestyle=style, color=colour, label=run.run_id)
        for a in (ax, ax2):
            _load_scale(a, sorted(set(all_loads)))
            a.set_xlabel(runs[0].load_axis.replace("-", " ") if runs else "load")
        ax.set_ylabel("IOPS (I/Os per second)")
        peak = max((s.iops for r in runs for s in r.steps if s.iops is not None), default=0)
        ax.set_ylim(0, 1.1 * peak if peak > 0 else None)
        ax2.set_ylabel("p99 latency, µs (log scale)")
        if any(s.p99_us for r in runs for s in r.steps):
            ax2.set_yscale("log")
        ax.set_title("Throughput")
        ax2.set_title("p99 latency")
        fig.suptitle("Runs overlaid", fontsize=10)
        fig.tight_layout()
        # Run ids are long: one legend under both panels, outside the data (bbox_inches='tight' keeps it).
        fig.legend(*ax.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=1)
        return Figure(key, "Runs overlaid: throughput and p99 vs load", _svg(fig, key), data)


def run_figures(run: RunData, index: int) -> list[Figure]:
    if not run.steps:
        return []
    return [throughput(run, f"r{index}-throughput"), latency(run, f"r{index}-latency"),
            host_load(run, f"r{index}-host"), efficiency(run, f"r{index}-efficiency")]

