"""step_windows (migration 0135): each ended step's VMs and sources computed once by a refreshable view
(sql/materialized/step_windows_refresh.sql), which lagging_vms (grain vm) and step_latency_outliers (grain source) read while a row still stands for the
samples and the step's window, and otherwise merge from io_samples FINAL. The answers must be the reference
formulations' (reference_queries/, merging the raw samples) whichever path a VM or source takes, and a row must
never be used once it no longer holds: a sample arrived since, another STEP_ENDED window, malformed buckets.

The run: a copy of known_run (conftest: a sample sent twice, 10 VMs, two ended steps) under its own run_id,
its samples stamped as ingested a minute ago, so the view finds its steps settled (no sample for 20 s) at
once; each test forces a refresh instead of waiting for the next one (every 15 s). The tests run in order
and each changes the copy.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ioscale.query import bind, execute, load, parse
from ioscale.stack.clickhouse import client

REFERENCE = Path(__file__).parent / "reference_queries"
VIEW = "ioscale.step_windows_refresh"
#: What the copy's variants cover: every step and all of them, every metric, listed or only lagging; the
#: outliers of every source, ranked every way.
VARIANTS = [("lagging_vms", {"step_index": s, "metric": m, "show_all": show, "threshold_pct": th})
            for s in (-1, 0, 1) for m in ("any", "iops", "p99") for show in (True, False) for th in (0, 20)] + \
           [("step_latency_outliers", {"step_index": s, "grain": "source", "rank_by": r, "limit": 1000})
            for s in (0, 1) for r in ("max", "p99", "mean")]


@pytest.fixture(scope="module")
def admin(stack):
    with client(stack.settings, stack.secrets, "admin") as ch:   # the reader cannot insert or refresh
        yield ch


@pytest.fixture(scope="module")
def copy_run(stack, known_run, admin) -> str:
    run_id = f"{known_run.run_id}-windows"
    # The filter in a subquery: at the same level, WHERE would see REPLACE's run_id alias, not the column.
    admin.command("INSERT INTO ioscale.run_events SELECT * REPLACE ({copy:String} AS run_id) "
                  "FROM (SELECT * FROM ioscale.run_events FINAL WHERE run_id = {run:String})",
                  parameters={"run": known_run.run_id, "copy": run_id})
    admin.command("INSERT INTO ioscale.io_samples SELECT * REPLACE ({copy:String} AS run_id, "
                  "now64(3) - INTERVAL 1 MINUTE AS ingested_at) "
                  "FROM (SELECT * FROM ioscale.io_samples WHERE run_id = {run:String})",
                  parameters={"run": known_run.run_id, "copy": run_id})
    return run_id


def _answer(stack, name: str, run_id: str, params: dict, reference: bool = False) -> list[tuple]:
    path = REFERENCE / f"{name}.sql"
    query = parse(path.read_text(encoding="utf-8"), name, path) if reference else load(name)
    values = bind(query, {"run_id": run_id, **{k: str(v) for k, v in params.items()}})
    with client(stack.settings, stack.secrets, "reader") as ch:
        return execute(query, values, ch).rows


def _lagging(stack, run_id: str, params: dict, reference: bool = False) -> list[tuple]:
    return _answer(stack, "lagging_vms", run_id, params, reference)


def _assert_reference_answers(stack, run_id: str) -> None:
    for name, params in VARIANTS:
        assert _answer(stack, name, run_id, params) == _answer(stack, name, run_id, params, reference=True), \
            (name, params)


def _rows(admin, run_id: str) -> dict[tuple[int, str, str, str], tuple]:
    """(step, vm, target, direction) -> (source_samples, samples, latency_n, p99_ns, malformed_samples) of the
    copy's rows; target and direction '' at grain vm."""
    return {tuple(r[:4]): tuple(r[4:]) for r in admin.query(
        "SELECT step_index, vm, target, direction, source_samples, samples, latency_n, p99_ns, malformed_samples "
        "FROM ioscale.step_windows FINAL WHERE run_id = {r:String}", parameters={"r": run_id}).result_rows}


