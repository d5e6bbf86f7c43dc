"""Linux live counters -> IoSample / CpuSample / PortSample, one set per interval (default 1 s).

Sources (all cumulative counters; a sample is the delta between two successive reads):

* ``/proc/diskstats``: per block device reads/writes completed, sectors (x 512 bytes, the kernel's fixed
  unit there), ms spent reading/writing, I/Os in flight. One IoSample per device and direction.
  diskstats has no per-I/O latencies, so ``latency_count`` is 0 and there is no histogram. The time
  spent is kept as ``tags.latency_sum_ns_estimate`` (ms spent x 1e6; the kernel sums per-I/O service
  times, so sum / ops is the mean latency) with ``latency_sum_basis = diskstats_estimate``; the schema
  field ``latency_sum_ns`` stays 0 so it is never mistaken for a histogram-backed sum.
  ``outstanding_ios`` is the in-flight gauge at the end of the interval.
* ``/proc/stat``: per CPU and total (cpu = -1) jiffies -> user (+nice), privileged (system + irq +
  softirq, as Windows' privileged time includes DPC and interrupt time), dpc (= softirq), interrupt
  (= irq), iowait percentages; utilization = 100 - idle - iowait. ``interrupts_per_s`` from the ``intr``
  total on the cpu = -1 sample.
* ``/proc/interrupts``: total interrupts/s (sum over every IRQ line and CPU), tag on the total CPU sample.
* ``/sys/class/net/*/statistics``: PortSample kind NIC (bytes, packets, errors); ``speed`` (Mb/s) when
  readable. ``lo`` is skipped.
* ``/sys/class/fc_host/*/statistics``: PortSample kind FC_HBA; bytes = words x 4, frames; error count is
  ``error_frames`` (receive side) and ``invalid_crc_count``.

Counter wraps or resets (a negative delta) skip that interval for that source: nothing negative is ever
emitted. Parsers are pure functions over file text; the sampler reads through injected callables.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ioscale import topics
from ioscale.importers.common import cpu_sample, io_sample
from ioscale.model import PortKind, PortSample

SECTOR_BYTES = 512
#: /proc/stat cpu columns in kernel order.
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice")


# --- pure parsers -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiskCounters:
    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    in_flight: int


def parse_diskstats(text: str) -> dict[str, DiskCounters]:
    """/proc/diskstats -> device -> counters (lines with fewer than 14 columns are ignored)."""
    out: dict[str, DiskCounters] = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) < 14:
            continue
        try:
            v = [int(x) for x in p[3:14]]
        except ValueError:
            continue
        # columns after the name: reads, reads merged, sectors read, ms reading, writes, writes merged,
        # sectors written, ms writing, in flight, ms doing I/O, weighted ms
        out[p[2]] = DiskCounters(v[0], v[2], v[3], v[4], v[6], v[7], v[8])
    return out


@dataclass(frozen=True)
class ProcStat:
    cpus: dict[int, tuple[int, ...]]   # cpu number (-1 = total) -> jiffies in CPU_FIELDS order
    interrupts: int | None              # total from the intr line


def parse_proc_stat(text: str) -> ProcStat:
    cpus: dict[int, tuple[int, ...]] = {}
    intr: int | None = None
    for line in text.splitlines():
        p = line.split()
        if not p:
            continue
        if p[0].startswith("cpu"):
            n = -1 if p[0] == "cpu" else int(p[0][3:]) if p[0][3:].isdigit() else None
            if n is None:
                continue
            vals = tuple(int(x) for x in p[1:1 + len(CPU_FIELDS)])
            cpus[n] = vals + (0,) * (len(CPU_FIELDS) - len(vals))
        elif p[0] == "intr" and len(p) > 1:
            intr = int(p[1])
    return ProcStat(cpus, intr)


def parse_interrupts(text: str) -> int:
    """/proc/interrupts -> total interrupts over all lines and CPUs (the per-CPU numeric columns)."""
    lines = text.splitlines()
    if not lines:
        return 0
    ncpu = len(lines[0].split())
    total = 0
    for line in lines[1:]:
        p = line.split()
        if not p or not p[0].endswith(":"):
            continue
        for x in p[1:1 + ncpu]:
            if not x.isdigit():
                break
            total += int(x)
    return total


def counter_delta(prev: int | None, cur: int | None) -> int | None:
    """cur - prev, or None when either is unknown or the counter went backwards (wrap/reset)."""
    if prev is None or cur is None or cur < prev:
        return None
    return cur - prev


# --- snapshots --------------------------------------------------------------------------------------------
ReadFile = Callable[[str], "str | None"]
ListDir = Callable[[str], list[str]]


def real_read_file(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:  # missing file, or e.g. `speed` on a down link raises EINVAL
        return None


def real_list_dir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


@dataclass(frozen=True)
class PortCounters:
    kind: PortKind
    rx_bytes: int | None
    tx_bytes: int | None
    rx_frames: int | None
    tx_frames: int | None
    rx_errors: int | None
    tx_errors: int | None
    link_speed_bps: int


@dataclass
class Snapshot:
    ts_ms: int
    disks: dict[str, DiskCounters] = field(default_factory=dict)
    stat: ProcStat | None = None
    interrupts: int | None = None
    ports: dict[str, PortCounters] = field(default_factory=dict)


def _int_or_none(text: str | None) -> int | None:
    if text is None:
        return None
    t = text.strip()
    try:
        return int(t, 16) if t.startswith("0x") else int(t)
    except ValueError:
        return None


def read_snapshot(ts_ms: int, read_file: ReadFile = real_read_file, list_dir: ListDir = real_list_dir,
                  root: str = "") -> Snapshot:
    snap = Snapshot(ts_ms)
    t = read_file(root + "/proc/diskstats")
    if t is not None:
        snap.disks = parse_diskstats(t)
    t = read_file(root + "/proc/stat")
    if t is not None:
        snap.stat = parse_proc_stat(t)
    t = read_file(root + "/proc/interrupts")
    if t is not None:
        snap.interrupts = parse_interrupts(t)
    net = root + "/sys/class/net"
    for name in list_dir(net):
        if name == "lo":
            continue
        s = f"{net}/{name}/statistics/"
        rd = lambda f: _int_or_none(read_file(s + f))  # noqa: E731
        speed_mbps = _int_or_none(read_file(f"{net}/{name}/speed"))
        snap.ports[name] = PortCounters("NIC", rd("rx_bytes"), rd("tx_bytes"), rd("rx_packets"), rd("tx_packets"),
                                        rd("rx_errors"), rd("tx_errors"),
                                        speed_mbps * 1_000_000 if speed_mbps and speed_mbps > 0 else 0)
    fc = root + "/sys/class/fc_host"
    for name in list_dir(fc):
        s = f"{fc}/{name}/statistics/"
        rd = lambda f: _int_or_none(read_file(s + f))  # noqa: E731
        rx_w, tx_w = rd("rx_words"), rd("tx_words")
        speed = _fc_speed_bps(read_file(f"{fc}/{name}/speed"))
        err = rd("error_frames")
        crc = rd("invalid_crc_count")
        snap.ports[name] = PortCounters("FC_HBA", None if rx_w is None else rx_w * 4,
                                        None if tx_w is None else tx_w * 4, rd("rx_frames"), rd("tx_frames"),
                                        None if err is None and crc is None else (err or 0) + (crc or 0),
                                        None, speed)
    return snap


def _fc_speed_bps(text: str | None) -> int:
    """'16 Gbit' / '8 Gbit/s' -> bits per second; 0 when unknown."""
    if not text:
        return 0
    p = text.split()
    try:
        n = float(p[0])
    except (ValueError, IndexError):
        return 0
    unit = p[1].lower() if len(p) > 1 else ""
    return int(n * (1e9 if unit.startswith("g") else 1e6 if unit.startswith("m") else 0))


# --- deltas -> records ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tagging:
    run_id: str
    step_index: int = -1
    host: str = ""
    vm: str = ""


def records_between(prev: Snapshot, cur: Snapshot, tag: Tagging,
                    devices: Iterable[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(topic, record) pairs for the interval prev -> cur. Pure."""
    interval_ms = cur.ts_ms - prev.ts_ms
    if interval_ms <= 0:
        return []
    out: list[tuple[str, dict[str, Any]]] = []
    wanted = set(devices) if devices is not None else None
    common = dict(ts_ms=prev.ts_ms, interval_ms=interval_ms, run_id=tag.run_id, step_index=tag.step_index,
                  host=tag.host, vm=tag.vm)
    for dev, c in cur.disks.items():
        p = prev.disks.get(dev)
        if p is None or (wanted is not None and dev not in wanted):
            continue
        for direction, (ops_p, ops_c, sec_p, sec_c, ms_p, ms_c) in (
                ("READ", (p.reads, c.reads, p.read_sectors, c.read_sectors, p.read_ms, c.read_ms)),
                ("WRITE", (p.writes, c.writes, p.write_sectors, c.write_sectors, p.write_ms, c.write_ms))):
            ops, sectors, ms = counter_delta(ops_p, ops_c), counter_delta(sec_p, sec_c), counter_delta(ms_p, ms_c)
            if ops is None or sectors is None or ms is None:
                continue  # wrapped or reset: skip this interval for this device/direction
            tags = {"source": "proc_diskstats", "outstanding_ios_basis": "in_flight_gauge"}
            if ops:
                tags["latency_sum_ns_estimate"] = str(ms * 1_000_000)
                tags["latency_sum_basis"] = "diskstats_estimate"
            out.append((topics.IO_SAMPLES, io_sample(
                **common, target=dev, direction=direction, ops=ops, bytes_=sectors * SECTOR_BYTES,
                outstanding_ios=float(c.in_flight), tags=tags)))
    out.extend(_cpu_records(prev, cur, tag, common))
    for name, c in cur.ports.items():
        p = prev.ports.get(name)
        if p is None:
            continue
        d = {f: counter_delta(getattr(p, f), getattr(c, f))
             for f in ("rx_bytes", "tx_bytes", "rx_frames", "tx_frames", "rx_errors", "tx_errors")}
        if d["rx_bytes"] is None or d["tx_bytes"] is None:
            continue  # no byte counters, or wrapped: skip
        if any(d[f] is None and getattr(c, f) is not None for f in d):
            continue  # some other counter wrapped
        out.append((topics.PORT_SAMPLES, PortSample(
            ts_ms=prev.ts_ms, interval_ms=interval_ms, run_id=tag.run_id, step_index=tag.step_index,
            host=tag.host, port_id=name, kind=c.kind, queue=-1, vm=tag.vm, link_speed_bps=c.link_speed_bps,
            rx_bytes=d["rx_bytes"], tx_bytes=d["tx_bytes"], rx_frames=d["rx_frames"] or 0,
            tx_frames=d["tx_frames"] or 0, rx_errors=d["rx_errors"] or 0, tx_errors=d["tx_errors"] or 0,
            interrupts=0, tags={"source": "sysfs_fc_host" if c.kind == "FC_HBA" else "sysfs_net"})))
    return out


