"""An I/O collector that stalls and catches up must not lose its step's seconds in the step analysis.

While the I/O samples of a run stop for longer than the partition idleness (10 s), the job's I/O source is judged
idle, and the step analyzer's watermark (the minimum over the fleet, CPU, port and run streams) moves on with the
CPU and port samples alone, past the step's end and its allowed lateness. When the buffered I/O samples then
arrive, the rollups take them (their own watermark is the I/O stream's, still behind them), but a step analyzer
that closed the step on its own watermark would drop them: the step's row would keep only the seconds before the
stall. A restart that replays the I/O topic later than the others is the same case. The analyzer closes a step
only once the fleet stream itself is past it (StampFleetProgress), so the late seconds re-run the step's final
evaluation.
"""

from __future__ import annotations

import time

import pytest

from ioscale.stack.flink import ANALYTICS_JOB, FlinkComponent
from ioscale.wire import topics

from isolation import unique
from live_records import cpu, each_second, io_sample, latencies, load, port, run_event, sleep_until
from live_stack import check_analytics_running, live_producer, reader

pytestmark = pytest.mark.slow

STEP_S = 20
#: The I/O samples of seconds [STALL_FROM_S, STEP_S) are held back until the analyzer's watermark is past the step.
STALL_FROM_S = 5
OPS = 10_000
LATENESS_S = 10  # the shipped allowed-lateness
SETTLE_TIMEOUT_S = 120.0


def _analyzer_watermark_ms(flink: FlinkComponent) -> int:
    """The step analyzer's watermark: what it emits (the task's input watermark gauge also counts idle inputs)."""
    overview = flink._rest("GET", "/jobs/overview")
    (job_id,) = [j["jid"] for j in overview["jobs"] if j["name"] == ANALYTICS_JOB and j["state"] == "RUNNING"]
    vertices = flink._rest("GET", f"/jobs/{job_id}")["vertices"]
    (vertex,) = [v for v in vertices if "scaling_curves" in v["name"]]
    path = f"/jobs/{job_id}/vertices/{vertex['id']}/metrics"
    metrics = [m["id"] for m in flink._rest("GET", path)
               if m["id"].startswith("0.scaling_curves_/") and m["id"].endswith(".currentOutputWatermark")]
    values = flink._rest("GET", path, params={"get": ",".join(metrics)}) if metrics else []
    return int(values[0]["value"]) if values else -(2**63)  # a job just submitted has not reported it yet


def test_a_stalled_io_collector_that_catches_up_keeps_its_seconds_in_the_step_row(stack):
    flink = check_analytics_running(stack)
    ch = reader(stack)
    producer = live_producer(stack)
    run_id = unique("stall")
    clock_run = f"{run_id}-clock"  # CPU samples only: moves the analyzer's watermark, never the I/O source's

    def count(sql: str) -> int:
        return int(ch.command(sql, parameters={"run": run_id}))

    start_ms = (int(time.time()) + 1) * 1000
    end_ms = start_ms + STEP_S * 1000
    sleep_until(start_ms)
    producer.send(topics.RUNS, run_event("RUN_STARTED", run_id, start_ms))
    producer.send(topics.RUNS, run_event("STEP_STARTED", run_id, start_ms, 0, load=load(1), step_label="1 VM"))
    held_back = []
    for sec, ts in each_second(start_ms, STEP_S):
        sample = io_sample(run_id, 0, ts, "vm0", OPS, latencies(sec, 200, 300_000))
        if sec < STALL_FROM_S:
            producer.send(topics.IO_SAMPLES, sample)
        else:
            held_back.append(sample)
        producer.send(topics.CPU_SAMPLES, cpu(run_id, 0, ts, 30.0))
        producer.send(topics.PORT_SAMPLES, port(run_id, 0, ts, 100_000_000))
        producer.flush(10)
    producer.send(topics.RUNS, run_event("STEP_ENDED", run_id, end_ms, 0, load=load(1), start_ms=start_ms,
                                         end_ms=end_ms))
    producer.send(topics.RUNS, run_event("RUN_ENDED", run_id, end_ms))

    # The stall goes on until the analyzer's watermark is past the step's end + lateness on CPU time alone.
    due_ms = end_ms + LATENESS_S * 1000
    deadline = time.monotonic() + 90
    while (watermark := _analyzer_watermark_ms(flink)) <= due_ms and time.monotonic() < deadline:
        now_ms = int(time.time()) * 1000
        producer.send(topics.CPU_SAMPLES, cpu(clock_run, -1, now_ms, 1.0))
        producer.flush(10)
        time.sleep(1.0)
    assert watermark > due_ms, (
        f"the step analyzer's watermark should pass the step's end + lateness while the I/O collector stalls: "
        f"{watermark} <= {due_ms}")
    # ... so the step was finalized with the seconds before the stall only (those the fleet rollups showed before
    # the I/O source went idle, early rows included).
    assert 0 < count("SELECT max(step_samples) FROM scaling_curves WHERE run_id = {run:String}") <= STALL_FROM_S

    # The collector catches up; an I/O clock (another run) then lets the I/O source's watermark fire its windows.
    for sample in held_back:
        producer.send(topics.IO_SAMPLES, sample)
    producer.flush(10)
    deadline = time.monotonic() + SETTLE_TIMEOUT_S
    while time.monotonic() < deadline:
        now_ms = int(time.time()) * 1000
        producer.send(topics.IO_SAMPLES, io_sample(clock_run, 0, now_ms, "clock", 1, [1000]))
        producer.send(topics.CPU_SAMPLES, cpu(clock_run, -1, now_ms, 1.0))
        producer.flush(10)
        # Both: the per-source rows go through another sink than the step's row, and may land after it.
        if (count("SELECT max(step_samples) FROM scaling_curves WHERE run_id = {run:String}") == STEP_S
                and count("SELECT count() FROM io_samples_1s FINAL WHERE run_id = {run:String}") == STEP_S):
            break
        time.sleep(1.0)

    assert count("SELECT count() FROM io_samples_1s FINAL WHERE run_id = {run:String}") == STEP_S
    row = ch.query("SELECT step_samples, iops, steady_usable FROM scaling_curves FINAL WHERE run_id = {run:String}",
                   parameters={"run": run_id}).result_rows
    assert row == [(STEP_S, pytest.approx(OPS), True)], "the late seconds should have re-run the step's evaluation"
