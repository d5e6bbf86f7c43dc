"""`ioscale analyze` is deterministic: the same run analysed 20 times gives the same rows in every result table.

Each repeat starts from empty result tables for the run (its rows are deleted first), so a row one repeat wrote and
another did not shows up as a difference, not as a leftover. Only the time a row was written may differ.
"""

from __future__ import annotations

import os

import pytest

from ioscale.provision.flink import FlinkJobs
from ioscale.provision.replay import analyze
from ioscale.stack.clickhouse import client
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress

from isolation import delete_rows, wait_for_io_samples
from past_runs import publish_past_run

pytestmark = pytest.mark.slow

REPEATS = int(os.environ.get("IOSCALE_DETERMINISM_REPEATS", "20"))
RESULT_TABLES = tuple(f"{family}_{grain}" for family in ("io_samples", "io_fleet", "cpu_samples", "port_samples")
                      for grain in ("1s", "10s", "1m")) + ("scaling_curves", "usl_fits", "alerts")
#: When a row was written: the only column a repeat may change.
WRITE_TIME_COLUMNS = ("emitted_at", "ingested_at")


def snapshot(ch, run_id: str) -> dict[str, list[tuple]]:
    out = {}
    for table in RESULT_TABLES:
        columns = [c for (c,) in ch.query(
            "SELECT name FROM system.columns WHERE database = 'ioscale' AND table = {t:String} ORDER BY position",
            parameters={"t": table}).result_rows if c not in WRITE_TIME_COLUMNS]
        select = ", ".join(f"`{c}`" for c in columns)
        rows = ch.query(f"SELECT {select} FROM ioscale.{table} FINAL WHERE run_id = {{r:String}}",
                        parameters={"r": run_id}).result_rows
        out[table] = sorted(repr(r) for r in rows)
    return out


def test_twenty_analyses_of_one_run_give_identical_rows(stack):
    run = publish_past_run(stack, "demo", seconds_ago=3_600, step_s=10, ramp_s=2)
    run_id, sent = run.run_id, run.io_samples
    flink = FlinkJobs(StackContext(stack.settings, stack.secrets, SilentProgress()))
    snapshots = []
    with client(stack.settings, stack.secrets, "admin") as ch:
        wait_for_io_samples(ch, run_id, sent)
        for _ in range(REPEATS):
            for table in RESULT_TABLES:
                delete_rows(ch, table, run_id)
            analyze(flink, ch, run_id, timeout_s=300)
            snapshots.append(snapshot(ch, run_id))
    first = snapshots[0]
    assert len(first["scaling_curves"]) == 4 and len(first["io_fleet_1s"]) > 40 and first["alerts"]
    differences = []
    for i, s in enumerate(snapshots[1:], start=2):
        for table in RESULT_TABLES:
            if s[table] != first[table]:
                only_first = sorted(set(first[table]) - set(s[table]))
                only_this = sorted(set(s[table]) - set(first[table]))
                differences.append((i, table, len(first[table]), len(s[table]), only_first[:2], only_this[:2]))
    assert differences == []
