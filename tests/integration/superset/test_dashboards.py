"""The five dashboards through Superset's chart data API, against the same numbers queried from ClickHouse.

The sweep (sim_sweep.py: `demo`, `hyperv-vmq-10gbe`) goes through the real pipeline; each chart's saved
query_context is posted with the run filter the dashboard would add, and its answer is compared with ClickHouse
queried directly (raw tables and the Flink job's result tables), computed here independently of the views.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from ioscale.provision.superset import api_session
from ioscale.provision.superset_bundle import dashboard_chart_refs, load_sources
from ioscale.stack.clickhouse import client
from ioscale.stack.superset import DASHBOARD_SLUGS

from isolation import unique

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def api(stack):
    return api_session(stack.settings, stack.secrets)


@pytest.fixture(scope="module")
def bundle(stack) -> dict:
    return load_sources(stack.settings.repo / "superset")


@pytest.fixture(scope="module")
def chart_ids(api) -> dict[str, int]:
    rows = api.api("GET", "/api/v1/chart/?q=(columns:!(id,uuid),page_size:100)").json()["result"]
    return {r["uuid"]: r["id"] for r in rows}


@pytest.fixture(scope="module")
def ch(stack):
    with client(stack.settings, stack.secrets, "reader") as c:
        yield c


@pytest.fixture(scope="module")
def cores_run(stack, ch) -> str:
    """A run with per logical processor samples, which the simulator does not make: this machine's own /proc,
    read by `ioscale collect linux` for 5 s."""
    run_id = unique("cores")
    done = subprocess.run([sys.executable, "-m", "ioscale.cli", "collect", "linux", "--run-id", run_id,
                           "--duration-s", "5", "--bootstrap", stack.kafka_bootstrap, "--registry-url",
                           stack.registry_url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    deadline = time.monotonic() + 60
    while ch.query("SELECT count() FROM ioscale.cpu_samples WHERE run_id = {r:String} AND cpu >= 0",
                   parameters={"r": run_id}).result_rows[0][0] < 2 * 4 and time.monotonic() < deadline:
        time.sleep(1)
    return run_id


#: Charts of per logical processor samples, which the simulated sweep has none of.
PER_CORE_CHARTS = {"sat_cpu_cores"}


def _uuid(bundle: dict, chart_file: str) -> str:
    return str(bundle[f"charts/{chart_file}.yaml"]["uuid"])


def chart_data(api, chart_ids: dict, uuid: str, **filters) -> list[dict]:
    """The chart's saved query with the dashboard's filters added: one result per query."""
    qc = json.loads(api.api("GET", f"/api/v1/chart/{chart_ids[uuid]}").json()["result"]["query_context"])
    for q in qc["queries"]:
        q["filters"] = q.get("filters", []) + [{"col": c, "op": "IN", "val": v if isinstance(v, list) else [v]}
                                               for c, v in filters.items()]
    qc["force"] = True
    r = api.api("POST", "/api/v1/chart/data", json=qc)
    assert r.status_code == 200, r.text[:1000]
    return r.json()["result"]


def test_every_dashboard_is_imported_with_its_charts(api, bundle, chart_ids):
    for name, doc in bundle.items():
        if not name.startswith("dashboards/"):
            continue
        dash = api.api("GET", f"/api/v1/dashboard/{doc['slug']}").json()["result"]
        assert dash["dashboard_title"] == doc["dashboard_title"] and dash["published"]
        charts = api.api("GET", f"/api/v1/dashboard/{dash['id']}/charts").json()["result"]
        assert sorted(c["id"] for c in charts) == sorted(chart_ids[u] for u, _ in dashboard_chart_refs(doc))
    assert {d["slug"] for n, d in bundle.items() if n.startswith("dashboards/")} == set(DASHBOARD_SLUGS)


def test_every_saved_chart_answers_on_the_chart_data_api(api, bundle, chart_ids, sweep):
    """GET /api/v1/chart/{id}/data/ runs the query_context stored with the chart (reports, API users)."""
    for name, doc in bundle.items():
        if name.startswith("charts/"):
            r = api.api("GET", f"/api/v1/chart/{chart_ids[str(doc['uuid'])]}/data/", timeout=120)
            assert r.status_code == 200, (name, r.text[:500])
            assert all("error" not in res or not res["error"] for res in r.json()["result"]), name


def test_every_chart_has_data_for_the_sweep(api, bundle, chart_ids, analysed_sweep, cores_run):
    run_for = {"ioscale-compare": analysed_sweep.vmq}
    per_core = {_uuid(bundle, c) for c in PER_CORE_CHARTS}
    for name, dash in bundle.items():
        if not name.startswith("dashboards/"):
            continue
        for uuid, _ in dashboard_chart_refs(dash):
            runs = [cores_run] if uuid in per_core else run_for.get(dash["slug"], [analysed_sweep.demo])
            chart = next(d for n, d in bundle.items() if n.startswith("charts/") and str(d["uuid"]) == uuid)
            results = chart_data(api, chart_ids, uuid, run_id=runs)
            assert results[0]["rowcount"] > 0, (dash["slug"], chart["slice_name"])


def test_live_iops_and_mb_per_s_per_10s_bucket_equal_clickhouse(api, bundle, chart_ids, ch, sweep):
    iops, mbps = chart_data(api, chart_ids, _uuid(bundle, "live_iops"), run_id=sweep.demo)  # one chart, two queries
    for res, amount in ((iops, "ops * 1000"), (mbps, "bytes * 1000 / 1e6")):
        got = {(row["ts_10s"], d): row[d] for row in res["data"] for d in ("read", "write") if row.get(d) is not None}
        # the rate over the span each bucket's samples cover (the last, partial bucket included)
        want = {(int(ts.timestamp() * 1000), d): v for ts, d, v in ch.query(
            f"SELECT toStartOfInterval(ts, INTERVAL 10 SECOND) AS b, direction, sum({amount}) / "
            "(max(toUnixTimestamp64Milli(ts) + interval_ms) - min(toUnixTimestamp64Milli(ts))) "
            "FROM ioscale.io_samples FINAL WHERE run_id = {r:String} GROUP BY b, direction",
            parameters={"r": sweep.demo}).result_rows}
        assert got.keys() == want.keys() and len(want) >= 10, amount  # 56 s in 10 s buckets x 2 directions
        assert all(got[k] == pytest.approx(want[k], rel=1e-9) for k in want), amount


def test_live_latency_percentiles_are_the_flink_windows(api, bundle, chart_ids, ch, analysed_sweep):
    a, b = chart_data(api, chart_ids, _uuid(bundle, "live_latency_percentiles"), run_id=analysed_sweep.demo)
    # A 10 s window that spans a step change is one row per step in io_fleet_10s: the chart shows the higher
    # percentile of the two (and no value where both hold too few I/Os), and N summed over both.
    rows = ch.query(
        "SELECT window_start, max(p50_ns), maxIfOrNull(p99_ns, NOT p99_too_few), "
        "maxIfOrNull(p99_999_ns, NOT p99_999_too_few), sum(latency_n) "
        "FROM ioscale.io_fleet_10s FINAL WHERE run_id = {r:String} GROUP BY window_start",
        parameters={"r": analysed_sweep.demo}).result_rows
    assert len(rows) >= 5
    by_ts = {row["window_start"]: row for row in a["data"]}
    n_by_ts = {row["window_start"]: row["latency_samples"] for row in b["data"]}
    for ts, p50, p99, p5n, n in rows:
        got = by_ts[int(ts.timestamp() * 1000)]
        assert got["p50_latency_us"] == pytest.approx(p50 / 1e3)
        assert got.get("p99_latency_us") == (None if p99 is None else pytest.approx(p99 / 1e3))
        # p99.999 of a window with fewer than 10^6 I/Os is left out, not shown as the max
        assert got.get("p99_999_latency_us") == (None if p5n is None else pytest.approx(p5n / 1e3))
        assert n_by_ts[int(ts.timestamp() * 1000)] == n


def _steps(ch, run_id: str) -> list[tuple]:
    return ch.query(
        "SELECT step_index, step_label, vm_count, iops, mb_per_s, load, saturation_status, saturation_bottleneck "
        "FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String} ORDER BY step_index",
        parameters={"r": run_id}).result_rows


def test_scaling_curve_linear_reference_usl_and_saturation_point(api, bundle, chart_ids, ch, analysed_sweep):
    steps = _steps(ch, analysed_sweep.demo)
    a, b = chart_data(api, chart_ids, _uuid(bundle, "scaling_iops"), run_id=analysed_sweep.demo)
    measured = {row["load_x"]: row for row in a["data"]}
    # demo sweeps the VM count: the x axis is VMs, linear scaling extrapolates the first step
    first_vms, first_iops = steps[0][2], steps[0][3]
    fit = ch.query("SELECT metric, lambda, sigma, kappa FROM ioscale.usl_fits FINAL WHERE run_id = {r:String} "
                   "AND fitted ORDER BY through_step DESC LIMIT 1", parameters={"r": analysed_sweep.demo}).result_rows
    for step_index, label, vms, iops, mbps, load, status, bottleneck in steps:
        row = measured[float(vms)]
        assert row["sc_iops"] == pytest.approx(iops)
        assert row["sc_linear_iops"] == pytest.approx(first_iops * vms / first_vms)
        if fit and fit[0][0] == "iops":
            _, lam, sigma, kappa = fit[0]
            assert row["sc_usl_iops"] == pytest.approx(lam * load / (1 + sigma * (load - 1) + kappa * load * (load - 1)))
    saturated = [s for s in steps if s[6] == "SATURATED"]
    assert saturated, "the demo sweep saturates its 4 Gbps port"
    first = saturated[0]
    marker = [(row["load_x"], k, v) for row in b["data"] for k, v in row.items() if k != "load_x" and v is not None]
    assert marker == [(float(first[2]), f"saturation: {first[7]}", pytest.approx(first[3]))]
    [headline] = chart_data(api, chart_ids, _uuid(bundle, "run_headline"), run_id=analysed_sweep.demo)
    assert headline["data"][0]["limited_by"] == first[7] and headline["data"][0]["saturated_at"] == first[1]


def test_the_usl_chart_draws_against_the_same_load_as_the_other_scaling_charts(api, bundle, chart_ids, ch,
                                                                                analysed_sweep):
    """The fit's N is total outstanding I/Os (the job's load axis), but the demo sweeps VMs: the USL chart's
    measured points and model are drawn at the VM count, as the IOPS chart's are, not at N."""
    steps = _steps(ch, analysed_sweep.demo)
    a, b = chart_data(api, chart_ids, _uuid(bundle, "scaling_usl"), run_id=analysed_sweep.demo)
    measured = {row["load_x"]: row["measured"] for row in a["data"] if row.get("measured") is not None}
    assert any(float(vms) != load for _, _, vms, _, _, load, _, _ in steps)  # N is not the VM count
    assert measured == {float(vms): pytest.approx(iops) for _, _, vms, iops, *_ in steps}
    model = [row["load_x"] for row in b["data"]]
    assert model and min(model) < min(measured) and max(model) > max(measured) / 2


