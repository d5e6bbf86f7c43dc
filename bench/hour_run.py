"""What the SQL library and dashboard benches share: the simulated 320-VM, one-hour run they measure on, and
their percentile.

The run is the first run of scenario s2d-vmfleet-320 (the 4 KiB 70/30 sweep, 1 to 80 VMs per node on 4 nodes),
its 11 steps stretched to 5 s ramp-up + 322 s measured = 3597 s. Each bench picks its own seed and start time,
so their runs never mix (see each bench's docstring).
"""

from __future__ import annotations

import time
from dataclasses import replace

from ioscale.simulator import get_scenario
from ioscale.simulator.engine import Engine
from ioscale.stack.settings import StackSettings
from ioscale.wire.producer import TelemetryProducer

SCENARIO = "s2d-vmfleet-320"
STEP_S, RAMP_S = 322, 5            # 11 x (322 + 5) s = 3597 s
STEPS = 11


def hour_engine(seed: int, start_ms: int) -> Engine:
    scenario = get_scenario(SCENARIO)
    one_run = replace(scenario, runs=scenario.runs[:1])   # the 4 KiB 70/30 sweep only: one run_id
    return Engine(one_run, seed, start_ms, step_s=STEP_S, ramp_s=RAMP_S)


def expected_counts(engine: Engine) -> dict[str, int]:
    """Rows each raw table must hold for the run: computed from the scenario, without generating it."""
    counts = {"io_samples": 0, "cpu_samples": 0, "port_samples": 0, "run_events": 0}
    run = engine.scenario.runs[0]
    intervals = engine.step_intervals + engine.ramp_intervals
    hosts = len(run.host.names)
    counts["run_events"] = 2 + 2 * len(run.steps)
    for step in run.steps:
        for w in step.workloads:
            directions = (w.read_pct > 0) + (w.read_pct < 100)
            counts["io_samples"] += hosts * max(w.vm_count, 1) * w.targets_per_vm * directions * intervals
            counts["cpu_samples"] += hosts * w.vm_count * intervals
        counts["cpu_samples"] += hosts * 2 * intervals                      # HOST + ROOT_PARTITION per host
        counts["port_samples"] += hosts * sum(len(p.port_ids()) for p in run.ports) * intervals
    return counts


def generate(settings: StackSettings, engine: Engine) -> None:
    """Send the run through the real pipeline (TelemetryProducer -> Kafka), with progress."""
    producer = TelemetryProducer(settings.kafka_bootstrap, settings.url("registry"))
    t0 = time.perf_counter()
    sent = 0
    for batch in engine.batches():
        for topic, record in batch.records:
            producer.send(topic, record)
        sent += len(batch.records)
        if sent % 250_000 < len(batch.records):
            print(f"  generated {sent:,} records ({sent / (time.perf_counter() - t0):,.0f}/s)", flush=True)
    producer.flush(300)
    print(f"  sent {sent:,} records in {time.perf_counter() - t0:.1f} s", flush=True)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (the ceil(q x n)-th value): with 20 runs, p95 is the 19th."""
    rank = max(1, min(len(sorted_values), -(-int(q * 1000) * len(sorted_values) // 1000)))
    return sorted_values[rank - 1]
