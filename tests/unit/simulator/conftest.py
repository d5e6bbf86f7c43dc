"""Generates each scenario once per session (fast mode, short steps) and aggregates the records per step,
the way a dashboard would: only from the records, never from the model's internals."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pytest

from ioscale.histogram import LatencyHistogram
from ioscale.simulator import simulate

START_MS = 1_767_225_600_000   # 2026-01-01T00:00:00Z: a fixed start keeps the stream reproducible
STEP_S = 5                     # short steps keep the suite fast; the model is stationary within a step
RAMP_S = 1
SEED = 7


@dataclass
class StepStats:
    run_key: str
    step_index: int
    label: str
    load: dict[str, Any]
    seconds: float = 0.0
    ops: int = 0
    read_ops: int = 0
    write_ops: int = 0
    bytes: int = 0
    read_bytes: int = 0
    write_bytes: int = 0
    latency_sum_ns: int = 0
    outstanding_sum: float = 0.0                 # summed over sources and intervals
    per_target_outstanding: dict[tuple[str, str, str], float] = field(default_factory=lambda: defaultdict(float))
    per_vm_bytes: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    hist: LatencyHistogram = field(default_factory=LatencyHistogram)
    port_rx: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    port_tx: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    port_kind: dict[tuple[str, str], str] = field(default_factory=dict)
    cpu_util: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))  # (host, scope)
    cpu_interrupts: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    vm_util: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    # -- derived figures --
    @property
    def iops(self) -> float:
        return self.ops / self.seconds

    @property
    def bytes_per_s(self) -> float:
        return self.bytes / self.seconds

    @property
    def mib_per_s(self) -> float:
        return self.bytes / self.seconds / 2**20

    @property
    def mean_latency_s(self) -> float:
        return self.latency_sum_ns / self.ops / 1e9

    @property
    def outstanding(self) -> float:
        """Mean number of I/Os in flight over all sources (time-average)."""
        return self.outstanding_sum / self.seconds

    def rx_bytes_per_s(self, port_prefix: str = "") -> float:
        return sum(v for (h, p), v in self.port_rx.items() if p.startswith(port_prefix)) / self.seconds

    def host_cpu_pct(self, scope: str = "HOST") -> float:
        vals = [v for (h, s), lst in self.cpu_util.items() if s == scope for v in lst]
        return sum(vals) / len(vals)

    def interrupts_per_s(self, scope: str) -> float:
        vals = [v for (h, s), lst in self.cpu_interrupts.items() if s == scope for v in lst]
        return sum(vals) / len(vals)

    def quantile_ms(self, q: float) -> tuple[float, bool]:
        r = self.hist.quantile(q)
        return r.value_ns / 1e6, r.too_few_samples


def collect(records: list[tuple[str, dict[str, Any]]]) -> dict[tuple[str, int], StepStats]:
    """Per (run key, step index): figures over the measured part of each step (ramp-up excluded)."""
    run_key: dict[str, str] = {}
    windows: dict[tuple[str, int], tuple[int, int]] = {}
    stats: dict[tuple[str, int], StepStats] = {}
    for topic, r in records:
        if topic == "ioscale.runs":
            if r["event_type"] == "RUN_STARTED":
                run_key[r["run_id"]] = r["tags"]["run_key"]
            elif r["event_type"] == "STEP_ENDED":
                key = (run_key[r["run_id"]], r["step_index"])
                windows[(r["run_id"], r["step_index"])] = (r["start_ms"], r["end_ms"])
                stats[key] = StepStats(key[0], key[1], r["step_label"], r["load"],
                                       seconds=(r["end_ms"] - r["start_ms"]) / 1000)
    for topic, r in records:
        if topic == "ioscale.runs":
            continue
        lo, hi = windows[(r["run_id"], r["step_index"])]
        if not lo <= r["ts_ms"] < hi:
            continue
        st = stats[(run_key[r["run_id"]], r["step_index"])]
        if topic == "ioscale.io_samples":
            st.ops += r["ops"]
            st.bytes += r["bytes"]
            if r["direction"] == "READ":
                st.read_ops += r["ops"]
                st.read_bytes += r["bytes"]
            else:
                st.write_ops += r["ops"]
                st.write_bytes += r["bytes"]
            st.latency_sum_ns += r["latency_sum_ns"]
            st.outstanding_sum += r["outstanding_ios"]
            st.per_target_outstanding[(r["host"], r["vm"], r["target"])] += r["outstanding_ios"] / st.seconds
            st.per_vm_bytes[(r["host"], r["vm"])] += r["bytes"]
            if r["ops"]:
                st.hist.merge(LatencyHistogram.from_sparse(
                    r["latency_bucket_index"], r["latency_bucket_count"], sum_ns=r["latency_sum_ns"],
                    min_ns=r["latency_min_ns"], max_ns=r["latency_max_ns"]))
        elif topic == "ioscale.port_samples":
            if r["queue"] == -1:
                st.port_rx[(r["host"], r["port_id"])] += r["rx_bytes"]
                st.port_tx[(r["host"], r["port_id"])] += r["tx_bytes"]
                st.port_kind[(r["host"], r["port_id"])] = r["kind"]
        elif topic == "ioscale.cpu_samples":
            if r["scope"] == "VM":
                st.vm_util[r["vm"]].append(r["utilization_pct"])
            else:
                st.cpu_util[(r["host"], r["scope"])].append(r["utilization_pct"])
                st.cpu_interrupts[(r["host"], r["scope"])].append(r["interrupts_per_s"])
    return stats


_CACHE: dict[tuple[str, int], list[tuple[str, dict[str, Any]]]] = {}


def generate(name: str, seed: int = SEED) -> list[tuple[str, dict[str, Any]]]:
    key = (name, seed)
    if key not in _CACHE:
        _CACHE[key] = list(simulate(name, seed=seed, mode="fast", start_ms=START_MS, step_s=STEP_S, ramp_s=RAMP_S))
    return _CACHE[key]


@pytest.fixture(scope="session")
def steps():
    """steps(scenario) -> {(run_key, step_index): StepStats}."""
    cache: dict[str, dict[tuple[str, int], StepStats]] = {}

    def get(name: str) -> dict[tuple[str, int], StepStats]:
        if name not in cache:
            cache[name] = collect(generate(name))
        return cache[name]

    return get


@pytest.fixture(scope="session")
def records():
    """records(scenario) -> the scenario's (topic, record) list, generated once per session."""
    return generate


@dataclass(frozen=True)
class SimSettings:
    start_ms: int = START_MS
    step_s: int = STEP_S
    ramp_s: int = RAMP_S
    seed: int = SEED


@pytest.fixture(scope="session")
def sim_settings() -> SimSettings:
    return SimSettings()
