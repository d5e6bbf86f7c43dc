"""Queries over the Flink job's result tables (scaling_curves, usl_fits, alerts) and dead_letters.

Two levels:
- against a scratch database built from the real migrations (sql/migrations/0011, 0100-0110) with known rows,
  so the SQL, FINAL's deduplication and the arithmetic are checked whether or not the Flink job runs;
- against the real tables, when the Flink job is filling them for the integration tests' runs (`io_fleet_1s`
  has rows of an ``itest-`` run): then the job's step rows must agree with scaling_curve_raw over the same run.
  Skipped, saying why, otherwise. The developer's own runs are never read.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ioscale.query import bind, execute, load
from ioscale.stack.clickhouse import client

from isolation import PREFIX, scratch_database

MIGRATIONS = ("0011_create_table_dead_letters.sql", "0108_create_table_scaling_curves.sql",
              "0109_create_table_usl_fits.sql", "0110_create_table_alerts.sql",
              "0147_alter_table_scaling_curves_nullable_quantiles.sql",
              "0160_alter_table_scaling_curves_littles_basis.sql",
              "0180_alter_table_scaling_curves_throughput_basis.sql")


@pytest.fixture(scope="module")
def scratch(stack) -> Iterator[tuple[str, object]]:
    """(database, admin client) with the result tables' real DDL and known rows; dropped afterwards."""
    with scratch_database(stack, "sqllib", MIGRATIONS) as (db, admin):
        fill(admin, db)
        yield db, admin


def fill(admin, db: str) -> None:
    # Two runs of three steps; run B is 10 % faster at 10 % higher latency. Step 1 of run A is written twice:
    # version 1 (stale, iops 1) and version 2 -- FINAL must show version 2 only.
    rows = []
    for run, scale in (("run-a", 1.0), ("run-b", 1.1)):
        for step in range(3):
            rows.append((run, step, f"{step + 1} VMs", float(step + 1), step + 1, 1000.0 * (step + 1) * scale,
                         4.0 * (step + 1) * scale, 500_000.0 * scale, 2_000_000 * (step + 1), 9_000_000,
                         400_000 * (step + 1), step == 0, 10.0 * (step + 1), "SCALING" if step < 2 else "SATURATED",
                         None if step == 0 else 100.0 / step, 2))
    rows.append(("run-a", 1, "stale", 2.0, 2, 1.0, 1.0, 1.0, 1, 1, 1, False, 1.0, "SCALING", None, 1))
    cols = ("run_id, step_index, step_label, load, vm_count, iops, mb_per_s, latency_mean_ns, p99_ns, p99_999_ns, "
            "latency_n, p99_999_too_few, cpu_utilization_pct, saturation_status, throughput_gain_pct, version")
    admin.insert(f"{db}.scaling_curves", rows, column_names=[c.strip() for c in cols.split(",")])
    admin.command(f"""INSERT INTO {db}.alerts (alert_id, kind, phase, severity, run_id, step_index, resource, value,
                      threshold, evidence, event_ts, version) VALUES
        ('a1', 'saturation', 'final', 'warning', 'run-a', 2, 'port h1/fc0 RX', 97.5, 95, 'old', now64(3), 1),
        ('a1', 'saturation', 'final', 'warning', 'run-a', 2, 'port h1/fc0 RX', 98.5, 95, 'port at 98.5%', now64(3), 2),
        ('a2', 'slo_breach', 'live', 'critical', 'run-a', 1, 'latency p99 < 1 ms', 2e6, 1e6, 'p99 2 ms', now64(3), 1),
        ('a3', 'saturation', 'final', 'warning', 'run-b', 2, 'cpu h1', 96, 95, 'other run', now64(3), 1)""")
    admin.command(f"""INSERT INTO {db}.usl_fits (run_id, through_step, points, metric, load_axis, fitted, reason,
                      lambda, sigma, kappa, r_squared, peak_n, peak_x, max_n, peak_extrapolated, event_ts, version) VALUES
        ('run-a', 1, 2, 'iops', 'vm-count', false, 'too few points', NULL, NULL, NULL, NULL, NULL, NULL, 2, false, now64(3), 1),
        ('run-a', 2, 3, 'iops', 'vm-count', true, 'ok', 1000, 0.01, 0.0001, 0.99, 99.5, 50000, 3, true, now64(3), 1)""")
    admin.command(f"""INSERT INTO {db}.dead_letters (stage, topic, partition, offset, reason, raw_message) VALUES
        ('clickhouse-kafka', 'ioscale.io_samples', 0, 17, 'Invalid magic byte: found 7 at row 1', 'xx'),
        ('clickhouse-kafka', 'ioscale.io_samples', 1, 18, 'Invalid magic byte: found 9 at row 1', 'yyy'),
        ('flink', 'ioscale.cpu_samples', 0, 5, 'schema 12 not found', 'z')""")


def run_in(scratch, name: str, **params) -> tuple[tuple[str, ...], list[dict]]:
    db, admin = scratch
    q = load(name)
    result = execute(q, bind(q, {k: str(v) for k, v in params.items()}), admin,
                            sql=q.sql.replace("ioscale.", f"{db}."))
    assert result.columns == tuple(c.name for c in q.columns), f"{name}: columns differ from its header"
    return result.columns, [dict(zip(result.columns, r)) for r in result.rows]


def test_scaling_curve_reads_the_latest_version_of_each_step(scratch) -> None:
    _, rows = run_in(scratch, "scaling_curve", run_id="run-a")
    assert [r["step_index"] for r in rows] == [0, 1, 2]
    assert rows[1]["step_label"] == "2 VMs" and rows[1]["iops"] == 2000.0     # not the stale version 1
    assert [r["mean_latency_us"] for r in rows] == [500.0] * 3
    assert rows[0]["p99_999_too_few"] is True and rows[2]["saturation"] == "SATURATED"


