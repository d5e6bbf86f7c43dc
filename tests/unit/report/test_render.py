"""The report rendered from rows: every figure carries the rows' numbers, the verdict names the saturation point,
the bottleneck and its evidence, and the page is one self-contained file."""

from __future__ import annotations

import datetime as dt
import json
import math
from html.parser import HTMLParser

import pytest

from ioscale.report import RunData, UslFit, build_run
from ioscale.report import figures, html
from ioscale.report.model import busiest_ports
from report_rows import step_row

QDS = (1, 2, 4, 8, 16)
IOPS = (1000.0, 2000.0, 3900.0, 4100.0, 4150.0)
EVIDENCE = "step 3 (load 8): port h1/fc0 RX at 99.0% of its 16.0 MB/s payload rate"


def saturating_rows() -> list[dict]:
    rows = []
    for i, (qd, x) in enumerate(zip(QDS, IOPS)):
        sat = i >= 3
        rows.append(step_row(i, qd, x, p99=100.0 * (1 + i), p99_999=5000.0 + i, n=2_000_000 if i == 4 else 50_000,
                             saturation="SATURATED" if sat else ("UNDETERMINED" if i == 0 else "SCALING"),
                             bottleneck="PORT" if sat else "NONE", evidence=EVIDENCE if i == 3 else "",
                             gain_pct=None if i == 0 else (x / IOPS[i - 1] - 1) * 100,
                             efficiency_pct=x / (1000.0 * qd) * 100))
    return rows


USL_ROW = {"through_step": 4, "points": 5, "metric": "iops", "load_axis": "total-outstanding", "fitted": True,
           "reason": "ok", "lambda": 1000.0, "sigma": 0.05, "kappa": 0.01, "r_squared": 0.98, "peak_n": 9.75,
           "peak_x": 4300.0, "max_n": 16, "peak_extrapolated": False}
INFO = {"run_id": "sat", "scenario": "demo", "tool": "fio", "description": "qd sweep",
        "started": dt.datetime(2026, 11, 28, 10, 0, 0), "ended": dt.datetime(2026, 11, 28, 10, 5, 0),
        "end_recorded": True, "duration_s": 300.0, "steps": 5, "steps_ended": 5,
        "hosts": [{"host": "h1", "hypervisor": "KVM", "sockets": 2, "cores": 16, "logical_processors": 32,
                   "memory_bytes": 64 * 2 ** 30}],
        "links": [{"host": "h1", "port_id": "fc0", "kind": "fc_hba", "speed_bps": 8_500_000_000,
                   "payload_bytes_per_s": 0, "full_duplex": True}],
        "versions": [("fio_version", "fio-3.33")], "run_tags": {"seed": "7"}}


@pytest.fixture(scope="module")
def run() -> RunData:
    return build_run("sat", saturating_rows(), info=INFO, usl_rows=[dict(USL_ROW, through_step=3), USL_ROW])


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.figures: dict[str, dict] = {}
        self.ids: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.step_rows: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "figure" and "data-figure" in a:
            self.figures[a["data-figure"]] = json.loads(a["data-values"])
        if tag == "tr" and "data-step-index" in a:
            self.step_rows.append(a["data-step-index"])


def parse(text: str) -> _Page:
    p = _Page()
    p.feed(text)
    return p


@pytest.fixture(scope="module")
def page(run) -> _Page:
    return parse(html.render([run], ioscale_version="0.1.0", generated_at=dt.datetime(2026, 11, 28, 12, 0)))


def test_usl_comes_from_the_latest_fit_and_evaluates_the_law(run):
    assert run.usl.points == 5 and run.usl.lam == 1000.0
    # X(4) = 1000 x 4 / (1 + 0.05 x 3 + 0.01 x 4 x 3) = 4000 / 1.27
    assert run.usl.x(4) == pytest.approx(4000 / 1.27)
    assert UslFit.from_row(dict(USL_ROW, fitted=False)) is None


def test_linear_reference_grows_with_the_load_from_the_first_step(run):
    assert run.linear_reference("iops") == [1000.0, 2000.0, 4000.0, 8000.0, 16000.0]
    assert run.linear_reference("mb_per_s") == pytest.approx([4.096, 8.192, 16.384, 32.768, 65.536])


def test_throughput_figure_carries_the_rows_and_the_marks(page):
    d = page.figures["r0-throughput"]
    assert d["x"] == [1.0, 2.0, 4.0, 8.0, 16.0] and d["x_scale"] == "log"
    assert d["series"]["iops"] == list(IOPS)
    assert d["series"]["mb_per_s"] == pytest.approx([x * 4096 / 1e6 for x in IOPS])
    assert d["series"]["iops_linear"] == [1000.0, 2000.0, 4000.0, 8000.0, 16000.0]
    assert d["saturation"] == {"step_index": 3, "load": 8.0, "bottleneck": "PORT", "iops": 4100.0,
                               "mb_per_s": pytest.approx(16.7936)}
    assert d["usl"]["peak_n"] == 9.75 and d["usl"]["peak_x"] == 4300.0 and d["usl"]["kappa"] == 0.01