def test_interrupts_and_dpc_per_logical_processor_equal_clickhouse(api, bundle, chart_ids, ch, cores_run):
    """Per core of this machine: interrupts/s over the run's span and DPC % over its samples' time, as cpu_samples
    hold them (the collector's per-CPU rows, cpu >= 0)."""
    a, b = chart_data(api, chart_ids, _uuid(bundle, "sat_cpu_cores"), run_id=cores_run)
    oracle = ch.query(
        "SELECT cpu, sum(interrupts_per_s * interval_ms) / (max(toUnixTimestamp64Milli(ts) + interval_ms)"
        " - min(toUnixTimestamp64Milli(ts))) AS intr, sum(dpc_pct * interval_ms) / sum(interval_ms) AS dpc, host, scope "
        "FROM ioscale.cpu_samples FINAL WHERE run_id = {r:String} AND cpu >= 0 GROUP BY cpu, host, scope ORDER BY cpu",
        parameters={"r": cores_run}).result_rows
    assert len(oracle) >= 2  # every core of this machine
    series = f"{oracle[0][3]}, {oracle[0][4]}"
    interrupts = {row["cpu"]: row[series] for row in a["data"]}
    dpc = {row["cpu"]: row[series] for row in b["data"]}
    assert interrupts == {cpu: pytest.approx(intr) for cpu, intr, *_ in oracle}
    assert dpc == {cpu: pytest.approx(d) for cpu, _, d, *_ in oracle}
    assert any(v > 0 for v in interrupts.values())


