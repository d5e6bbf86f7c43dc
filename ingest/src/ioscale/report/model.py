"""What a report is made of: a run's rows from the SQL library, in one shape whichever query gave them.

The Flink job's step rows (``scaling_curve``) are the source; a run the job never analysed gets its steps from
``scaling_curve_raw`` (same figures over the STEP_ENDED window, no verdict), its busiest port from
``port_utilization`` and its interrupts from ``step_host_counters``. ``Step`` holds the union of the two; a figure a source does not have is None.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ioscale.errors import ExitStatus, IoscaleError

#: load_axis -> the axis title: what the x of the curve counts.
LOAD_AXIS_TITLES = {
    "total-outstanding": "total outstanding I/Os (VMs × disks × workers × queue depth)",
    "vm-count": "VMs",
    "workers": "workers in total (VMs × disks × workers per disk)",
    "queue-depth": "queue depth per worker",
    "step": "step",
}

SATURATED = "SATURATED"


class UnknownRunError(IoscaleError):
    """No such run in ClickHouse."""

    exit_status = ExitStatus.BAD_INPUT


def _num(v: Any) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


@dataclass(frozen=True)
class Step:
    step_index: int
    step_label: str
    vm_count: int
    targets_per_vm: int
    workers_per_target: int
    outstanding_ios_per_target: int
    block_size_bytes: int
    read_pct: float | None
    load: float
    load_axis: str
    iops: float | None
    mb_per_s: float | None
    mean_latency_us: float | None
    p99_us: float | None
    p99_999_us: float | None
    latency_n: int
    p99_999_too_few: bool
    cpu_pct: float | None = None
    cpu_max_pct: float | None = None
    interrupts_per_s: float | None = None
    port_max_pct: float | None = None
    port_hottest: str = ""
    gain_pct: float | None = None
    efficiency_pct: float | None = None
    saturation: str = ""
    bottleneck: str = ""
    evidence: str = ""
    steady_s: float | None = None

    @property
    def load_key(self) -> tuple:
        """The step's load, independent of its position in the sweep and of the job's load axis: how the gate
        matches a baseline's step with a candidate's."""
        return (self.vm_count, self.targets_per_vm, self.workers_per_target, self.outstanding_ios_per_target,
                self.block_size_bytes, None if self.read_pct is None else round(self.read_pct, 1))

    @property
    def load_text(self) -> str:
        bs = self.block_size_bytes
        size = f"{bs // 1024} KiB" if bs and bs % 1024 == 0 else f"{bs} B"
        parts = [f"{self.vm_count} VM{'s' if self.vm_count != 1 else ''}" if self.vm_count else "host",
                 f"{self.targets_per_vm} disk{'s' if self.targets_per_vm != 1 else ''}/VM",
                 f"{self.workers_per_target} worker{'s' if self.workers_per_target != 1 else ''}/disk",
                 f"QD {self.outstanding_ios_per_target}", size]
        if self.read_pct is not None:
            parts.append(f"{self.read_pct:g}% read")
        return ", ".join(parts)

    @classmethod
    def from_row(cls, row: Mapping[str, Any], load_axis: str = "total-outstanding") -> "Step":
        """A ``scaling_curve`` or ``scaling_curve_raw`` row (column name -> value)."""
        n = row.get("latency_n")
        return cls(
            step_index=int(row["step_index"]), step_label=str(row.get("step_label") or ""),
            vm_count=int(row.get("vm_count") or 0), targets_per_vm=int(row.get("targets_per_vm") or 0),
            workers_per_target=int(row.get("workers_per_target") or 0),
            outstanding_ios_per_target=int(row.get("outstanding_ios_per_target") or 0),
            block_size_bytes=int(row.get("block_size_bytes") or 0), read_pct=_num(row.get("read_pct")),
            load=float(row["load"]), load_axis=str(row.get("load_axis") or load_axis),
            iops=_num(row.get("iops")), mb_per_s=_num(row.get("mb_per_s")),
            mean_latency_us=_num(row.get("mean_latency_us")), p99_us=_num(row.get("p99_us")),
            p99_999_us=_num(row.get("p99_999_us")), latency_n=int(n or 0),
            p99_999_too_few=bool(row.get("p99_999_too_few")),
            cpu_pct=_num(row.get("cpu_pct")), cpu_max_pct=_num(row.get("cpu_max_pct")),
            interrupts_per_s=_num(row.get("interrupts_per_s")), port_max_pct=_num(row.get("port_max_pct")),
            port_hottest=str(row.get("port_hottest") or ""),
            gain_pct=_num(row.get("gain_pct")), efficiency_pct=_num(row.get("efficiency_pct")),
            saturation=str(row.get("saturation") or ""), bottleneck=str(row.get("bottleneck") or ""),
            evidence=str(row.get("evidence") or ""),
            steady_s=_num(row.get("steady_s", row.get("measured_s"))),
        )


def busiest_ports(rows: Iterable[Mapping[str, Any]]) -> dict[int, tuple[float, str]]:
    """``port_utilization`` rows -> step_index -> (the busiest whole-port direction's utilization %, its name),
    named as the Flink job names it ('host/port RX')."""
    out: dict[int, tuple[float, str]] = {}
    for r in rows:
        pct = _num(r.get("utilization_pct"))
        if pct is None or int(r.get("queue", -1)) != -1:
            continue
        step = int(r["step_index"])
        if step not in out or pct > out[step][0]:
            out[step] = (pct, f"{r['host']}/{r['port_id']} {str(r['direction']).upper()}")
    return out


def interrupts_by_step(rows: Iterable[Mapping[str, Any]]) -> dict[int, float]:
    """``step_host_counters`` rows -> step_index -> interrupts per second summed over the hosts (as the Flink
    job sums them)."""
    out: dict[int, float] = {}
    for r in rows:
        v = _num(r.get("interrupts_per_s"))
        if v is not None:
            out[int(r["step_index"])] = out.get(int(r["step_index"]), 0.0) + v
    return out


@dataclass(frozen=True)
class UslFit:
    metric: str
    load_axis: str
    lam: float
    sigma: float
    kappa: float
    r_squared: float | None
    peak_n: float | None
    peak_x: float | None
    max_n: float | None
    peak_extrapolated: bool
    points: int

    def x(self, n: float) -> float:
        """USL throughput at load n: lambda n / (1 + sigma (n - 1) + kappa n (n - 1))."""
        return self.lam * n / (1 + self.sigma * (n - 1) + self.kappa * n * (n - 1))

    @classmethod
    def from_row(cls, row: Mapping[str, Any] | None) -> "UslFit | None":
        if not row or not row.get("fitted") or _num(row.get("lambda")) is None:
            return None
        return cls(metric=str(row["metric"]), load_axis=str(row["load_axis"]), lam=float(row["lambda"]),
                   sigma=float(row.get("sigma") or 0.0), kappa=float(row.get("kappa") or 0.0),
                   r_squared=_num(row.get("r_squared")), peak_n=_num(row.get("peak_n")),
                   peak_x=_num(row.get("peak_x")), max_n=_num(row.get("max_n")),
                   peak_extrapolated=bool(row.get("peak_extrapolated")), points=int(row.get("points") or 0))


@dataclass
class RunData:
    """Everything one run's section of the report shows."""

    run_id: str
    steps: list[Step]
    source: str = "scaling_curve"              # or scaling_curve_raw (the job never analysed the run)
    info: dict[str, Any] | None = None         # run_info row
    usl: UslFit | None = None
    saturation_events: list[dict[str, Any]] = field(default_factory=list)
    windows: list[dict[str, Any]] = field(default_factory=list)   # run_steps rows

    @property
    def load_axis(self) -> str:
        return self.steps[0].load_axis if self.steps else "total-outstanding"

    @property
    def saturation_step(self) -> Step | None:
        """Where the curve levelled off: the first of the SATURATED steps the sweep ends with. A SATURATED
        step followed by one that scales again was a dip (a noisy real device does that: fio at QD 4 on an
        MX200), not the ceiling; without a saturated end, the first SATURATED step."""
        trailing: Step | None = None
        for s in reversed(self.steps):
            if s.saturation != SATURATED:
                break
            trailing = s
        return trailing or next((s for s in self.steps if s.saturation == SATURATED), None)

    @property
    def earlier_saturations(self) -> list[Step]:
        """SATURATED steps before the saturation point, after which throughput grew again."""
        point = self.saturation_step
        return [s for s in self.steps if point is not None and s.saturation == SATURATED
                and s.step_index < point.step_index]

    def linear_reference(self, metric: str = "iops") -> list[float | None]:
        """Throughput if it grew in proportion to the load from the first step (the efficiency's 100 %)."""
        if not self.steps:
            return []
        first = self.steps[0]
        x0 = getattr(first, metric)
        if x0 is None or first.load <= 0:
            return [None] * len(self.steps)
        return [x0 * s.load / first.load for s in self.steps]


def rows_as_dicts(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    return [dict(zip(columns, r)) for r in rows]


def build_run(run_id: str, curve: list[dict[str, Any]], *, source: str = "scaling_curve",
              info: dict[str, Any] | None = None, usl_rows: Sequence[Mapping[str, Any]] = (),
              saturation_rows: Sequence[Mapping[str, Any]] = (), window_rows: Sequence[dict[str, Any]] = (),
              port_rows: Sequence[Mapping[str, Any]] = (),
              host_rows: Sequence[Mapping[str, Any]] = ()) -> RunData:
    """A run from its query rows. ``port_rows`` (port_utilization) and ``host_rows`` (step_host_counters) fill
    the busiest port and the interrupts where the step rows have none (scaling_curve_raw)."""
    steps = [Step.from_row(r) for r in sorted(curve, key=lambda r: int(r["step_index"]))]
    busiest = busiest_ports(port_rows)
    irq = interrupts_by_step(host_rows)
    steps = [replace(s, port_max_pct=busiest[s.step_index][0], port_hottest=busiest[s.step_index][1])
             if s.port_max_pct is None and s.step_index in busiest else s for s in steps]
    steps = [replace(s, interrupts_per_s=irq[s.step_index])
             if s.interrupts_per_s is None and s.step_index in irq else s for s in steps]
    latest = max(usl_rows, key=lambda r: int(r.get("through_step", -1)), default=None)
    return RunData(run_id, steps, source, info, UslFit.from_row(latest),
                   [dict(r) for r in saturation_rows], list(window_rows))