def test_latency_figure_is_log_with_n_and_the_too_few_flag(page, run):
    d = page.figures["r0-latency"]
    assert d["y_scale"] == "log"
    assert d["series"]["p99_us"] == [100.0, 200.0, 300.0, 400.0, 500.0]
    assert d["series"]["mean_latency_us"] == [50.0, 100.0, 150.0, 200.0, 250.0]
    assert d["series"]["p99_999_us"] == [5000.0, 5001.0, 5002.0, 5003.0, 5004.0]
    assert d["series"]["latency_n"] == [50_000] * 4 + [2_000_000]
    assert d["series"]["p99_999_too_few"] == [True] * 4 + [False]
    svg = figures.latency(run, "t").svg
    assert "too few I/Os" in svg and "N=2,000,000" in svg and "N=50,000" in svg


def test_host_figure_carries_cpu_interrupts_and_the_busiest_port(page):
    d = page.figures["r0-host"]
    assert d["series"]["cpu_pct"] == [11.0, 12.0, 14.0, 18.0, 26.0]
    assert d["series"]["cpu_max_pct"] == [13.0, 14.0, 16.0, 20.0, 28.0]
    assert d["series"]["interrupts_per_s"] == [100.0, 200.0, 400.0, 800.0, 1600.0]
    assert d["series"]["port_max_pct"] == [5.0, 10.0, 20.0, 40.0, 80.0]
    assert set(d["port_hottest"]) == {"h1/fc0 RX"}


def test_efficiency_figure_carries_gain_and_efficiency(page):
    d = page.figures["r0-efficiency"]
    assert d["series"]["gain_pct"][0] is None   # the first step has nothing to gain on
    assert d["series"]["gain_pct"][1:] == pytest.approx([100.0, 95.0, 5.128205, 1.219512], rel=1e-5)
    assert d["series"]["efficiency_pct"] == pytest.approx([100.0, 100.0, 97.5, 51.25, 25.9375])


def test_verdict_names_the_step_bottleneck_evidence_and_peak(run):
    text = " ".join(html.verdict(run))
    assert "Saturated at step 3 (QD 8, load 8): bottleneck PORT; 4,100 IOPS" in text
    assert "last scaling step: load 4, 3,900 IOPS" in text
    assert f"Evidence: {EVIDENCE}" in text
    assert "predicted peak 4,300 IOPS at N = 9.75" in text
    assert "p99.999 is the max, not a percentile, at 4 of 5 steps" in text


def test_a_run_that_never_saturated_says_so():
    rows = [step_row(i, qd, 1000.0 * qd, efficiency_pct=100.0) for i, qd in enumerate((1, 2, 4))]
    text = " ".join(html.verdict(build_run("lin", rows)))
    assert "No saturation up to the largest load (4): 4,000 IOPS at 100.0% of linear scaling." in text


def test_the_page_is_self_contained_with_unique_ids(page):
    assert set(page.figures) == {"r0-throughput", "r0-latency", "r0-host", "r0-efficiency"}
    assert len(page.ids) == len(set(page.ids)), "inlined SVGs must not share ids"
    for tag, a in page.tags:
        assert tag not in ("script", "link", "img", "iframe")
        for k in ("src", "href"):
            assert not a.get(k) or a[k].startswith("#"), (tag, a)
    assert page.step_rows == ["0", "1", "2", "3", "4"]


def test_what_ran_lists_tool_hosts_versions_and_span(run):
    text = html.what_ran(run, "0.1.0")
    for needle in ("fio", "fio_version fio-3.33", "2026-11-28 10:00:00 UTC to 2026-11-28 10:05:00 UTC (300.0 s)",
                   "<td>h1</td><td>KVM</td>", "8.5", "seed=7", "0.1.0 (made this report)"):
        assert needle in text, needle


def test_several_runs_are_overlaid_with_per_step_differences(run):
    faster = [dict(r, iops=r["iops"] * 1.1, step_index=4 - r["step_index"]) for r in saturating_rows()]
    other = build_run("faster", faster)
    page = parse(html.render([run, other], ioscale_version="0.1.0"))
    overlay = page.figures["compare-overlay"]
    assert overlay["runs"]["sat"]["iops"] == list(IOPS)
    assert overlay["runs"]["faster"]["iops"] == pytest.approx([x * 1.1 for x in reversed(IOPS)])
    diffs = [a for t, a in page.tags if t == "tr" and "data-baseline-step" in a]
    # matched by load: baseline step i meets the candidate's step 4 - i
    assert [(a["data-baseline-step"], a["data-step"]) for a in diffs] == [(str(i), str(4 - i)) for i in range(5)]
    assert {"r0-throughput", "r1-throughput"} <= set(page.figures)