def test_alert_table_holds_every_flink_alert_with_evidence(api, bundle, chart_ids, ch, analysed_sweep):
    [res] = chart_data(api, chart_ids, _uuid(bundle, "sat_alerts"), run_id=analysed_sweep.demo)
    want = ch.query("SELECT alert_id, evidence FROM ioscale.alerts FINAL WHERE run_id = {r:String}",
                    parameters={"r": analysed_sweep.demo}).result_rows
    assert want, "the Flink job raised no alert for the demo sweep"
    assert sorted(r["evidence"] for r in res["data"]) == sorted(e for _, e in want)
    assert any(r["kind"] == "saturation" and r["value_text"].endswith(" %") for r in res["data"])


def test_comparison_differences_per_step(api, bundle, chart_ids, ch, analysed_sweep):
    off, on = analysed_sweep.vmq  # the scenario runs VMQ off first
    [res] = chart_data(api, chart_ids, _uuid(bundle, "cmp_iops_diff"), run_id=[off, on], baseline_run_id=off)
    base = {s[0]: s[3] for s in _steps(ch, off)}
    other = {s[0]: s[3] for s in _steps(ch, on)}
    label = next(k for row in res["data"] for k in row if k != "step_index")
    assert on in label and "vmq=on" in label  # only the compared run: the baseline has no bar
    got = {row["step_index"]: row[label] for row in res["data"]}
    assert got.keys() == base.keys() & other.keys()
    for step, value in got.items():
        assert value == pytest.approx((other[step] / base[step] - 1) * 100)
    # without a Baseline choice the first-started run is the baseline
    [res] = chart_data(api, chart_ids, _uuid(bundle, "cmp_iops_diff"), run_id=[off, on])
    assert {k for row in res["data"] for k in row if k != "step_index"} == {label}


