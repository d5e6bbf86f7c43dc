"""The queries that read the per-step histogram sums (io_samples_hist_sums, io_samples_hist_by_ts; migrations
0040-0041 and their views in sql/materialized) against formulations that merge every raw sample's buckets at each
call: the same rows and values, for every value of every parameter, on runs that take each path.

reference_queries/ holds those formulations, the oracle, next to the test. The runs:

    known_run (conftest)   two ended steps; one sample sent twice in step 1 (that source, VM and step/direction
                           take the raw path), everything else the summed path
    edge_run (here)        timestamps and windows off the whole second; step 0 clean, step 1 with a sample sent
                           twice and a source without buckets (scheme 0), step 2 still running (no STEP_ENDED),
                           step 3 ended without a start (an empty window)
    the bench run          bench/sql_library_bench.py's 320-VM, one-hour run, when ClickHouse holds it
    edge_run's split copy  edge_run inserted again in two blocks: each key's sums in two rows, two parts (the
                           queries that sum a key's rows themselves instead of reading with FINAL)

The counters and extremes of io_samples_hist_sums (scaling_curve_raw's and step_latency_five_nines' windows
from the step_ts rows) are checked against io_samples at every grain, and a step whose counters do not cover its
samples must take the raw path (last test: it alters edge_run).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from ioscale.query import NamedQuery, QueryResult, bind, execute, load, parse
from ioscale.wire import topics
from ioscale.histogram import SCHEME_ID, LatencyHistogram
from ioscale.wire.producer import TelemetryProducer
from ioscale.stack.clickhouse import client

from isolation import PREFIX, unique

REFERENCE = Path(__file__).parent / "reference_queries"
SUMMED = ("step_latency_five_nines", "step_latency_histogram", "scaling_curve_raw", "lagging_vms",
          "step_latency_outliers")
BENCH_RUN = "sim-s2d-vmfleet-320-4k-70r-20260922T180000Z-s42"

# edge_run: 2 hosts x 3 VMs, one target, reads and writes; a 1 s interval started 250 ms into the second.
EDGE_VMS = tuple(f"vm-{h}-{n}" for h in ("h1", "h2") for n in (1, 2, 3))
OFFSET_MS = 250
#: step -> (ramp-up s, measured s, STEP_ENDED: 'window' | 'none' (still running) | 'no_start')
EDGE_STEPS = {0: (2, 6, "window"), 1: (1, 7, "window"), 2: (1, 5, "none"), 3: (1, 4, "no_start")}
TWICE_VM, NO_BUCKETS_VM = "vm-h1-2", "vm-h2-3"


def _edge_sample(run_id: str, step: int, ts_ms: int, vm: str, direction: str, values: list[int]) -> dict:
    h = LatencyHistogram()
    h.record_many(values)
    idx, cnt = h.to_sparse()
    no_buckets = vm == NO_BUCKETS_VM and step == 1
    return {
        "ts_ms": ts_ms, "interval_ms": 1000, "run_id": run_id, "step_index": step, "host": vm.split("-")[1],
        "vm": vm, "target": "disk1", "direction": direction, "ops": len(values), "bytes": len(values) * 4096,
        "outstanding_ios": h.sum_ns / 1e9, "errors": 0, "latency_count": h.count, "latency_sum_ns": h.sum_ns,
        "latency_min_ns": h.min_ns, "latency_max_ns": h.max_ns,
        # A percentile-only import (DISKSPD-like): counted in latency_count, no buckets.
        "latency_hist_scheme": 0 if no_buckets else SCHEME_ID,
        "latency_bucket_index": [] if no_buckets else idx, "latency_bucket_count": [] if no_buckets else cnt,
        "percentile_q": [], "percentile_ns": [], "tags": {},
    }


def _edge_event(run_id: str, event_type: str, ts_ms: int, step: int, start_ms: int | None = None,
                end_ms: int | None = None) -> dict:
    load = {"vm_count": len(EDGE_VMS), "targets_per_vm": 1, "workers_per_target": 1,
            "outstanding_ios_per_target": 1 + step, "block_size_bytes": 4096, "read_pct": 70.0,
            "random_pct": 100.0, "adapter": "test", "config_labels": {}}
    return {"event_type": event_type, "ts_ms": ts_ms, "run_id": run_id, "scenario": f"{PREFIX}summed", "tool": "LIVE",
            "description": "", "hosts": [], "step_index": step, "step_label": f"step {step}",
            "load": load if step >= 0 else None, "links": [], "start_ms": start_ms, "end_ms": end_ms, "tags": {}}


@pytest.fixture(scope="session")
def edge_run(stack) -> str:
    run_id = unique("summed")
    rng = np.random.default_rng(20261122)
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    now_ms = int(time.time() * 1000)
    t = now_ms - now_ms % 1000 - 3_600_000 + OFFSET_MS
    sent = 0
    for step, (ramp_s, measured_s, ended) in EDGE_STEPS.items():
        producer.send(topics.RUNS, _edge_event(run_id, "STEP_STARTED", t, step))
        # The window starts 400 ms after a sample and ends 300 ms before one: no bound on a sample's time.
        start, end = t + ramp_s * 1000 + 400, t + (ramp_s + measured_s) * 1000 - 300
        for second in range(ramp_s + measured_s):
            ts = t + second * 1000
            for vm in EDGE_VMS:
                for direction, n in (("READ", 700), ("WRITE", 300)):
                    median = 300_000 * (3 if ts < start else 1) * (2 if vm.endswith("-3") else 1)
                    values = np.maximum(rng.lognormal(np.log(median), 0.5, n), 1).astype(np.int64).tolist()
                    record = _edge_sample(run_id, step, ts, vm, direction, values)
                    producer.send(topics.IO_SAMPLES, record)
                    sent += 1
                    if step == 1 and vm == TWICE_VM and direction == "READ" and second == ramp_s + 2:
                        producer.send(topics.IO_SAMPLES, dict(record))   # delivered twice
        if ended == "window":
            producer.send(topics.RUNS, _edge_event(run_id, "STEP_ENDED", end, step, start, end))
        elif ended == "no_start":
            producer.send(topics.RUNS, _edge_event(run_id, "STEP_ENDED", end, step, None, end))
        t += (ramp_s + measured_s) * 1000
    producer.flush(120)
    deadline = time.monotonic() + 180
    with client(stack.settings, stack.secrets, "reader") as ch:
        while time.monotonic() < deadline:
            have = ch.command("SELECT count() FROM ioscale.io_samples FINAL WHERE run_id = {r:String}",
                              parameters={"r": run_id})
            events = ch.command("SELECT count() FROM ioscale.run_events FINAL WHERE run_id = {r:String}",
                                parameters={"r": run_id})
            if have >= sent and events >= len(EDGE_STEPS) + 3:
                break
            time.sleep(1)
    assert have == sent, f"ClickHouse holds {have} of {sent} samples"
    return run_id


def _run(stack, query: NamedQuery, params: dict) -> QueryResult:
    values = bind(query, {k: str(v) for k, v in params.items() if query.param(k) is not None})
    with client(stack.settings, stack.secrets, "reader") as ch:
        return execute(query, values, ch)


def _reference(name: str) -> NamedQuery:
    path = REFERENCE / f"{name}.sql"
    return parse(path.read_text(encoding="utf-8"), name, path)


def _variants(name: str, steps: list[int]) -> list[dict]:
    if name == "step_latency_five_nines":
        return [{"step_index": s, "direction": d} for s in [-1, *steps] for d in ("all", "read", "write")]
    if name == "step_latency_histogram":
        return [{"step_index": s, "direction": d} for s in steps for d in ("all", "read", "write")]
    if name == "scaling_curve_raw":
        return [{"load_axis": a, "metric": m} for a in ("total-outstanding", "vm-count", "workers", "queue-depth",
                                                         "step") for m in ("iops", "mb_per_s")]
    if name == "lagging_vms":
        return [{"step_index": s, "metric": m, "show_all": show, "threshold_pct": th}
                for s in [-1, *steps] for m in ("any", "iops", "mean_latency", "p99") for show in (True, False)
                for th in (0, 20)]
    return [{"step_index": s, "grain": g, "rank_by": r, "limit": n}
            for s in steps for g in ("interval", "source") for r in ("max", "p99", "mean") for n in (3, 1000)]


def _assert_same(stack, name: str, run_id: str, variants: list[dict]) -> None:
    new, old = load(name), _reference(name)
    assert [c.name for c in new.columns] == [c.name for c in old.columns]
    assert [(p.name, p.type, p.default, p.choices) for p in new.params] == \
        [(p.name, p.type, p.default, p.choices) for p in old.params]
    for params in variants:
        params = {"run_id": run_id, **params}
        want, got = _run(stack, old, params), _run(stack, new, params)
        assert got.columns == want.columns, params
        assert got.rows == want.rows, f"{name} {params}: first difference at row " + str(
            next((i for i, (a, b) in enumerate(zip(want.rows, got.rows)) if a != b), min(len(want.rows), len(got.rows))))


@pytest.mark.parametrize("name", SUMMED)
def test_same_answers_as_before_on_the_known_run(stack, known_run, name: str) -> None:
    _assert_same(stack, name, known_run.run_id, _variants(name, [0, 1]))


@pytest.mark.parametrize("name", SUMMED)
def test_same_answers_as_before_on_the_edge_run(stack, edge_run, name: str) -> None:
    _assert_same(stack, name, edge_run, _variants(name, sorted(EDGE_STEPS)))


@pytest.mark.parametrize("name, params", [
    ("step_latency_five_nines", {}),
    ("step_latency_five_nines", {"step_index": 10, "direction": "read"}),
    ("step_latency_histogram", {"step_index": 10}),
    ("scaling_curve_raw", {}),
    ("lagging_vms", {"show_all": True}),
    ("step_latency_outliers", {"step_index": 10}),
    ("step_latency_outliers", {"step_index": 10, "grain": "source", "rank_by": "p99"}),
])
def test_same_answers_as_before_on_the_bench_run(stack, name: str, params: dict) -> None:
    with client(stack.settings, stack.secrets, "reader") as ch:
        if not ch.command("SELECT count() FROM ioscale.io_samples WHERE run_id = {r:String}", parameters={"r": BENCH_RUN}):
            pytest.skip("the bench run is not in ClickHouse (bench/sql_library_bench.py --generate-only)")
    _assert_same(stack, name, BENCH_RUN, [params])


def test_sums_equal_the_raw_merge_and_flag_the_sample_sent_twice(stack, edge_run) -> None:
    """The view's sums are the raw samples' buckets added up; the redelivered sample shows as samples >
    distinct timestamps on its source alone, and the source without buckets adds an empty histogram."""
    with client(stack.settings, stack.secrets, "reader") as ch:
        def rows(sql: str) -> list[tuple]:
            return ch.query(sql, parameters={"r": edge_run}).result_rows

        flagged = rows("SELECT step_index, vm, direction, samples, bitmapCardinality(sample_ts) "
                       "FROM ioscale.io_samples_hist_sums FINAL WHERE run_id = {r:String} AND grain = 'source_step' "
                       "AND samples != bitmapCardinality(sample_ts)")
        assert flagged == [(1, TWICE_VM, "read", 9, 8)]
        # The fleet's step sum is the raw merge (FINAL), bucket by bucket, where no sample came twice; the step and
        # direction of the redelivered sample count it twice (the queries read those from io_samples FINAL).
        mismatched = rows("""
            SELECT a.step_index, a.direction, a.hist = b.hist
            FROM (SELECT step_index, direction, hist FROM ioscale.io_samples_hist_sums FINAL
                  WHERE run_id = {r:String} AND grain = 'fleet_step') AS a
            INNER JOIN (SELECT step_index, direction,
                               sumMapIf(mapFromArrays(latency_bucket_index, latency_bucket_count), latency_hist_scheme = 1) AS hist
                        FROM ioscale.io_samples FINAL WHERE run_id = {r:String}
                        GROUP BY step_index, direction) AS b
                USING (step_index, direction)
            ORDER BY a.step_index, a.direction""")
        assert mismatched == [(step, direction, not (step, direction) == (1, "read"))
                              for step in sorted(EDGE_STEPS) for direction in ("read", "write")]
        # The source and VM grains keep no buckets (no query reads them there).
        assert rows("SELECT grain, count(), countIf(length(hist) > 0) FROM ioscale.io_samples_hist_sums FINAL "
                    "WHERE run_id = {r:String} AND grain IN ('source_step', 'vm_step') GROUP BY grain ORDER BY grain") == \
            [("source_step", len(EDGE_STEPS) * len(EDGE_VMS) * 2, 0), ("vm_step", len(EDGE_STEPS) * len(EDGE_VMS), 0)]
        # The time-ordered copy holds, after FINAL, exactly io_samples' rows; step_ts lists every sample time.
        assert rows("SELECT count() FROM ioscale.io_samples_hist_by_ts FINAL WHERE run_id = {r:String}") == \
            rows("SELECT count() FROM ioscale.io_samples FINAL WHERE run_id = {r:String}")
        assert rows("SELECT count() FROM ioscale.io_samples_hist_sums FINAL WHERE run_id = {r:String} "
                    "AND grain = 'step_ts'") == \
            rows("SELECT uniqExact(step_index, ts) FROM ioscale.io_samples WHERE run_id = {r:String}")


def test_every_grain_adds_up_the_same_samples(stack, edge_run) -> None:
    """The VM and fleet grains count the source grain's samples (redelivery included, as one insert makes them all),
    keys outside a grain hold their defaults, and only source_step keeps sample timestamps (the view's GROUPING
    SETS assign the grains by a bit mask: a wrong mask would swap or drop a grain)."""
    with client(stack.settings, stack.secrets, "reader") as ch:
        def rows(sql: str) -> list[tuple]:
            return ch.query(sql, parameters={"r": edge_run}).result_rows

        base = "FROM ioscale.io_samples_hist_sums FINAL WHERE run_id = {r:String}"
        for grain, keys in (("vm_step", "step_index, host, vm"), ("fleet_step", "step_index, direction")):
            assert rows(f"""
                SELECT count(), countIf(a.samples != b.samples)
                FROM (SELECT {keys}, samples {base} AND grain = '{grain}') AS a
                FULL OUTER JOIN (SELECT {keys}, sum(samples) AS samples
                                 {base} AND grain = 'source_step' GROUP BY {keys}) AS b USING ({keys})""") == \
                [(len(EDGE_VMS) * len(EDGE_STEPS) if grain == "vm_step" else 2 * len(EDGE_STEPS), 0)], grain
        assert rows(f"SELECT grain, countIf(target != ''), countIf(direction != ''), countIf(host != ''), "
                    f"countIf(ts != toDateTime64(0, 3, 'UTC')), countIf(bitmapCardinality(sample_ts) > 0), "
                    f"countIf(length(hist) > 0) > 0 {base} GROUP BY grain ORDER BY grain") == [
            ("source_step", 2 * len(EDGE_VMS) * len(EDGE_STEPS), 2 * len(EDGE_VMS) * len(EDGE_STEPS),
             2 * len(EDGE_VMS) * len(EDGE_STEPS), 0, 2 * len(EDGE_VMS) * len(EDGE_STEPS), 0),
            ("vm_step", 0, 0, len(EDGE_VMS) * len(EDGE_STEPS), 0, 0, 0),
            ("fleet_step", 0, 2 * len(EDGE_STEPS), 0, 0, 0, 1),
            ("step_ts", 0, 0, 0, rows("SELECT uniqExact(step_index, ts) FROM ioscale.io_samples "
                                      "WHERE run_id = {r:String}")[0][0], 0, 0),
        ]


SENTINEL_NS = 18446744073709551615   # io_samples_hist_sums.latency_min_ns when no sample counted I/Os (0040)
#: The counters and extremes io_samples_hist_sums keeps at every grain, as computed from io_samples rows.
COUNTERS = {"ops": "sum(ops)", "bytes": "sum(bytes)", "latency_count": "sum(latency_count)",
            "latency_sum_ns": "sum(latency_sum_ns)", "interval_ms_total": "sum(interval_ms)",
            "latency_min_ns": f"min(if(latency_count > 0, latency_min_ns, {SENTINEL_NS}))",
            "latency_max_ns": "max(latency_max_ns)"}
GRAIN_KEYS = {"source_step": "step_index, host, vm, target, direction", "vm_step": "step_index, host, vm",
              "fleet_step": "step_index, direction", "step_ts": "step_index, ts"}


def _counter_mismatches(ch, run_id: str, grain: str, summed_from: str) -> list[tuple]:
    """(rows, rows whose counters differ from io_samples FINAL's) at one grain, steps other than 1 (its
    redelivered sample is counted twice by design, see 0040); summed_from: the rows to check."""
    keys = GRAIN_KEYS[grain]
    # raw_*: an alias named like an io_samples column would shadow it in the other aggregates
    cols = ", ".join(f"{expr} AS raw_{name}" for name, expr in COUNTERS.items())
    differ = " OR ".join(f"a.{name} != b.raw_{name}" for name in COUNTERS)
    return ch.query(f"""
        SELECT count(), countIf({differ} OR a.counted_samples != b.raw_counted_samples
                               OR abs(a.outstanding_io_ms - b.raw_outstanding_io_ms) > 1e-6 * b.raw_outstanding_io_ms)
        FROM ({summed_from}) AS a
        FULL OUTER JOIN (SELECT {keys}, count() AS raw_counted_samples, {cols},
                                sum(outstanding_ios * interval_ms) AS raw_outstanding_io_ms
                         FROM ioscale.io_samples FINAL WHERE run_id = {{r:String}} AND step_index != 1
                         GROUP BY {keys}) AS b USING ({keys})""", parameters={"r": run_id}).result_rows


@pytest.mark.parametrize("grain", list(GRAIN_KEYS))
def test_counters_equal_the_raw_samples_at_every_grain(stack, edge_run, grain: str) -> None:
    """The view (io_samples_hist_sums_mv) sums each grain's counters and extremes as io_samples FINAL does, and counts them all."""
    with client(stack.settings, stack.secrets, "reader") as ch:
        summed = (f"SELECT {GRAIN_KEYS[grain]}, counted_samples, {', '.join(COUNTERS)}, outstanding_io_ms "
                  f"FROM ioscale.io_samples_hist_sums FINAL WHERE run_id = {{r:String}} AND grain = '{grain}' "
                  f"AND step_index != 1")
        rows = len(EDGE_STEPS) - 1
        expected = {"source_step": rows * len(EDGE_VMS) * 2, "vm_step": rows * len(EDGE_VMS),
                    "fleet_step": rows * 2}.get(grain)
        got = _counter_mismatches(ch, edge_run, grain, summed)
        assert got[0][1] == 0, got
        if expected is not None:
            assert got[0][0] == expected
        # The redelivered sample (step 1) too: counted twice, like samples, so counted_samples = samples.
        assert ch.command("SELECT countIf(counted_samples != samples) FROM ioscale.io_samples_hist_sums FINAL "
                          f"WHERE run_id = {{r:String}} AND grain = '{grain}'", parameters={"r": edge_run}) == 0