def test_compare_runs_gives_both_values_and_the_difference(scratch) -> None:
    _, rows = run_in(scratch, "compare_runs", run_a="run-a", run_b="run-b")
    assert [r["step_index"] for r in rows] == [0, 1, 2]
    for r in rows:
        assert r["iops_diff_pct"] == pytest.approx(10.0) and r["mean_latency_diff_pct"] == pytest.approx(10.0)
        assert r["cpu_diff_pts"] == 0.0
    assert rows[0]["p99_999_diff_pct"] is None          # step 0 has too few samples: two maxima, no %
    assert rows[1]["p99_999_diff_pct"] == 0.0
    _, missing = run_in(scratch, "compare_runs", run_a="run-a", run_b="no-such-run")
    assert [r["iops_b"] for r in missing] == [None] * 3 and [r["step_index"] for r in missing] == [0, 1, 2]


def test_saturation_events_with_context(scratch) -> None:
    _, rows = run_in(scratch, "saturation_events", run_id="run-a")
    assert [(r["step_index"], r["kind"], r["phase"]) for r in rows] == [(1, "slo_breach", "live"),
                                                                       (2, "saturation", "final")]
    sat = rows[1]
    assert sat["value"] == 98.5 and sat["evidence"] == "port at 98.5%"           # FINAL: version 2
    assert sat["step_label"] == "3 VMs" and sat["step_iops"] == 3000.0 and sat["step_saturation"] == "SATURATED"
    _, only = run_in(scratch, "saturation_events", run_id="run-a", kind="slo_breach", phase="all")
    assert [r["resource"] for r in only] == ["latency p99 < 1 ms"]


def test_usl_fit_history_and_latest(scratch) -> None:
    _, rows = run_in(scratch, "usl_fit", run_id="run-a")
    assert [r["through_step"] for r in rows] == [2, 1]
    _, latest = run_in(scratch, "usl_fit", run_id="run-a", latest_only=True)
    assert len(latest) == 1 and latest[0]["fitted"] is True and latest[0]["peak_n"] == 99.5


def test_dead_letter_summary_groups_by_reason_pattern(scratch) -> None:
    _, rows = run_in(scratch, "dead_letter_summary", since_hours=1)
    assert [(r["stage"], r["reason_pattern"], r["records"], r["raw_bytes"]) for r in rows] == [
        ("clickhouse-kafka", "Invalid magic byte: found N at row N", 2, 5),
        ("flink", "schema N not found", 1, 1)]
    assert rows[0]["example_offset"] in ("0/17", "1/18")


# --- the real tables, when the Flink job fills them -------------------------------------------------------
def flink_is_filling(stack) -> str | None:
    """None when the job writes result rows for the tests' runs; otherwise why not (the skip reason)."""
    ours = f"WHERE startsWith(run_id, '{PREFIX}')"
    with client(stack.settings, stack.secrets, "reader") as ch:
        tables = {r[0] for r in ch.query("SELECT name FROM system.tables WHERE database = 'ioscale'").result_rows}
        if "io_fleet_1s" not in tables:
            return "the Flink result tables do not exist (migrations 0100-0110 not applied)"
        if ch.command(f"SELECT count() FROM ioscale.io_fleet_1s {ours}") == 0:
            return f"the Flink analytics job is not filling the result tables (no {PREFIX}* run in ioscale.io_fleet_1s)"
        if ch.command(f"SELECT count() FROM ioscale.scaling_curves {ours}") == 0:
            return f"the Flink job has written no step rows for a {PREFIX}* run yet (ioscale.scaling_curves)"
    return None


def test_flink_scaling_curve_agrees_with_the_raw_computation(stack, sql) -> None:
    reason = flink_is_filling(stack)
    if reason:
        pytest.skip(reason)
    with client(stack.settings, stack.secrets, "reader") as ch:
        # The tests' run with the most step rows that still has its raw samples; not test_summed_histograms' edge
        # runs (itest-summed-*: ramp-up at 3x the latency, windows 400 ms off the samples, a source without
        # buckets), which a stack kept from an earlier session holds and where the two windows differ by design.
        run_id = ch.command(f"""SELECT run_id FROM ioscale.scaling_curves FINAL
                                WHERE startsWith(run_id, '{PREFIX}')
                                  AND run_id IN (SELECT DISTINCT run_id FROM ioscale.io_samples
                                                 WHERE startsWith(run_id, '{PREFIX}'))
                                  AND NOT startsWith(run_id, '{PREFIX}summed-')
                                GROUP BY run_id ORDER BY count() DESC, max(emitted_at) DESC LIMIT 1""")
    if not run_id:
        pytest.skip(f"no {PREFIX}* run has both Flink step rows and raw samples")
    flink = {r["step_index"]: r for r in sql("scaling_curve", run_id=run_id).rows}
    raw = {r["step_index"]: r for r in sql("scaling_curve_raw", run_id=run_id).rows}
    common = sorted(set(flink) & set(raw))
    assert common, f"run {run_id}: no step in both scaling_curve and scaling_curve_raw"
    for step in common:
        f, r = flink[step], raw[step]
        assert f["step_label"] == r["step_label"] and f["vm_count"] == r["vm_count"]
        # Flink measures its steady window inside the step's measured window: close, not identical.
        assert f["iops"] == pytest.approx(r["iops"], rel=0.15), f"step {step}"
        assert f["mean_latency_us"] == pytest.approx(r["mean_latency_us"], rel=0.25), f"step {step}"
    for name in ("saturation_events", "usl_fit"):
        answer = sql(name, run_id=run_id)
        assert answer.columns == tuple(c.name for c in answer.query.columns)
