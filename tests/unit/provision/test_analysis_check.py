"""ioscale analyze's check: result tables against the raw samples, per table and step (exact counts)."""

from __future__ import annotations

import re

import pytest

from ioscale.errors import ExitStatus, IoscaleError
from ioscale.provision import analysis_check as ac
from ioscale.provision.analysis_check import Counts, Mismatch
from ioscale.query import load

ROLLUPS = ac.RESULT_TABLES[:-1]


def _all_equal(steps: dict[int, Counts], curves: dict[int, Counts]) -> dict[tuple[str, int], Counts]:
    """Both sides when nothing is lost: every rollup holds each step's raw counts."""
    out = {(t, s): c for t in ROLLUPS for s, c in steps.items()}
    out.update({("scaling_curves", s): c for s, c in curves.items()})
    return out


RAW = {0: Counts(4_000, 1_000_000), 1: Counts(4_000, 1_900_000), -1: Counts(20, 140)}
CURVES = {0: Counts(4_000, 650_000), 1: Counts(4_020, 1_200_000)}


def test_equal_counts_give_no_mismatch():
    expected = _all_equal(RAW, CURVES)
    assert ac.compare(expected, dict(expected)) == []


def test_samples_lost_from_one_rollup_step_are_one_mismatch_per_measure():
    # The reported failure: the first 16 s of one VM (2 directions) missing from io_fleet_1s in step 1.
    expected = _all_equal(RAW, CURVES)
    got = dict(expected)
    got[("io_fleet_1s", 1)] = Counts(4_000 - 32, 1_900_000 - 15_104)
    assert ac.compare(expected, got) == [
        Mismatch("io_fleet_1s", 1, "samples", 4_000, 3_968),
        Mismatch("io_fleet_1s", 1, "ops", 1_900_000, 1_884_896),
    ]
    assert [m.difference for m in ac.compare(expected, got)] == [-32, -15_104]


def test_an_ops_only_difference_reports_ops_only():
    expected = _all_equal(RAW, CURVES)
    got = {**expected, ("scaling_curves", 0): Counts(4_000, 650_001)}
    assert ac.compare(expected, got) == [Mismatch("scaling_curves", 0, "ops", 650_000, 650_001)]


def test_a_missing_row_compares_against_zero_and_says_so():
    expected = _all_equal(RAW, CURVES)
    got = {k: v for k, v in expected.items() if k != ("scaling_curves", 1)}
    [samples, ops] = ac.compare(expected, got)
    assert samples == Mismatch("scaling_curves", 1, "samples", 4_020, None) and samples.difference == -4_020
    assert ops == Mismatch("scaling_curves", 1, "ops", 1_200_000, None) and ops.difference == -1_200_000


def test_a_row_without_raw_samples_is_reported_and_an_empty_one_is_not():
    expected = _all_equal(RAW, CURVES)
    got = {**expected, ("io_samples_10s", 7): Counts(3, 30), ("io_samples_1m", 8): Counts(0, 0)}
    assert ac.compare(expected, got) == [Mismatch("io_samples_10s", 7, "samples", None, 3),
                                         Mismatch("io_samples_10s", 7, "ops", None, 30)]


def test_doubled_samples_are_a_positive_difference():
    expected = _all_equal(RAW, CURVES)
    got = {**expected, ("io_samples_1s", 0): Counts(4_001, 1_000_250)}
    assert [(m.measure, m.difference) for m in ac.compare(expected, got)] == [("samples", 1), ("ops", 250)]


def test_mismatches_come_in_table_then_step_order():
    expected = _all_equal(RAW, CURVES)
    got = {**expected, ("scaling_curves", 0): Counts(1, 650_000), ("io_fleet_10s", 1): Counts(1, 1_900_000),
           ("io_fleet_10s", -1): Counts(1, 140), ("io_samples_1s", 1): Counts(1, 1_900_000)}
    assert [(m.table, m.step_index) for m in ac.compare(expected, got)] == [
        ("io_samples_1s", 1), ("io_fleet_10s", -1), ("io_fleet_10s", 1), ("scaling_curves", 0)]


def test_query_rows_split_into_the_two_sides_with_nulls_as_absent():
    rows = [("io_fleet_1s", 0, 4_000, 1_000_000, 4_000, 1_000_000),
            ("io_fleet_1s", 1, 4_000, 1_900_000, None, None),
            ("io_fleet_10s", 9, None, None, 3, 30)]
    expected, got = ac.split_rows(rows)
    assert expected == {("io_fleet_1s", 0): Counts(4_000, 1_000_000), ("io_fleet_1s", 1): Counts(4_000, 1_900_000)}
    assert got == {("io_fleet_1s", 0): Counts(4_000, 1_000_000), ("io_fleet_10s", 9): Counts(3, 30)}