def test_sums_split_across_parts_give_the_same_answers(stack, edge_run) -> None:
    """lagging_vms and step_latency_outliers read io_samples_hist_sums without FINAL and sum a key's rows
    themselves (FINAL's cost follows the table's parts, see their Speed notes). A copy of edge_run inserted
    in two blocks (even, then odd sample seconds) leaves every key of the copy in two rows, one per part, until
    a background merge: the answers must be the old ones whichever form the rows take."""
    split_run = f"{edge_run}-split"
    # The filter in a subquery: at the same level, WHERE would see REPLACE's run_id alias, not the column.
    copy = ("INSERT INTO ioscale.{table} SELECT * REPLACE ({split:String} AS run_id) FROM (SELECT * FROM "
            "ioscale.{table} WHERE run_id = {run:String}{and})")
    with client(stack.settings, stack.secrets, "admin") as admin:   # the reader cannot insert
        # The table merges eagerly (migration 0040): its merges wait until the answers are checked.
        admin.command("SYSTEM STOP MERGES ioscale.io_samples_hist_sums")
        try:
            params = {"run": edge_run, "split": split_run}
            admin.command(copy.replace("{table}", "run_events").replace("{and}", ""), parameters=params)
            for parity in (0, 1):
                half = f" AND toUnixTimestamp(ts) % 2 = {parity}"
                admin.command(copy.replace("{table}", "io_samples").replace("{and}", half), parameters=params)
            rows_per_key = admin.command(
                "SELECT max(n) FROM (SELECT count() AS n FROM ioscale.io_samples_hist_sums "
                "WHERE run_id = {split:String} AND grain = 'vm_step' GROUP BY step_index, host, vm)", parameters=params)
            assert rows_per_key == 2, "both blocks' rows should be apart, one per part"
            for name in ("lagging_vms", "step_latency_outliers"):
                _assert_same(stack, name, split_run, _variants(name, sorted(EDGE_STEPS)))
        finally:
            admin.command("SYSTEM START MERGES ioscale.io_samples_hist_sums")


