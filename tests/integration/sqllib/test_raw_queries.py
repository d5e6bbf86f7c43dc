"""The library's queries over the raw tables, on a run with known numbers (see conftest.py), against oracles
computed here: exact histograms of every latency sent, the ops and bytes sent, the CPU and port figures sent."""

from __future__ import annotations

import datetime as dt
import math
import statistics

import pytest

from ioscale.query import load
from ioscale.histogram import LatencyHistogram

LEVELS = (0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)
LEVEL_COLUMNS = ("p50_us", "p90_us", "p99_us", "p99_9_us", "p99_99_us", "p99_999_us")
RAW_QUERIES = ("scaling_curve_raw", "step_latency_five_nines", "step_latency_histogram", "step_latency_outliers",
               "lagging_vms", "port_utilization", "run_list", "run_steps", "run_ingest_status")


def ns(us: float) -> int:
    """The queries round ns / 1000 to 3 decimals: exact ns back."""
    return round(us * 1000)


def ms(value: dt.datetime) -> int:
    """Epoch ms of a DateTime64(3, 'UTC') as clickhouse-connect returns it (naive means UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return round(value.timestamp() * 1000)


def exact_quantile(sorted_values: list[int], q: float) -> int:
    """The raw-value quantile with the histogram's rank rule: the ceil(q x n)-th smallest value."""
    n = len(sorted_values)
    return sorted_values[min(max(math.ceil(q * n), 1), n) - 1]


def hist(values: list[int]) -> LatencyHistogram:
    h = LatencyHistogram()
    h.record_many(values)
    return h


@pytest.mark.parametrize("name", RAW_QUERIES)
def test_results_have_exactly_the_documented_columns(sql, known_run, name: str) -> None:
    params = {"run_id": known_run.run_id, "step_index": 1, "scenario": known_run.SCENARIO}
    q = load(name)
    answer = sql(name, **{p.name: params[p.name] for p in q.params if p.name in params})
    assert answer.columns == tuple(c.name for c in q.columns)
    assert answer.rows, f"{name} returned nothing for the known run"


@pytest.mark.parametrize("step", [0, 1])
def test_five_nines_is_exact_over_buckets_and_within_1_256_of_the_raw_values(sql, known_run, step: int) -> None:
    rows = sql("step_latency_five_nines", run_id=known_run.run_id, step_index=step).rows
    assert len(rows) == 1
    row = rows[0]
    values = sorted(known_run.latencies[step])
    oracle = hist(values)
    assert row["latency_n"] == row["latency_count"] == len(values)
    assert row["window"] == "measured"
    assert ns(row["min_us"]) == values[0] and ns(row["max_us"]) == values[-1]
    assert ns(row["mean_us"]) == round(sum(values) / len(values))
    for q, col, expected in zip(LEVELS, LEVEL_COLUMNS, oracle.quantiles(LEVELS)):
        got = ns(row[col])
        assert got == expected.value_ns, f"{col}: SQL {got} ns, ioscale.histogram {expected.value_ns} ns"
        if not expected.too_few_samples:
            exact = exact_quantile(values, q)
            assert abs(got - exact) <= exact / 256 + 1, f"{col}: {got} vs exact {exact}"
    assert row["required_n"] == 1_000_000
    assert row["too_few_samples"] is (len(values) < 1_000_000)
    if step == 0:   # 24,000 I/Os: p99.9 needs 10^4 (met), p99.99 needs 10^5 (not): the max stands in
        assert row["valid_through"] == "p99.9"
        assert ns(row["p99_99_us"]) == ns(row["p99_999_us"]) == values[-1]
    else:           # 1.045 M I/Os, the stall (80 ms) is the max; the ramp-up's 30 ms never shows
        assert row["valid_through"] == "p99.999"
        assert values[-1] == known_run.STALL_NS and ns(row["max_us"]) == known_run.STALL_NS
        assert ns(row["p99_999_us"]) < known_run.RAMP_LATENCY_NS