def _cpu_records(prev: Snapshot, cur: Snapshot, tag: Tagging, common: dict[str, Any]) -> list[tuple[str, dict]]:
    if prev.stat is None or cur.stat is None:
        return []
    seconds = common["interval_ms"] / 1000.0
    intr = counter_delta(prev.stat.interrupts, cur.stat.interrupts)
    irq_total = counter_delta(prev.interrupts, cur.interrupts)
    n_cpus = sum(1 for k in cur.stat.cpus if k >= 0)
    scope = "GUEST" if tag.vm else "HOST"
    out = []
    for cpu, c in sorted(cur.stat.cpus.items()):
        p = prev.stat.cpus.get(cpu)
        if p is None:
            continue
        d = [b - a for a, b in zip(p, c)]
        # guest/guest_nice are already counted inside user/nice: leave them out of the total.
        total = sum(d[:8])
        if any(x < 0 for x in d) or total <= 0:
            continue
        pct = {f: 100.0 * x / total for f, x in zip(CPU_FIELDS, d)}
        tags = {"source": "proc_stat"}
        if cpu == -1 and irq_total is not None:
            tags["proc_interrupts_per_s"] = f"{irq_total / seconds:.3f}"
        out.append((topics.CPU_SAMPLES, cpu_sample(
            **common, scope=scope, cpu=cpu, logical_processors=n_cpus if cpu == -1 else 1,
            utilization_pct=max(0.0, 100.0 - pct["idle"] - pct["iowait"]),
            user_pct=pct["user"] + pct["nice"], privileged_pct=pct["system"] + pct["irq"] + pct["softirq"],
            dpc_pct=pct["softirq"], interrupt_pct=pct["irq"], iowait_pct=pct["iowait"],
            interrupts_per_s=(intr / seconds) if cpu == -1 and intr is not None else 0.0, tags=tags)))
    return out