def test_a_run_without_steps_renders_a_note_not_figures():
    page = html.render([RunData("empty", [])], ioscale_version="0.1.0")
    assert "no analysed step" in page and "data-figure" not in page


def test_busiest_port_of_raw_rows_skips_queues_and_takes_the_max():
    rows = [{"step_index": 0, "host": "h", "port_id": "p0", "queue": -1, "direction": "rx", "utilization_pct": 40.0},
            {"step_index": 0, "host": "h", "port_id": "p1", "queue": -1, "direction": "tx", "utilization_pct": 55.5},
            {"step_index": 0, "host": "h", "port_id": "p1", "queue": 3, "direction": "tx", "utilization_pct": 90.0},
            {"step_index": 1, "host": "h", "port_id": "p0", "queue": -1, "direction": "rx", "utilization_pct": None}]
    assert busiest_ports(rows) == {0: (55.5, "h/p1 TX")}
    raw = [{k: v for k, v in step_row(0, 1, 10.0).items() if k not in ("port_max_pct", "port_hottest",
                                                                         "saturation", "load_axis")}]
    run = build_run("raw", raw, source="scaling_curve_raw", port_rows=rows)
    assert run.steps[0].port_max_pct == 55.5 and run.steps[0].port_hottest == "h/p1 TX"
    assert "did not analyse this run" in " ".join(html.verdict(run))


def test_interrupts_of_raw_runs_are_summed_over_the_hosts():
    hosts = [{"step_index": 0, "host": "n1", "interrupts_per_s": 3747.6},
             {"step_index": 0, "host": "n2", "interrupts_per_s": 3783.6},
             {"step_index": 1, "host": "n1", "interrupts_per_s": None}]
    raw = [{k: v for k, v in step_row(i, 1, 10.0).items() if k != "interrupts_per_s"} for i in (0, 1)]
    run = build_run("raw", raw, source="scaling_curve_raw", host_rows=hosts)
    assert [s.interrupts_per_s for s in run.steps] == [pytest.approx(7531.2), None]


def test_figures_without_values_draw_gaps_not_zeros():
    rows = [step_row(0, 1, 100.0, p99=None, p99_999=None, n=0, cpu_pct=None, interrupts_per_s=None)]
    run = build_run("bare", rows)
    d = figures.latency(run, "b").data
    assert d["series"]["p99_us"] == [None] and d["series"]["latency_n"] == [0]
    assert all(not (isinstance(v, float) and math.isnan(v)) for v in d["series"]["p99_us"])
    assert "no latency histogram" in figures.latency(run, "b").svg


@pytest.mark.parametrize("loads,log", [((1, 2, 4, 8, 16), True), ((4, 8, 16, 32), True),
                                       ((2, 4, 10, 20, 40, 60, 80, 100), False), ((1, 2, 4), False),
                                       ((0, 1, 2, 4, 8), False)])
def test_only_multiplying_sweeps_get_a_log_load_axis(loads, log):
    assert figures.geometric(loads) is log


def test_a_saturated_step_the_curve_climbs_out_of_is_a_dip_not_the_point():
    # fio on an MX200 (itest-real-iodepth): QD 4 stalls, QD 8 and 16 scale again, 16..64 stay flat
    verdicts = ("UNDETERMINED", "SCALING", "SATURATED", "SCALING", "SATURATED", "SATURATED", "SATURATED")
    iops = (6614.0, 13516.0, 15511.0, 30829.0, 47423.0, 47336.0, 47054.0)
    rows = [step_row(i, 2 ** i, x, saturation=v, bottleneck="DEVICE_KNEE" if v == "SATURATED" else "NONE")
            for i, (x, v) in enumerate(zip(iops, verdicts))]
    run = build_run("mx200", rows)
    assert run.saturation_step.step_index == 4
    assert [s.step_index for s in run.earlier_saturations] == [2]
    text = " ".join(html.verdict(run))
    assert "Saturated at step 4 (QD 16, load 16): bottleneck DEVICE_KNEE; 47,423 IOPS" in text
    assert "Step 2 (load 4, 15,511 IOPS) was called SATURATED (DEVICE_KNEE) too" in text
    # a sweep that ends scaling keeps its first SATURATED step as the point, with nothing before it
    rows[-1] = dict(rows[-1], saturation="SCALING")
    rows[-2] = dict(rows[-2], saturation="SCALING")
    rows[-3] = dict(rows[-3], saturation="SCALING")
    run = build_run("dip", rows)
    assert run.saturation_step.step_index == 2 and run.earlier_saturations == []