def _step_sums(admin, run_id: str) -> dict[tuple[int, str, str, str], int]:
    """The same keys -> samples added to the VM's or source's step sum (redeliveries included): what a row
    must stand for."""
    return {tuple(r[:4]): r[4] for r in admin.query(
        "SELECT step_index, vm, target, direction, sum(samples) FROM ioscale.io_samples_hist_sums "
        "WHERE run_id = {r:String} AND grain IN ('vm_step', 'source_step') "
        "GROUP BY step_index, grain, vm, target, direction", parameters={"r": run_id}).result_rows}


def _refresh_until(admin, run_id: str, done, timeout_s: float = 90) -> dict[tuple[int, str, str, str], tuple]:
    """Forces refreshes until done(rows) holds; fails with the view's last error otherwise."""
    deadline = time.monotonic() + timeout_s
    rows = _rows(admin, run_id)
    while not done(rows):
        assert time.monotonic() < deadline, (
            f"step_windows holds {rows} for {run_id}; the view says: "
            f"{admin.query('SELECT status, exception FROM system.view_refreshes').result_rows}")
        admin.command(f"SYSTEM REFRESH VIEW {VIEW}")
        admin.command(f"SYSTEM WAIT VIEW {VIEW}")
        time.sleep(0.5)
        rows = _rows(admin, run_id)
    return rows


def _current(rows: dict, sums: dict) -> bool:
    return set(rows) == set(sums) and all(rows[k][0] == sums[k] for k in sums)


def test_rows_are_computed_for_every_vm_and_source_of_every_ended_step(stack, known_run, admin, copy_run) -> None:
    sums = _step_sums(admin, copy_run)
    assert len(sums) == 2 * 10 + (10 + 20)          # VMs of both steps; sources: reads in step 0, both in step 1
    rows = _refresh_until(admin, copy_run, lambda r: _current(r, sums))
    # Each row's samples and I/Os are the raw merge's over its window.
    raw = {tuple(r[:4]): tuple(r[4:]) for r in admin.query("""
        SELECT step_index, vm, target, direction, count(), sumIf(arraySum(latency_bucket_count), latency_hist_scheme = 1)
        FROM ioscale.io_samples AS s FINAL
        INNER JOIN (SELECT step_index, anyIf(start_ts, event_type = 'step_ended') AS start,
                           anyIf(end_ts, event_type = 'step_ended') AS end
                    FROM ioscale.run_events FINAL WHERE run_id = {r:String} GROUP BY step_index) AS e
            USING (step_index)
        WHERE run_id = {r:String} AND s.ts >= e.start AND s.ts < e.end
        GROUP BY GROUPING SETS ((step_index, vm), (step_index, vm, target, direction))
        SETTINGS group_by_use_nulls = 0""", parameters={"r": copy_run}).result_rows}
    assert {k: (v[1], v[2]) for k, v in rows.items()} == raw
    assert all(v[4] == 0 for v in rows.values())
    _assert_reference_answers(stack, copy_run)


