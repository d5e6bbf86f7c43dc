"""`ioscale report` and `ioscale compare` on the running stack's data, the report opened in a real browser.

Builds the report of a simulated study and of an imported real fio result (fio-plot's JSON files, imported by
the importer tests), opens each in Debian's chromium (playwright, never its browser download), reads every
figure's numbers back from the page and compares them with ClickHouse -- the Flink job's step rows and USL fit
read straight from the tables, not through the queries the report used. Then runs the gate on a VMQ off/on
pair: on beats off, so off -> on passes and on -> off fails.

It reports on the session's simulated sweep (sim_sweep.py, the dashboards' too) and on a real fio sweep it
imports itself; otherwise it only reads (the reader account) and writes files under pytest's tmp_path, plus one
screenshot into docs/screenshots/report.png.
"""

from __future__ import annotations

import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ioscale.errors import ExitStatus
from report_stack import CHROMIUM, one, retried

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]
pytest.importorskip("playwright", reason="playwright==1.58.0 is not installed in the venv")
pytest.importorskip("matplotlib", reason="matplotlib==3.11.2 (ingest/pyproject.toml) is not installed")

SCREENSHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"


def flink_steps(ch, run_id: str) -> list[dict]:
    cols = ("step_index", "load", "iops", "mb_per_s", "mean_us", "p99_us", "p99_999_us", "latency_n", "too_few",
            "cpu_pct", "cpu_max_pct", "irq", "port_pct", "gain_pct", "eff_pct", "saturation", "bottleneck")
    rows = one(ch, """
        SELECT step_index, load, iops, mb_per_s, latency_mean_ns / 1e3, p99_ns / 1e3, p99_999_ns / 1e3, latency_n,
               p99_999_too_few, cpu_utilization_pct, cpu_max_utilization_pct, interrupts_per_s,
               port_max_utilization_pct, throughput_gain_pct, scaling_efficiency_pct, saturation_status,
               saturation_bottleneck
        FROM ioscale.scaling_curves FINAL WHERE run_id = {run:String} ORDER BY step_index""", run=run_id)
    return [dict(zip(cols, r)) for r in rows]


def latest_usl(ch, run_id: str) -> dict | None:
    rows = one(ch, """SELECT lambda, sigma, kappa, peak_n, peak_x, fitted FROM ioscale.usl_fits FINAL
                      WHERE run_id = {run:String} ORDER BY through_step DESC LIMIT 1""", run=run_id)
    return dict(zip(("lambda", "sigma", "kappa", "peak_n", "peak_x", "fitted"), rows[0])) if rows else None


_READ_FIGURES_JS = """
() => Array.from(document.querySelectorAll('figure.ioscale-figure')).map(f => {
  const svg = f.querySelector('svg');
  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return {key: f.dataset.figure, values: JSON.parse(f.dataset.values), width: box.width, height: box.height,
          marks: svg ? svg.querySelectorAll('path, use').length : 0,
          text: svg ? svg.textContent : ''};
})
"""


@pytest.fixture(scope="module")
def browser():
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (apt install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


def open_report(browser, path: Path, screenshot: Path | None = None) -> tuple[list[dict], list[str], Any]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri(), wait_until="load")
    found = page.evaluate(_READ_FIGURES_JS)
    step_rows = page.evaluate("() => Array.from(document.querySelectorAll('table.steps tbody tr'))"
                              ".map(r => [r.dataset.stepIndex, ...Array.from(r.cells).map(c => c.textContent)])")
    what_ran = page.evaluate("() => Array.from(document.querySelectorAll('table.what-ran tr'))"
                             ".map(r => [r.cells[0] ? r.querySelector('th').textContent : '', "
                             "r.querySelector('td').textContent])")
    step_rows.append(dict(what_ran))  # the last entry: the first run's "what ran" table, label -> text
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot), full_page=False)
    page.close()
    return found, requests, step_rows


def build(tmp_path: Path, run_ids: list[str]) -> Path:
    import ioscale
    from ioscale.cli.report import fetch_runs, report_name
    from ioscale.report import html

    runs = retried(lambda: fetch_runs(run_ids))
    path = tmp_path / report_name(run_ids)
    path.write_text(html.render(runs, ioscale_version=ioscale.__version__), encoding="utf-8")
    return path


def approx_list(values: list, expected: list, rel: float = 2e-3):
    """The report's figures come through the library's rounding (IOPS to 0.1, latency to 1 ns, % to 0.01)."""
    assert len(values) == len(expected)
    for got, want in zip(values, expected):
        if want is None:
            assert got is None
        else:
            assert got == pytest.approx(want, rel=rel, abs=0.06), (values, expected)


