"""The analytics job on the local stack: Avro samples in Kafka -> Flink -> result tables in ClickHouse.

One run of two 14 s steps is produced in real time with ioscale's TelemetryProducer (event time = wall time,
so data from anyone else streaming live cannot make it late): step 0 is one VM at 50k IOPS; step 1 doubles the
VMs for +4 % IOPS at ~45x the latency, with the FC port's receive side at 97 % of 800 MB/s. Halfway through
step 1 the job is cancelled and resubmitted the way `stack up` does it (from its retained checkpoint), so the
checks below also cover "a restart loses nothing and double-counts nothing". Every figure is compared with an
oracle computed here from the raw latencies, through the Python twin of the histogram (ioscale.histogram):
Java and Python agree bucket for bucket (golden vectors), so quantiles must match exactly.

A heartbeat run (one sample per second, same wall-clock time) keeps the watermark moving after the run ends,
until the 1 min windows have fired. Rows are read with FINAL (ReplacingMergeTree keeps one row per identity).
"""

from __future__ import annotations

import struct
import threading
import time
from collections import defaultdict
from collections.abc import Callable

import pytest
import requests
from confluent_kafka import Consumer, Producer, TopicPartition

from ioscale.histogram import LatencyHistogram
from ioscale.provision.flink import FlinkJobs
from ioscale.stack.component import StackContext
from ioscale.stack.flink import ANALYTICS_JOB
from ioscale.stack.progress import SilentProgress
from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

from isolation import unique
from live_records import HOST, cpu, each_second, io_sample, latencies, load, port, run_event, sleep_until
from live_stack import live_producer, reader

pytestmark = pytest.mark.slow

STEP_S = 14
LEVELS = (0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)
COLUMNS = ("p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns")
#: Everything after the last sample: the 1 min windows (up to 60 s), out-of-orderness, partition idleness.
SETTLE_TIMEOUT_S = 150.0
FC_PAYLOAD_BYTES_PER_S = 800_000_000
GRAIN_TABLES = ("io_samples_10s", "io_samples_1m", "io_fleet_1s", "io_fleet_10s", "io_fleet_1m")


class Heartbeat(threading.Thread):
    """One I/O sample per wall-clock second for a side run: moves the watermark while the test run is quiet."""

    def __init__(self, producer: TelemetryProducer, run_id: str):
        super().__init__(daemon=True)
        self.producer, self.run_id = producer, run_id
        self.stopped = threading.Event()
        #: While set, nothing is sent: during the job restart, so the watermark cannot run ahead of the test's
        #: own samples (they are produced late if the restart is slow, e.g. when it has to rebuild the jar).
        self.paused = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            if not self.paused.is_set():
                ts = int(time.time()) * 1000
                self.producer.send(topics.IO_SAMPLES, io_sample(self.run_id, 0, ts, "hb", 1, [1000]))
            self.stopped.wait(1.0)


def _flink(stack) -> FlinkJobs:
    return FlinkJobs(StackContext(stack.settings, stack.secrets, SilentProgress()))


def _restart_analytics_job(flink: FlinkJobs) -> str:
    """Cancel the job, wait until it is gone, and let `configure()` resubmit it from its retained checkpoint."""
    overview = flink._rest("GET", "/jobs/overview")
    (job_id,) = [j["jid"] for j in overview["jobs"] if j["name"] == ANALYTICS_JOB and j["state"] == "RUNNING"]
    # The job checkpoints every 30 s: a freshly deployed one may not have yet.
    _wait_for("a completed checkpoint to restore from",
              lambda: flink._rest("GET", f"/jobs/{job_id}/checkpoints")["counts"]["completed"] >= 1, 90)
    flink._rest("PATCH", f"/jobs/{job_id}?mode=cancel")
    deadline = time.monotonic() + 60
    while flink.jobs().get(ANALYTICS_JOB) not in ("CANCELED", "FAILED") and time.monotonic() < deadline:
        time.sleep(0.5)
    flink.configure()
    new_state = flink._rest("GET", "/jobs/overview")
    (new_id,) = [j["jid"] for j in new_state["jobs"] if j["name"] == ANALYTICS_JOB and j["state"] == "RUNNING"]
    restored = flink._rest("GET", f"/jobs/{new_id}/checkpoints")["latest"].get("restored")
    assert restored, "the resubmitted job should have restored the retained checkpoint"
    return new_id


