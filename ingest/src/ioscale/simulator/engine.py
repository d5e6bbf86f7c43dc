"""Turns a scenario into the record stream: runs -> steps -> 1-second intervals -> records.

Timeline. Runs follow each other; each step is `ramp_s` seconds of ramp-up then `step_s` measured
seconds. STEP_STARTED is stamped at the start of the ramp-up; STEP_ENDED carries start_ms = the start of
the measured part and end_ms = the end of the step, so a query between those bounds excludes ramp-up as
Iometer's results do. Samples of the ramp-up carry the step's index.

Per interval and source (host, VM, target, direction), with the step's solved model (network.py):
- ops: the class's throughput x interval, with a zero-sum jitter between the sources of a host (a closed
  loop at a shared bottleneck redistributes, it does not create capacity) and a small common jitter
  that never pushes the busiest shared station past saturation; stochastic rounding to integers;
- latencies: the I/Os are spread over the quantile strata of the lognormal body (model.STRATA_EDGES) by
  systematic sampling, one latency is drawn inside each non-empty stratum, and rare stalls are drawn one
  by one. The record's histogram, count, sum, min and max are computed from exactly those latencies, so
  they agree with each other bit for bit; a record carries ~20 buckets;
- outstanding_ios = latency_sum / interval length: the time-average number of I/Os in flight, as
  Windows' Avg. Disk Queue Length is defined (Little's law). Over a step it equals workers x queue depth.
CPU samples follow from the realised I/O counts and the CPU costs per I/O; port samples from the bytes
each I/O moves over each port.

Determinism: one numpy PCG64 stream per (seed, run, step), drawn in fixed chunks of intervals, so the
same seed and start time give the same records, byte for byte, in fast and real-time mode alike.

Output form: the samples of an interval leave as column blocks (ioscale.wire.columns), the numpy arrays the
model computes plus per-step identity columns (who each row is), never as one dict per sample: building
~2 dicts per I/O sample cost more than generating it, and the producer encodes blocks directly.
`Batch.records` builds the same records as dicts for whoever wants them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from ioscale.histogram import SCHEME_ID
from ioscale.simulator import network
from ioscale.simulator.model import STRATA_EDGES, STRATA_WIDTHS, bucket_indexes, norm_ppf
from ioscale.simulator.specs import KIB, RunSpec, Scenario, StepSpec
from ioscale.wire import topics
from ioscale.wire.columns import Coded, Const, Ragged, RecordBlock
from ioscale.wire.records import CpuSample, IoSample, PortSample

CHUNK_INTERVALS = 16            # intervals drawn per numpy batch (fixed: part of the determinism)
INDEX_BITS = 13                 # bucket indexes < 8192: key = row << 13 | index
USER_SHARE_OF_GUEST = 0.25      # of the issuing OS's CPU per I/O, the load tool's user-mode part
SCHEMA_VERSION_TAG = "1"
IO_FIELDS = tuple(IoSample.__annotations__)     # schema order (tests check records.py against schema/)
CPU_FIELDS = tuple(CpuSample.__annotations__)
PORT_FIELDS = tuple(PortSample.__annotations__)


class Batch:
    """Records due at `due_ms` (simulated time): events at their time, samples at the end of their interval.

    Samples come as column blocks (ioscale.wire.columns), one per topic, in the order IoSample, CpuSample,
    PortSample: a producer that takes blocks encodes them without building a dict per record.
    `records` lists every record as (topic, dict) -- the events, then each block's records -- built
    on first use.
    """

    __slots__ = ("due_ms", "events", "blocks", "run_key", "step_label", "_records")

    def __init__(self, due_ms: int, events: list[tuple[str, dict[str, Any]]] | None = None, run_key: str = "",
                 step_label: str = "", *, blocks: list[RecordBlock] | None = None):
        self.due_ms = due_ms
        self.events = events or []
        self.blocks = blocks or []
        self.run_key = run_key
        self.step_label = step_label
        self._records: list[tuple[str, dict[str, Any]]] | None = None

    @property
    def records(self) -> list[tuple[str, dict[str, Any]]]:
        if self._records is None:
            out = list(self.events)
            for block in self.blocks:
                out.extend(block.items())
            self._records = out
        return self._records

    def __len__(self) -> int:
        return len(self.events) + sum(b.n for b in self.blocks)


@dataclass
class _Source:
    host: int
    vm: int                     # index into the step's VM table, -1 for I/O issued by the host
    host_name: str
    vm_name: str
    target: str
    direction: str
    workload: int
    rate_per_s: float
    mean_s: float
    unloaded_s: float
    block_bytes: int


@dataclass
class _Vm:
    host: int
    name: str
    number: int
    vcpus: int


@dataclass
class _StepPlan:
    step: StepSpec
    result: network.StepResult
    sources: list[_Source]
    vms: list[_Vm]
    headroom: float             # how far the common jitter may push load before the busiest station saturates
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    # Who each record of an interval is (the same every interval of the step), as columns of the blocks.
    io_identity: dict[str, Coded] = field(default_factory=dict)
    cpu_scope: str | None = None
    cpu_identity: dict[str, Coded] = field(default_factory=dict)
    port_identity: dict[str, Any] = field(default_factory=dict)
    # Constant columns, the same objects for every block of the step (blocks concatenate cheaply).
    consts: dict[str, Const] = field(default_factory=dict)


def run_id_for(scenario: str, run_key: str, start_ms: int, seed: int, prefix: str = "") -> str:
    stamp = datetime.fromtimestamp(start_ms / 1000, tz=timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{prefix}sim-{scenario}-{run_key}-{stamp}-s{seed}"


class Engine:
    """Generates a scenario's records; pure (no clock, no I/O): the caller paces and sends them."""

    def __init__(self, scenario: Scenario, seed: int, start_ms: int, *, step_s: int | None = None,
                 ramp_s: int | None = None, run_id_prefix: str = ""):
        if "/" in run_id_prefix:  # record keys join the run id and the source with "/" (wire.producer.source_key)
            raise ValueError(f"a run id prefix holds no '/': {run_id_prefix!r}")
        self.scenario = scenario
        self.run_id_prefix = run_id_prefix
        self.seed = int(seed)
        self.start_ms = int(start_ms)
        self.interval_ms = scenario.interval_ms
        self.step_s = scenario.step_s if step_s is None else int(step_s)
        self.ramp_s = scenario.ramp_s if ramp_s is None else int(ramp_s)
        if self.step_s < 1 or self.ramp_s < 0:
            raise ValueError("step_s must be >= 1 and ramp_s >= 0")
        self.step_intervals = self.step_s * 1000 // self.interval_ms
        self.ramp_intervals = self.ramp_s * 1000 // self.interval_ms

    @property
    def total_intervals(self) -> int:
        return self.scenario.step_count * (self.step_intervals + self.ramp_intervals)

    @property
    def end_ms(self) -> int:
        return self.start_ms + self.total_intervals * self.interval_ms

    def run_ids(self) -> list[str]:
        """The id of each run, in order (without generating a record)."""
        out, t_ms = [], self.start_ms
        for run in self.scenario.runs:
            out.append(run_id_for(self.scenario.name, run.key, t_ms, self.seed, self.run_id_prefix))
            t_ms += len(run.steps) * (self.ramp_intervals + self.step_intervals) * self.interval_ms
        return out

    # -- the stream ---------------------------------------------------------------------------------------
    def batches(self) -> Iterator[Batch]:
        t_ms = self.start_ms
        for r, run in enumerate(self.scenario.runs):
            run_start = t_ms
            run_id = run_id_for(self.scenario.name, run.key, run_start, self.seed, self.run_id_prefix)
            run_tags = {"seed": str(self.seed), "run_key": run.key, "simulated": "true",
                        **{f"config.{k}": v for k, v in run.config_labels.items()}}
            links = self._links(run)
            yield Batch(t_ms, [(topics.RUNS, self._run_event("RUN_STARTED", t_ms, run_id, run, -1, "", None,
                                                             links, None, None, run_tags, hosts=True))], run.key)
            previous: dict[tuple[str, str, str, str], tuple[float, float]] = {}
            for s, step in enumerate(run.steps):
                plan = self._plan(run, step)
                load = self._step_load(run, step)
                step_tags = {**run_tags, "ramp_up_s": str(self.ramp_s)}
                step_start = t_ms
                yield Batch(t_ms, [(topics.RUNS, self._run_event("STEP_STARTED", t_ms, run_id, run, s, step.label,
                                                                 load, links, None, None, step_tags))],
                            run.key, step.label)
                rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([self.seed, r, s])))
                n_intervals = self.ramp_intervals + self.step_intervals
                ramp = self._ramp_factors(plan, previous)
                for first in range(0, n_intervals, CHUNK_INTERVALS):
                    count = min(CHUNK_INTERVALS, n_intervals - first)
                    for batch in self._chunk(rng, run, run_id, s, plan, ramp, first, count, t_ms):
                        batch.run_key, batch.step_label = run.key, step.label
                        yield batch
                    t_ms += count * self.interval_ms
                measured_start = step_start + self.ramp_intervals * self.interval_ms
                yield Batch(t_ms, [(topics.RUNS, self._run_event("STEP_ENDED", t_ms, run_id, run, s, step.label,
                                                                 load, links, measured_start, t_ms, step_tags))],
                            run.key, step.label)
                previous = {(src.host_name, src.vm_name, src.target, src.direction): (src.rate_per_s, src.mean_s)
                            for src in plan.sources}
            yield Batch(t_ms, [(topics.RUNS, self._run_event("RUN_ENDED", t_ms, run_id, run, -1, "", None, links,
                                                             run_start, t_ms, run_tags))], run.key)

    def records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for batch in self.batches():
            yield from batch.records

    # -- events -------------------------------------------------------------------------------------------
    def _links(self, run: RunSpec) -> list[dict[str, Any]]:
        return [{"host": host, "port_id": pid, "kind": port.kind, "speed_bps": port.speed_bps,
                 "payload_bytes_per_s": port.payload_bytes_per_s, "full_duplex": port.full_duplex}
                for host in run.host.names for port in run.ports for pid in port.port_ids()]

    def _step_load(self, run: RunSpec, step: StepSpec) -> dict[str, Any]:
        ws = step.workloads
        classes = sum(w.classes_per_host for w in ws)
        read_pct = sum(w.read_pct * w.classes_per_host for w in ws) / classes
        random_pct = sum(w.random_pct * w.classes_per_host for w in ws) / classes
        first = ws[0]
        labels = {**run.config_labels, **step.config_labels}
        if len(ws) > 1:
            labels["mix"] = " + ".join(f"{w.vm_count} VM x {w.block_size_bytes // KIB} KB {w.read_pct:.0f}% read"
                                       for w in ws)
        return {"vm_count": sum(w.vm_count for w in ws), "targets_per_vm": first.targets_per_vm,
                "workers_per_target": first.workers_per_target, "outstanding_ios_per_target": first.qd,
                "block_size_bytes": first.block_size_bytes, "read_pct": float(read_pct),
                "random_pct": float(random_pct), "adapter": step.adapter, "config_labels": labels}

    def _run_event(self, event_type: str, ts_ms: int, run_id: str, run: RunSpec, step_index: int, label: str,
                   load: dict[str, Any] | None, links: list[dict[str, Any]], start_ms: int | None,
                   end_ms: int | None, tags: dict[str, str], hosts: bool = False) -> dict[str, Any]:
        h = run.host
        return {
            "event_type": event_type, "ts_ms": ts_ms, "run_id": run_id, "scenario": self.scenario.name,
            "tool": run.tool, "description": run.description,
            "hosts": [{"host": n, "hypervisor": h.hypervisor, "sockets": h.sockets, "cores": h.cores,
                       "logical_processors": h.logical_processors, "memory_bytes": h.memory_bytes}
                      for n in h.names] if hosts else [],
            # Fresh copies per event: records are handed out and must not share mutable parts.
            "step_index": step_index, "step_label": label,
            "load": None if load is None else {**load, "config_labels": dict(load["config_labels"])},
            "links": [dict(link) for link in links] if event_type in ("RUN_STARTED", "STEP_STARTED") else [],
            "start_ms": start_ms, "end_ms": end_ms, "tags": dict(tags),
        }

    # -- the step's sources -------------------------------------------------------------------------------
    def _plan(self, run: RunSpec, step: StepSpec) -> _StepPlan:
        result = network.solve_step(run, step)
        sources: list[_Source] = []
        vms: list[_Vm] = []
        for h, host in enumerate(run.host.names):
            for j, w in enumerate(step.workloads):
                sol = result.workload(j)
                rf = w.read_pct / 100.0
                directions = [(d, share, mean, unloaded) for d, share, mean, unloaded in (
                    ("READ", rf, sol.read_latency_s, sol.unloaded_read_latency_s),
                    ("WRITE", 1.0 - rf, sol.write_latency_s, sol.unloaded_write_latency_s)) if share > 0]
                for v in range(max(w.vm_count, 1)):
                    if w.vm_count > 0:
                        number = w.first_vm + v
                        vm_name = run.vm_name.format(n=number, host=host)
                        vm_index = len(vms)
                        vms.append(_Vm(h, vm_name, number, w.vcpus))
                    else:
                        vm_name, vm_index = "", -1
                    for t in range(w.targets_per_vm):
                        target = run.storage.target_name.format(n=t + 1)
                        for d, share, mean, unloaded in directions:
                            sources.append(_Source(h, vm_index, host, vm_name, target, d, j,
                                                   sol.throughput_per_s * share, mean, unloaded, w.block_size_bytes))
        # Room for common-mode jitter: the busiest shared station must stay below saturation.
        busiest = max((u for name, u in result.solution.utilization.items()), default=0.0)
        headroom = max(0.0, 0.995 / busiest - 1.0) if busiest > 0 else 0.05
        plan = _StepPlan(step, result, sources, vms, headroom)
        self._arrays(run, plan)
        self._identities(run, plan)
        return plan

    def _identities(self, run: RunSpec, plan: _StepPlan) -> None:
        """Per-record identity columns; each topic's share one codes array (the encoder works per row)."""
        def columns(rows: list[tuple], names: tuple[str, ...]) -> dict[str, Coded]:
            codes = np.arange(len(rows), dtype=np.int64)
            return {name: Coded(codes, tuple(r[k] for r in rows)) for k, name in enumerate(names)}

        plan.io_identity = columns([(s.host_name, s.vm_name, s.target, s.direction) for s in plan.sources],
                                   ("host", "vm", "target", "direction"))
        host = run.host
        plan.cpu_scope = scope = {"hyperv": "ROOT_PARTITION", "esx": "HYPERVISOR"}.get(host.platform)
        cpu_rows = []
        for name in host.names:
            cpu_rows.append((name, "", "HOST", host.logical_processors))
            if scope is not None:
                cpu_rows.append((name, "", scope, host.logical_processors))
        cpu_rows += [(host.names[vm.host], vm.name, "VM", vm.vcpus) for vm in plan.vms]
        plan.cpu_identity = columns(cpu_rows, ("host", "vm", "scope", "logical_processors"))
        vmq = run.vswitch is not None and run.vswitch.vmq and bool(plan.vms)
        port_rows = []
        for p, port in enumerate(run.ports):
            ids = port.port_ids()
            port_rows += [(h, pid, port.kind, -1, "", port.speed_bps) for h in host.names for pid in ids]
            if vmq and run.vswitch.port_index == p:
                port_rows += [(host.names[vm.host], ids[0], "NIC_VMQ", vm.number, vm.name, port.speed_bps)
                              for vm in plan.vms]
        plan.port_identity = columns(port_rows, ("host", "port_id", "kind", "queue", "vm", "link_speed_bps"))

    def _arrays(self, run: RunSpec, plan: _StepPlan) -> None:
        src = plan.sources
        lat = run.latency
        mean = np.array([s.mean_s for s in src])
        unloaded = np.array([s.unloaded_s for s in src])
        sigma = np.array([lat.sigma(m, u) for m, u in zip(mean, unloaded)])
        log_mu = np.array([lat.body_log_mu(m, u) for m, u in zip(mean, unloaded)])
        stall_log_median = np.log([lat.stall_median(m, u) for m, u in zip(mean, unloaded)]) if src else np.zeros(0)
        is_write = np.array([s.direction == "WRITE" for s in src], dtype=bool)
        block = np.array([s.block_bytes for s in src], dtype=np.int64)
        in_vm = np.array([s.vm >= 0 for s in src], dtype=bool)
        cpu = run.cpu
        guest_s = np.array([cpu.guest_s(s.block_bytes) for s in src])
        root_s = np.array([cpu.root_s(s.block_bytes, s.direction == "WRITE") + (cpu.hypervisor_us * 1e-6 if s.vm >= 0 else 0.0)
                           for s in src])
        port_rx = np.zeros((len(run.ports), len(src)))
        port_tx = np.zeros((len(run.ports), len(src)))
        port_frames_rx = np.zeros((len(run.ports), len(src)))
        port_frames_tx = np.zeros((len(run.ports), len(src)))
        for p, port in enumerate(run.ports):
            for i, s in enumerate(src):
                rx, tx = network.port_bytes_per_io(port, s.block_bytes, s.direction == "WRITE")
                port_rx[p, i], port_tx[p, i] = rx, tx
                # Frames: data frames of at most frame_payload_bytes plus one command/status frame when the
                # protocol has them (FC); Ethernet carries everything in payload-sized packets.
                extra = 1.0 if port.command_bytes else 0.0
                port_frames_rx[p, i] = math.ceil((rx - port.command_bytes) / port.frame_payload_bytes) + extra if rx else 0
                port_frames_tx[p, i] = math.ceil((tx - port.command_bytes) / port.frame_payload_bytes) + extra if tx else 0
        vswitch_rx = np.array([network.vswitch_bytes_per_io(run, s.block_bytes, s.direction == "WRITE") for s in src])
        plan.arrays = {
            "rate": np.array([s.rate_per_s for s in src]), "mean": mean, "sigma": sigma, "log_mu": log_mu,
            "stall_log_median": np.asarray(stall_log_median, dtype=float), "is_write": is_write, "block": block,
            "host": np.array([s.host for s in src], dtype=np.int64),
            "vm": np.array([s.vm for s in src], dtype=np.int64), "in_vm": in_vm,
            "guest_s": guest_s, "root_s": root_s, "port_rx": port_rx, "port_tx": port_tx,
            "frames_rx": port_frames_rx, "frames_tx": port_frames_tx, "vswitch_rx": vswitch_rx,
        }

    def _ramp_factors(self, plan: _StepPlan, previous: dict[tuple[str, str, str, str], tuple[float, float]]
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Per source, the (rate, mean latency) the ramp-up starts from: the previous step's, or 0 rate."""
        prev_rate = np.array([previous.get((s.host_name, s.vm_name, s.target, s.direction), (0.0, s.mean_s))[0]
                              for s in plan.sources])
        prev_mean = np.array([previous.get((s.host_name, s.vm_name, s.target, s.direction), (0.0, s.mean_s))[1]
                              for s in plan.sources])
        return prev_rate, prev_mean

    def _consts(self, plan: _StepPlan, run_id: str, step_index: int) -> dict[str, Const]:
        if not plan.consts:
            plan.consts.update(
                interval_ms=Const(self.interval_ms), run_id=Const(run_id), step_index=Const(step_index),
                zero=Const(0), zero_pct=Const(0.0), all_cpus=Const(-1), scheme=Const(SCHEME_ID),
                empty_list=Const([]), empty_map=Const({}))
        return plan.consts

    # -- one chunk of intervals ---------------------------------------------------------------------------
    def _chunk(self, rng: np.random.Generator, run: RunSpec, run_id: str, step_index: int, plan: _StepPlan,
               ramp: tuple[np.ndarray, np.ndarray], first: int, count: int, chunk_start_ms: int) -> Iterator[Batch]:
        a = plan.arrays
        n_src = len(plan.sources)
        n_hosts = len(run.host.names)
        interval_s = self.interval_ms / 1000.0
        rows = count * n_src

        # Throughput per (interval, source), ramped from the previous step's level.
        k = np.arange(first, first + count)
        if self.ramp_intervals:
            frac = np.minimum((k + 1) / (self.ramp_intervals + 1), 1.0)
        else:
            frac = np.ones(count)
        prev_rate, prev_mean = ramp
        rate = prev_rate[None, :] + (a["rate"][None, :] - prev_rate[None, :]) * frac[:, None]
        mean_s = prev_mean[None, :] + (a["mean"][None, :] - prev_mean[None, :]) * frac[:, None]
        cv = run.throughput_cv
        eps = rng.normal(0.0, cv, size=(count, n_src))
        weights = np.bincount(a["host"], weights=a["rate"], minlength=n_hosts)
        for h in range(n_hosts):  # zero-sum per host, weighted by rate
            mask = a["host"] == h
            if weights[h] > 0:
                eps[:, mask] -= (eps[:, mask] * a["rate"][mask]).sum(axis=1, keepdims=True) / weights[h]
        common = np.clip(rng.normal(0.0, cv / 3, size=(count, n_hosts)), -3 * cv / 3, plan.headroom)
        expected = rate * np.maximum(1.0 + eps + common[:, a["host"]], 0.05) * interval_s
        ops = np.floor(expected + rng.random(expected.shape)).astype(np.int64).reshape(rows)

        # Latency body: multinomial over the strata, one draw per stratum; stalls one by one.
        src_of_row = np.tile(np.arange(n_src), count)
        stall_p = run.latency.stall_probability
        stalls = rng.binomial(ops, stall_p) if stall_p > 0 else np.zeros(rows, dtype=np.int64)
        body = ops - stalls
        # Systematic sampling over the strata: one uniform per row places the row's I/Os on the cumulative
        # edges, so every stratum gets floor or ceil of its expected count, the counts add up to `body`
        # exactly, and a tail stratum expecting 0.3 I/Os holds one in 30 % of intervals. ~20x cheaper
        # than a multinomial draw, which matters at 100K+ sources per second.
        cuts = np.floor(body[:, None] * STRATA_EDGES[None, :] + rng.random(rows)[:, None]).astype(np.int64)
        counts = np.diff(cuts, axis=1)                                      # (rows, K)
        nz_row, nz_k = np.nonzero(counts)
        nz_count = counts[nz_row, nz_k]
        u = STRATA_EDGES[nz_k] + rng.random(nz_k.size) * STRATA_WIDTHS[nz_k]
        # Mean latency shifts during ramp-up: scale the body's median with it.
        shift = np.log(mean_s.reshape(rows) / np.repeat(a["mean"][None, :], count, axis=0).reshape(rows))
        log_mu = a["log_mu"][src_of_row] + shift
        values = np.exp(log_mu[nz_row] + a["sigma"][src_of_row[nz_row]] * norm_ppf(u)) * 1e9
        values = np.maximum(values, 1.0).astype(np.int64)
        if stalls.any():
            s_row = np.repeat(np.arange(rows), stalls)
            s_val = np.exp(a["stall_log_median"][src_of_row[s_row]] + shift[s_row]
                           + run.latency.stall_sigma * rng.standard_normal(s_row.size)) * 1e9
            s_val = np.maximum(s_val, 1.0).astype(np.int64)
            e_row = np.concatenate([nz_row, s_row])
            e_val = np.concatenate([values, s_val])
            e_cnt = np.concatenate([nz_count, np.ones(s_row.size, dtype=np.int64)])
        else:
            e_row, e_val, e_cnt = nz_row, values, nz_count
        e_idx = bucket_indexes(e_val)
        key = (e_row.astype(np.int64) << INDEX_BITS) | e_idx
        if stalls.any():
            order = np.argsort(key, kind="stable")
            key, e_row, e_val, e_cnt = key[order], e_row[order], e_val[order], e_cnt[order]
        # Exact statistics per row (float64 sums of integers < 2^53 are exact).
        lat_sum = np.bincount(e_row, weights=e_val.astype(np.float64) * e_cnt, minlength=rows).astype(np.int64)
        has = np.bincount(e_row, minlength=rows) > 0
        seg_start = np.searchsorted(e_row, np.arange(rows))
        lat_min = np.zeros(rows, dtype=np.int64)
        lat_max = np.zeros(rows, dtype=np.int64)
        if e_row.size:
            starts = seg_start[has]
            lat_min[has] = np.minimum.reduceat(e_val, starts)
            lat_max[has] = np.maximum.reduceat(e_val, starts)
        # Merge equal buckets within a row.
        if key.size:
            new = np.empty(key.size, dtype=bool)
            new[0] = True
            np.not_equal(key[1:], key[:-1], out=new[1:])
            uniq_pos = np.flatnonzero(new)
            u_key = key[uniq_pos]
            u_cnt = np.add.reduceat(e_cnt, uniq_pos)
        else:
            u_key = np.zeros(0, dtype=np.int64)
            u_cnt = np.zeros(0, dtype=np.int64)
        u_row = u_key >> INDEX_BITS
        bounds = np.searchsorted(u_row, np.arange(rows + 1))
        idx_all = u_key & ((1 << INDEX_BITS) - 1)
        bytes_all = ops * a["block"][src_of_row]
        interval_ns = self.interval_ms * 1_000_000
        outstanding_all = lat_sum / interval_ns

        ops_2d = ops.reshape(count, n_src)
        cpu_blocks = self._cpu_blocks(rng, run, run_id, step_index, plan, ops_2d, chunk_start_ms)
        port_blocks = self._port_blocks(run, run_id, step_index, plan, ops_2d, chunk_start_ms)

        interval_ms = self.interval_ms
        c = self._consts(plan, run_id, step_index)
        common = {"interval_ms": c["interval_ms"], "run_id": c["run_id"], "step_index": c["step_index"],
                  **plan.io_identity, "errors": c["zero"], "latency_hist_scheme": c["scheme"],
                  "percentile_q": c["empty_list"], "percentile_ns": c["empty_list"], "tags": c["empty_map"]}
        for i in range(count):
            ts = chunk_start_ms + i * interval_ms
            lo, hi = i * n_src, (i + 1) * n_src
            blocks = []
            if n_src:
                row_ops = ops[lo:hi]
                blocks.append(RecordBlock(topics.IO_SAMPLES, n_src, IO_FIELDS, {
                    "ts_ms": Const(ts), **common, "ops": row_ops, "bytes": bytes_all[lo:hi],
                    "outstanding_ios": outstanding_all[lo:hi], "latency_count": row_ops,
                    "latency_sum_ns": lat_sum[lo:hi], "latency_min_ns": lat_min[lo:hi],
                    "latency_max_ns": lat_max[lo:hi],
                    "latency_bucket_index": Ragged(idx_all, bounds[lo:hi + 1]),
                    "latency_bucket_count": Ragged(u_cnt, bounds[lo:hi + 1])}))
            if cpu_blocks is not None:
                blocks.append(cpu_blocks[i])
            if port_blocks is not None:
                blocks.append(port_blocks[i])
            yield Batch(ts + interval_ms, blocks=blocks)

    # -- CPU ----------------------------------------------------------------------------------------------
    def _cpu_blocks(self, rng: np.random.Generator, run: RunSpec, run_id: str, step_index: int, plan: _StepPlan,
                    ops: np.ndarray, chunk_start_ms: int) -> list[RecordBlock] | None:
        """Per interval: HOST (+ ROOT_PARTITION or HYPERVISOR) per host and VM per VM, from the I/O counts."""
        a = plan.arrays
        cpu, host = run.cpu, run.host
        count = ops.shape[0]
        n_hosts, n_vms = len(host.names), len(plan.vms)
        interval_s = self.interval_ms / 1000.0
        lps = host.logical_processors
        hosts = a["host"]

        def per_host(values: np.ndarray) -> np.ndarray:   # (count, sources) -> (count, hosts)
            flat = (np.arange(count)[:, None] * n_hosts + hosts[None, :]).ravel()
            return np.bincount(flat, weights=values.ravel(), minlength=count * n_hosts).reshape(count, n_hosts)

        guest_busy = ops * a["guest_s"][None, :]                              # LP-seconds per interval
        g_host = per_host(guest_busy)
        r_host = per_host(ops * a["root_s"][None, :])
        vs_factor = run.vswitch.root_ns_per_byte * 1e-9 if run.vswitch else 0.0
        v_host = per_host(ops * a["vswitch_rx"][None, :] * vs_factor) if vs_factor else np.zeros((count, n_hosts))
        port_ints = per_host(ops * sum(1.0 / p.ios_per_interrupt for p in run.ports))
        ints = self._root_interrupts(run, plan, ops, port_ints) / interval_s
        vms_per_host = np.bincount([vm.host for vm in plan.vms], minlength=n_hosts) if n_vms else np.zeros(n_hosts)
        capacity = lps * interval_s
        base_lp = cpu.base_pct / 100.0 * lps
        noise = rng.normal(0.0, run.cpu_noise_pct, size=(count, n_hosts, 2))
        total_lp = g_host + r_host + v_host + vms_per_host[None, :] * cpu.idle_pct_per_vm / 100.0 + base_lp
        util = np.clip(total_lp / capacity * 100 + noise[..., 0], 0.0, 100.0)
        user = np.minimum(util, g_host * USER_SHARE_OF_GUEST / capacity * 100)
        int_pct = np.clip(ints * cpu.interrupt_us * 1e-6 / lps * 100, 0.0, 100.0)
        dpc_pct = np.clip((r_host + v_host) * cpu.dpc_fraction / capacity * 100, 0.0, 100.0)
        root_util = np.clip((r_host + v_host + base_lp) / capacity * 100 + noise[..., 1] / 2, 0.0, 100.0)
        vm_util = vm_user = vm_ops = None
        if n_vms:
            mask = a["vm"] >= 0
            vm_idx = a["vm"][mask]
            flat = (np.arange(count)[:, None] * n_vms + vm_idx[None, :]).ravel()
            vm_busy = np.bincount(flat, weights=guest_busy[:, mask].ravel(), minlength=count * n_vms).reshape(count, n_vms)
            vm_ops = np.bincount(flat, weights=ops[:, mask].ravel().astype(float),
                                 minlength=count * n_vms).reshape(count, n_vms)
            vcpus = np.array([vm.vcpus for vm in plan.vms], dtype=float)[None, :]
            vm_util = np.clip(vm_busy / (vcpus * interval_s) * 100 + cpu.idle_pct_per_vm / vcpus
                              + rng.normal(0.0, run.cpu_noise_pct / 2, size=(count, n_vms)), 0.0, 100.0)
            vm_user = np.minimum(vm_util, vm_busy * USER_SHARE_OF_GUEST / (vcpus * interval_s) * 100)
        per = 2 if plan.cpu_scope is not None else 1
        host_end = n_hosts * per

        def column(host_values, scope_values, vm_values) -> np.ndarray:  # rows: hosts (HOST, scope), then VMs
            m = np.empty((count, host_end + n_vms))
            m[:, 0:host_end:per] = host_values
            if per == 2:
                m[:, 1:host_end:per] = scope_values
            if n_vms:
                m[:, host_end:] = vm_values
            return m

        root_util_or_none = root_util if per == 2 else None
        c = self._consts(plan, run_id, step_index)
        # One virtual completion interrupt (and DPC) per I/O on a VM.
        interrupts = column(ints, ints, vm_ops / interval_s if n_vms else None)
        doubles = {
            "utilization_pct": column(util, root_util_or_none, vm_util),
            "user_pct": column(user, 0.0, vm_user),
            "privileged_pct": column(util - user, root_util_or_none, vm_util - vm_user if n_vms else None),
            "dpc_pct": column(dpc_pct, np.minimum(dpc_pct, root_util) if per == 2 else None, 0.0),
            "interrupt_pct": column(int_pct, np.minimum(int_pct, root_util) if per == 2 else None, 0.0),
            "interrupts_per_s": interrupts, "dpcs_per_s": interrupts,
        }
        common = {"interval_ms": c["interval_ms"], "run_id": c["run_id"], "step_index": c["step_index"],
                  **plan.cpu_identity, "cpu": c["all_cpus"], "iowait_pct": c["zero_pct"], "tags": c["empty_map"]}
        return [RecordBlock(topics.CPU_SAMPLES, host_end + n_vms, CPU_FIELDS, {
                    "ts_ms": Const(chunk_start_ms + i * self.interval_ms), **common,
                    **{k: v[i] for k, v in doubles.items()}})
                for i in range(count)]

    def _root_interrupts(self, run: RunSpec, plan: _StepPlan, ops: np.ndarray, port_ints: np.ndarray) -> np.ndarray:
        """Hardware interrupts handled by the root / vmkernel per interval and host. With VMQ the NIC
        raises per-VM-queue interrupts steered to the queues' processors; the root keeps the default queue."""
        if run.vswitch is None:
            return port_ints
        a = plan.arrays
        n_hosts = len(run.host.names)
        rx = np.stack([np.bincount(a["host"], weights=row, minlength=n_hosts) for row in ops * a["vswitch_rx"][None, :]])
        share = VMQ_DEFAULT_QUEUE_SHARE if run.vswitch.vmq else 1.0
        return port_ints + rx * share / float(run.vswitch.bytes_per_interrupt)

    # -- ports --------------------------------------------------------------------------------------------
    def _port_blocks(self, run: RunSpec, run_id: str, step_index: int, plan: _StepPlan, ops: np.ndarray,
                     chunk_start_ms: int) -> list[RecordBlock] | None:
        """Per interval: every port of every host (multipath spreads evenly, the remainder goes to the first
        ports), then with VMQ one queue per VM after the vswitch's port."""
        a = plan.arrays
        count = ops.shape[0]
        n_hosts = len(run.host.names)
        if not run.ports or not n_hosts:
            return None
        per_host = lambda w: np.stack([np.bincount(a["host"], weights=row, minlength=n_hosts) for row in ops * w[None, :]])  # noqa: E731
        vmq = run.vswitch is not None and run.vswitch.vmq
        vm_rx = None
        if run.vswitch is not None and plan.vms:
            mask = a["vm"] >= 0
            vm_rx = np.stack([np.bincount(a["vm"][mask], weights=row[mask], minlength=len(plan.vms))
                              for row in ops * a["vswitch_rx"][None, :]])
        parts: dict[str, list[np.ndarray]] = {k: [] for k in ("rx_bytes", "tx_bytes", "rx_frames", "tx_frames",
                                                            "interrupts")}
        for p, port in enumerate(run.ports):
            rx, tx = per_host(a["port_rx"][p]), per_host(a["port_tx"][p])
            frx, ftx = per_host(a["frames_rx"][p]), per_host(a["frames_tx"][p])
            ints = per_host(np.ones(len(a["rate"])) / port.ios_per_interrupt)
            if run.vswitch is not None and run.vswitch.port_index == p:
                vs = per_host(a["vswitch_rx"]) / run.vswitch.bytes_per_interrupt
                ints = ints + vs * (VMQ_DEFAULT_QUEUE_SHARE if vmq else 1.0)
            n = len(port.port_ids())
            for name, total in (("rx_bytes", rx), ("tx_bytes", tx), ("rx_frames", frx), ("tx_frames", ftx),
                                ("interrupts", ints)):
                parts[name].append(_shares(total, n).reshape(count, n_hosts * n))
            if vmq and run.vswitch.port_index == p and vm_rx is not None:
                b = np.rint(vm_rx).astype(np.int64)
                zeros = np.zeros_like(b)
                parts["rx_bytes"].append(b)
                parts["tx_bytes"].append(zeros)
                parts["rx_frames"].append(-(-b // port.frame_payload_bytes))
                parts["tx_frames"].append(zeros)
                parts["interrupts"].append(np.rint(b / run.vswitch.bytes_per_interrupt).astype(np.int64))
        counters = {k: np.concatenate(v, axis=1) if len(v) > 1 else v[0] for k, v in parts.items()}
        n_rows = counters["rx_bytes"].shape[1]
        c = self._consts(plan, run_id, step_index)
        common = {"interval_ms": c["interval_ms"], "run_id": c["run_id"], "step_index": c["step_index"],
                  **plan.port_identity, "rx_errors": c["zero"], "tx_errors": c["zero"], "tags": c["empty_map"]}
        return [RecordBlock(topics.PORT_SAMPLES, n_rows, PORT_FIELDS, {
                    "ts_ms": Const(chunk_start_ms + i * self.interval_ms), **common,
                    **{k: v[i] for k, v in counters.items()}})
                for i in range(count)]


#: With VMQ the root still handles the default queue (broadcast, multicast, unmatched MACs): a small share.
VMQ_DEFAULT_QUEUE_SHARE = 0.03


def _shares(total: np.ndarray, n: int) -> np.ndarray:
    """(..., n): `total` rounded to whole units and split over n ports, the remainder to the first ones."""
    whole = np.rint(total).astype(np.int64)[..., None]
    return whole // n + (np.arange(n) < whole % n)
