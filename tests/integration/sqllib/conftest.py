"""A run with known numbers, sent through the real pipeline (TelemetryProducer -> Kafka -> ClickHouse), and the
oracles the query tests compare against.

The run (unique run_id per session), two hosts h1/h2 with five VMs each, one target per VM:

    step 0  "10 VMs, QD 1"  ramp-up 2 s + measured 8 s, reads only, 300 I/Os per VM and second
    step 1  "10 VMs, QD 8"  ramp-up 2 s + measured 10 s, 9000 reads + 2000 writes per VM and second
            (1.05 M I/Os: enough for p99.999); vm-h2-05 lags: half the I/Os at twice the latency; one
            read of vm-h1-03 at measured second 4 stalls for 80 ms

Latencies are lognormal (seeded); ramp-up seconds carry 30 ms latencies and 90 % CPU, which no query over the
measured window may show. One sample is sent twice (FINAL must count it once). CPU: per host HOST and
ROOT_PARTITION totals (HOST must win) and a per-CPU row (cpu 0) that must be ignored. Ports cover every
branch of the capacity rule: declared links with speed only (FC 8.5 Gbps -> 8GFC, SAS half duplex), a declared
payload override, a port known only from its samples' link speed, one with no speed at all, and a VM queue.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import pytest

from ioscale.query import NamedQuery, bind, execute, load
from ioscale.wire import topics
from ioscale.histogram import SCHEME_ID, LatencyHistogram
from ioscale.wire.producer import TelemetryProducer
from ioscale.stack.clickhouse import client

from isolation import PREFIX, unique

INTERVAL_MS = 1000
SCENARIO = f"{PREFIX}sqllib"
HOSTS = ("h1", "h2")
VMS = tuple(f"vm-{h}-{n:02d}" for h in HOSTS for n in range(1, 6))
TARGET = "disk1"
BLOCK = 4096
LAGGING_VM = "vm-h2-05"
STALL_VM, STALL_SECOND, STALL_NS = "vm-h1-03", 4, 80_000_000
RAMP_LATENCY_NS = 30_000_000


@dataclass(frozen=True)
class StepPlan:
    index: int
    label: str
    ramp_s: int
    measured_s: int
    qd: int
    ops_per_s: dict[str, int]            # direction -> I/Os per VM and second
    median_ns: dict[str, float]          # direction -> lognormal median


STEPS = (
    StepPlan(0, "10 VMs, QD 1", 2, 8, 1, {"READ": 300}, {"READ": 400_000.0}),
    StepPlan(1, "10 VMs, QD 8", 2, 10, 8, {"READ": 9000, "WRITE": 2000}, {"READ": 600_000.0, "WRITE": 900_000.0}),
)
CPU_PCT = {0: {"h1": 20.0, "h2": 30.0}, 1: {"h1": 40.0, "h2": 60.0}}


#: (host, port_id, kind, queue, vm, sample link_speed_bps) -> rx, tx bytes per second (the 4th second x 1.5)
PORTS = {
    ("h1", "fc0", "FC_HBA", -1, "", 8_500_000_000): (400_000_000, 100_000_000),
    ("h1", "sas0", "SAS", -1, "", 12_000_000_000): (300_000_000, 300_000_000),
    ("h1", "nic0", "NIC", -1, "", 10_000_000_000): (118_661_898, 59_330_949),
    ("h1", "nic0", "NIC_VMQ", 0, "vm-h1-01", 10_000_000_000): (59_330_949, 0),
    ("h2", "fc0", "FC_HBA", -1, "", 8_500_000_000): (350_000_000, 70_000_000),
    ("h2", "x0", "OTHER", -1, "", 0): (1_000_000, 1_000_000),
}
#: The run's declared links: FC and SAS by speed only (payload 0), h2's FC with an operator's payload figure.
LINKS = [
    {"host": "h1", "port_id": "fc0", "kind": "FC_HBA", "speed_bps": 8_500_000_000, "payload_bytes_per_s": 0,
     "full_duplex": True},
    {"host": "h1", "port_id": "sas0", "kind": "SAS", "speed_bps": 12_000_000_000, "payload_bytes_per_s": 0,
     "full_duplex": False},
    {"host": "h2", "port_id": "fc0", "kind": "FC_HBA", "speed_bps": 8_500_000_000, "payload_bytes_per_s": 700_000_000,
     "full_duplex": True},
]
PEAK_SECOND, PEAK_FACTOR = 3, 1.5


@dataclass
class KnownRun:
    # The plan, for the tests (conftest names are not importable from test modules).
    SCENARIO = SCENARIO
    STEPS = STEPS
    VMS = VMS
    HOSTS = HOSTS
    TARGET = TARGET
    BLOCK = BLOCK
    LAGGING_VM = LAGGING_VM
    STALL_VM = STALL_VM
    STALL_NS = STALL_NS
    RAMP_LATENCY_NS = RAMP_LATENCY_NS
    CPU_PCT = CPU_PCT
    PORTS = PORTS
    LINKS = LINKS
    PEAK_SECOND = PEAK_SECOND
    PEAK_FACTOR = PEAK_FACTOR

    run_id: str
    start_ms: int
    windows: dict[int, tuple[int, int]] = field(default_factory=dict)        # step -> (measured start, end) ms
    # Oracles over the measured windows: every latency, by step and by (step, direction / vm / source).
    latencies: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_direction: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    by_vm: dict[tuple[int, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    by_source: dict[tuple[int, str, str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    ops: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    bytes: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    ops_by_vm: dict[tuple[int, str], int] = field(default_factory=lambda: defaultdict(int))
    port_bytes: dict[tuple[int, str, str, int], list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    stall_ts_ms: int = 0
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))   # rows per raw table (distinct)

    def histogram(self, values: list[int]) -> LatencyHistogram:
        h = LatencyHistogram()
        h.record_many(values)
        return h


def _sample(run_id: str, step: int, ts_ms: int, host: str, vm: str, direction: str, values: list[int]) -> dict:
    h = LatencyHistogram()
    h.record_many(values)
    idx, cnt = h.to_sparse()
    return {
        "ts_ms": ts_ms, "interval_ms": INTERVAL_MS, "run_id": run_id, "step_index": step, "host": host, "vm": vm,
        "target": TARGET, "direction": direction, "ops": len(values), "bytes": len(values) * BLOCK,
        "outstanding_ios": h.sum_ns / (INTERVAL_MS * 1e6), "errors": 0, "latency_count": h.count,
        "latency_sum_ns": h.sum_ns, "latency_min_ns": h.min_ns, "latency_max_ns": h.max_ns,
        "latency_hist_scheme": SCHEME_ID, "latency_bucket_index": idx, "latency_bucket_count": cnt,
        "percentile_q": [], "percentile_ns": [], "tags": {},
    }


def _cpu(run_id: str, step: int, ts_ms: int, host: str, scope: str, cpu: int, pct: float) -> dict:
    return {"ts_ms": ts_ms, "interval_ms": INTERVAL_MS, "run_id": run_id, "step_index": step, "host": host, "vm": "",
            "scope": scope, "cpu": cpu, "logical_processors": 16 if cpu == -1 else 1, "utilization_pct": pct,
            "user_pct": 0.0, "privileged_pct": pct, "dpc_pct": 0.0, "interrupt_pct": 0.0, "iowait_pct": 0.0,
            "interrupts_per_s": 0.0, "dpcs_per_s": 0.0, "tags": {}}




def _event(run_id: str, event_type: str, ts_ms: int, step: StepPlan | None, start_ms: int | None = None,
           end_ms: int | None = None) -> dict:
    load = None if step is None else {
        "vm_count": len(VMS), "targets_per_vm": 1, "workers_per_target": 1, "outstanding_ios_per_target": step.qd,
        "block_size_bytes": BLOCK, "read_pct": 100.0 * step.ops_per_s["READ"] / sum(step.ops_per_s.values()),
        "random_pct": 100.0, "adapter": "test", "config_labels": {}}
    return {"event_type": event_type, "ts_ms": ts_ms, "run_id": run_id, "scenario": SCENARIO, "tool": "LIVE",
            "description": "sqllib integration test",
            "hosts": [{"host": h, "hypervisor": "test", "sockets": 1, "cores": 8, "logical_processors": 16,
                       "memory_bytes": 1 << 34} for h in HOSTS] if event_type == "RUN_STARTED" else [],
            "step_index": -1 if step is None else step.index, "step_label": "" if step is None else step.label,
            "load": load, "links": LINKS if event_type in ("RUN_STARTED", "STEP_STARTED") else [],
            "start_ms": start_ms, "end_ms": end_ms, "tags": {}}


def build_and_send(producer: TelemetryProducer, run: KnownRun) -> None:
    rng = np.random.default_rng(20260921)
    send = producer.send
    t = run.start_ms
    send(topics.RUNS, _event(run.run_id, "RUN_STARTED", t, None))
    run.counts["run_events"] += 1
    for step in STEPS:
        send(topics.RUNS, _event(run.run_id, "STEP_STARTED", t, step))
        measured_start = t + step.ramp_s * 1000
        measured_end = measured_start + step.measured_s * 1000
        run.windows[step.index] = (measured_start, measured_end)
        for second in range(step.ramp_s + step.measured_s):
            ts = t + second * 1000
            measured = ts >= measured_start
            for vm in VMS:
                host = vm.split("-")[1]
                for direction, ops in step.ops_per_s.items():
                    lagging = step.index == 1 and vm == LAGGING_VM
                    n = ops // 2 if lagging else ops
                    if not measured:
                        values = [RAMP_LATENCY_NS] * n
                    else:
                        median = step.median_ns[direction] * (2 if lagging else 1)
                        values = np.maximum(rng.lognormal(math.log(median), 0.45, n), 1).astype(np.int64).tolist()
                        if step.index == 1 and vm == STALL_VM and direction == "READ" \
                                and ts == measured_start + STALL_SECOND * 1000:
                            values[0] = STALL_NS
                            run.stall_ts_ms = ts
                        run.latencies[step.index].extend(values)
                        run.by_direction[(step.index, direction)].extend(values)
                        run.by_vm[(step.index, vm)].extend(values)
                        run.by_source[(step.index, host, vm, direction)].extend(values)
                        run.ops[step.index] += n
                        run.bytes[step.index] += n * BLOCK
                        run.ops_by_vm[(step.index, vm)] += n
                    record = _sample(run.run_id, step.index, ts, host, vm, direction, values)
                    send(topics.IO_SAMPLES, record)
                    run.counts["io_samples"] += 1
                    if step.index == 1 and measured and vm == VMS[0] and second == step.ramp_s:
                        send(topics.IO_SAMPLES, dict(record))   # a replay: FINAL must count it once
            for host in HOSTS:
                pct = CPU_PCT[step.index][host] if measured else 90.0
                send(topics.CPU_SAMPLES, _cpu(run.run_id, step.index, ts, host, "HOST", -1, pct))
                send(topics.CPU_SAMPLES, _cpu(run.run_id, step.index, ts, host, "ROOT_PARTITION", -1, 10.0))
                send(topics.CPU_SAMPLES, _cpu(run.run_id, step.index, ts, host, "HOST", 0, 99.0))
                run.counts["cpu_samples"] += 3
            for (host, port, kind, queue, vm, speed), (rx, tx) in PORTS.items():
                factor = PEAK_FACTOR if measured and second - step.ramp_s == PEAK_SECOND else 1.0
                rx_b, tx_b = (int(rx * factor), int(tx * factor)) if measured else (5 * rx, 5 * tx)
                send(topics.PORT_SAMPLES, {
                    "ts_ms": ts, "interval_ms": INTERVAL_MS, "run_id": run.run_id, "step_index": step.index,
                    "host": host, "port_id": port, "kind": kind, "queue": queue, "vm": vm, "link_speed_bps": speed,
                    "rx_bytes": rx_b, "tx_bytes": tx_b, "rx_frames": 0, "tx_frames": 0, "rx_errors": 0,
                    "tx_errors": 0, "interrupts": 0, "tags": {}})
                run.counts["port_samples"] += 1
                if measured:
                    run.port_bytes[(step.index, host, port, queue)].append((rx_b, tx_b))
        send(topics.RUNS, _event(run.run_id, "STEP_ENDED", measured_end, step, measured_start, measured_end))
        run.counts["run_events"] += 2
        t = measured_end
    send(topics.RUNS, _event(run.run_id, "RUN_ENDED", t, None, run.start_ms, t))
    run.counts["run_events"] += 1
    producer.flush(120)


#: What these tests use: the ingest path (Kafka, registry, ClickHouse's Kafka engine) and ClickHouse's tables.


def held(stack, run_id: str) -> dict[str, int]:
    q = load("run_ingest_status")
    with client(stack.settings, stack.secrets, "reader") as ch:
        result = execute(q, bind(q, {"run_id": run_id}), ch)
    return {row[0]: int(row[1]) for row in result.rows}


@pytest.fixture(scope="session")
def known_run(stack) -> KnownRun:
    now_ms = int(time.time() * 1000)
    run = KnownRun(run_id=unique("sqllib"), start_ms=now_ms - now_ms % 1000 - 3_600_000)
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    build_and_send(producer, run)
    deadline = time.monotonic() + 180
    have: dict[str, int] = {}
    while time.monotonic() < deadline:
        have = held(stack, run.run_id)
        if all(have.get(t, 0) >= n for t, n in run.counts.items()):
            break
        time.sleep(1)
    assert have == dict(run.counts), f"ClickHouse holds {have}, expected {dict(run.counts)}"
    return run


@dataclass(frozen=True)
class Answer:
    query: NamedQuery
    columns: tuple[str, ...]
    rows: list[dict]


@pytest.fixture(scope="session")
def sql(stack):
    """sql(name, **params) -> Answer: a library query run as the reader, rows as dicts."""

    def run(name: str, **params) -> Answer:
        q = load(name)
        with client(stack.settings, stack.secrets, "reader") as ch:
            result = execute(q, bind(q, {k: str(v) for k, v in params.items()}), ch)
        return Answer(q, result.columns, [dict(zip(result.columns, row)) for row in result.rows])

    return run