def test_five_nines_every_step_and_per_direction(sql, known_run) -> None:
    rows = sql("step_latency_five_nines", run_id=known_run.run_id).rows
    assert [r["step_index"] for r in rows] == [0, 1]
    assert [r["step_label"] for r in rows] == [s.label for s in known_run.STEPS]
    writes = sql("step_latency_five_nines", run_id=known_run.run_id, step_index=1, direction="read").rows[0]
    values = known_run.by_direction[(1, "READ")]
    assert writes["latency_n"] == len(values)
    assert ns(writes["p99_us"]) == hist(values).quantile(0.99).value_ns


def test_histogram_merged_across_vms_equals_the_histogram_of_all_ios(sql, known_run) -> None:
    rows = sql("step_latency_histogram", run_id=known_run.run_id, step_index=1).rows
    oracle = hist(known_run.latencies[1]).to_sparse()
    assert [r["bucket_index"] for r in rows] == oracle.indexes
    assert [r["count"] for r in rows] == oracle.counts
    assert rows[-1]["cumulative_pct"] == 100.0 and rows[-1]["slower"] == 0
    assert rows[0]["slower"] == len(known_run.latencies[1]) - oracle.counts[0]
    # A few buckets' bounds, against the scheme (1 ms -> index 1780, [999424, 1003520), representative 1001472).
    by_index = {r["bucket_index"]: r for r in rows}
    if 1780 in by_index:
        assert (ns(by_index[1780]["lower_us"]), ns(by_index[1780]["upper_us"]),
                ns(by_index[1780]["representative_us"])) == (999_424, 1_003_520, 1_001_472)


def test_scaling_curve_raw_matches_what_was_sent(sql, known_run) -> None:
    rows = sql("scaling_curve_raw", run_id=known_run.run_id).rows
    assert [r["step_index"] for r in rows] == [0, 1]
    x = []
    for row, step in zip(rows, known_run.STEPS):
        seconds = step.measured_s
        values = known_run.latencies[step.index]
        oracle = hist(values)
        assert row["step_label"] == step.label and row["vm_count"] == len(known_run.VMS)
        assert row["outstanding_ios_per_target"] == step.qd and row["block_size_bytes"] == known_run.BLOCK
        assert row["measured_s"] == seconds
        assert row["load"] == len(known_run.VMS) * step.qd          # total-outstanding (the default axis)
        assert row["iops"] == pytest.approx(known_run.ops[step.index] / seconds, abs=0.05)
        assert row["mb_per_s"] == pytest.approx(known_run.bytes[step.index] / 1e6 / seconds, abs=0.005)
        assert ns(row["mean_latency_us"]) == round(sum(values) / len(values))
        assert ns(row["p99_us"]) == oracle.quantile(0.99).value_ns
        assert ns(row["p99_999_us"]) == oracle.quantile(0.99999).value_ns
        assert row["latency_n"] == len(values)
        assert row["p99_999_too_few"] is (len(values) < 1_000_000)
        assert ns(row["max_latency_us"]) == max(values)             # ramp-up (30 ms) excluded, the stall kept
        cpu = known_run.CPU_PCT[step.index]
        assert row["cpu_pct"] == pytest.approx(statistics.mean(cpu.values()), abs=0.01)   # HOST, not ROOT_PARTITION
        assert row["cpu_max_pct"] == pytest.approx(max(cpu.values()), abs=0.01)
        # Little's law holds by construction: outstanding = latency sum / interval.
        assert row["outstanding_ios"] == pytest.approx(row["littles_ios"], rel=0.01)
        x.append(row["iops"])
    assert rows[0]["gain_pct"] is None and rows[0]["efficiency_pct"] == 100.0
    assert rows[1]["gain_pct"] == pytest.approx((x[1] / x[0] - 1) * 100, abs=0.01)
    load0, load1 = rows[0]["load"], rows[1]["load"]
    assert rows[1]["efficiency_pct"] == pytest.approx(x[1] / (x[0] * load1 / load0) * 100, abs=0.01)
    by_vm = sql("scaling_curve_raw", run_id=known_run.run_id, load_axis="step", metric="mb_per_s").rows
    assert [r["load"] for r in by_vm] == [1.0, 2.0]


