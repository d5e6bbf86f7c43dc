"""A simulated run stamped in the past, published to the stack under a test run id: what `ioscale analyze` works on
(an import, a fast-mode simulation), for the replay tests."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field

from ioscale.simulator import make_engine
from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

from isolation import prefixed


@dataclass
class PastRun:
    run_id: str = ""
    io_samples: int = 0
    ops: int = 0
    steps: set[int] = field(default_factory=set)


def publish_past_run(stack, scenario: str, *, seconds_ago: int, step_s: int, ramp_s: int) -> PastRun:
    """The scenario's first run, a random seed, stamped ``seconds_ago``, every record sent and flushed."""
    now_ms = int(time.time() * 1000)
    engine = make_engine(scenario, seed=int(uuid.uuid4().int % 10_000),
                         start_ms=now_ms - now_ms % 1000 - seconds_ago * 1000, step_s=step_s, ramp_s=ramp_s)
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    run = PastRun()
    for batch in engine.batches():
        for topic, record in batch.records:
            record = prefixed(record)
            run.run_id = run.run_id or record["run_id"]
            if record["run_id"] != run.run_id:
                continue
            producer.send(topic, record)
            if topic == topics.IO_SAMPLES:
                run.io_samples += 1
                run.ops += record["ops"]
                run.steps.add(record["step_index"])
    producer.flush(60)
    return run
