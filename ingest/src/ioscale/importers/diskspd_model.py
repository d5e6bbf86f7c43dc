"""The format-independent model of one DISKSPD output, shared by the XML and text parsers.

Both ``-Rxml`` and ``-Rtext`` parse into ``DiskspdRun`` -> ``Timespan`` -> per-target totals, CPU rows and
percentile tables; ``diskspd.timespan_records`` turns a timespan into schema records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from ioscale.importers.common import Issues, checked_pct, checked_time_ms, decimal_ms_to_ns
from ioscale.wire.records import Direction

DIRECTIONS: tuple[Direction, Direction] = ("READ", "WRITE")
SUPPORTED_MAJOR_VERSIONS = {"2"}
#: Largest plausible duration, warm-up, block size or queue depth setting (10^7 s is 115 days).
MAX_SETTING = 1e7


@dataclass
class TargetResult:
    path: str
    threads: int = 0
    ops: dict[str, int] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})
    bytes: dict[str, int] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})
    #: sum over threads of mean latency (ms) x count; None when DISKSPD printed no mean for a thread.
    lat_sum_ms: dict[str, float | None] = field(default_factory=lambda: {"READ": 0.0, "WRITE": 0.0})
    file_size_bytes: int | None = None


@dataclass
class Percentiles:
    """One DISKSPD percentile table for one direction: (quantile, ns) rows plus min and max."""

    rows: list[tuple[float, int]] = field(default_factory=list)
    min_ns: int | None = None
    max_ns: int | None = None


@dataclass
class CpuRow:
    cpu: int
    usage_pct: float
    user_pct: float
    kernel_pct: float
    tags: dict[str, str] = field(default_factory=dict)


@dataclass
class Load:
    block_size_bytes: int = 0
    outstanding: int = 0
    threads_per_target: int = 0
    write_pct: float | None = None
    random_pct: float | None = None
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class Timespan:
    index: int
    duration_s: float | None = None
    warmup_s: float | None = None
    cooldown_s: float | None = None
    test_time_ms: int | None = None
    latency_measured: bool = False
    targets: dict[str, TargetResult] = field(default_factory=dict)
    cpus: list[CpuRow] = field(default_factory=list)
    cpu_avg: CpuRow | None = None
    #: table scope ("" = all targets, else a target path) -> direction -> Percentiles
    charts: dict[str, dict[str, Percentiles]] = field(default_factory=dict)
    load: Load = field(default_factory=Load)
    #: text output only: the "thread count:" header and the thread numbers its tables list
    declared_threads: int | None = None
    thread_ids: set[int] = field(default_factory=set)


@dataclass
class DiskspdRun:
    fmt: str
    computer: str = ""
    version: str = ""
    start_ms: int | None = None
    logical_processors: int = 0
    sockets: int = 0
    timespans: list[Timespan] = field(default_factory=list)


def cpu_row(cpu: int, usage: str | None, user: str | None, kernel: str | None, issues: Issues,
             where: str, line: int | None = None) -> CpuRow | None:
    u = checked_pct(usage, issues, field=f"{where}/Usage", line=line)
    us = checked_pct(user, issues, field=f"{where}/User", line=line)
    k = checked_pct(kernel, issues, field=f"{where}/Kernel", line=line)
    if u is None or us is None or k is None:
        return None
    return CpuRow(cpu=cpu, usage_pct=u, user_pct=us, kernel_pct=k)


def add_percentile(p: Percentiles, q: float, ns: int) -> None:
    if q == 0.0:
        p.min_ns = ns
    elif q == 1.0:
        p.max_ns = ns
    else:
        p.rows.append((q, ns))


def ms_text_to_ns(v: str, issues: Issues, where: str, line: int | None = None) -> int | None:
    ns = decimal_ms_to_ns(v)
    if ns is None:
        issues.error(f"not a latency in ms: {v!r}", field=where, line=line)
        return None
    if ns < 0:
        issues.error(f"negative latency {v} ms", field=where, line=line)
        return None
    return ns


def check_version(version: str, issues: Issues, field: str) -> None:
    major = version.split(".", 1)[0] if version else ""
    if not version:
        issues.warn("no DISKSPD version in file", field=field)
    elif major not in SUPPORTED_MAJOR_VERSIONS:
        issues.error(f"unknown DISKSPD version {version!r} (supported: 2.x); parsed by layout", field=field)


def parse_diskspd_time(text: str, issues: Issues, now_ms: int, *, field: str | None = None,
                        line: int | None = None) -> int | None:
    s = text.strip()
    for fmt in ("%Y/%m/%d %H:%M:%S UTC", "%Y/%m/%d %H:%M:%S"):
        try:
            dt = datetime.strptime(s, fmt).replace(tzinfo=timezone.utc)
            return checked_time_ms(int(dt.timestamp() * 1000), issues, now_ms, field=field, line=line)
        except ValueError:
            continue
    issues.error(f"unreadable start time {s!r}", field=field, line=line)
    return None