def _wait_for(what: str, check: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(3.0)
    assert check(), f"timed out after {timeout_s:.0f}s waiting for {what}"


def _oracle_quantiles(values_ns: list[int]) -> dict[str, int]:
    h = LatencyHistogram()
    h.record_many(values_ns)
    return {col: h.quantile(q).value_ns for col, q in zip(COLUMNS, LEVELS)}


def test_rollups_steps_saturation_alerts_and_dead_letters_reach_clickhouse(stack):
    flink = _flink(stack)
    assert flink.jobs().get(ANALYTICS_JOB) == "RUNNING", "`ioscale stack up` should have submitted the job"
    run_id = unique("e2e")
    producer = live_producer(stack)
    heartbeat = Heartbeat(producer, f"{run_id}-heartbeat")
    heartbeat.start()
    ch = reader(stack)

    # -- the run, in real time ---------------------------------------------------------------------
    sent: dict[tuple[int, int, str], tuple[int, list[int]]] = {}  # (step, ts, vm) -> (ops, latencies)
    start_ms = (int(time.time()) + 1) * 1000
    sleep_until(start_ms)
    producer.send(topics.RUNS, run_event("RUN_STARTED", run_id, start_ms, links=[{
        "host": HOST, "port_id": "fc0", "kind": "FC_HBA", "speed_bps": 8_500_000_000,
        "payload_bytes_per_s": FC_PAYLOAD_BYTES_PER_S, "full_duplex": True}]))
    steps = [  # (vms, ops per VM per second, median latency, RX share of the FC payload rate, CPU %)
        (1, 50_000, 200_000, 0.60, 40.0),
        (2, 26_000, 9_000_000, 0.97, 55.0),
    ]
    seed = 0
    restarted_as = None
    for step, (vms, ops, median_ns, rx_share, cpu_pct) in enumerate(steps):
        step_start = start_ms + step * STEP_S * 1000
        producer.send(topics.RUNS, run_event("STEP_STARTED", run_id, step_start, step, load=load(vms),
                                              step_label=f"{vms} VMs"))
        for sec, ts in each_second(step_start, STEP_S):
            for vm in range(vms):
                lat = latencies(seed, 400, median_ns)
                seed += 1
                sent[(step, ts, f"vm{vm}")] = (ops, lat)
                producer.send(topics.IO_SAMPLES, io_sample(run_id, step, ts, f"vm{vm}", ops, lat))
            producer.send(topics.CPU_SAMPLES, cpu(run_id, step, ts, cpu_pct))
            producer.send(topics.PORT_SAMPLES, port(run_id, step, ts, int(rx_share * FC_PAYLOAD_BYTES_PER_S)))
            producer.flush(10)
            if step == 1 and sec == STEP_S // 2:
                heartbeat.paused.set()
                restarted_as = _restart_analytics_job(flink)
        heartbeat.paused.clear()
        step_end = step_start + STEP_S * 1000
        producer.send(topics.RUNS, run_event("STEP_ENDED", run_id, step_end, step, load=load(vms),
                                              start_ms=step_start, end_ms=step_end))
    producer.send(topics.RUNS, run_event("RUN_ENDED", run_id, start_ms + 2 * STEP_S * 1000))
    # Records the job cannot decode: a bad wire header and an unknown schema id, both traceable to this run.
    garbage = b"\x07not-avro/" + run_id.encode()
    unknown_id = b"\x00" + struct.pack(">I", 987_654_321) + run_id.encode()
    raw = Producer({"bootstrap.servers": stack.kafka_bootstrap})
    for value in (garbage, unknown_id):
        raw.produce(topics.IO_SAMPLES, value, key=run_id.encode())
    assert raw.flush(30) == 0
    producer.flush(30)
    assert restarted_as is not None

    # -- wait until every grain has fired ------------------------------------------------------------
    def count(sql: str) -> int:
        return int(ch.command(sql, parameters={"run": run_id}))

    expected_seconds = len(sent)
    try:
        # Every grain of both families: the fleet's windows fire after the per-source ones that feed them (one
        # operator later, another sink), so the per-source 1 min rows landing does not mean the fleet's have.
        # The wait is also the check that the 10 s and 1 min grains hold the same totals: it fails the test when
        # they do not.
        total = sum(o for o, _ in sent.values())
        _wait_for("the 1 s, 10 s and 1 min rollups, both step rows and the final alerts", lambda: (
            count("SELECT count() FROM io_samples_1s FINAL WHERE run_id = {run:String}") == expected_seconds
            and all(count(f"SELECT sum(ops) FROM {table} FINAL WHERE run_id = {{run:String}}") == total
                    for table in GRAIN_TABLES)
            and count("SELECT count() FROM scaling_curves FINAL WHERE run_id = {run:String}") == 2
            and count("SELECT count() FROM alerts FINAL WHERE run_id = {run:String} AND phase = 'final'") >= 2
        ), SETTLE_TIMEOUT_S)
    finally:
        heartbeat.stopped.set()
        heartbeat.join(5)

    # -- 1 s rollups per source: exact against the oracle ---------------------------------------------
    rows = ch.query(
        "SELECT step_index, toUnixTimestamp64Milli(window_start), vm, ops, bytes, samples, latency_count, "
        f"latency_min_ns, latency_max_ns, iops, {', '.join(COLUMNS)}, p99_too_few, p99_999_too_few "
        "FROM io_samples_1s FINAL WHERE run_id = {run:String}", parameters={"run": run_id}).result_rows
    assert len(rows) == expected_seconds
    for step, ts, vm, ops, nbytes, samples, lat_count, lat_min, lat_max, iops, *rest in rows:
        sent_ops, lat = sent[(step, ts, vm)]
        quantiles, p99_too_few, p99999_too_few = rest[:6], rest[6], rest[7]
        assert (ops, nbytes, samples, iops) == (sent_ops, sent_ops * 8192, 1, sent_ops)
        assert (lat_count, lat_min, lat_max) == (len(lat), min(lat), max(lat))
        assert dict(zip(COLUMNS, quantiles)) == _oracle_quantiles(lat)  # the same histogram in both languages
        assert p99_too_few and p99999_too_few  # 400 I/Os: p99 needs 1000 samples

    # -- fleet per second: the merge of the second's samples ------------------------------------------
    fleet = ch.query(
        "SELECT toUnixTimestamp64Milli(window_start), step_index, ops, sources, p50_ns, latency_n "
        "FROM io_fleet_1s FINAL WHERE run_id = {run:String}", parameters={"run": run_id}).result_rows
    by_second: dict[tuple[int, int], list[int]] = defaultdict(list)
    ops_by_second: dict[tuple[int, int], int] = defaultdict(int)
    for (step, ts, _vm), (ops, lat) in sent.items():
        by_second[(ts, step)].extend(lat)
        ops_by_second[(ts, step)] += ops
    assert {(ts, step) for ts, step, *_ in fleet} == set(by_second)
    for ts, step, ops, sources, p50, n in fleet:
        assert ops == ops_by_second[(ts, step)]
        assert sources == steps[step][0]
        assert (p50, n) == (_oracle_quantiles(by_second[(ts, step)])["p50_ns"], len(by_second[(ts, step)]))

    # -- the restart duplicated rows on the wire, not in the tables' identities -------------------------
    assert count("SELECT count() FROM (SELECT window_start, vm FROM io_samples_1s FINAL "
                 "WHERE run_id = {run:String} GROUP BY window_start, vm HAVING count() > 1)") == 0

    # -- steps: steady-state figures, scaling, saturation ----------------------------------------------
    curve = {r[0]: r[1:] for r in ch.query(
        "SELECT step_index, iops, load, steady_usable, throughput_gain_pct, scaling_efficiency_pct, "
        "saturation_status, saturation_bottleneck, port_hottest, port_max_utilization_pct, cpu_utilization_pct, "
        "latency_n, p99_ns FROM scaling_curves FINAL WHERE run_id = {run:String}",
        parameters={"run": run_id}).result_rows}
    assert sorted(curve) == [0, 1]
    iops0, load0, usable0, *_ = curve[0]
    iops1, load1, usable1, gain1, eff1, status1, bottleneck1, hot_port, hot_util, cpu1, n1, p99_1 = curve[1]
    assert (iops0, load0, usable0) == (50_000, 1.0 * 32, True)
    assert (iops1, load1, usable1) == (52_000, 2.0 * 32, True)
    assert gain1 == pytest.approx(4.0)
    assert eff1 == pytest.approx(52.0)
    assert (status1, bottleneck1, hot_port) == ("SATURATED", "PORT", f"{HOST}/fc0 RX")
    assert hot_util == pytest.approx(97.0)
    assert cpu1 == pytest.approx(55.0)
    steady_lat = [x for (step, _ts, _vm), (_o, lat) in sent.items() if step == 1 for x in lat]
    assert n1 <= len(steady_lat) and p99_1 > 10_000_000  # p99 of step 1 is above the 10 ms objective

    # -- alerts: ClickHouse and Kafka -----------------------------------------------------------------
    alerts = {(r[0], r[1], r[2]): r[3] for r in ch.query(
        "SELECT kind, phase, resource, alert_id FROM alerts FINAL WHERE run_id = {run:String} AND step_index = 1",
        parameters={"run": run_id}).result_rows}
    assert ("saturation", "final", f"port {HOST}/fc0 RX") in alerts
    assert ("slo_breach", "final", "latency p99 < 10 ms") in alerts
    final_id = alerts[("saturation", "final", f"port {HOST}/fc0 RX")]
    assert final_id == f"{run_id}/1/saturation/final/port {HOST}/fc0 RX"
    kafka_alerts = _read_topic(stack, topics.ALERTS, lambda key, value, headers: run_id.encode() in (key or b""))
    assert any(key == final_id.encode() and b'"kind":"saturation"' in value for key, value, _ in kafka_alerts)

    # -- USL fits as steps complete; CPU and port rollups -------------------------------------------
    assert count("SELECT count() FROM usl_fits FINAL WHERE run_id = {run:String}") == 2
    assert count("SELECT count() FROM cpu_samples_10s FINAL WHERE run_id = {run:String} "
                 "AND scope = 'HYPERVISOR'") >= 3
    capacities = ch.query("SELECT DISTINCT capacity_bytes_per_s FROM port_samples_10s FINAL "
                          "WHERE run_id = {run:String}", parameters={"run": run_id}).result_rows
    assert capacities == [(FC_PAYLOAD_BYTES_PER_S,)]

    # -- dead letters: Kafka DLQ with the reason, and ClickHouse ----------------------------------------
    # The dead-letter sink delivers to Kafka on the job's checkpoints (at least once), which may come after the
    # result rows above are complete (rows come early, by early firing), so wait for the topic too.
    reasons: dict[bytes, bytes] = {}

    def dead_letters_arrived() -> bool:
        dead = _read_topic(stack, topics.DEAD_LETTER, lambda key, value, headers: key == run_id.encode())
        reasons.update({dict(headers)["ioscale.dlq.reason"].split(b":")[0]: value for _key, value, headers in dead})
        return {b"bad_header", b"unknown_schema_id"} <= reasons.keys()

    _wait_for("both dead letters on the DLQ topic", dead_letters_arrived, 90.0)
    assert reasons.get(b"bad_header") == garbage
    assert reasons.get(b"unknown_schema_id") == unknown_id
    _wait_for("both dead letters in ClickHouse", lambda: count(
        "SELECT count() FROM dead_letters WHERE stage = 'flink' AND position(raw_message, {run:String}) > 0") >= 2, 60.0)
    # ... and counted: the metric an operator alerts on (the job restarted before they were sent: >= 2 since).
    assert _dead_letter_metric(flink, restarted_as) >= 2


def _dead_letter_metric(flink: FlinkJobs, job_id: str, timeout_s: float = 30.0) -> int:
    """The Kafka source deserializer's deadLetters counter (Flink's REST metric view refreshes every ~10 s)."""
    vertices = flink._rest("GET", f"/jobs/{job_id}")["vertices"]
    (source,) = [v for v in vertices if v["name"].startswith("Source: io-samples")]
    url = f"{flink.rest_url}/jobs/{job_id}/vertices/{source['id']}/metrics"
    deadline = time.monotonic() + timeout_s
    value = -1
    while time.monotonic() < deadline:
        names = [m["id"] for m in requests.get(url, timeout=10).json()
                 if m["id"].endswith(".deserializer.deadLetters")]
        if names:
            values = requests.get(url, params={"get": ",".join(names)}, timeout=10).json()
            value = sum(int(float(v["value"])) for v in values)
            if value >= 2:
                break
        time.sleep(2.0)
    return value


def _read_topic(stack, topic: str, keep: Callable[[bytes | None, bytes, list], bool],
                timeout_s: float = 30.0) -> list[tuple[bytes | None, bytes, list]]:
    """Every record of ``topic`` that ``keep`` accepts, read from the beginning up to the current end."""
    consumer = Consumer({"bootstrap.servers": stack.kafka_bootstrap, "group.id": unique("e2e"),
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        meta = consumer.list_topics(topic, timeout=10).topics[topic]
        ends = {}
        for p in meta.partitions:
            _lo, hi = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            ends[p] = hi
        consumer.assign([TopicPartition(topic, p, 0) for p in meta.partitions])
        out, done = [], {p for p, hi in ends.items() if hi == 0}
        deadline = time.monotonic() + timeout_s
        while len(done) < len(ends) and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is None or msg.error():
                continue
            if keep(msg.key(), msg.value(), msg.headers() or []):
                out.append((msg.key(), msg.value(), msg.headers() or []))
            if msg.offset() + 1 >= ends[msg.partition()]:
                done.add(msg.partition())
        return out
    finally:
        consumer.close()
