"""Flink's scaling curve against the raw samples, on every simulator scenario.

For each scenario's first run (short steps, stamped in the past, analysed by `ioscale analyze`), every step row must
hold exactly the I/Os of the raw samples inside the steady window it reports: ops and latency counts equal, IOPS
and MB/s = those I/Os over the window's seconds, the mean = their latency sum / count (within 0.1 %), and the
histogram's N = the raw latency count. The whole-step imports are checked against `scaling_curve_raw` in
test_real_sweeps.py.
"""

from __future__ import annotations

import pytest

from ioscale.provision.flink import FlinkJobs
from ioscale.provision.replay import analyze
from ioscale.simulator.scenarios import SCENARIOS
from ioscale.stack.clickhouse import client
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress

from isolation import wait_for_io_samples
from past_runs import publish_past_run

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_step_row_holds_the_raw_ios_of_its_steady_window(stack, scenario):
    run = publish_past_run(stack, scenario, seconds_ago=7_200, step_s=12, ramp_s=2)
    run_id, sent = run.run_id, run.io_samples
    with client(stack.settings, stack.secrets, "reader") as ch:
        wait_for_io_samples(ch, run_id, sent)
        analyze(FlinkJobs(StackContext(stack.settings, stack.secrets, SilentProgress())), ch, run_id, timeout_s=600)
        rows = list(ch.query(
            "SELECT step_index, steady_start, steady_end, steady_seconds, ops, bytes, iops, mb_per_s, latency_count, "
            "latency_mean_ns, latency_n FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String} "
            "ORDER BY step_index", parameters={"r": run_id}).named_results())
        assert len(rows) >= 3
        for row in rows:
            raw = ch.query(
                "SELECT sum(ops), sum(bytes), sum(latency_count), sum(latency_sum_ns) FROM ioscale.io_samples FINAL "
                "WHERE run_id = {r:String} AND step_index IN ({s:Int32}, -1) AND ts >= {a:DateTime64(3)} "
                "AND ts < {b:DateTime64(3)}",
                parameters={"r": run_id, "s": row["step_index"], "a": row["steady_start"],
                            "b": row["steady_end"]}).result_rows[0]
            ops, nbytes, count, latency_sum = raw
            seconds = row["steady_seconds"]
            assert (row["step_index"], row["ops"], row["bytes"], row["latency_count"]) == \
                (row["step_index"], ops, nbytes, count)
            assert row["iops"] == pytest.approx(ops / seconds, rel=1e-3)
            assert row["mb_per_s"] == pytest.approx(nbytes / 1e6 / seconds, rel=1e-3)
            assert row["latency_mean_ns"] == pytest.approx(latency_sum / count, rel=1e-3)
            assert row["latency_n"] == count  # the merged histogram holds every I/O of the window