def test_counters_not_covering_their_samples_take_the_raw_path(stack, edge_run) -> None:
    """A sample time whose counters miss samples or hold some twice (counted_samples != samples: rows written
    other than by the view) sends its step to io_samples FINAL: the answers stay the old ones. Simulated on
    step 0 by adding counters of one sample again (admin: the reader cannot insert). Runs last in this module; the step only changes path."""
    with client(stack.settings, stack.secrets, "admin") as admin:
        admin.command("""
            INSERT INTO ioscale.io_samples_hist_sums
                (run_id, step_index, grain, direction, ts, host, vm, target, counted_samples, ops, bytes,
                 latency_count, latency_sum_ns, interval_ms_total, outstanding_io_ms, latency_min_ns,
                 latency_max_ns, ingested_at)
            SELECT run_id, step_index, 'step_ts', '', ts, '', '', '', 1, ops, bytes, latency_count,
                   latency_sum_ns, interval_ms, outstanding_ios * interval_ms, latency_min_ns, latency_max_ns,
                   ingested_at
            FROM ioscale.io_samples FINAL
            WHERE run_id = {r:String} AND step_index = 0
            ORDER BY ts DESC LIMIT 1""", parameters={"r": edge_run})
        assert admin.command("SELECT countIf(counted_samples != samples) FROM ioscale.io_samples_hist_sums FINAL "
                             "WHERE run_id = {r:String} AND grain = 'step_ts'", parameters={"r": edge_run}) == 1
    for name in ("scaling_curve_raw", "step_latency_five_nines"):
        _assert_same(stack, name, edge_run, _variants(name, sorted(EDGE_STEPS)))
