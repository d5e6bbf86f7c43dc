"""A histogram of no I/O (latency_n = 0: a source that sends no buckets, such as Iometer or DISKSPD without its
latency table) has no percentiles, and every table and view that holds them says NULL (migrations 0140-0147 and
the views in sql/views):
on a database set up from the baseline that already holds rows (the stream job wrote 0 there), and on a new
one. Rows with a histogram keep their values.

Both tests start a ClickHouse server of their own (conftest's private_server), never the stack's. The Kafka-engine
tables point at 127.0.0.1:1, where nothing listens.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import time
from pathlib import Path

import pytest

from ioscale.provision import migrations
from ioscale.stack.settings import repo_root

pytestmark = pytest.mark.slow

MIGRATIONS = repo_root() / "sql" / "migrations"
BASELINE = json.loads(Path(__file__).with_name("migration_baseline.json").read_text(encoding="utf-8"))["baseline"]
PLACEHOLDERS = {"kafka_bootstrap": "127.0.0.1:1", "registry_url": "http://127.0.0.1:1"}
QUANTILES = ("p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns")
TABLES = ("io_samples_1s", "io_samples_10s", "io_samples_1m", "io_fleet_1s", "io_fleet_10s", "io_fleet_1m",
          "scaling_curves")
#: A row with a histogram: N = 2000, p50 .. p99 real, p99.9 and deeper the max (too few samples).
WITH_HIST = (2000, [500_000, 900_000, 1_900_000, 2_000_000, 2_000_000, 2_000_000])


def _apply(ch, folder: Path) -> list[str]:
    return migrations.apply(migrations.ClickHouseExecutor(ch), folder, PLACEHOLDERS).applied


def _write_rows(ch, at_n_0: int | None) -> None:
    """In each table: a row with no histogram (N = 0, its quantiles ``at_n_0``: 0 as the job wrote them before,
    None as it writes them now) and one with."""
    now = dt.datetime.now(dt.timezone.utc)
    for table in TABLES:
        if table == "scaling_curves":
            keys, rows = ["run_id", "step_index"], [["r", 0], ["r", 1]]
        else:
            start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
            keys, rows = ["run_id", "step_index", "window_start"], [["r", 0, start], ["r", 1, start]]
        no_hist = [0, *[at_n_0] * 6, 35_600_000, 800_000.0]
        with_hist = [WITH_HIST[0], *WITH_HIST[1], 2_000_000, 1_000_000.0]
        ch.insert(f"ioscale.{table}", [rows[0] + no_hist + [now], rows[1] + with_hist + [now]],
                  column_names=keys + ["latency_n", *QUANTILES, "latency_max_ns", "latency_mean_ns", "emitted_at"])


def _assert_null_where_n_is_0(ch) -> None:
    for table in TABLES:
        types = dict(ch.query("SELECT name, type FROM system.columns WHERE database = 'ioscale' AND table = {t:String}",
                              parameters={"t": table}).result_rows)
        assert [types[c] for c in QUANTILES] == ["Nullable(UInt64)"] * 6, table
    for table in TABLES:
        got = ch.query(f"SELECT step_index, latency_n, {', '.join(QUANTILES)} FROM ioscale.{table} FINAL "
                       "ORDER BY step_index").result_rows
        assert [tuple(r) for r in got] == [(0, 0, *[None] * 6), (1, *WITH_HIST[0:1], *WITH_HIST[1])], table
    fleet = ch.query("SELECT latency_n, p50_ns, p99_999_ns, toTypeName(p50_ns) FROM ioscale.dash_io_fleet_10s "
                     "ORDER BY step_index").result_rows
    assert [tuple(r) for r in fleet] == [(0, None, None, "Nullable(UInt64)"),
                                         (2000, 500_000, 2_000_000, "Nullable(UInt64)")]
    points = ch.query("SELECT step_index, mean_latency_us, p50_latency_us, p99_latency_us, p99_999_latency_us "
                      "FROM ioscale.dash_scaling_points ORDER BY step_index").result_rows
    # the flags were left false: the N = 2000 row shows its p99.999 too (the view hides it only when flagged)
    assert [tuple(r) for r in points] == [(0, 800.0, None, None, None), (1, 1000.0, 500.0, 1900.0, 2000.0)]
    # The SQL function the views and queries share: NULL for an empty histogram, the max below the level's N.
    assert ch.query("SELECT ioscaleQuantileNs(0.5, 0, 0, 100000, 35600000), ioscaleQuantileNs(0.99, 0, 10, 100000, "
                    "35600000), toTypeName(ioscaleQuantileNs(0.5, toUInt64(0), toUInt64(0), toUInt64(1), toUInt64(2)))"
                    ).result_rows == [(None, 35_600_000, "Nullable(UInt64)")]


def test_a_database_with_rows_gets_null_percentiles_where_n_is_0(private_admin, tmp_path) -> None:
    baseline = tmp_path / "baseline"
    baseline.mkdir()
    views = {v.path.stem for v in migrations.discover_views(MIGRATIONS)}
    for name in BASELINE:
        if not migrations.superseded_by_view(name, views):  # the dashboards' views come with MIGRATIONS below
            shutil.copy(MIGRATIONS / name, baseline / name)
    shutil.copytree(MIGRATIONS / migrations.FRAGMENTS_DIR, baseline / migrations.FRAGMENTS_DIR)
    _apply(private_admin, baseline)
    _write_rows(private_admin, 0)
    applied = _apply(private_admin, MIGRATIONS)
    assert {"0140_replace_function_ioscale_quantile_ns.sql", "views/dash_io_fleet_10s.sql",
            "views/dash_scaling_points.sql"} <= set(applied)
    _wait_for_mutations(private_admin)  # the UPDATE of the rows written before runs in the background
    _assert_null_where_n_is_0(private_admin)
    assert _apply(private_admin, MIGRATIONS) == []


def test_a_new_database_has_nullable_percentiles(private_admin) -> None:
    _apply(private_admin, MIGRATIONS)
    _write_rows(private_admin, None)
    _assert_null_where_n_is_0(private_admin)
    # dash_source_balance spells the function out when created; created after 0140, it has the NULL rule too
    assert private_admin.query("SELECT type FROM system.columns WHERE database = 'ioscale' "
                               "AND table = 'dash_source_balance' AND name = 'p99_latency_us'"
                               ).result_rows == [("Nullable(Float64)",)]


def _wait_for_mutations(ch, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while ch.query("SELECT count() FROM system.mutations WHERE database = 'ioscale' AND NOT is_done").result_rows[0][0]:
        assert time.monotonic() < deadline, ch.query("SELECT table, command, latest_fail_reason FROM system.mutations "
                                                     "WHERE NOT is_done").result_rows
        time.sleep(0.2)
