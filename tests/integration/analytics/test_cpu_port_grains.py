"""CPU and port rollups at every grain on the local stack: Avro samples in Kafka -> Flink -> cpu_samples_{1s,10s,1m}
and port_samples_{1s,10s,1m} in ClickHouse (migrations 0106, 0107, 0111-0114).

One run sends one CPU and one port sample per wall-clock second for SECONDS seconds, event time = wall time,
all inside one minute, so every grain of that minute is complete once the watermark passes the minute's end.
A side run keeps sending CPU and port samples afterwards: the CPU and port streams have their own watermarks,
which only their own samples move. Every value is compared with what was sent (rows read with FINAL).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict

import pytest

from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

from isolation import PREFIX, unique
from live_records import each_second
from live_stack import check_analytics_running, live_producer, reader

pytestmark = pytest.mark.slow

SECONDS = 12
HOST = f"{PREFIX}grains-h1"
#: Declared by the run; also what the link-speed rule gives 8.5 Gbps FC (8GFC) if a sample beats RUN_STARTED.
PAYLOAD_BYTES_PER_S = 800_000_000
#: After the minute ends: out-of-orderness (2 s), the periodic watermark, the sink's 1 s flush, slack.
SETTLE_TIMEOUT_S = 60.0


def _cpu(run_id: str, ts_ms: int, pct: float) -> dict:
    return {"ts_ms": ts_ms, "interval_ms": 1000, "run_id": run_id, "step_index": 0, "host": HOST, "vm": "",
            "scope": "HOST", "cpu": -1, "logical_processors": 8, "utilization_pct": pct, "user_pct": pct / 2,
            "privileged_pct": pct / 2, "dpc_pct": 0.0, "interrupt_pct": 0.0, "iowait_pct": 0.0,
            "interrupts_per_s": 1_000.0 * pct, "dpcs_per_s": 0.0, "tags": {}}


def _port(run_id: str, ts_ms: int, rx_bytes: int) -> dict:
    return {"ts_ms": ts_ms, "interval_ms": 1000, "run_id": run_id, "step_index": 0, "host": HOST,
            "port_id": "fc0", "kind": "FC_HBA", "queue": -1, "vm": "", "link_speed_bps": 8_500_000_000,
            "rx_bytes": rx_bytes, "tx_bytes": 1_000, "rx_frames": 0, "tx_frames": 0, "rx_errors": 0,
            "tx_errors": 0, "interrupts": 10, "tags": {}}


def _run_started(run_id: str, ts_ms: int) -> dict:
    return {"event_type": "RUN_STARTED", "ts_ms": ts_ms, "run_id": run_id, "scenario": f"{PREFIX}grains",
            "tool": "SIMULATOR", "description": "", "hosts": [], "step_index": -1, "step_label": "", "load": None,
            "links": [{"host": HOST, "port_id": "fc0", "kind": "FC_HBA", "speed_bps": 8_500_000_000,
                       "payload_bytes_per_s": PAYLOAD_BYTES_PER_S, "full_duplex": True}],
            "start_ms": None, "end_ms": None, "tags": {}}


class SideRun(threading.Thread):
    """One CPU and one port sample per wall-clock second for another run: moves both streams' watermarks."""

    def __init__(self, producer: TelemetryProducer, run_id: str):
        super().__init__(daemon=True)
        self.producer, self.run_id = producer, run_id
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            ts = int(time.time()) * 1000
            self.producer.send(topics.CPU_SAMPLES, _cpu(self.run_id, ts, 1.0))
            self.producer.send(topics.PORT_SAMPLES, _port(self.run_id, ts, 1))
            self.producer.flush(10)
            self.stopped.wait(1.0)