def test_fleet_balance_host_iops_equal_raw_samples_over_each_measured_window(api, bundle, chart_ids, ch, sweep):
    [res] = chart_data(api, chart_ids, _uuid(bundle, "fb_host_iops"), run_id=sweep.demo)
    want = ch.query(
        "SELECT s.step_index, s.host, sum(s.ops) * 1000 / any(toUnixTimestamp64Milli(w.e) - toUnixTimestamp64Milli(w.s)) "
        "FROM ioscale.io_samples AS s FINAL "
        "JOIN (SELECT step_index, any(start_ts) AS s, any(end_ts) AS e FROM ioscale.run_events FINAL "
        "      WHERE run_id = {r:String} AND event_type = 'step_ended' GROUP BY step_index) AS w "
        "  ON w.step_index = s.step_index "
        "WHERE s.run_id = {r:String} AND s.ts >= w.s AND s.ts < w.e GROUP BY s.step_index, s.host",
        parameters={"r": sweep.demo}).result_rows
    got = {(row["step_index"], host): v for row in res["data"] for host, v in row.items() if host != "step_index"}
    assert {k: pytest.approx(v) for k, v in got.items()} == {(s, h): v for s, h, v in want}


def test_port_utilization_against_the_declared_payload_rate(api, bundle, chart_ids, ch, sweep):
    [res] = chart_data(api, chart_ids, _uuid(bundle, "live_port_utilization"), run_id=sweep.demo)
    # demo declares one 4 Gbps FC port with a 400 MB/s payload rate (full duplex): per 10 s bucket, the bytes
    # moved against what the wire could carry in the seconds sampled
    want = ch.query(
        "SELECT toStartOfInterval(ts, INTERVAL 10 SECOND) AS b, port_id, "
        "100 * sum(rx_bytes) / (400e6 * sum(interval_ms) / 1000), 100 * sum(tx_bytes) / (400e6 * sum(interval_ms) / 1000) "
        "FROM ioscale.port_samples FINAL WHERE run_id = {r:String} AND queue = -1 GROUP BY b, port_id",
        parameters={"r": sweep.demo}).result_rows
    by_ts = {row["ts_10s"]: row for row in res["data"]}
    assert len(want) >= 5
    for ts, port, rx, tx in want:
        row = by_ts[int(ts.timestamp() * 1000)]
        rx_col = next(k for k in row if k.endswith(f"{port}, rx"))
        tx_col = next(k for k in row if k.endswith(f"{port}, tx"))
        assert row[rx_col] == pytest.approx(rx) and row[tx_col] == pytest.approx(tx)