# --- the sampler ------------------------------------------------------------------------------------------
def collect_linux(producer_like: Any, run_id: str, step_index: int = -1, interval_s: float = 1.0,
                  duration_s: float | None = None, vm: str = "", devices: Iterable[str] | None = None, *,
                  host: str | None = None, clock: Callable[[], float] = time.time,
                  sleep: Callable[[float], None] = time.sleep, read_file: ReadFile = real_read_file,
                  list_dir: ListDir = real_list_dir, root: str = "",
                  stop: Callable[[], bool] = lambda: False) -> int:
    """Sample every ``interval_s`` until ``duration_s`` elapsed (None: until ``stop()`` or Ctrl-C).

    Sends each record with ``producer_like.send(topic, record)``; returns the number of records sent.
    Sleeps to the next tick of a fixed schedule so intervals do not drift by the sampling time.
    """
    tag = Tagging(run_id, step_index, host if host is not None else socket.gethostname(), vm)
    dev_list = list(devices) if devices is not None else None
    start = clock()
    prev = read_snapshot(int(start * 1000), read_file, list_dir, root)
    sent = 0
    tick = 1
    try:
        while not stop():
            due = start + tick * interval_s
            if duration_s is not None and due > start + duration_s + 1e-9:
                break
            wait = due - clock()
            if wait > 0:
                sleep(wait)
            cur = read_snapshot(int(clock() * 1000), read_file, list_dir, root)
            for topic, rec in records_between(prev, cur, tag, dev_list):
                producer_like.send(topic, rec)
                sent += 1
            prev = cur
            tick += 1
    except KeyboardInterrupt:
        pass
    return sent


__all__ = ["parse_diskstats", "parse_proc_stat", "parse_interrupts", "counter_delta", "read_snapshot",
           "records_between", "collect_linux", "Snapshot", "Tagging", "DiskCounters", "ProcStat"]
