"""Records for live tests of the analytics job: the Avro values (as dicts) of I/O, CPU and port samples and run
events, as a collector would produce them, with latencies whose exact percentiles the test can compute."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

from ioscale.histogram import LatencyHistogram

from isolation import PREFIX

HOST = f"{PREFIX}e2e-h1"


def latencies(seed: int, n: int, median_ns: int) -> list[int]:
    """Deterministic lognormal-ish latencies (no numpy in the ingest venv)."""
    import random

    rng = random.Random(seed)
    return [max(1, round(median_ns * math.exp(0.4 * rng.gauss(0, 1)))) for _ in range(n)]


def io_sample(run_id: str, step: int, ts_ms: int, vm: str, ops: int, latencies: list[int]) -> dict:
    h = LatencyHistogram()
    h.record_many(latencies)
    sparse = h.to_sparse()
    return {
        "ts_ms": ts_ms, "interval_ms": 1000, "run_id": run_id, "step_index": step, "host": HOST, "vm": vm,
        "target": "sdb", "direction": "READ", "ops": ops, "bytes": ops * 8192, "outstanding_ios": 32.0,
        "errors": 0, "latency_count": h.count, "latency_sum_ns": h.sum_ns, "latency_min_ns": h.min_ns,
        "latency_max_ns": h.max_ns, "latency_hist_scheme": 1, "latency_bucket_index": list(sparse.indexes),
        "latency_bucket_count": list(sparse.counts), "percentile_q": [], "percentile_ns": [], "tags": {},
    }


def run_event(event_type: str, run_id: str, ts_ms: int, step: int = -1, **extra) -> dict:
    event = {
        "event_type": event_type, "ts_ms": ts_ms, "run_id": run_id, "scenario": f"{PREFIX}e2e-analytics",
        "tool": "SIMULATOR", "description": "", "hosts": [], "step_index": step, "step_label": "", "load": None,
        "links": [], "start_ms": None, "end_ms": None, "tags": {},
    }
    event.update(extra)
    return event


def load(vms: int) -> dict:
    return {"vm_count": vms, "targets_per_vm": 1, "workers_per_target": 1, "outstanding_ios_per_target": 32,
            "block_size_bytes": 8192, "read_pct": 100.0, "random_pct": 100.0, "adapter": "", "config_labels": {}}


def cpu(run_id: str, step: int, ts_ms: int, pct: float) -> dict:
    return {"ts_ms": ts_ms, "interval_ms": 1000, "run_id": run_id, "step_index": step, "host": HOST, "vm": "",
            "scope": "HYPERVISOR", "cpu": -1, "logical_processors": 16, "utilization_pct": pct, "user_pct": 0.0,
            "privileged_pct": 0.0, "dpc_pct": 0.0, "interrupt_pct": 0.0, "iowait_pct": 0.0,
            "interrupts_per_s": 20_000.0, "dpcs_per_s": 0.0, "tags": {}}


def port(run_id: str, step: int, ts_ms: int, rx_bytes: int) -> dict:
    return {"ts_ms": ts_ms, "interval_ms": 1000, "run_id": run_id, "step_index": step, "host": HOST,
            "port_id": "fc0", "kind": "FC_HBA", "queue": -1, "vm": "", "link_speed_bps": 8_500_000_000,
            "rx_bytes": rx_bytes, "tx_bytes": 1_000_000, "rx_frames": 0, "tx_frames": 0, "rx_errors": 0,
            "tx_errors": 0, "interrupts": 0, "tags": {}}


def sleep_until(ts_ms: int) -> None:
    """Waits for the wall clock to reach ``ts_ms``: live tests stamp samples with the time they are sent."""
    delay = ts_ms / 1000 - time.time()
    if delay > 0:
        time.sleep(delay)


def each_second(start_ms: int, seconds: int) -> Iterator[tuple[int, int]]:
    """(second, its time stamp) for ``seconds`` seconds from ``start_ms``, each once the wall clock reaches it."""
    for sec in range(seconds):
        ts = start_ms + sec * 1000
        sleep_until(ts)
        yield sec, ts
