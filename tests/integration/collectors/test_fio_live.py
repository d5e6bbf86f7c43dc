"""Real fio 3.x, two 3 s steps (iodepth sweep 1,2): emitted interval samples must add up to fio's report exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ioscale.collectors.fio_runner import run_fio
from ioscale.wire import topics

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")

JOB = """\
[global]
ioengine={engine}
filename={data}
size=32M
bs=4k
rw=randread
time_based
runtime=3
[job1]
iodepth=1
"""


def test_fio_sweep_totals_match_exactly(tmp_path: Path, producer) -> None:
    job = tmp_path / "randread.fio"
    job.write_text(JOB.format(engine="libaio", data=tmp_path / "data"))
    results = run_fio(producer, [job], run_id="fio-test", sweep=("iodepth", ["1", "2"]), host="h1", vm="vm1",
                      timeout_s=60).steps
    producer.validate()
    assert [r.step_index for r in results] == [0, 1]
    samples = producer.of(topics.IO_SAMPLES)
    for r in results:
        fio_job = r.final.jobs[0]
        fio_total = int(fio_job.get("read").get("total_ios"))
        fio_bins = sum(int(v) for _, v in fio_job.get("read").get("clat_ns").get("bins"))
        step = [s for s in samples if s["step_index"] == r.step_index]
        assert len(step) >= 3  # ~3 one-second intervals plus the tail
        assert {s["direction"] for s in step} == {"READ"}
        assert sum(s["ops"] for s in step) == fio_total > 0
        assert sum(s["latency_count"] for s in step) == fio_bins == fio_total
        assert sum(sum(s["latency_bucket_count"]) for s in step) == fio_total
        assert sum(s["bytes"] for s in step) == fio_total * 4096
        assert all(sum(s["latency_bucket_count"]) == s["latency_count"] for s in step)
        assert all(s["host"] == "h1" and s["vm"] == "vm1" and s["run_id"] == "fio-test" for s in step)
        (key, (ops, f_ops, h, f_h)), = r.totals.items()
        assert key[1] == "READ" and ops == f_ops == fio_total and h == f_h
        # intervals tile the step without overlap
        ts = sorted((s["ts_ms"], s["interval_ms"]) for s in step)
        assert all(a + la <= b for (a, la), (b, _) in zip(ts, ts[1:]))
    events = producer.of(topics.RUNS)
    assert [e["event_type"] for e in events] == ["RUN_STARTED", "STEP_STARTED", "STEP_ENDED", "STEP_STARTED",
                                                 "STEP_ENDED", "RUN_ENDED"]
    steps = [e for e in events if e["event_type"] == "STEP_ENDED"]
    assert [e["load"]["outstanding_ios_per_target"] for e in steps] == [1, 2]
    assert [e["load"]["config_labels"]["iodepth"] for e in steps] == ["1", "2"]
    assert all(e["load"]["block_size_bytes"] == 4096 and e["load"]["read_pct"] == 100.0 for e in steps)
    # fio itself confirms the override took effect
    assert [r.final.jobs[0].get("job options").get("iodepth") for r in results] == ["1", "2"]
    assert events[-1]["end_ms"] >= events[0]["ts_ms"]
