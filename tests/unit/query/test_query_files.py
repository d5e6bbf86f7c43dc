"""Every file of sql/queries: parses, declares what it uses, documents its columns, and keeps the rules the
histogram and the Flink job define (representative expression, N requirements, capacity rule, FINAL)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ioscale import histogram
from ioscale.query import NamedQuery, coerce, list_queries
from ioscale.query.model import _strip_literals

QUERIES = list_queries()
BY_NAME = {q.name: q for q in QUERIES}
IDS = [q.name for q in QUERIES]

#: What the issue asks for; the library may hold more.
REQUIRED = {"scaling_curve", "scaling_curve_raw", "compare_runs", "step_latency_five_nines", "port_utilization",
            "lagging_vms", "saturation_events", "step_latency_outliers", "run_list", "dead_letter_summary"}

#: ReplacingMergeTree tables: every read needs FINAL (at-least-once delivery, re-emitted Flink rows).
REPLACING = {"io_samples", "cpu_samples", "port_samples", "run_events", "io_samples_hist_by_ts", "step_windows",
             "io_samples_1s", "io_samples_10s",
             "io_samples_1m", "io_fleet_1s", "io_fleet_10s", "io_fleet_1m", "cpu_samples_10s", "port_samples_10s",
             "scaling_curves", "usl_fits", "alerts"}


def test_the_library_holds_the_required_queries() -> None:
    assert REQUIRED <= set(BY_NAME)


@pytest.mark.parametrize("q", QUERIES, ids=IDS)
def test_header_documents_title_description_params_and_columns(q: NamedQuery) -> None:
    assert q.title.endswith(".") and len(q.title) <= 110
    assert q.description, "say what the query is for"
    assert q.columns and all(c.doc for c in q.columns), "every column needs a description (with its unit)"
    assert all(p.doc for p in q.params), "every parameter needs a description"
    assert q.notes, "say why the non-obvious choices were made"


@pytest.mark.parametrize("q", QUERIES, ids=IDS)
def test_declared_parameters_are_exactly_the_used_ones(q: NamedQuery) -> None:
    used = {(n, t) for n, t in re.findall(r"\{(\w+):([^{}]+)\}", q.sql)}
    assert used == {(p.name, p.type) for p in q.params}
    for p in q.params:
        if p.default is not None:
            coerce(p, p.default)   # the default is valid for its type and choices


@pytest.mark.parametrize("q", QUERIES, ids=IDS)
def test_documented_columns_appear_as_output_names(q: NamedQuery) -> None:
    # The integration tests compare the real result columns; here: each documented name is in the statement.
    for c in q.columns:
        assert re.search(rf"\b{re.escape(c.name)}\b", q.sql), f"{c.name} is documented but not selected"


@pytest.mark.parametrize("q", QUERIES, ids=IDS)
def test_one_statement_and_no_sampling_quantiles(q: NamedQuery) -> None:
    assert ";" not in _strip_literals(q.sql)   # literals and comments may hold ';' 
    # quantileTDigest and sampling quantile()/median() are not fit for tail latency.
    assert not re.search(r"\bquantile(s)?(TDigest|TDigestWeighted|Timing|TimingWeighted|BFloat16|DD|GK)?\s*\(",
                         q.sql, re.I)
    assert not re.search(r"\bmedian\w*\s*\(", q.sql, re.I)


@pytest.mark.parametrize("q", QUERIES, ids=IDS)
def test_replacing_merge_trees_are_read_with_final(q: NamedQuery) -> None:
    for m in re.finditer(r"\bFROM\s+ioscale\.(\w+)(\s+AS\s+\w+)?(\s+FINAL)?", q.sql):
        if m.group(1) in REPLACING:
            assert m.group(3), f"ioscale.{m.group(1)} read without FINAL"


MIGRATIONS = Path(__file__).resolve().parents[3] / "sql" / "migrations"


def sql_functions() -> dict[str, tuple[list[str], str]]:
    """name -> (parameters, body) of the SQL functions the migrations create (one per file)."""
    out = {}
    for path in sorted(MIGRATIONS.glob("*_create_function_*.sql")):
        m = re.search(r"CREATE FUNCTION IF NOT EXISTS (\w+) AS \(([\w, ]*)\) ->\s*(.*?);?\s*$",
                      re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8")), re.S)
        out[m.group(1)] = ([a.strip() for a in m.group(2).split(",")], " ".join(m.group(3).split()))
    return out


def expand(expr: str, functions: dict[str, tuple[list[str], str]]) -> str:
    """``expr`` with every call of a one-parameter SQL function over a plain column written out, as a view stores it."""
    pattern = re.compile(r"\b(" + "|".join(n for n, (a, _) in functions.items() if len(a) == 1) + r")\((\w+)\)")
    while (m := pattern.search(expr)):
        (param,), body = functions[m.group(1)]
        expr = expr[:m.start()] + re.sub(rf"\b{param}\b", m.group(2), body) + expr[m.end():]
    return expr


def test_the_bucket_representative_is_the_histogram_modules_expression() -> None:
    # One home: ioscaleBucketValueNs (sql/migrations/0030-0033) written out is histogram.sql_representative_expr,
    # the expression checked against the Python scheme on the real server; no query spells it out again.
    functions = sql_functions()
    assert f"({expand('ioscaleBucketValueNs(i)', functions)})" == histogram.sql_representative_expr("i")
    for q in QUERIES:
        assert "bitShiftLeft(toUInt64(modulo(" not in q.sql and "intDiv(bitShiftLeft(" not in q.sql, q.name


#: Queries whose histograms come from the per-step sums (migrations 0040-0043) minus the samples outside the window
#: (lagging_vms and step_latency_outliers at grain source read step_windows instead, see the tests at the end).
SUMMED = ("step_latency_five_nines", "scaling_curve_raw", "step_latency_histogram")
#: The raw samples' buckets, merged sample by sample: what the sums spare a query (scheme 1 only).
RAW_BUCKETS = "mapFromArrays(latency_bucket_index, latency_bucket_count)"
# lagging_vms, step_latency_outliers: (bucket, sign, count) packed in a UInt64, bucket << 47 | plus << 46 | count,
# each raw sample packed on its own (arrays of unequal lengths raise an error, as mapFromArrays does).
PACKED_RAW_BUCKETS = ("arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), 70368744177664 + c),\n"
                      "                                        latency_bucket_index, latency_bucket_count)")
PACKED_SIGNED_COUNT = "toInt64(bitAnd(p, 70368744177663)) * if(bitTest(p, 46), 1, -1)"
# lagging_vms: a subtraction packed as 2^46 - count, so the low 47 bits minus 2^46 are the signed count.
PACKED_SIGNED_COUNT_OFFSET = "toInt64(bitAnd(p, 140737488355327)) - 70368744177664"
#: The duplicate rule on rows read with FINAL, or on a source's rows summed as FINAL would (lagging_vms,
#: step_latency_outliers: FINAL on io_samples_hist_sums costs with the table's parts, not the run).
DUPLICATE_RULES = ("samples != bitmapCardinality(sample_ts)", "sum(samples) != groupBitmapMerge(sample_ts)")


def test_percentile_queries_merge_buckets_and_apply_the_sample_rule() -> None:
    # The bucket representative and the too-few-samples rule are the SQL functions of sql/migrations/0030-0035
    # (checked against schema/histogram_vectors.tsv by tests/integration/clickhouse/test_histogram_functions.py);
    # no query spells them out again.
    for name in ("step_latency_five_nines", "scaling_curve_raw"):
        sql = BY_NAME[name].sql
        assert "quantilesExactWeighted" in sql
        assert "arrayMap(i -> ioscaleBucketValueNs(i), mapKeys(hist))" in sql
        assert "ioscaleQuantileNs(" in sql, "clamp to the exact [min, max], the max below the required N"
    # lagging_vms and step_latency_outliers (grain source) apply quantileExactWeighted's rank rule to sorted
    # buckets themselves: the first bucket whose running count reaches ceil(0.99 x N).
    for name in ("lagging_vms", "step_latency_outliers"):
        sql = BY_NAME[name].sql
        assert "arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(" in sql
        assert "ioscaleQuantileNs(0.99, ioscaleBucketValueNs(p99_index), latency_n," in sql
    five = BY_NAME["step_latency_five_nines"].sql
    assert "[0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999] AS levels" in five
    assert "'quantilesExactWeighted(0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)'" in five
    assert "arrayMap(q -> ioscaleRequiredN(q), levels) AS required" in five
    assert "toBool(l.latency_n < ioscaleRequiredN(0.99999))" in BY_NAME["scaling_curve_raw"].sql
    for query in BY_NAME.values():
        assert "intDiv(bitShiftLeft(" not in query.sql and "< 1000," not in query.sql, query.name


@pytest.mark.parametrize("name", SUMMED)
def test_summed_histograms_keep_the_raw_path_for_duplicates_and_live_steps(name: str) -> None:
    # A sum counts a redelivered sample twice: every query reading io_samples_hist_sums checks the duplicate
    # rule (samples > distinct timestamps) and merges those samples, and unended steps, from io_samples FINAL.
    sql = BY_NAME[name].sql
    assert "ioscale.io_samples_hist_sums" in sql
    assert any(rule in sql for rule in DUPLICATE_RULES)
    assert re.search(r"FROM ioscale\.io_samples( AS s)? FINAL", sql)
    assert (RAW_BUCKETS in sql or PACKED_RAW_BUCKETS in sql) and "latency_hist_scheme = 1" in sql
    assert "mapSubtract(" in sql or "-toInt64(c)" in sql or PACKED_SIGNED_COUNT in sql \
        or PACKED_SIGNED_COUNT_OFFSET in sql, \
        "the samples outside the window are subtracted"
    assert "ioscale.io_samples_hist_by_ts FINAL" in sql
    # Outside the window means outside STEP_ENDED's start..end, the same bounds the counters use.
    assert "measured_end" in sql


@pytest.mark.parametrize("name", ["lagging_vms", "step_latency_outliers"])
def test_summed_histograms_read_without_final(name: str) -> None:
    # FINAL on io_samples_hist_sums merges every range its key shares with another part, Maps included: its
    # cost follows the table's parts, not the rows read (bench/RESULTS.md). These queries sum a key's rows
    # themselves, as FINAL would: samples summed (what a step_windows row must stand for), bitmaps merged.
    sql = BY_NAME[name].sql
    assert "io_samples_hist_sums FINAL" not in sql
    assert "sum(samples) AS samples" in sql


def test_port_capacity_rule_matches_the_flink_job() -> None:
    # LinkCapacityRule.java: FC class x 100 MB/s, Ethernet 1460/1538, SAS 8b/10b, other /8.
    sql = BY_NAME["port_utilization"].sql
    assert "rule_kind = 'fc_hba', pow(2, least(7, greatest(0, ceil(log2(speed_bps / 1e9) - 0.5)))) * 100e6" in sql
    assert "rule_kind IN ('nic', 'nic_vmq'), speed_bps / 8 * 1460 / 1538" in sql
    assert "rule_kind = 'sas', speed_bps / 10" in sql
    assert "from_run AND links.link_payload_bytes_per_s > 0, toFloat64(links.link_payload_bytes_per_s)" in sql


@pytest.mark.parametrize("speed_bps, gfc", [(1_062_500_000, 1), (2_125_000_000, 2), (4_250_000_000, 4),
                                            (8_500_000_000, 8), (14_025_000_000, 16), (28_050_000_000, 32),
                                            (57_800_000_000, 64), (112_200_000_000, 128)])
def test_fc_class_rounding_in_log2_is_the_nearest_class(speed_bps: int, gfc: int) -> None:
    # The SQL takes ceil(log2(Gbps) - 0.5): the nearest power of two on a log scale, the smaller one on a tie,
    # as LinkCapacityRule.fcClassGbps does; checked here in Python for the line rates FC actually uses.
    import math

    assert 2 ** min(7, max(0, math.ceil(math.log2(speed_bps / 1e9) - 0.5))) == gfc


# step_windows (migration 0135): a refreshable view (sql/materialized/step_windows_refresh.sql) computes each ended step's VMs and sources once;
# lagging_vms (grain vm) and step_latency_outliers (grain source) use a row only while it stands for the samples
# and the step's window, and merge everything else from io_samples FINAL as the view does.
REFRESH_VIEW = (MIGRATIONS.parent / "materialized" / "step_windows_refresh.sql").read_text(encoding="utf-8")
#: The rank rule on packed (bucket << 47 | count) arrays, sorted.
RANK = "arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(counts))"


def _flat(sql: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"--[^\n]*", "", sql))


def test_lagging_vms_uses_a_window_row_only_while_it_holds() -> None:
    sql = _flat(BY_NAME["lagging_vms"].sql)
    assert "FROM ioscale.step_windows FINAL" in sql and "AND grain = 'vm'" in sql
    # Samples added since (redeliveries included), another STEP_ENDED window, or malformed buckets: not used.
    assert ("WHERE w.source_samples = c.samples AND w.malformed_samples = 0 AND has(ended_steps, step_index) "
            "AND w.window_start = window_starts[indexOf(ended_steps, step_index)] "
            "AND w.window_end = window_ends[indexOf(ended_steps, step_index)]") in sql
    assert "SELECT step_index, host, vm, sum(samples) AS samples FROM ioscale.io_samples_hist_sums" in sql
    # Every other VM is merged from io_samples FINAL, found by primary key.
    assert "FROM ioscale.io_samples FINAL WHERE run_id = {run_id:String} AND (step_index, host, vm) IN (" in sql
    assert "AND NOT has(summarized, cityHash64(step_index, host, vm)))" in sql
    assert RANK in sql


def test_outliers_use_a_source_row_only_while_it_holds() -> None:
    sql = _flat(BY_NAME["step_latency_outliers"].sql)
    assert "FROM ioscale.step_windows FINAL" in sql and "AND grain = 'source'" in sql
    assert ("WHERE w.source_samples = c.samples AND w.malformed_samples = 0 "
            "AND w.window_start = measured_start AND w.window_end = measured_end") in sql
    assert "AND grain = 'source_step' AND {grain:String} = 'source' AND NOT has(summarized, " in sql
    assert RANK in sql


def test_the_view_merges_as_the_queries_do() -> None:
    view = _flat(REFRESH_VIEW)
    assert "REFRESH EVERY 15 SECOND APPEND TO ioscale.step_windows AS" in view
    assert "HAVING last_in < now64(3) - INTERVAL 20 SECOND" in view, "only steps whose samples stopped arriving"
    assert "ORDER BY last_in DESC LIMIT 20" in view, "a backlog is worked off over several refreshes"
    assert "FROM ioscale.io_samples FINAL WHERE (run_id, step_index) IN (" in view
    assert ("GROUP BY GROUPING SETS ((run_id, step_index, host, vm), "
            "(run_id, step_index, host, vm, target, direction))") in view
    # Malformed buckets are counted, never passed to arrayMap (an error would stop every refresh).
    assert "if(well_formed, latency_bucket_index, []), if(well_formed, latency_bucket_count, [])" in view
    assert "countIf(NOT well_formed) AS malformed," in view
    # The same rank rule, representative and small-N rule as the queries.
    p99 = "ioscaleQuantileNs(0.99, ioscaleBucketValueNs(p99_index), latency_n, "
    assert RANK in view and p99 + "window_min_ns, window_max_ns) AS p99_ns" in view
    assert p99 + "window_min_ns, window_max_ns) AS p99_ns" in _flat(BY_NAME["lagging_vms"].sql)
    assert p99 + "min_ns, max_ns) AS p99_ns" in _flat(BY_NAME["step_latency_outliers"].sql)
    # It runs beside live steps: one thread, lowest CPU priority.
    assert view.rstrip().endswith("SETTINGS join_use_nulls = 1, max_threads = 1, os_threads_nice_value_query = 19")
    # What a row stands for comes from the same read that found the step settled (the scalar todo).
    assert ("transform(cityHash64(run_id, step_index, host, vm, target, direction), row_keys, row_samples, "
            "toUInt64(0)) AS source_samples") in view