def test_lagging_vms_reads_a_row_only_while_it_stands_for_the_samples(stack, admin, copy_run) -> None:
    """A row with a changed p99 and the right samples shows in the answer (the rows are read); the same row
    standing for one sample fewer does not (the VM or source is merged from io_samples again)."""
    key = "vm-h2-05"
    truth = {r[2]: r for r in _lagging(stack, copy_run, {"step_index": 1, "show_all": True})}[key]
    forged = ("INSERT INTO ioscale.step_windows SELECT * REPLACE (p99_ns * 3 AS p99_ns, "
              "source_samples + {delta:Int64} AS source_samples, now64(3) AS computed_at) "
              "FROM ioscale.step_windows FINAL WHERE run_id = {r:String} AND step_index = 1 AND vm = {vm:String}")
    cols = [c.name for c in load("lagging_vms").columns]
    p99 = cols.index("p99_us")
    admin.command(forged, parameters={"r": copy_run, "vm": key, "delta": 0})
    shown = {r[2]: r for r in _lagging(stack, copy_run, {"step_index": 1, "show_all": True})}[key]
    assert shown[p99] == pytest.approx(truth[p99] * 3, rel=1e-3)
    outliers = _answer(stack, "step_latency_outliers", copy_run,
                       {"step_index": 1, "grain": "source", "rank_by": "p99", "limit": 1000})
    truth_sources = _answer(stack, "step_latency_outliers", copy_run,
                            {"step_index": 1, "grain": "source", "rank_by": "p99", "limit": 1000}, reference=True)
    ocols = [c.name for c in load("step_latency_outliers").columns]
    by_source = {(r[ocols.index("vm")], r[ocols.index("direction")]): r[ocols.index("p99_us")] for r in outliers}
    want = {(r[ocols.index("vm")], r[ocols.index("direction")]): r[ocols.index("p99_us")] for r in truth_sources}
    assert by_source[(key, "read")] == pytest.approx(want[(key, "read")] * 3, rel=1e-3)
    admin.command(forged, parameters={"r": copy_run, "vm": key, "delta": -1})
    _assert_reference_answers(stack, copy_run)


def test_a_sample_arriving_later_sends_its_vm_back_to_the_raw_samples_until_computed_again(
        stack, known_run, admin, copy_run) -> None:
    # The forged row of the test above is replaced too: every VM of step 1 is computed again.
    admin.command("INSERT INTO ioscale.io_samples SELECT * REPLACE (now64(3) AS ingested_at) FROM ioscale.io_samples "
                  "WHERE run_id = {r:String} AND step_index = 1 AND vm = 'vm-h1-01' ORDER BY ts LIMIT 1 OFFSET 5",
                  parameters={"r": copy_run})   # a redelivery: FINAL counts it once, the step sum twice
    _assert_reference_answers(stack, copy_run)
    sums = _step_sums(admin, copy_run)
    assert _rows(admin, copy_run)[(1, "vm-h1-01", "", "")][0] == sums[(1, "vm-h1-01", "", "")] - 1
    # Computed again once the step has had no sample for 20 s.
    rows = _refresh_until(admin, copy_run, lambda r: _current(r, sums))
    assert rows[(1, "vm-h1-01", "", "")][0] == sums[(1, "vm-h1-01", "", "")]
    _assert_reference_answers(stack, copy_run)


def test_another_window_makes_the_rows_of_its_step_stale(stack, admin, copy_run) -> None:
    # STEP_ENDED again for step 0, its window 1.5 s shorter at the start (newer ingested_at: FINAL keeps it).
    admin.command("INSERT INTO ioscale.run_events SELECT * REPLACE (start_ts + INTERVAL 1500 MILLISECOND AS start_ts, "
                  "now64(3) AS ingested_at) FROM ioscale.run_events FINAL "
                  "WHERE run_id = {r:String} AND step_index = 0 AND event_type = 'step_ended'",
                  parameters={"r": copy_run})
    _assert_reference_answers(stack, copy_run)
    start = int(admin.command("SELECT toUnixTimestamp64Milli(start_ts) FROM ioscale.run_events FINAL WHERE "
                          "run_id = {r:String} AND step_index = 0 AND event_type = 'step_ended'",
                          parameters={"r": copy_run}))
    _refresh_until(admin, copy_run, lambda r: int(admin.command(
        "SELECT min(toUnixTimestamp64Milli(window_start)) FROM ioscale.step_windows FINAL "
        "WHERE run_id = {r:String} AND step_index = 0", parameters={"r": copy_run})) == start)
    _assert_reference_answers(stack, copy_run)


