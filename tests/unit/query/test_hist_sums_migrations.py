"""Migrations 0040-0045 (the SQL library's histogram sums, issue 4): the views and their one-off backfills must
compute the same rows, the views must not raise on odd samples (an error stalls the Kafka consumer), and the
sums must expire like the raw rows they sum. The results themselves are compared with the raw merge on the
real server in tests/integration/sqllib/test_summed_histograms.py."""

from __future__ import annotations

import re

import pytest

from ioscale.stack import migrations as mig
from ioscale.stack.settings import StackSettings, repo_root

SETTINGS = StackSettings.from_env({"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": "/nonexistent"})
FILES = {m.name: m.path.read_text(encoding="utf-8") for m in mig.discover(mig.migrations_dir(SETTINGS))}


def statement(name: str) -> str:
    """The migration's statement without its comments, whitespace collapsed."""
    text = re.sub(r"--[^\n]*", "", FILES[name])
    return re.sub(r"\s+", " ", text).strip().rstrip(";")


@pytest.mark.parametrize("view, backfill", [
    ("0042_create_view_io_samples_hist_sums_mv.sql", "0044_backfill_io_samples_hist_sums.sql"),
    ("0043_create_view_io_samples_hist_by_ts_mv.sql", "0045_backfill_io_samples_hist_by_ts.sql"),
])
def test_backfill_computes_what_the_view_computes(view: str, backfill: str) -> None:
    view_select = re.fullmatch(r"CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale\.\w+ TO (ioscale\.\w+) AS (.*)",
                               statement(view))
    back = re.fullmatch(r"INSERT INTO (ioscale\.\w+) (.*)", statement(backfill))
    assert view_select and back and view_select.group(1) == back.group(1), "the backfill fills the view's table"
    view_select, back_select = view_select.group(2), back.group(2)
    if view.startswith("0042"):
        # The sums must count each sample once: the backfill reads io_samples with FINAL (unmerged
        # redeliveries), the view sees each inserted block as it comes.
        assert back_select.replace("FROM ioscale.io_samples FINAL", "FROM ioscale.io_samples") == view_select
    else:
        # The copy keeps every row with its version; ReplacingMergeTree collapses them as in io_samples.
        assert back_select == view_select


@pytest.mark.parametrize("name", ["0042_create_view_io_samples_hist_sums_mv.sql",
                                  "0043_create_view_io_samples_hist_by_ts_mv.sql"])
def test_views_never_build_a_map_from_arrays_of_unequal_length(name: str) -> None:
    # mapFromArrays raises on unequal lengths; inside a view that error would stop the Kafka consumer.
    sql = statement(name)
    calls = re.findall(r"mapFromArrays\((.*?)\) AS", sql)
    assert calls, "the view builds the bucket Map"
    for args in calls:
        assert re.fullmatch(r"if\(use_buckets, latency_bucket_index, \[\]\), ?if\(use_buckets, latency_bucket_count, \[\]\)",
                            args.strip()), args
    assert re.search(r"length\(latency_bucket_index\) = length\(latency_bucket_count\)", sql)


def test_every_grain_is_summed_and_duplicates_stay_detectable() -> None:
    table = statement("0040_create_table_io_samples_hist_sums.sql")
    view = statement("0042_create_view_io_samples_hist_sums_mv.sql")
    grains = re.findall(r"'(\w+)' = \d", table[table.index("Enum8("):])
    assert grains == ["source_step", "vm_step", "fleet_step", "step_ts"]
    assert "arrayJoin(['source_step', 'vm_step', 'fleet_step', 'step_ts']) AS grain" in view
    # samples counts every row added; sample_ts the distinct sample times of well-formed rows: a redelivery
    # (or an unusable sample) makes them differ.
    assert "count() AS samples" in view
    assert "groupBitmapStateIf(ts_ms_mod32, grain = 'source_step' AND well_formed) AS sample_ts" in view
    # step_ts rows carry no buckets (summing per sample time costs more than it saves).
    assert "grain != 'step_ts'" in view


@pytest.mark.parametrize("name", ["0040_create_table_io_samples_hist_sums.sql",
                                  "0041_create_table_io_samples_hist_by_ts.sql"])
def test_sums_expire_with_the_raw_rows(name: str) -> None:
    # io_samples expires rows 400 days after they arrived (0028); these follow the same clock.
    assert "TTL toDateTime(ingested_at) + INTERVAL 400 DAY" in statement(name)
    assert "ALTER TABLE ioscale.io_samples MODIFY TTL toDateTime(ingested_at) + INTERVAL 400 DAY" in \
        statement("0028_alter_io_samples_ttl_on_ingest_time.sql")


