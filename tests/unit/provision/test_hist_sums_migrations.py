"""The SQL library's histogram sums (migrations 0040-0041, sql/materialized/io_samples_hist_*): the views must not
raise on odd samples (an error stalls the Kafka consumer), must keep duplicates detectable, and the sums must
expire like the raw rows they sum. The results themselves are compared with the raw merge on the real server in
tests/integration/sqllib/test_summed_histograms.py."""

from __future__ import annotations

import re

import pytest

from ioscale.provision import migrations as mig
from ioscale.stack.settings import StackSettings, repo_root

SETTINGS = StackSettings.from_env({"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": "/nonexistent"})
FILES = {m.name: m.path.read_text(encoding="utf-8")
         for m in [*mig.discover(mig.migrations_dir(SETTINGS)), *mig.discover_views(mig.migrations_dir(SETTINGS))]}
SUMS_VIEW = "materialized/io_samples_hist_sums_mv.sql"
BY_TS_VIEW = "materialized/io_samples_hist_by_ts_mv.sql"


def statement(name: str) -> str:
    """The migration's statement without its comments, whitespace collapsed."""
    text = re.sub(r"--[^\n]*", "", FILES[name])
    return re.sub(r"\s+", " ", text).strip().rstrip(";")


#: The conditions the views build a sample's bucket Map under, each with the definition that checks the lengths.
EQUAL_LENGTHS = {
    "use_buckets": "latency_hist_scheme = 1 AND length(latency_bucket_index) = length(latency_bucket_count) AS use_buckets",
    "latency_hist_scheme = 1 AND well_formed": "length(latency_bucket_index) = length(latency_bucket_count) AS well_formed",
}


def test_the_time_ordered_copy_never_builds_a_map_from_arrays_of_unequal_length() -> None:
    # mapFromArrays raises on unequal lengths; inside a view that error would stop the Kafka consumer.
    sql = statement(BY_TS_VIEW)
    calls = re.findall(r"mapFromArrays\(if\((.*?), latency_bucket_index, \[\]\), ?if\((.*?), latency_bucket_count, \[\]\)\)", sql)
    assert calls, "the view builds the bucket Map"
    for index_guard, count_guard in calls:
        assert index_guard == count_guard and EQUAL_LENGTHS[index_guard] in sql, index_guard


def test_the_packed_buckets_never_come_from_arrays_of_unequal_length_or_overflow() -> None:
    # arrayMap over two arrays raises on unequal lengths, which inside the view would stop the Kafka consumer; a
    # count of 2^47 or more would spill into the bucket bits of the packing.
    sql = statement(SUMS_VIEW)
    calls = re.findall(r"arrayMap\(\(b, c\) -> bitOr\(bitShiftLeft\(toUInt64\(b\), 47\), c\), "
                       r"if\((.*?), latency_bucket_index, \[\]\), if\((.*?), latency_bucket_count, \[\]\)\)", sql)
    assert calls == [("latency_hist_scheme = 1 AND well_formed", "latency_hist_scheme = 1 AND well_formed")]
    assert ("WITH length(latency_bucket_index) = length(latency_bucket_count) AND "
            "arrayAll(c -> c < 140737488355328, latency_bucket_count) AS well_formed") in sql
    # Unpacked with the same shift and mask, and summed at fleet_step only.
    assert ("if(grain = 'fleet_step', CAST(arrayReduce('sumMap', [arrayMap(p -> toUInt16(bitShiftRight(p, 47)), "
            "all_packed)], [arrayMap(p -> bitAnd(p, 140737488355327), all_packed)]), 'Map(UInt16, UInt64)'), map()) "
            "AS hist") in sql
    assert 140737488355327 == 2 ** 47 - 1


def test_the_view_changes_in_place() -> None:
    # A materialized view's file is applied with MODIFY QUERY: dropping and creating it again would lose what
    # io_samples receives meanwhile.
    view = next(v for v in mig.discover_views(mig.migrations_dir(SETTINGS)) if v.name == SUMS_VIEW)
    assert mig.view_statements(view, view.text)[-1].startswith(
        "ALTER TABLE ioscale.io_samples_hist_sums_mv MODIFY QUERY\nSELECT")