def _tukey(values: list[float]) -> dict:
    """Box plot statistics as Superset defines them (Tukey whiskers, midpoint quartiles), computed here."""
    import numpy as np

    v = np.array(values, dtype=float)
    q1, q3 = np.nanpercentile(v, 25, method="midpoint"), np.nanpercentile(v, 75, method="midpoint")
    hi, lo = v[v <= q3 + 1.5 * (q3 - q1)].max(), v[v >= q1 - 1.5 * (q3 - q1)].min()
    return {"q1": q1, "q3": q3, "max": hi, "min": lo, "median": np.nanmedian(v), "mean": np.nanmean(v),
            "count": len(v), "outliers": sorted(v[v > hi].tolist() + v[v < lo].tolist())}


def test_fleet_balance_box_plots_hold_each_steps_quartiles_whiskers_and_outlier_vms(api, bundle, chart_ids, sweep):
    """Box statistics (superset_config.py computes them in one pass per step) against the chart's own rows."""
    uuid = _uuid(bundle, "fb_vm_iops_box")
    [boxes] = chart_data(api, chart_ids, uuid, run_id=sweep.demo)
    qc = json.loads(api.api("GET", f"/api/v1/chart/{chart_ids[uuid]}").json()["result"]["query_context"])
    [q] = qc["queries"]
    [box_op] = [p for p in q["post_processing"] if p["operation"] == "boxplot"]
    [group], [metric] = box_op["options"]["groupby"], box_op["options"]["metrics"]
    q["post_processing"] = []
    q["filters"] = q.get("filters", []) + [{"col": "run_id", "op": "IN", "val": [sweep.demo]}]
    qc["force"] = True
    [rows] = api.api("POST", "/api/v1/chart/data", json=qc).json()["result"]
    per_step: dict = {}
    for row in rows["data"]:
        per_step.setdefault(row[group], []).append(row[metric])
    assert len(per_step) == sweep.steps[sweep.demo] and max(map(len, per_step.values())) >= 2
    got = {row[group]: row for row in boxes["data"]}
    assert set(got) == set(per_step)
    for step, values in per_step.items():
        want = _tukey(values)
        for stat, value in want.items():
            have = got[step][f"{metric}__{stat}"]
            assert (sorted(have) if stat == "outliers" else have) == pytest.approx(value), (step, stat)
