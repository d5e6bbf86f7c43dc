"""The report as one self-contained HTML file: inline SVG figures, inline CSS, no script, nothing fetched.

Each <figure class="ioscale-figure"> carries ``data-figure`` (its key) and ``data-values`` (the plotted numbers
as JSON, see figures.Figure.data), with the same numbers in a table beside it; the per-step table carries
``data-step-index`` on each row. Browsers, mail clients and ticket systems open it as it is; print keeps
the figures and the tables (the figure tables fold away on screen).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
from collections.abc import Sequence
from typing import Any

from ioscale.report import figures as figs
from ioscale.report.gate import GateResult, NotComparableError, compare_runs
from ioscale.report.model import LOAD_AXIS_TITLES, RunData, Step

CSS = """
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;font-size:13px;color:#111;max-width:1100px;margin:1.5em auto;
     padding:0 1em;line-height:1.4}
h1{font-size:20px} h2{font-size:17px;border-bottom:1px solid #999;margin-top:2em} h3{font-size:14px}
table{border-collapse:collapse;margin:.5em 0;font-size:11.5px} th,td{border:1px solid #bbb;padding:2px 5px}
th{background:#eee;text-align:left} td.n{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1em 0;page-break-inside:avoid} figure svg{width:100%;max-width:920px;height:auto}
figcaption{font-size:12px;color:#333} .verdict{border-left:4px solid #0072B2;padding:.3em .8em;background:#f4f8fb}
.fail{color:#D55E00;font-weight:bold} .note{color:#555;font-size:12px} details summary{cursor:pointer;color:#0072B2}
.wide{overflow-x:auto}
@media print{details>summary{display:none} body{max-width:none} .wide{overflow:visible} table.steps{font-size:7px}}
"""

NA = "n/a"


def _fmt(v: Any, nd: int = 1) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return NA
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S") + " UTC"
    return str(v)


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _json_safe(v: Any) -> Any:
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {str(k): _json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_safe(x) for x in v]
    return v


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], cls: str = "", row_attrs: Sequence[str] = ()) -> str:
    out = [f'<table class="{cls}"><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for i, r in enumerate(rows):
        attrs = f" {row_attrs[i]}" if i < len(row_attrs) else ""
        cells = "".join(f'<td class="n">{_e(_fmt(v))}</td>' if isinstance(v, (int, float)) and not isinstance(v, bool)
                        or v is None else f"<td>{_e(_fmt(v))}</td>" for v in r)
        out.append(f"<tr{attrs}>{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def figure_html(f: figs.Figure, caption: str = "") -> str:
    values = json.dumps(_json_safe(f.data), allow_nan=False, ensure_ascii=False)
    series = f.data.get("series") or {}
    table = ""
    if series and "x" in f.data:
        names = list(series)
        rows = [[x] + [series[n][i] for n in names] for i, x in enumerate(f.data["x"])]
        table = ("<details><summary>numbers</summary>"
                 + _table(["load"] + names, rows, "figure-data") + "</details>")
    elif "runs" in f.data:
        rows = [[run, x, d["iops"][i], d["p99_us"][i]] for run, d in f.data["runs"].items()
                for i, x in enumerate(d["x"])]
        table = ("<details><summary>numbers</summary>"
                 + _table(["run", "load", "iops", "p99_us"], rows, "figure-data") + "</details>")
    return (f'<figure class="ioscale-figure" id="fig-{_e(f.key)}" data-figure="{_e(f.key)}" '
            f'data-values="{_e(values)}">{f.svg}<figcaption>{_e(f.title)}{". " + _e(caption) if caption else ""}'
            f"</figcaption>{table}</figure>")


# --- verdict ---------------------------------------------------------------------------------------------
def verdict(run: RunData) -> list[str]:
    """The verdict in sentences: where it saturated and why (with the job's evidence), the USL peak."""
    if not run.steps:
        return [f"run {run.run_id} has no analysed step: nothing to conclude"]
    lines: list[str] = []
    sat = run.saturation_step
    last = run.steps[-1]
    if sat is not None:
        before = next((s for s in reversed(run.steps) if s.step_index < sat.step_index), None)
        lines.append(
            f"Saturated at step {sat.step_index} ({sat.step_label or sat.load_text}, load {sat.load:g}): "
            f"bottleneck {sat.bottleneck or 'not named'}; {_fmt(sat.iops, 0)} IOPS, {_fmt(sat.mb_per_s, 1)} MB/s"
            + (f", up {_fmt(sat.gain_pct, 1)}% on the previous step" if sat.gain_pct is not None else "")
            + (f" (last scaling step: load {before.load:g}, {_fmt(before.iops, 0)} IOPS)" if before else "") + ".")
        if sat.evidence:
            lines.append(f"Evidence: {sat.evidence}")
        for dip in run.earlier_saturations:
            lines.append(f"Step {dip.step_index} (load {dip.load:g}, {_fmt(dip.iops, 0)} IOPS) was called SATURATED "
                         f"({dip.bottleneck}) too, but throughput grew again after it: a dip, not the ceiling.")
    elif run.source == "scaling_curve_raw":
        lines.append("No saturation verdict: the Flink job did not analyse this run (figures from the raw "
                     "tables); read the knee from the gain and efficiency columns.")
    elif all(s.saturation in ("SCALING", "UNDETERMINED", "") for s in run.steps):
        lines.append(f"No saturation up to the largest load ({last.load:g}): {_fmt(last.iops, 0)} IOPS at "
                     f"{_fmt(last.efficiency_pct, 1)}% of linear scaling.")
    best = max((s for s in run.steps if s.iops is not None), key=lambda s: s.iops, default=None)
    if best is not None:
        lines.append(f"Peak measured: {_fmt(best.iops, 0)} IOPS / {_fmt(best.mb_per_s, 1)} MB/s at load "
                     f"{best.load:g} (step {best.step_index}).")
    u = run.usl
    if u is not None:
        peak = (f"predicted peak {_fmt(u.peak_x, 0)} {'IOPS' if u.metric == 'iops' else 'MB/s'}"
                f" at N = {u.peak_n:g}" + (" (beyond the measured loads: extrapolated)" if u.peak_extrapolated else "")
                if u.peak_n is not None and u.peak_x is not None else "no finite peak (κ = 0)")
        lines.append(f"USL fit over {u.points} steps ({u.metric}, N = {u.load_axis}): λ = {u.lam:,.1f}, "
                     f"σ = {u.sigma:.4g} (contention), κ = {u.kappa:.4g} (coherency), "
                     f"R² = {_fmt(u.r_squared, 3)}; {peak}.")
    low_n = [s for s in run.steps if s.latency_n and s.p99_999_too_few]
    if low_n:
        lines.append(f"p99.999 is the max, not a percentile, at {len(low_n)} of {len(run.steps)} steps "
                     f"(N < 10⁶ I/Os).")
    if not any(s.latency_n for s in run.steps):
        lines.append("The source sent no latency histogram: no percentiles (only the mean).")
    return lines


# --- sections --------------------------------------------------------------------------------------------
STEP_HEAD = ("step", "label", "load", "VMs", "disks/VM", "workers/disk", "QD", "block, B", "read %", "IOPS",
             "MB/s", "mean, µs", "p99, µs", "p99.999, µs", "N", "p99.999 too few", "CPU %", "CPU max %",
             "interrupts/s", "busiest port %", "busiest port", "gain %", "efficiency %", "verdict", "bottleneck")


def step_row(s: Step) -> list[Any]:
    return [s.step_index, s.step_label, s.load, s.vm_count, s.targets_per_vm, s.workers_per_target,
            s.outstanding_ios_per_target, s.block_size_bytes, s.read_pct, s.iops, s.mb_per_s, s.mean_latency_us,
            s.p99_us, s.p99_999_us, s.latency_n, s.p99_999_too_few, s.cpu_pct, s.cpu_max_pct, s.interrupts_per_s,
            s.port_max_pct, s.port_hottest, s.gain_pct, s.efficiency_pct, s.saturation, s.bottleneck]


def what_ran(run: RunData, ioscale_version: str) -> str:
    info = run.info or {}
    out = ["<h3>What ran</h3>"]
    versions = "; ".join(f"{k} {v}" for k, v in (info.get("versions") or [])) or "not recorded by the source"
    span = (f"{_fmt(info.get('started'))} to {_fmt(info.get('ended'))} ({_fmt(info.get('duration_s'))} s"
            + ("" if info.get("end_recorded", True) else ", end not recorded: last event") + ")") if info else NA
    rows = [("run", run.run_id), ("scenario", info.get("scenario", NA)), ("tool", info.get("tool", NA)),
            ("description", info.get("description") or NA), ("time span", span),
            ("steps", f"{info.get('steps', len(run.steps))} started, {info.get('steps_ended', NA)} ended"),
            ("tool versions", versions), ("ioscale", f"{ioscale_version} (made this report)"),
            ("figures from", "the Flink job's step rows (scaling_curve)" if run.source == "scaling_curve"
             else "the raw tables (scaling_curve_raw, STEP_ENDED windows): the job did not analyse this run"),
            ("load axis", f"{run.load_axis}: {LOAD_AXIS_TITLES.get(run.load_axis, run.load_axis)}")]
    tags = info.get("run_tags") or {}
    if tags:
        rows.append(("run tags", ", ".join(f"{k}={v}" for k, v in sorted(tags.items()))))
    out.append('<table class="what-ran">' + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
               + "</table>")
    hosts = info.get("hosts") or []
    if hosts:
        out.append("<p>Hosts</p>" + _table(
            ("host", "hypervisor", "sockets", "cores", "logical processors", "memory, GiB"),
            [(h.get("host"), h.get("hypervisor") or NA, h.get("sockets"), h.get("cores"), h.get("logical_processors"),
              round(h.get("memory_bytes", 0) / 2 ** 30, 1) if h.get("memory_bytes") else None) for h in hosts],
            "hosts"))
    links = info.get("links") or []
    if links:
        out.append("<p>Links</p>" + _table(
            ("host", "port", "kind", "line rate, Gbps", "payload, MB/s", "full duplex"),
            [(k.get("host"), k.get("port_id"), k.get("kind"), round(k.get("speed_bps", 0) / 1e9, 3),
              round(k["payload_bytes_per_s"] / 1e6, 1) if k.get("payload_bytes_per_s") else None,
              bool(k.get("full_duplex"))) for k in links], "links"))
    if run.windows:
        out.append("<p>Load per step</p>" + _table(
            ("step", "label", "VMs", "disks/VM", "workers/disk", "QD", "block, B", "read %", "random %", "adapter",
             "started", "measured from", "measured to", "ramp-up, s", "measured, s"),
            [(w.get("step_index"), w.get("step_label"), w.get("vm_count"), w.get("targets_per_vm"),
              w.get("workers_per_target"), w.get("outstanding_ios_per_target"), w.get("block_size_bytes"),
              w.get("read_pct"), w.get("random_pct"), w.get("adapter") or "", w.get("started"),
              w.get("measured_start"), w.get("measured_end"), w.get("ramp_up_s"), w.get("measured_s"))
             for w in run.windows], "load-steps"))
    return "".join(out)


def run_section(run: RunData, index: int, ioscale_version: str) -> str:
    out = [f'<section class="run" id="run-{index}" data-run-id="{_e(run.run_id)}"><h2>Run {_e(run.run_id)}</h2>']
    out.append('<div class="verdict"><h3>Verdict</h3>' + "".join(f"<p>{_e(x)}</p>" for x in verdict(run)) + "</div>")
    if not run.steps:
        out.append("<p>No step rows: the run has no ended step yet, or no data reached ClickHouse.</p>")
    for f in figs.run_figures(run, index):
        out.append(figure_html(f))
    if run.steps:
        out.append("<h3>Per step</h3><div class=wide>" + _table(
            STEP_HEAD, [step_row(s) for s in run.steps], "steps",
            [f'data-step-index="{s.step_index}"' for s in run.steps]) + "</div>")
    events = [e for e in run.saturation_events if e.get("kind") == "saturation"]
    if events:
        out.append("<h3>Saturation alerts</h3>" + _table(
            ("step", "phase", "resource", "value", "threshold", "evidence"),
            [(e.get("step_index"), e.get("phase"), e.get("resource"), e.get("value"), e.get("threshold"),
              e.get("evidence")) for e in events], "saturation-events"))
    out.append(what_ran(run, ioscale_version))
    out.append("</section>")
    return "".join(out)


COMPARE_HEAD = ("load", "baseline step", "step", "IOPS baseline", "IOPS", "IOPS Δ %", "p99 baseline, µs", "p99, µs",
                "p99 Δ %", "p99.999 baseline, µs", "p99.999, µs", "p99.999 Δ %", "N baseline", "N", "gate")


def comparison_section(runs: Sequence[RunData], max_drop_pct: float = 10.0, max_rise_pct: float = 20.0) -> str:
    from ioscale.report.gate import table_rows

    out = ['<section class="comparison" id="comparison"><h2>Runs compared</h2>',
           f"<p class=note>Each run against the first ({_e(runs[0].run_id)}), steps matched by their load (VMs, "
           f"disks, workers, queue depth, block size, read share), not by their index. Gate limits as `ioscale "
           f"compare`'s defaults: IOPS drop over {max_drop_pct:g}%, p99 / p99.999 rise over {max_rise_pct:g}% "
           "(percentiles compared only with N ≥ 10³ / 10⁶ on both sides).</p>"]
    out.append(figure_html(figs.overlay(runs, "compare-overlay")))
    for run in runs[1:]:
        out.append(f"<h3>{_e(run.run_id)} vs {_e(runs[0].run_id)}</h3>")
        try:
            result: GateResult = compare_runs(runs[0].run_id, runs[0].steps, run.run_id, run.steps,
                                              max_drop_pct, max_rise_pct)
        except NotComparableError as e:
            out.append(f"<p class=fail>{_e(e)}</p>")
            continue
        out.append("<div class=wide>" + _table(
            COMPARE_HEAD, table_rows(result), "step-diffs",
            [f'data-baseline-step="{s.base.step_index}" data-step="{s.cand.step_index}"' for s in result.steps])
            + "</div>")
        if result.only_baseline or result.only_candidate:
            out.append("<p class=note>Without a twin: " + _e("; ".join(
                [f"baseline step {s.step_index} ({s.load_text})" for s in result.only_baseline]
                + [f"step {s.step_index} ({s.load_text})" for s in result.only_candidate])) + "</p>")
    out.append("</section>")
    return "".join(out)


def render(runs: Sequence[RunData], *, ioscale_version: str, generated_at: dt.datetime | None = None) -> str:
    """The whole report for one or several runs."""
    generated_at = generated_at or dt.datetime.now(dt.timezone.utc)
    title = "ioscale report: " + ", ".join(r.run_id for r in runs)
    body = [f"<h1>{_e(title)}</h1>",
            f"<p class=note>Made {generated_at.strftime('%Y-%m-%d %H:%M:%S')} UTC by ioscale {_e(ioscale_version)}"
            " from ClickHouse through the SQL library (sql/queries). Throughput: steady-state averages per step; "
            "latency percentiles from the merged histogram of every I/O of the step.</p>"]
    if len(runs) > 1:
        body.append(comparison_section(runs))
    body += [run_section(r, i, ioscale_version) for i, r in enumerate(runs)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>" + "".join(body) + "</body></html>\n")