def test_malformed_buckets_neither_stop_the_view_nor_reach_an_answer(stack, admin, copy_run) -> None:
    """A sample whose bucket arrays differ in length is counted in its row, which is not used: lagging_vms
    merges that VM from io_samples and raises the error such a sample always raised. The view goes on."""
    # Stamped as arrived 21 s ago: settled at once (20 s), and still after the step's last computation less 15 s,
    # which is what makes the view look at the step again.
    admin.command("INSERT INTO ioscale.io_samples SELECT * REPLACE (arrayPopBack(latency_bucket_count) AS "
                  "latency_bucket_count, now64(3) - INTERVAL 21 SECOND AS ingested_at, ts + INTERVAL 1 MILLISECOND AS ts) "
                  "FROM ioscale.io_samples WHERE run_id = {r:String} AND step_index = 1 AND vm = 'vm-h1-02' "
                  "AND direction = 'write' ORDER BY ts LIMIT 1 OFFSET 4", parameters={"r": copy_run})
    sums = _step_sums(admin, copy_run)
    rows = _refresh_until(admin, copy_run, lambda r: _current(r, sums))
    assert rows[(1, "vm-h1-02", "", "")][4] == 1 and rows[(1, "vm-h1-02", "disk1", "write")][4] == 1
    assert sum(v[4] for v in rows.values()) == 2   # the VM's row and its source's
    assert admin.query("SELECT exception FROM system.view_refreshes WHERE view = 'step_windows_refresh'"
                       ).result_rows == [("",)]
    with pytest.raises(Exception, match="(?i)size|length"):
        _lagging(stack, copy_run, {"step_index": 1})
    with pytest.raises(Exception, match="(?i)size|length"):
        _answer(stack, "step_latency_outliers", copy_run, {"step_index": 1, "grain": "source"})
    assert _lagging(stack, copy_run, {"step_index": 0, "show_all": True}) == \
        _lagging(stack, copy_run, {"step_index": 0, "show_all": True}, reference=True)


def _looked_at(admin, run_id: str) -> list[int]:
    """The copy's steps the view would look at in its next refresh: its stored query's candidate_list, evaluated
    alone."""
    stored = admin.query("SELECT as_select FROM system.tables WHERE database = 'ioscale' "
                         "AND name = 'step_windows_refresh'").result_rows[0][0]

    def enclosed(at: int) -> str:
        """The parenthesized text of ``stored`` that opens at ``at``."""
        depth = 0
        for i in range(at, len(stored)):
            depth += {"(": 1, ")": -1}.get(stored[i], 0)
            if depth == 0:
                return stored[at:i + 1]
        raise AssertionError("unbalanced")

    ended = enclosed(stored.index("ended AS (") + len("ended AS "))
    scalar = enclosed(stored.index("(", stored.index(ended) + len(ended)))  # the next WITH item
    assert stored[stored.index(scalar) + len(scalar):].startswith(" AS candidate_list")
    query = f"WITH ended AS {ended} SELECT arrayMap(c -> c.2, arrayFilter(c -> c.1 = {{r:String}}, {scalar}))"
    return sorted(admin.query(query, parameters={"r": run_id}).result_rows[0][0])


def test_a_step_whose_rows_hold_is_not_looked_at_until_something_arrives(stack, admin, copy_run) -> None:
    """A refresh reads a step's VMs and sources only when a sample or STEP_ENDED arrived since its last
    computation: with nothing new, each refresh would otherwise read every row of the day's steps."""
    sums = _step_sums(admin, copy_run)
    _refresh_until(admin, copy_run, lambda r: _current(r, sums))
    assert _looked_at(admin, copy_run) == []
    admin.command("INSERT INTO ioscale.io_samples SELECT * REPLACE (now64(3) AS ingested_at) FROM ioscale.io_samples "
                  "WHERE run_id = {r:String} AND step_index = 0 ORDER BY ts LIMIT 1", parameters={"r": copy_run})
    assert _looked_at(admin, copy_run) == [0]
    sums = _step_sums(admin, copy_run)
    _refresh_until(admin, copy_run, lambda r: _current(r, sums))
    assert _looked_at(admin, copy_run) == []
    # (step 1 holds the malformed sample of the test above: only step 0 can be answered)
    assert _lagging(stack, copy_run, {"step_index": 0, "show_all": True}) == \
        _lagging(stack, copy_run, {"step_index": 0, "show_all": True}, reference=True)