def check_run_figures(found: list[dict], index: int, steps: list[dict], usl: dict | None) -> None:
    by_key = {f["key"]: f for f in found}
    keys = [f"r{index}-{k}" for k in ("throughput", "latency", "host", "efficiency")]
    assert set(keys) <= set(by_key), sorted(by_key)
    for k in keys:   # drawn: a real chart, not an empty box
        assert by_key[k]["width"] > 400 and by_key[k]["height"] > 150 and by_key[k]["marks"] > 20, by_key[k]
    loads = [s["load"] for s in steps]
    t = by_key[f"r{index}-throughput"]["values"]
    approx_list(t["x"], loads)
    approx_list(t["series"]["iops"], [s["iops"] for s in steps])
    approx_list(t["series"]["mb_per_s"], [s["mb_per_s"] for s in steps])
    approx_list(t["series"]["iops_linear"], [steps[0]["iops"] * x / loads[0] for x in loads])
    saturated = [s for s in steps if s["saturation"] == "SATURATED"]
    if saturated:
        # the first of the SATURATED steps the sweep ends with (else the first one)
        tail = next((s for i, s in enumerate(steps) if all(x["saturation"] == "SATURATED" for x in steps[i:])),
                    saturated[0])
        assert t["saturation"]["step_index"] == tail["step_index"]
        assert t["saturation"]["bottleneck"] == tail["bottleneck"]
        assert "saturated at" in by_key[f"r{index}-throughput"]["text"]
    else:
        assert t["saturation"] is None
    if usl and usl["fitted"] and t["usl"] is not None:
        assert t["usl"]["sigma"] == pytest.approx(usl["sigma"], abs=1e-6)
        assert t["usl"]["kappa"] == pytest.approx(usl["kappa"], abs=1e-8)
        if usl["peak_x"] is not None:
            assert t["usl"]["peak_x"] == pytest.approx(usl["peak_x"], abs=0.06)
    lat = by_key[f"r{index}-latency"]["values"]
    assert lat["y_scale"] == "log" or not any(s["mean_us"] for s in steps)
    approx_list(lat["series"]["mean_latency_us"], [s["mean_us"] for s in steps])
    approx_list(lat["series"]["p99_us"], [s["p99_us"] for s in steps])
    approx_list(lat["series"]["p99_999_us"], [s["p99_999_us"] for s in steps])
    assert lat["series"]["latency_n"] == [s["latency_n"] for s in steps]
    assert lat["series"]["p99_999_too_few"] == [bool(s["too_few"]) for s in steps]
    text = by_key[f"r{index}-latency"]["text"]
    for s in steps:
        if s["p99_999_us"] is not None:
            assert f"N={s['latency_n']:,}" in text
    host = by_key[f"r{index}-host"]["values"]["series"]
    approx_list(host["cpu_pct"], [s["cpu_pct"] for s in steps])
    approx_list(host["cpu_max_pct"], [s["cpu_max_pct"] for s in steps])
    approx_list(host["interrupts_per_s"], [s["irq"] for s in steps])
    approx_list(host["port_max_pct"], [s["port_pct"] for s in steps])
    eff = by_key[f"r{index}-efficiency"]["values"]["series"]
    approx_list(eff["gain_pct"], [s["gain_pct"] for s in steps])
    approx_list(eff["efficiency_pct"], [s["eff_pct"] for s in steps])


@pytest.mark.parametrize("which", ["simulated", "real_fio"])
def test_report_figures_carry_the_runs_numbers(which, request, ch, browser, tmp_path):
    run_id = request.getfixturevalue(which)
    path = build(tmp_path, [run_id])
    shot = SCREENSHOTS / "report.png" if which == "simulated" else None
    found, requests, table = open_report(browser, path, shot)
    assert all(u.startswith("file://") for u in requests), f"the report fetched {requests}"
    steps = flink_steps(ch, run_id)
    check_run_figures(found, 0, steps, latest_usl(ch, run_id))
    *table, what_ran = table
    assert [int(r[0]) for r in table] == [s["step_index"] for s in steps]
    check_what_ran(ch, run_id, what_ran)


def check_what_ran(ch, run_id: str, what_ran: dict) -> None:
    [(tool, scenario, versions, steps)] = one(ch, """
        SELECT any(tool), any(scenario),
               arraySort(groupUniqArrayArray(arrayFilter(kv -> endsWith(kv.1, '_version') AND kv.2 != '',
                                                         arrayZip(mapKeys(tags), mapValues(tags))))),
               uniqExactIf(step_index, event_type = 'step_started')
        FROM ioscale.run_events FINAL WHERE run_id = {run:String}""", run=run_id)
    assert what_ran["run"] == run_id and what_ran["tool"] == tool and what_ran["scenario"] == scenario
    assert what_ran["steps"].startswith(f"{steps} started")
    for key, value in versions:
        assert f"{key} {value}" in what_ran["tool versions"]
    assert " UTC to " in what_ran["time span"]