def test_time_ordered_copy_keeps_the_raw_identity_and_version() -> None:
    raw = statement("0010_create_table_io_samples.sql")
    copy = statement("0041_create_table_io_samples_hist_by_ts.sql")
    raw_key = set(re.search(r"ORDER BY \((.*?)\)", raw).group(1).split(", "))
    copy_key = set(re.search(r"ORDER BY \((.*?)\)", copy).group(1).split(", "))
    assert raw_key == copy_key, "same sample identity, so FINAL collapses the same rows"
    assert "ReplacingMergeTree(ingested_at)" in raw and "ReplacingMergeTree(ingested_at)" in copy
    assert "PARTITION BY toYYYYMM(ts)" in raw and "PARTITION BY toYYYYMM(ts)" in copy


# Migrations 0130-0133 (issue 4, session 6): the counters and latency extremes at every grain of
# io_samples_hist_sums. The values are compared with io_samples on the real server in
# tests/integration/sqllib/test_summed_histograms.py (view and backfill).

SENTINEL = "18446744073709551615"   # latency_min_ns when no sample counted I/Os


def _select(name: str) -> str:
    """The SELECT of a view (after AS / MODIFY QUERY) or of a backfill (after INSERT INTO ... [(columns)])."""
    sql = statement(name)
    return sql[sql.index(" SELECT ") + 1:] if not sql.startswith("SELECT") else sql


def test_counters_view_is_0049_plus_the_counters() -> None:
    old, new = _select("0049_alter_io_samples_hist_sums_mv_grouping_sets.sql"), \
        _select("0131_alter_io_samples_hist_sums_mv_counters.sql")
    # Every part of 0049's view is still there, in one view over the same GROUPING SETS: a block reaches
    # every grain and every column or none.
    for part in re.split(r",\s*", old):
        assert part.strip() in new, part
    for column in ("counted_samples", "ops", "bytes", "latency_count", "latency_sum_ns", "interval_ms_total",
                   "outstanding_io_ms", "latency_min_ns", "latency_max_ns"):
        assert re.search(rf"\bAS {column},", new), column
    assert "samples AS counted_samples" in new
    assert f"min(if(latency_count > 0, latency_min_ns, {SENTINEL}))" in new
    # Inner aliases must not shadow io_samples' columns (sum(ops) AS ops would break sum(outstanding_ios * ...)).
    inner = new[new.index("FROM ( "):]
    for column in ("ops", "bytes", "latency_count", "latency_sum_ns", "interval_ms", "latency_min_ns",
                   "latency_max_ns"):
        assert not re.search(rf"\) AS {column},", inner), column


def test_counters_backfill_computes_what_the_view_computes() -> None:
    view = _select("0131_alter_io_samples_hist_sums_mv_counters.sql")
    back = statement("0132_backfill_io_samples_hist_sums_counters.sql")
    assert back.startswith("INSERT INTO ioscale.io_samples_hist_sums SELECT ")
    back = _select("0132_backfill_io_samples_hist_sums_counters.sql")
    # Each sample once (FINAL); the rows add to the counters only: samples, sample_ts and hist stay as 0044
    # summed them, and counted_samples says how many samples the counters cover.
    assert "FROM ioscale.io_samples FINAL" in back
    assert "toUInt64(0) AS samples" in back and "map() AS hist" in back
    assert "arrayReduce('groupBitmapState', emptyArrayUInt32()) AS sample_ts" in back
    assert "sample_count AS counted_samples" in back and "count() AS sample_count" in back
    for expr in re.findall(r"(?:sum|min|max)\((?:[^()]|\([^()]*\))*\) AS (?:sum|min|max)_\w+", view):
        assert expr in back, expr
    for grouping in re.findall(r"\(run_id, step_index[^)]*\)", view):
        assert grouping in back, grouping


def test_a_grain_without_samples_that_counted_io_keeps_the_min_sentinel() -> None:
    # Backfill rows (and rows from before 0131) must not lower a min: the column defaults to the sentinel the
    # view uses for "no sample counted I/Os", which the queries read as minIf's 0.
    assert f"latency_min_ns SimpleAggregateFunction(min, UInt64) DEFAULT {SENTINEL}" in \
        statement("0130_alter_io_samples_hist_sums_add_counters.sql")
