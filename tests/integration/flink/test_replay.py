"""`ioscale analyze`: a run stamped in the past (an import, a fast-mode simulation) analysed by a bounded replay of
the analytics job, with an event-time clock of its own, into the same result tables.

The run is the `demo` scenario (1-4 VMs on one 4 Gbps FC port, 8 KB reads), stamped two hours ago with short
steps: whatever the live job's clock says, the replay must give one scaling-curve row per step, fleet rollups that
account for every I/O sample sent, and the port-bound saturation the demo is built to show.
"""

from __future__ import annotations

import time
import uuid

import pytest

from ioscale.provision.flink import FlinkJobs
from ioscale.provision.replay import analyze, result_rows, run_span
from ioscale.simulator import make_engine
from ioscale.stack.clickhouse import client
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

from isolation import prefixed, wait_for_io_samples
from past_runs import publish_past_run

pytestmark = pytest.mark.slow


def test_a_past_run_is_analysed_by_its_own_replay(stack):
    run = publish_past_run(stack, "demo", seconds_ago=7_200, step_s=20, ramp_s=2)
    run_id, sent_io, sent_ops, steps = run.run_id, run.io_samples, run.ops, run.steps
    with client(stack.settings, stack.secrets, "reader") as ch:
        wait_for_io_samples(ch, run_id, sent_io)
        held = analyze(FlinkJobs(StackContext(stack.settings, stack.secrets, SilentProgress())), ch, run_id,
                       timeout_s=600)
        assert held["scaling_curves"] == len(steps) == 4
        samples, ops = ch.query("SELECT sum(samples), sum(ops) FROM ioscale.io_fleet_1s FINAL WHERE run_id = {r:String}",
                                parameters={"r": run_id}).result_rows[0]
        assert (samples, ops) == (sent_io, sent_ops)  # every sample, once: nothing late, nothing doubled
        verdicts = ch.query("SELECT step_index, saturation_status, saturation_bottleneck FROM ioscale.scaling_curves FINAL "
                            "WHERE run_id = {r:String} ORDER BY step_index", parameters={"r": run_id}).result_rows
        assert verdicts[1][1] == "SCALING"  # step 0 has nothing to compare with
        assert ("SATURATED", "PORT") in {(v[1], v[2]) for v in verdicts}
        assert ch.query("SELECT count() FROM ioscale.alerts FINAL WHERE run_id = {r:String} AND resource LIKE 'port%'",
                        parameters={"r": run_id}).result_rows[0][0] >= 1
        # the replay finished and is not mistaken for the live job
        assert result_rows(ch, run_id)["io_samples_1s"] > 0


def test_run_span_of_a_run_whose_run_events_have_not_landed(stack):
    """min() over no row is 1970-01-01 in ClickHouse: a run whose run events have not reached ClickHouse yet (the
    raw path behind under load) takes its span from the I/O samples, not one starting in 1970 (which would submit
    the replay with --replay-from-ms -120000)."""
    now_ms = int(time.time() * 1000)
    engine = make_engine("demo", seed=int(uuid.uuid4().int % 10_000), start_ms=now_ms - now_ms % 1000 - 3_600_000,
                         step_s=4, ramp_s=1)
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    run_id, sent = None, 0
    for batch in engine.batches():
        for topic, record in batch.records:
            if topic == topics.IO_SAMPLES:  # no run events at all
                record = prefixed(record)
                producer.send(topic, record)
                run_id, sent = record["run_id"], sent + 1
    producer.flush(60)
    with client(stack.settings, stack.secrets, "reader") as ch:
        deadline = time.monotonic() + 120
        first = None
        while time.monotonic() < deadline:
            n, first = ch.query("SELECT count(), toUnixTimestamp64Milli(min(ingested_at)) FROM ioscale.io_samples "
                                "WHERE run_id = {r:String}", parameters={"r": run_id}).result_rows[0]
            if n >= sent:
                break
            time.sleep(1)
        span = run_span(ch, run_id)
    assert span.io_samples == sent
    assert span.first_ingest_ms == first > now_ms - 600_000  # when the samples landed, not 1970


def test_a_run_published_source_by_source_loses_nothing(stack):
    """Importers publish a run source after source: on one partition, every source after the first goes back in
    event time by the whole run. A bounded analysis must still count every sample and give every step its row;
    an event-time replay dropped the sources that came after the watermark had passed them."""
    now_ms = int(time.time() * 1000)
    # Big enough that reading it takes many periodic watermarks: a run read within one is never late.
    engine = make_engine("s2d-vmfleet-320", seed=int(uuid.uuid4().int % 10_000),
                         start_ms=now_ms - now_ms % 1000 - 5_400_000, step_s=15, ramp_s=2)
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    run_id, others, by_source, steps = None, [], {}, set()
    for batch in engine.batches():
        for topic, record in batch.records:
            record = prefixed(record)
            run_id = run_id or record["run_id"]
            if record["run_id"] != run_id:  # the scenario's first run (of three) is enough
                continue
            if topic == topics.IO_SAMPLES:
                by_source.setdefault((record["host"], record["vm"], record["target"], record["direction"]),
                                     []).append(record)
                steps.add(record["step_index"])
            else:
                others.append((topic, record))
    for topic, record in others:
        producer.send(topic, record)
    sent_io = sent_ops = 0
    for records in by_source.values():  # one source's whole run, then the next: all on one partition
        for record in records:
            producer.send(topics.IO_SAMPLES, record, key=run_id.encode())
            sent_io += 1
            sent_ops += record["ops"]
    producer.flush(60)
    assert len(by_source) >= 4
    with client(stack.settings, stack.secrets, "reader") as ch:
        wait_for_io_samples(ch, run_id, sent_io)
        held = analyze(FlinkJobs(StackContext(stack.settings, stack.secrets, SilentProgress())), ch, run_id,
                       timeout_s=600)
        assert held["scaling_curves"] == len(steps)
        for table in ("io_samples_1s", "io_fleet_1s", "io_fleet_10s", "io_fleet_1m"):
            samples, ops = ch.query(f"SELECT sum(samples), sum(ops) FROM ioscale.{table} FINAL WHERE run_id = {{r:String}}",
                                    parameters={"r": run_id}).result_rows[0]
            assert (table, samples, ops) == (table, sent_io, sent_ops)
        step_samples = ch.query("SELECT sum(step_samples) FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String}",
                                parameters={"r": run_id}).result_rows[0][0]
        assert step_samples == sent_io
