"""The format-independent model of one DISKSPD output, shared by the XML and text parsers.

Both ``-Rxml`` and ``-Rtext`` parse into ``DiskspdRun`` -> ``Timespan`` -> per-target totals, CPU rows and
percentile tables (XML with ``-D`` also per-interval totals); ``diskspd.timespan_records`` turns a timespan
into schema records.
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
class Interval:
    """One ``-D`` bucket of one target, threads summed: I/Os per direction and, with ``-L``, their latency
    (sum = each thread's printed mean x its count; None when a thread with I/O printed no mean)."""

    ops: dict[str, int] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})
    lat_sum_ns: dict[str, int | None] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})
    lat_min_ns: dict[str, int | None] = field(default_factory=lambda: {"READ": None, "WRITE": None})
    lat_max_ns: dict[str, int | None] = field(default_factory=lambda: {"READ": None, "WRITE": None})

    def add(self, other: "Interval") -> None:
        for d in DIRECTIONS:
            if not other.ops[d]:
                continue
            self.ops[d] += other.ops[d]
            a, b = self.lat_sum_ns[d], other.lat_sum_ns[d]
            self.lat_sum_ns[d] = None if a is None or b is None else a + b
            for mine, theirs, pick in ((self.lat_min_ns, other.lat_min_ns, min),
                                       (self.lat_max_ns, other.lat_max_ns, max)):
                if theirs[d] is not None:
                    mine[d] = theirs[d] if mine[d] is None else pick(mine[d], theirs[d])


@dataclass
class TargetResult:
    path: str
    threads: int = 0
    ops: dict[str, int] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})
    bytes: dict[str, int] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})
    #: sum over threads of mean latency (ms) x count; None when DISKSPD printed no mean for a thread.
    lat_sum_ms: dict[str, float | None] = field(default_factory=lambda: {"READ": 0.0, "WRITE": 0.0})
    file_size_bytes: int | None = None
    #: ``-D`` series: bucket end (``SampleMillisecond``) -> the threads' summed interval; kept only when every
    #: thread of the target carried a complete one (``settle_intervals``)
    intervals: dict[int, Interval] = field(default_factory=dict)
    threads_with_intervals: int = 0
    #: I/Os the whole run counted after the series' last bucket (completed in the last milliseconds of the
    #: measured time, past the buckets DISKSPD keeps): added to the last interval
    tail_ops: dict[str, int] = field(default_factory=lambda: {"READ": 0, "WRITE": 0})


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
    #: ``-D``: the IOPS bucket length (profile ``IoBucketDuration``), ms
    bucket_ms: int | None = None
    #: block sizes the profile gives each target path (several when a path is listed twice, as VMFleet does)
    block_sizes: dict[str, set[int]] = field(default_factory=dict)
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


def settle_intervals(ts: Timespan, issues: Issues, where: str) -> None:
    """Keep each target's ``-D`` series only when it is whole, and hold it against the whole-run counts.

    The series replaces the target's whole-run sample, so it must hold the run's I/Os. DISKSPD drops from its
    buckets the I/Os completing after ``ceil(Duration / bucket)`` buckets, a few in the last milliseconds of
    the measured time: those (whole run minus buckets) go to the last interval (``tail_ops``). Each bucket
    prints IOPS rounded to an integer, so counts are exact only for buckets of up to 1000 ms; a longer
    bucket's or an otherwise unexplained difference is reported and the series kept as printed.
    """
    for path, t in ts.targets.items():
        if not t.intervals:
            continue
        if t.threads_with_intervals != t.threads:
            issues.warn(f"{path}: {t.threads - t.threads_with_intervals} of {t.threads} thread(s) carry no "
                        "complete IOPS series (-D); the target is imported as one whole-run sample", field=where)
            t.intervals = {}
            continue
        bucket = ts.bucket_ms or 0
        last = max(t.intervals)
        for d in DIRECTIONS:
            in_series = sum(iv.ops[d] for iv in t.intervals.values())
            diff = t.ops[d] - in_series
            if diff == 0:
                continue
            head = f"{path} {d}: the {bucket} ms buckets hold {in_series} I/Os, the whole run {t.ops[d]}"
            if diff > 0 and bucket <= 1000:
                t.tail_ops[d] = diff
                issues.warn(f"{head}; the {diff} completed after the last bucket (ending at {last} ms) are "
                            "added to it", field=where)
            elif bucket > 1000:
                issues.warn(f"{head} (DISKSPD prints each bucket's IOPS rounded: a {bucket} ms bucket's count is "
                            f"known to +-{bucket / 2000:g}); the series is kept as printed", field=where)
            else:
                issues.warn(f"{head}: more in the buckets than in the run; the series is kept as printed",
                            field=where)
