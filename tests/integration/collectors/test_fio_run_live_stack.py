"""`ioscale run fio` against the stack, as a user runs it: real fio 3.x, a 3-step iodepth sweep streamed live.

The live job must analyse the last step within 30 s of RUN_ENDED (no newer data arrives to move event time), the
run id printed at start must be the run's, and fio's own json+ reports, kept in the run directory, are loaded as
the linked run `<id>-fio-report`, whose analysed steps give the IOPS fio printed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ioscale.stack.clickhouse import client

from isolation import unique

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")]

JOB = """\
[global]
ioengine=libaio
filename={data}
size=32M
bs=4k
rw=randread
direct=0
time_based
runtime=6
[job1]
iodepth=1
"""


def test_a_live_fio_sweep_ends_with_its_last_step_analysed(tmp_path: Path, stack):
    job = tmp_path / "randread.fio"
    job.write_text(JOB.format(data=tmp_path / "data"))
    run_id = unique("fio-live")
    run = subprocess.run([sys.executable, "-m", "ioscale.cli", "run", "fio", str(job), "--sweep", "iodepth=1,2,4",
                          "--run-id", run_id, "--out-dir", str(tmp_path / "run"), "--analyze"],
                         capture_output=True, text=True, timeout=600)
    ended_at = time.time()
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"run {run_id}" in run.stdout  # the id is printed at start
    reports = sorted((tmp_path / "run").glob("step-*.json"))
    assert len(reports) == 3
    with client(stack.settings, stack.secrets, "reader") as ch:
        end_ms, = ch.query("SELECT toUnixTimestamp64Milli(max(coalesce(end_ts, ts))) FROM ioscale.run_events "
                           "WHERE run_id = {r:String} AND event_type = 'run_ended' HAVING count() > 0",
                           parameters={"r": run_id}).result_rows[0]
        deadline = max(ended_at, end_ms / 1000) + 30
        last = None
        while time.time() < deadline:
            # the first row written for the step (a late second may replace it later)
            last = ch.query("SELECT min(emitted_at), count() FROM ioscale.scaling_curves WHERE run_id = {r:String} "
                            "AND step_index = 2", parameters={"r": run_id}).result_rows[0]
            last = last[0] if last[1] else None
            if last is not None:
                break
            time.sleep(1)
        assert last is not None, "no row for the last step 30 s after RUN_ENDED"
        assert last.timestamp() - end_ms / 1000 <= 30
        report = list(ch.query("SELECT step_index, iops, steady_reason FROM ioscale.scaling_curves FINAL "
                               "WHERE run_id = {r:String} ORDER BY step_index",
                               parameters={"r": run_id + "-fio-report"}).named_results())
    assert [r["step_index"] for r in report] == [0, 1, 2]
    for row, path in zip(report, reports):
        printed = sum(j["read"]["iops"] for j in json.loads(path.read_text())["jobs"])
        assert row["steady_reason"] == "WHOLE_STEP"
        assert row["iops"] == pytest.approx(printed, rel=1e-3)