@pytest.fixture(scope="module")
def raw_only(stack, ch) -> str:
    """A run with raw samples and no step rows: a simulated run stamped an hour ago (the live job may still
    analyse such a backlog a few seconds after it arrives), whose result rows are then deleted."""
    from isolation import delete_rows
    from past_runs import publish_past_run
    from ioscale.stack.clickhouse import client

    run = publish_past_run(stack, "demo", seconds_ago=3600, step_s=6, ramp_s=1)
    deadline = time.monotonic() + 180
    while one(ch, "SELECT count() FROM ioscale.io_samples FINAL WHERE run_id = {r:String}",
              r=run.run_id)[0][0] < run.io_samples:
        assert time.monotonic() < deadline, f"ClickHouse does not hold the {run.io_samples} samples of {run.run_id}"
        time.sleep(2)
    time.sleep(15)  # past the job's quiet check (QUIET_MS, 5 s) on a backlog
    with client(stack.settings, stack.secrets, "admin") as admin:
        for table in ("scaling_curves", "usl_fits", "alerts"):
            delete_rows(admin, table, run.run_id)
    assert one(ch, "SELECT count() FROM ioscale.scaling_curves WHERE run_id = {r:String}", r=run.run_id) == [(0,)]
    return run.run_id


def test_a_run_the_job_did_not_analyse_is_drawn_from_the_raw_tables(ch, browser, raw_only, tmp_path):
    from ioscale import query

    def library(name: str) -> list[dict]:
        q = query.load(name)
        res = retried(lambda: query.execute(q, query.bind(q, {"run_id": raw_only}), ch))
        return [dict(zip(res.columns, r)) for r in res.rows]

    raw, hosts = library("scaling_curve_raw"), library("step_host_counters")
    path = build(tmp_path, [raw_only])
    found, requests, table = open_report(browser, path)
    assert all(u.startswith("file://") for u in requests)
    by_key = {f["key"]: f["values"] for f in found}
    t = by_key["r0-throughput"]
    approx_list(t["x"], [r["load"] for r in raw])
    approx_list(t["series"]["iops"], [r["iops"] for r in raw])
    assert t["saturation"] is None and t["usl"] is None   # no verdict, no fit without the job
    lat = by_key["r0-latency"]["series"]
    approx_list(lat["p99_us"], [r["p99_us"] for r in raw])
    assert lat["latency_n"] == [r["latency_n"] for r in raw]
    irq: dict[int, float] = {}
    for h in hosts:
        irq[h["step_index"]] = irq.get(h["step_index"], 0.0) + h["interrupts_per_s"]
    approx_list(by_key["r0-host"]["series"]["interrupts_per_s"], [irq.get(r["step_index"]) for r in raw])
    approx_list(by_key["r0-host"]["series"]["cpu_pct"], [r["cpu_pct"] for r in raw])
    *_, what_ran = table
    assert "the raw tables" in what_ran["figures from"]
    check_what_ran(ch, raw_only, what_ran)


def test_several_runs_overlay_with_per_step_differences(ch, browser, simulated, real_fio, tmp_path):
    path = build(tmp_path, [simulated, real_fio])
    found, requests, _ = open_report(browser, path)
    assert all(u.startswith("file://") for u in requests)
    overlay = next(f for f in found if f["key"] == "compare-overlay")["values"]["runs"]
    for i, run_id in enumerate((simulated, real_fio)):
        steps = flink_steps(ch, run_id)
        approx_list(overlay[run_id]["iops"], [s["iops"] for s in steps])
        approx_list(overlay[run_id]["p99_us"], [s["p99_us"] for s in steps])
        check_run_figures(found, i, steps, latest_usl(ch, run_id))


@pytest.fixture(scope="module")
def vmq_pair(analysed_sweep) -> tuple[str, str]:
    off, on = sorted(analysed_sweep.vmq, key=lambda r: "-vmq-on-" in r)
    assert "-vmq-off-" in off and "-vmq-on-" in on, analysed_sweep.vmq
    return off, on


def test_the_gate_passes_vmq_on_over_off_and_fails_the_reverse(ch, vmq_pair, tmp_path, capsys):
    from ioscale.cli import main

    off, on = vmq_pair
    steps_off, steps_on = flink_steps(ch, off), flink_steps(ch, on)
    junit = tmp_path / "gate.xml"
    assert retried(lambda: main(["compare", off, on, "--junit", str(junit)])) == ExitStatus.OK
    cases = ET.parse(junit).getroot().findall("testsuite/testcase")
    assert len(cases) == min(len(steps_off), len(steps_on))
    assert retried(lambda: main(["compare", on, off, "--junit", str(junit)])) == ExitStatus.REGRESSION
    suite = ET.parse(junit).getroot().find("testsuite")
    worse = [s_on for s_on, s_off in zip(steps_on, steps_off) if s_off["iops"] / s_on["iops"] - 1 < -0.10]
    assert int(suite.get("failures")) >= len(worse) > 0
    out = capsys.readouterr().out
    assert f"FAIL: {suite.get('failures')} of {len(cases)} comparable steps" in out