def test_the_summary_counts_the_raw_samples_once_and_every_step():
    expected = _all_equal(RAW, CURVES)
    result = ac.summarize("r", expected, dict(expected))
    assert (result.tables, result.steps, result.samples, result.ops, result.ok) == (7, 3, 8_020, 2_900_140, True)
    assert ac.passed_line(result) == \
        "checked 7 tables x 3 steps: 8,020 samples, 2,900,140 ops, equal to the raw tables"


def test_the_failure_names_table_step_and_difference_and_has_its_own_exit_status():
    expected = _all_equal(RAW, CURVES)
    got = {k: v for k, v in expected.items() if k != ("scaling_curves", 1)}
    got[("io_fleet_1s", 1)] = Counts(3_968, 1_884_896)
    e = ac.failure(ac.summarize("run-7", expected, got))
    assert isinstance(e, ac.ResultCheckError) and e.exit_status == ExitStatus.RESULTS_DIFFER == 6
    first, *table = str(e).splitlines()
    assert first == ("the analysis of run-7 does not account for every raw I/O sample: 2 (table, step) pairs in "
                     "io_fleet_1s, scaling_curves differ from the raw tables (8,020 samples, 2,900,140 ops)")
    assert table == [
        "table           step  what      expected        got  difference",
        "io_fleet_1s        1  samples      4,000      3,968         -32",
        "io_fleet_1s        1  ops      1,900,000  1,884,896     -15,104",
        "scaling_curves     1  samples      4,020     no row      -4,020",
        "scaling_curves     1  ops      1,200,000     no row  -1,200,000",
    ]
    assert "ioscale analyze run-7" in e.hint and "--check-only" in e.hint and "too-late" in e.hint


class FakeClickHouse:
    def __init__(self, rows):
        self.rows = rows
        self.calls = []

    def query(self, sql, parameters=None, settings=None):
        self.calls.append((sql, parameters, settings))
        return type("R", (), {"result_rows": self.rows, "column_names": (), "summary": {}})()


def test_check_runs_the_named_query_for_the_run():
    ch = FakeClickHouse([("io_fleet_1s", 0, 10, 100, 10, 100)])
    result = ac.check(ch, "run-7")
    [(sql, params, settings)] = ch.calls
    assert sql == load(ac.QUERY).sql and params == {"run_id": "run-7"}
    assert settings == {"log_comment": "ioscale sql analysis_counts"}
    assert result.ok and result.steps == 1


def test_check_of_a_run_clickhouse_does_not_hold_says_how_to_find_one():
    with pytest.raises(IoscaleError, match="no I/O or port samples of run 'nope'") as e:
        ac.check(FakeClickHouse([]), "nope")
    assert "run_list" in e.value.hint


def test_a_network_run_is_counted_by_its_step_rows_port_samples():
    """A run without I/O samples (iperf3) has no rollup rows: the whole-port samples its step rows count are the
    raw total the passed line reports."""
    ch = FakeClickHouse([("scaling_curves", 0, 15, 0, 15, 0), ("scaling_curves", 1, 15, 40, 15, 40)])
    result = ac.check(ch, "net")
    assert result.ok and (result.steps, result.samples, result.ops) == (2, 30, 40)
    assert "30 samples, 40 ops" in ac.passed_line(result)


def test_the_query_returns_what_split_rows_reads_for_every_table():
    q = load(ac.QUERY)
    assert [c.name for c in q.columns] == ["result_table", "step_index", "expected_samples", "expected_ops",
                                           "got_samples", "got_ops"]
    assert [p.name for p in q.params] == ["run_id"]
    for table in ac.RESULT_TABLES:
        assert f"FROM ioscale.{table} FINAL" in q.sql or table == "scaling_curves"
    assert "FROM ioscale.scaling_curves FINAL" in q.sql and "FROM ioscale.io_samples FINAL" in q.sql
    # The report order is the module's.
    order = re.search(r"ORDER BY indexOf\(\[([^\]]*)\]", q.sql).group(1)
    assert tuple(re.findall(r"'(\w+)'", order)) == ac.RESULT_TABLES


def test_the_result_tables_are_those_the_query_compares() -> None:
    # RESULT_TABLES orders the report and counts the tables checked; the query reads each rollup once more by name.
    rollups = re.findall(r"FROM ioscale\.(io_\w+) FINAL WHERE run_id", load(ac.QUERY).sql)
    assert (*dict.fromkeys(rollups), "scaling_curves") == ac.RESULT_TABLES