def test_every_grain_is_summed_and_duplicates_stay_detectable() -> None:
    table = statement("0040_create_table_io_samples_hist_sums.sql")
    view = statement(SUMS_VIEW)
    grains = re.findall(r"'(\w+)' = \d", table[table.index("Enum8("):])
    assert grains == ["source_step", "vm_step", "fleet_step", "step_ts"]
    # One GROUPING SETS query: a block reaches every grain or none. grouping() bits (standard SQL, pinned by the
    # view's settings) name the grain: 1 for each key the grain does not group by.
    assert ("multiIf(g = 0b00001, 'source_step', g = 0b10011, 'vm_step', g = 0b01111, 'fleet_step', 'step_ts') "
            "AS grain") in view
    assert "grouping(direction, host, vm, target, ts) AS g" in view
    assert "SETTINGS force_grouping_standard_compatibility = 1, group_by_use_nulls = 0" in view
    for keys in ("(run_id, step_index, direction, host, vm, target)", "(run_id, step_index, host, vm)",
                 "(run_id, step_index, direction)", "(run_id, step_index, ts)"):
        assert keys in view[view.index("GROUPING SETS"):], keys
    # samples counts every row added; sample_ts the distinct sample times of well-formed rows, at source_step: a
    # redelivery (or an unusable sample) makes them differ.
    assert "count() AS samples" in view
    assert "groupBitmapStateIf(toUInt32(bitAnd(toUnixTimestamp64Milli(ts), 4294967295)), well_formed) AS all_sample_ts" in view
    assert "if(grain = 'source_step', all_sample_ts, arrayReduce('groupBitmapState', emptyArrayUInt32())) AS sample_ts" in view


@pytest.mark.parametrize("name", ["0040_create_table_io_samples_hist_sums.sql",
                                  "0041_create_table_io_samples_hist_by_ts.sql"])
def test_sums_expire_with_the_raw_rows(name: str) -> None:
    # io_samples expires rows 400 days after they arrived; these follow the same clock.
    assert "TTL toDateTime(ingested_at) + INTERVAL 400 DAY" in statement(name)
    assert "TTL toDateTime(ingested_at) + INTERVAL 400 DAY" in statement("0010_create_table_io_samples.sql")


def test_time_ordered_copy_keeps_the_raw_identity_and_version() -> None:
    raw = statement("0010_create_table_io_samples.sql")
    copy = statement("0041_create_table_io_samples_hist_by_ts.sql")
    raw_key = set(re.search(r"ORDER BY \((.*?)\)", raw).group(1).split(", "))
    copy_key = set(re.search(r"ORDER BY \((.*?)\)", copy).group(1).split(", "))
    assert raw_key == copy_key, "same sample identity, so FINAL collapses the same rows"
    assert "ReplacingMergeTree(ingested_at)" in raw and "ReplacingMergeTree(ingested_at)" in copy
    assert "PARTITION BY toYYYYMM(ts)" in raw and "PARTITION BY toYYYYMM(ts)" in copy


# The counters and latency extremes at every grain of io_samples_hist_sums. The values are compared with
# io_samples on the real server in tests/integration/sqllib/test_summed_histograms.py.

SENTINEL = "18446744073709551615"   # latency_min_ns when no sample counted I/Os


def test_the_view_sums_the_counters_at_every_grain() -> None:
    view = statement(SUMS_VIEW)
    for column in ("counted_samples", "ops", "bytes", "latency_count", "latency_sum_ns", "interval_ms_total",
                   "outstanding_io_ms", "latency_min_ns", "latency_max_ns"):
        assert re.search(rf"\bAS {column},", view), column
    assert "samples AS counted_samples" in view
    assert f"min(if(latency_count > 0, latency_min_ns, {SENTINEL}))" in view
    # Inner aliases must not shadow io_samples' columns (sum(ops) AS ops would break sum(outstanding_ios * ...)).
    inner = view[view.index("FROM ( "):]
    for column in ("ops", "bytes", "latency_count", "latency_sum_ns", "interval_ms", "latency_min_ns",
                   "latency_max_ns"):
        assert not re.search(rf"\) AS {column},", inner), column


def test_a_grain_without_samples_that_counted_io_keeps_the_min_sentinel() -> None:
    # Rows written without the counters must not lower a min: the column defaults to the sentinel the view
    # uses for "no sample counted I/Os", which the queries read as minIf's 0.
    assert f"latency_min_ns SimpleAggregateFunction(min, UInt64) DEFAULT {SENTINEL}" in \
        statement("0040_create_table_io_samples_hist_sums.sql")