def test_cpu_and_port_rollups_land_in_every_grain(stack):
    check_analytics_running(stack)
    ch = reader(stack)
    for table in ("cpu_samples_1s", "cpu_samples_1m", "port_samples_1s", "port_samples_1m"):
        assert int(ch.command(f"EXISTS TABLE {table}")) == 1, f"{table}: migrations 0111-0114 not applied"

    run_id = unique("grains")
    producer = live_producer(stack)
    side = SideRun(producer, f"{run_id}-side")
    side.start()
    try:
        # All SECONDS samples inside one minute: start on a whole second with room before the minute ends.
        now_s = int(time.time()) + 1
        if now_s % 60 > 60 - SECONDS - 2:
            now_s += 60 - now_s % 60
        start_ms = now_s * 1000
        minute_ms = start_ms - start_ms % 60_000
        producer.send(topics.RUNS, _run_started(run_id, start_ms))
        pct: dict[int, float] = {}
        rx: dict[int, int] = {}
        for sec, ts in each_second(start_ms, SECONDS):
            pct[ts] = 10.0 + 5 * sec
            rx[ts] = (sec + 1) * 50_000_000
            producer.send(topics.CPU_SAMPLES, _cpu(run_id, ts, pct[ts]))
            producer.send(topics.PORT_SAMPLES, _port(run_id, ts, rx[ts]))
            producer.flush(10)

        def count(sql: str) -> int:
            return int(ch.command(sql, parameters={"run": run_id}))

        deadline = time.monotonic() + (minute_ms + 60_000 - time.time() * 1000) / 1000 + SETTLE_TIMEOUT_S
        while time.monotonic() < deadline:
            if (count("SELECT sum(samples) FROM cpu_samples_1m FINAL WHERE run_id = {run:String}") == SECONDS
                    and count("SELECT sum(samples) FROM port_samples_1m FINAL WHERE run_id = {run:String}") == SECONDS):
                break
            time.sleep(3.0)
    finally:
        side.stopped.set()
        side.join(5)

    def cpu_rows(grain: str) -> dict[int, tuple]:
        return {r[0]: r[1:] for r in ch.query(
            "SELECT toUnixTimestamp64Milli(window_start), toUnixTimestamp64Milli(window_end), samples, version, "
            f"utilization_pct, user_pct, interrupts_per_s FROM cpu_samples_{grain} FINAL WHERE run_id = {{run:String}}",
            parameters={"run": run_id}).result_rows}

    def port_rows(grain: str) -> dict[int, tuple]:
        return {r[0]: r[1:] for r in ch.query(
            "SELECT toUnixTimestamp64Milli(window_start), samples, rx_bytes, rx_mb_per_s, capacity_bytes_per_s, "
            f"rx_utilization_pct FROM port_samples_{grain} FINAL WHERE run_id = {{run:String}}",
            parameters={"run": run_id}).result_rows}

    for grain, length_ms in (("1s", 1_000), ("10s", 10_000), ("1m", 60_000)):
        by_window: dict[int, list[int]] = defaultdict(list)
        for ts in pct:
            by_window[ts - ts % length_ms].append(ts)

        cpu = cpu_rows(grain)
        assert sorted(cpu) == sorted(by_window), f"cpu_samples_{grain} windows"
        for start, tss in by_window.items():
            end, samples, version, util, user, irq = cpu[start]
            mean = sum(pct[t] for t in tss) / len(tss)  # equal intervals: the interval-weighted mean
            assert (end - start, samples, version) == (length_ms, len(tss), len(tss)), (grain, start)
            assert util == pytest.approx(mean) and user == pytest.approx(mean / 2), (grain, start)
            assert irq == pytest.approx(1_000.0 * mean), (grain, start)

        port = port_rows(grain)
        assert sorted(port) == sorted(by_window), f"port_samples_{grain} windows"
        for start, tss in by_window.items():
            samples, rx_bytes, mb_per_s, capacity, util = port[start]
            total = sum(rx[t] for t in tss)
            # Rates divide by the window: a window the run covered partly shows its lower mean rate.
            assert (samples, rx_bytes) == (len(tss), total), (grain, start)
            assert mb_per_s == pytest.approx(total / 1e6 / (length_ms / 1000)), (grain, start)
            assert capacity == PAYLOAD_BYTES_PER_S
            assert util == pytest.approx(total / (length_ms / 1000) / PAYLOAD_BYTES_PER_S * 100), (grain, start)