def test_lagging_vms_finds_the_slow_vm_and_only_it(sql, known_run) -> None:
    rows = sql("lagging_vms", run_id=known_run.run_id, threshold_pct=20).rows
    assert [(r["step_index"], r["vm"]) for r in rows] == [(1, known_run.LAGGING_VM)]
    lag = rows[0]
    assert lag["lagging"] is True and lag["host"] == "h2"
    assert lag["iops_vs_median_pct"] == pytest.approx(-50.0, abs=0.1)
    assert lag["mean_latency_vs_median_pct"] > 60                 # twice the latency (lognormal noise aside)
    assert "iops -50" in lag["reason"] and "mean latency +" in lag["reason"] and "p99 +" in lag["reason"]
    assert lag["iops"] == pytest.approx(known_run.ops_by_vm[(1, known_run.LAGGING_VM)] / 10, abs=0.05)
    assert ns(lag["p99_us"]) == hist(known_run.by_vm[(1, known_run.LAGGING_VM)]).quantile(0.99).value_ns

    everyone = sql("lagging_vms", run_id=known_run.run_id, step_index=1, show_all=True).rows
    assert len(everyone) == len(known_run.VMS)
    iops = sorted(known_run.ops_by_vm[(1, vm)] / 10 for vm in known_run.VMS)
    assert everyone[0]["median_iops"] == pytest.approx(iops[len(iops) // 2], abs=0.05)   # quantileExact: upper median
    only_iops = sql("lagging_vms", run_id=known_run.run_id, step_index=1, metric="p99", threshold_pct=20).rows
    assert [r["vm"] for r in only_iops] == [known_run.LAGGING_VM] and only_iops[0]["reason"].startswith("p99 +")
    assert sql("lagging_vms", run_id=known_run.run_id, threshold_pct=60, metric="iops").rows == []


def test_outliers_find_the_stall(sql, known_run) -> None:
    rows = sql("step_latency_outliers", run_id=known_run.run_id, step_index=1, limit=3).rows
    assert [r["rank"] for r in rows] == [1, 2, 3]
    top = rows[0]
    assert (top["host"], top["vm"], top["direction"]) == ("h1", known_run.STALL_VM, "read")
    assert ms(top["interval_start"]) == known_run.stall_ts_ms
    assert ns(top["max_us"]) == known_run.STALL_NS and top["intervals"] == 1
    assert top["latency_n"] == 9000 and top["iops"] == 9000.0
    # Per-interval p99 (N = 9000 >= 1000): the histogram's answer for that one sample... the stall is one I/O
    # of 9000, so p99 is an ordinary value, far below the max.
    assert ns(top["p99_us"]) < known_run.STALL_NS / 10

    sources = sql("step_latency_outliers", run_id=known_run.run_id, step_index=1, grain="source",
                  rank_by="p99", limit=40).rows
    assert len(sources) == 20                                     # 10 VMs x 2 directions
    assert sources[0]["vm"] == known_run.LAGGING_VM and sources[0]["interval_start"] is None
    for r in sources:
        values = known_run.by_source[(1, r["host"], r["vm"], r["direction"].upper())]
        assert r["latency_n"] == len(values) and r["intervals"] == 10
        assert ns(r["p99_us"]) == hist(values).quantile(0.99).value_ns
    assert [r["p99_us"] for r in sources] == sorted((r["p99_us"] for r in sources), reverse=True)
    by_mean = sql("step_latency_outliers", run_id=known_run.run_id, step_index=1, grain="source", rank_by="mean",
                  limit=2).rows
    assert {r["vm"] for r in by_mean} == {known_run.LAGGING_VM}  # its write and its read source lead


def test_port_utilization_applies_the_capacity_rule(sql, known_run) -> None:
    rows = sql("port_utilization", run_id=known_run.run_id, step_index=1).rows
    got = {(r["host"], r["port_id"], r["queue"], r["direction"]): r for r in rows}
    assert all(q == -1 for _, _, q, _ in got)                      # queues only on request
    expected_capacity = {                                          # bytes/s, source
        ("h1", "fc0"): (800e6, "run_event", True),                 # 8.5 Gbps -> 8GFC x 100 MB/s
        ("h1", "sas0"): (1200e6, "run_event", False),              # 12 Gbps / 10 (8b/10b), half duplex
        ("h1", "nic0"): (10e9 / 8 * 1460 / 1538, "link_speed", True),   # not declared: the samples' speed
        ("h2", "fc0"): (700e6, "run_event", True),                 # the operator's payload figure wins
        ("h2", "x0"): (None, "unknown", True),
    }
    seconds = known_run.STEPS[1].measured_s
    for (host, port), (capacity, source, duplex) in expected_capacity.items():
        sent = known_run.port_bytes[(1, host, port, -1)]
        rx, tx = sum(b[0] for b in sent), sum(b[1] for b in sent)
        peak_rx, peak_tx = max(b[0] for b in sent), max(b[1] for b in sent)
        for direction, own, peak in (("rx", rx, peak_rx), ("tx", tx, peak_tx)):
            r = got[(host, port, -1, direction)]
            assert r["capacity_source"] == source and r["full_duplex"] is duplex
            assert r["mb_per_s"] == pytest.approx(own / seconds / 1e6, abs=0.005)
            assert r["peak_mb_per_s"] == pytest.approx(peak / 1e6, abs=0.005)
            if capacity is None:
                assert r["capacity_mb_per_s"] is None and r["utilization_pct"] is None
                continue
            assert r["capacity_mb_per_s"] == pytest.approx(capacity / 1e6, abs=0.05)
            load = own if duplex else rx + tx
            assert r["utilization_pct"] == pytest.approx(load / seconds / capacity * 100, abs=0.006)   # 2 decimals
    assert got[("h1", "fc0", -1, "rx")]["utilization_pct"] == pytest.approx(50.0 * (1 + 0.5 / 10), abs=0.01)
    assert got[("h1", "fc0", -1, "rx")]["link_speed_gbps"] == 8.5
    with_queues = sql("port_utilization", run_id=known_run.run_id, step_index=1, include_queues=True).rows
    vmq = [r for r in with_queues if r["queue"] == 0]
    assert {r["vm"] for r in vmq} == {"vm-h1-01"} and {r["kind"] for r in vmq} == {"nic_vmq"}
    assert vmq[0]["capacity_mb_per_s"] == pytest.approx(10e9 / 8 * 1460 / 1538 / 1e6, abs=0.05)


def test_run_list_steps_and_ingest_status(sql, known_run) -> None:
    runs = sql("run_list", scenario=known_run.SCENARIO, limit=1000).rows
    mine = [r for r in runs if r["run_id"] == known_run.run_id]
    assert len(mine) == 1
    assert (mine[0]["steps"], mine[0]["steps_ended"], mine[0]["hosts"], mine[0]["tool"]) == (2, 2, 2, "live")
    total_s = sum(s.ramp_s + s.measured_s for s in known_run.STEPS)
    assert mine[0]["duration_s"] == total_s
    assert all(r["scenario"] == known_run.SCENARIO for r in runs)

    steps = sql("run_steps", run_id=known_run.run_id).rows
    assert [(s["step_index"], s["ramp_up_s"], s["measured_s"]) for s in steps] == \
        [(s.index, s.ramp_s, s.measured_s) for s in known_run.STEPS]
    for row in steps:
        start, end = known_run.windows[row["step_index"]]
        assert ms(row["measured_start"]) == start
        assert ms(row["measured_end"]) == end

    status = {r["table_name"]: r for r in sql("run_ingest_status", run_id=known_run.run_id).rows}
    assert {t: r["row_count"] for t, r in status.items()} == dict(known_run.counts)   # the replay counted once
    assert status["io_samples"]["sources"] == 20                  # 10 VMs x (read, write)
    assert status["io_samples"]["steps"] == 2


def test_unknown_run_gives_empty_results_not_errors(sql) -> None:
    for name in ("scaling_curve_raw", "step_latency_five_nines", "lagging_vms", "port_utilization", "run_steps"):
        assert sql(name, run_id="no-such-run").rows == []
    assert [r["row_count"] for r in sql("run_ingest_status", run_id="no-such-run").rows] == [0, 0, 0, 0]
