"""A seeded simulated sweep streamed live (real time) from a thread, and what a fault-free stack must hold for it.

The fault suite kills one component while this runs. The records are the simulator's first run of a scenario,
byte for byte the same for the same seed wherever it starts (values do not depend on start_ms), so a fault run
and a fault-free run of one seed must give the same step rows, fits and alerts; and the records themselves are
the oracle of the raw tables (counts, ops, bytes, latency buckets per step).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ioscale.simulator import make_engine
from ioscale.simulator.runner import paced
from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

SCENARIO = "s2d-vmfleet-320"   # the sweep: 4 nodes, 1-80 VMs per node, ~180-320 I/O samples/s
STEP_S = 6
RAMP_S = 1


@dataclass
class Oracle:
    """What the raw tables must hold for the run, per step (step -1: run-level records)."""

    run_id: str = ""
    end_ms: int = 0
    records: Counter = field(default_factory=Counter)                # topic -> records
    io: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0]))  # step -> samples, ops, bytes, lat N
    buckets: dict = field(default_factory=lambda: defaultdict(int))  # step -> sum of latency bucket counts
    cpu: Counter = field(default_factory=Counter)                     # step -> samples
    port: dict = field(default_factory=lambda: defaultdict(lambda: [0, 0]))  # step -> samples, rx bytes


def first_run_batches(seed: int, start_ms: int, mode: str = "fast", step_s: int = STEP_S, ramp_s: int = RAMP_S):
    """The batches of the scenario's first run (the engine goes on with the study's other runs)."""
    engine = make_engine(SCENARIO, seed=seed, start_ms=start_ms, step_s=step_s, ramp_s=ramp_s)
    first = None
    for batch in paced(engine, mode):
        first = first or batch.run_key
        if batch.run_key != first:
            return
        yield batch


def oracle(seed: int, start_ms: int, step_s: int = STEP_S, ramp_s: int = RAMP_S) -> Oracle:
    o = Oracle()
    for batch in first_run_batches(seed, start_ms, "fast", step_s, ramp_s):
        for topic, r in batch.records:
            o.records[topic] += 1
            o.run_id = o.run_id or r["run_id"]
            step = r.get("step_index", -1)
            if topic == topics.IO_SAMPLES:
                io = o.io[step]
                io[0] += 1
                io[1] += r["ops"]
                io[2] += r["bytes"]
                io[3] += r["latency_count"]
                o.buckets[step] += sum(r["latency_bucket_count"])
            elif topic == topics.CPU_SAMPLES:
                o.cpu[step] += 1
            elif topic == topics.PORT_SAMPLES:
                o.port[step][0] += 1
                o.port[step][1] += r["rx_bytes"]
        o.end_ms = max(o.end_ms, batch.due_ms)
    return o


class LiveSweep(threading.Thread):
    """Streams the first run in real time from now (the next whole second); ``error`` holds what stopped it."""

    def __init__(self, stack, seed: int, step_s: int = STEP_S, ramp_s: int = RAMP_S):
        super().__init__(name=f"live-sweep-{seed}", daemon=True)
        now_ms = int(time.time() * 1000)
        self.start_ms = now_ms - now_ms % 1000 + 1000
        self.seed, self.step_s, self.ramp_s = seed, step_s, ramp_s
        self.oracle = oracle(seed, self.start_ms, step_s, ramp_s)
        self.producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url, {"linger.ms": 5},
                                          status=lambda line: print(f"[sweep {seed}] {line}", flush=True))
        self.error: BaseException | None = None

    @property
    def run_id(self) -> str:
        return self.oracle.run_id

    @property
    def seconds(self) -> float:
        return (self.oracle.end_ms - self.start_ms) / 1000

    def run(self) -> None:
        try:
            time.sleep(max(0.0, self.start_ms / 1000 - time.time()))
            for batch in first_run_batches(self.seed, self.start_ms, "realtime", self.step_s, self.ramp_s):
                for topic, record in batch.events:
                    self.producer.send(topic, record)
                if batch.blocks:
                    self.producer.send_blocks(batch.blocks)
            self.producer.flush(180)
        except BaseException as e:  # reported by the test, which joins this thread
            self.error = e
        finally:
            self.producer.close()
