"""Paces the engine's record stream (real time or as fast as possible) and hands records to a producer.

The simulator never imports Kafka: `run_simulation` takes any object with ``send(topic, record)`` and
``flush()`` -- ioscale.wire.producer.TelemetryProducer in production, a list-backed fake in tests. A sink that
also has ``send_blocks(blocks)`` gets the samples as column blocks (ioscale.wire.columns) and never sees a
dict per sample: that is what lets one process produce 50k+ I/O samples/s with histograms. In fast mode
blocks are gathered up to BLOCK_RECORDS records (fewer, larger batches to encode); events and the end of
the run send what is gathered first, so records leave in the order the engine made them.

Real time: a batch of records is released when its simulated time is reached on the wall clock
(samples at the end of their interval, events at their instant), divided by `speed` (speed 10 replays
ten simulated seconds per wall second; timestamps stay on the simulated timeline, which starts now).
Fast: no sleeping; timestamps run from start_ms.

Resume (`resume=`, what ioscale.wire.resume found on Kafka): only the records not delivered yet are sent
(ioscale.simulator.resume), on the run's own timeline: in real time the batch due at start_ms + x goes at wall time
start_ms + x / speed -- when the killed process, had it started at start_ms, would have sent it -- so every batch
already due goes at once and the rest keeps pace with the clock.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ioscale.errors import IoscaleError
from ioscale.simulator import scenarios
from ioscale.simulator.engine import Batch, Engine
from ioscale.simulator.resume import ResumePoint, locate, skip_delivered
from ioscale.wire import topics
from ioscale.wire.columns import RecordBlock
from ioscale.wire.resume import LastDelivered

Mode = Literal["fast", "realtime"]

#: Fast mode: samples gathered before they go to the sink's send_blocks.
BLOCK_RECORDS = 8192


class RecordSink(Protocol):
    def send(self, topic: str, record: dict[str, Any]) -> None: ...

    def flush(self) -> None: ...


@dataclass(frozen=True)
class SimulationProgress:
    scenario: str
    run_key: str
    step_label: str
    records_sent: int
    by_topic: dict[str, int]
    sim_ms: int                 # simulated time reached
    fraction_done: float        # of the scenario's intervals
    elapsed_s: float            # wall clock
    records_per_s: float
    done: bool = False


@dataclass
class SimulationReport:
    scenario: str
    seed: int
    start_ms: int
    end_ms: int
    records_sent: int = 0
    by_topic: Counter[str] = field(default_factory=Counter)
    elapsed_s: float = 0.0
    run_ids: list[str] = field(default_factory=list)
    already_delivered: int = 0      # resumed: records of the run found on Kafka, not sent again


def start_now_ms(interval_ms: int, clock: Callable[[], float] = time.time) -> int:
    """Where a simulation started now begins: the current time on an interval boundary (epoch ms)."""
    now_ms = int(clock() * 1000)
    return now_ms - now_ms % interval_ms


def make_engine(name: str, seed: int = 0, start_ms: int | None = None, *, step_s: int | None = None,
                ramp_s: int | None = None, run_id_prefix: str = "", clock: Callable[[], float] = time.time) -> Engine:
    scenario = scenarios.get(name)
    if start_ms is None:
        start_ms = start_now_ms(scenario.interval_ms, clock)
    return Engine(scenario, seed, start_ms, step_s=step_s, ramp_s=ramp_s, run_id_prefix=run_id_prefix)


def paced(engine: Engine, mode: Mode, speed: float = 1.0, *, clock: Callable[[], float] = time.time,
          sleep: Callable[[float], None] = time.sleep, batches: Iterable[Batch] | None = None,
          wall0: float | None = None) -> Iterator[Batch]:
    """The engine's batches (or `batches`, a part of them); in real-time mode each is held back until its simulated
    time (/ speed) past `wall0`, the wall time the run starts at (default: now)."""
    if mode not in ("fast", "realtime"):
        raise IoscaleError(f"unknown mode {mode!r}", "use 'fast' or 'realtime'")
    if speed <= 0:
        raise IoscaleError(f"speed must be > 0, got {speed}")
    if batches is None:
        batches = engine.batches()
    if mode == "fast":
        yield from batches
        return
    if wall0 is None:
        wall0 = clock()
    for batch in batches:
        delay = wall0 + (batch.due_ms - engine.start_ms) / 1000.0 / speed - clock()
        if delay > 0:
            sleep(delay)
        yield batch


def simulate(name: str, seed: int = 0, mode: Mode = "fast", start_ms: int | None = None, speed: float = 1.0, *,
             step_s: int | None = None, ramp_s: int | None = None, clock: Callable[[], float] = time.time,
             sleep: Callable[[float], None] = time.sleep) -> Iterator[tuple[str, dict[str, Any]]]:
    """(topic, record) pairs of scenario `name`. Same seed and start_ms -> the same records, byte for byte.

    start_ms defaults to now (on an interval boundary); pass it for a reproducible stream.
    step_s / ramp_s override the scenario's step and ramp-up lengths (tests use short steps).
    """
    engine = make_engine(name, seed, start_ms, step_s=step_s, ramp_s=ramp_s, clock=clock)
    for batch in paced(engine, mode, speed, clock=clock, sleep=sleep):
        yield from batch.records


def run_simulation(name: str, producer: RecordSink, seed: int = 0, realtime: bool = False, *,
                   progress: Callable[[SimulationProgress], None] | None = None, speed: float = 1.0,
                   start_ms: int | None = None, step_s: int | None = None, ramp_s: int | None = None,
                   run_id_prefix: str = "", resume: Mapping[tuple[str, bytes], LastDelivered] | None = None,
                   on_resume: Callable[[ResumePoint], None] | None = None, progress_every_s: float = 5.0,
                   clock: Callable[[], float] = time.time,
                   sleep: Callable[[float], None] = time.sleep) -> SimulationReport:
    """Send scenario `name` to `producer`, flush, and return what was sent.

    progress (optional) is called every `progress_every_s` of wall time and once at the end (done=True).
    resume: the last record of each key already on Kafka (ioscale.wire.resume.last_delivered); only what follows
    is sent, paced on the run's own timeline. on_resume gets the counts before anything is sent.
    """
    engine = make_engine(name, seed, start_ms, step_s=step_s, ramp_s=ramp_s, run_id_prefix=run_id_prefix, clock=clock)
    report = SimulationReport(name, engine.seed, engine.start_ms, engine.end_ms)
    batches: Iterable[Batch] | None = None
    wall0 = None
    if resume is not None:
        point = locate(engine.batches(), resume)   # raises before anything is sent when Kafka holds other records
        report.already_delivered = point.delivered
        report.run_ids = [r for r in engine.run_ids() if (topics.RUNS, r.encode()) in point.skip]
        if on_resume is not None:
            on_resume(point)
        batches = skip_delivered(engine.batches(), point.skip)
        wall0 = engine.start_ms / 1000.0
    total_ms = max(engine.end_ms - engine.start_ms, 1)
    send = producer.send
    by_topic: Counter[str] = report.by_topic
    t0 = clock()
    next_report = t0 + progress_every_s
    sent = 0
    batch: Batch | None = None

    def snapshot(done: bool) -> SimulationProgress:
        elapsed = clock() - t0
        return SimulationProgress(
            name, batch.run_key if batch else "", batch.step_label if batch else "", sent, dict(by_topic),
            batch.due_ms if batch else engine.start_ms,
            1.0 if done else min(((batch.due_ms if batch else engine.start_ms) - engine.start_ms) / total_ms, 1.0),
            elapsed, sent / elapsed if elapsed > 0 else 0.0, done)

    send_blocks = getattr(producer, "send_blocks", None)
    pending: list[RecordBlock] = []
    pending_records = 0
    for batch in paced(engine, "realtime" if realtime else "fast", speed, clock=clock, sleep=sleep, batches=batches,
                       wall0=wall0):
        if pending and batch.events:
            send_blocks(pending)
            pending, pending_records = [], 0
        for topic, record in batch.events:
            send(topic, record)
            by_topic[topic] += 1
            if topic == topics.RUNS and record["event_type"] == "RUN_STARTED":
                report.run_ids.append(record["run_id"])
        for block in batch.blocks:
            by_topic[block.topic] += block.n
            if send_blocks is None:
                for record in block.to_records():
                    send(block.topic, record)
            else:
                pending.append(block)
                pending_records += block.n
        if pending and (realtime or pending_records >= BLOCK_RECORDS):
            send_blocks(pending)
            pending, pending_records = [], 0
        sent += len(batch)
        if progress is not None and clock() >= next_report:
            progress(snapshot(False))
            next_report = clock() + progress_every_s
    if pending:
        send_blocks(pending)
    producer.flush()
    report.records_sent = sent
    report.elapsed_s = clock() - t0
    if progress is not None:
        progress(snapshot(True))
    return report
