"""Rows shaped as the SQL library returns them (scaling_curve, usl_fit, run_info), for report and gate tests."""

from __future__ import annotations

from typing import Any


def step_row(step_index: int, qd: int, iops: float | None, *, p99: float | None = 100.0,
             p99_999: float | None = 1000.0, n: int = 10_000, vms: int = 1, bs: int = 4096,
             read_pct: float = 100.0, **extra: Any) -> dict[str, Any]:
    """One scaling_curve row: load = total outstanding = vms x qd; MB/s = IOPS x block size / 10^6."""
    row = {
        "step_index": step_index, "step_label": f"QD {qd}", "vm_count": vms, "targets_per_vm": 1,
        "workers_per_target": 1, "outstanding_ios_per_target": qd, "block_size_bytes": bs, "read_pct": read_pct,
        "load": float(vms * qd), "load_axis": "total-outstanding", "steady_s": 10, "steady_usable": True,
        "iops": iops, "mb_per_s": None if iops is None else iops * bs / 1e6,
        "mean_latency_us": None if p99 is None else p99 / 2, "p99_us": p99, "p99_999_us": p99_999,
        "latency_n": n, "p99_999_too_few": n < 1_000_000, "cpu_pct": 10.0 + qd, "cpu_max_pct": 12.0 + qd,
        "port_max_pct": 5.0 * qd, "port_hottest": "h1/fc0 RX", "cpu_hottest_host": "h1",
        "interrupts_per_s": 100.0 * qd, "gain_pct": None, "efficiency_pct": None, "saturation": "SCALING",
        "bottleneck": "NONE", "evidence": "", "steady_reason": "ok",
    }
    row.update(extra)
    return row
