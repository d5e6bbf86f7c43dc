"""Shared pieces of the importers: the result and issue types, record builders and value checks.

Every importer is a pure function ``(sources, run_id, start_ms, now_ms) -> ImportResult`` where a source
is ``(name, content_bytes)``. Nothing here reads files, clocks or Kafka: ``import_files`` in the package
``__init__`` does that at the edge. A parser never raises on bad input; it reports an ``ImportIssue``
(file, line or field, reason) and keeps whatever valid data the file still holds.

Conventions shared by all importers (documented once, here):

* Unknown values: ``host = "unknown"`` when the file does not name the machine; StepLoad integers are
  0 when the tool does not record them (block size 0 = unknown, not the schema default 4096).
* Whole-run results (DISKSPD, fio JSON, Iometer) become one IoSample per source and direction whose
  interval is the measured test time: ``ts_ms`` = start of measurement, ``interval_ms`` = its length. A
  per-interval series of the same run (DISKSPD ``-D``) replaces them, never adds to them.
* Counts not printed as such carry a ``*_basis`` tag: ``ops_basis = rate_x_interval`` (a rate times the
  interval), ``bytes_basis = ops_x_block_size`` (or ``ops_x_mean_io_size``).
* ``latency_sum_ns`` is ``mean x count`` when the tool prints only a rounded mean; tag
  ``latency_sum_basis`` says which (``exact``, ``mean_x_count`` or ``histogram``). A sample without a
  histogram leaves the bucket arrays empty: ``no_histogram_latency`` is that rule's one home.
* ``outstanding_ios`` is Little's law (IOPS x mean latency) when both are known, else 0; tag
  ``outstanding_ios_basis = littles_law`` marks it.
* Times the file does not carry are anchored at ``start_ms`` (caller-supplied) or the Unix epoch, with a
  warning; tag ``time_basis`` says how each record's time was obtained.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterator, Literal, Sequence, TypeVar

from ioscale.wire.records import (CpuSample, CpuScope, Direction, HostTopology, IoSample, PortKind, PortSample,
                                  RunEvent, RunEventType, StepLoad, Tool)

#: ``(name, content)``: what an importer parses. The name is only used in issues and labels.
Source = tuple[str, bytes]

UNKNOWN_HOST = "unknown"
#: A time more than this far after "now" is rejected as implausible (clock or parse error).
FUTURE_TOLERANCE_MS = 24 * 3600 * 1000
#: Schema ``latency_hist_scheme`` value for ioscale's log-linear histogram.
HIST_SCHEME = 1
INT64_MAX = (1 << 63) - 1
INT32_MAX = (1 << 31) - 1

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class ImportIssue:
    """One problem found in an input: where (file plus line or field) and why."""

    file: str
    reason: str
    line: int | None = None
    field: str | None = None
    severity: Severity = "error"

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f" [{self.field}]"
        return f"{self.severity}: {where}: {self.reason}"


@dataclass
class ImportResult:
    """Records of one run of an import, plus every issue met on the way (``errors``).

    The ``sweep_*`` fields are set when ``sweeps.split_sweeps`` made the run: the group's base id, what sets
    this sweep apart (readable; empty when the input held one sweep), the axis and each step's value on it.
    """

    run_id: str = ""
    run_events: list[RunEvent] = field(default_factory=list)
    io_samples: list[IoSample] = field(default_factory=list)
    cpu_samples: list[CpuSample] = field(default_factory=list)
    port_samples: list[PortSample] = field(default_factory=list)
    errors: list[ImportIssue] = field(default_factory=list)
    sweep_group: str = ""
    sweep: str = ""
    sweep_axis: str = ""
    sweep_points: list[str] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        """True when at least one issue is an error (warnings alone do not count)."""
        return any(i.severity == "error" for i in self.errors)


class Issues:
    """Collects issues for one file so parsers can say ``issues.error(...)`` without repeating the name."""

    def __init__(self, file: str, sink: list[ImportIssue]):
        self.file = file
        self.sink = sink

    def error(self, reason: str, *, line: int | None = None, field: str | None = None) -> None:
        self.sink.append(ImportIssue(self.file, reason, line, field, "error"))

    def warn(self, reason: str, *, line: int | None = None, field: str | None = None) -> None:
        self.sink.append(ImportIssue(self.file, reason, line, field, "warning"))


Parsed = TypeVar("Parsed")


def parsed_sources(sources: Sequence[Source], result: ImportResult, parse: Callable[..., Parsed | None], *,
                   now_ms: int, holds: Callable[[Parsed], object],
                   missing: str) -> Iterator[tuple[str, Parsed, Issues]]:
    """``(name, parsed, issues)`` of each source, in order, that parses and holds results.

    ``parse(data, issues, now_ms=now_ms)`` reports why it cannot read a file and returns None; a file it reads
    but that holds nothing (``holds(parsed)`` is false) is reported with the error ``missing``.
    """
    for name, data in sources:
        issues = Issues(name, result.errors)
        parsed = parse(data, issues, now_ms=now_ms)
        if parsed is None:
            continue
        if not holds(parsed):
            issues.error(missing)
            continue
        yield name, parsed, issues


# --- value checks ---------------------------------------------------------------------------------------


def to_number(value: Any) -> float | None:
    """A finite float from a JSON/XML/CSV value, or None (empty, text, NaN, infinite, bool)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        f = float(value)
    elif isinstance(value, str):
        s = value.strip().rstrip("%").strip()
        if not s:
            return None
        try:
            f = float(s)
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


def checked_count(value: Any, issues: Issues, *, field: str | None = None, line: int | None = None,
                  allow_missing: bool = False) -> int | None:
    """A non-negative integral count; reports NaN, negative, fractional or non-numeric values."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if not allow_missing:
            issues.error("missing count", field=field, line=line)
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    else:
        f = to_number(value)
        if f is None:
            issues.error(f"not a finite number: {_short(value)}", field=field, line=line)
            return None
        if f != math.floor(f):
            issues.error(f"count is not an integer: {_short(value)}", field=field, line=line)
            return None
        n = int(f)
    if n < 0:
        issues.error(f"negative count: {n}", field=field, line=line)
        return None
    if n > INT64_MAX:
        issues.error(f"count out of range: {n}", field=field, line=line)
        return None
    return n


def checked_float(value: Any, issues: Issues, *, field: str | None = None, line: int | None = None,
                  minimum: float | None = 0.0, maximum: float | None = None,
                  allow_missing: bool = False) -> float | None:
    """A finite float within [minimum, maximum]; reports NaN, infinities, text and out-of-range values."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if not allow_missing:
            issues.error("missing value", field=field, line=line)
        return None
    f = to_number(value)
    if f is None:
        issues.error(f"not a finite number: {_short(value)}", field=field, line=line)
        return None
    if minimum is not None and f < minimum:
        issues.error(f"value {f:g} below {minimum:g}", field=field, line=line)
        return None
    if maximum is not None and f > maximum:
        issues.error(f"value {f:g} above {maximum:g}", field=field, line=line)
        return None
    return f


def checked_pct(value: Any, issues: Issues, *, field: str | None = None, line: int | None = None,
                allow_missing: bool = False) -> float | None:
    """A percentage in [0, 100] (a 0.01 rounding excess above 100 is accepted and clamped)."""
    f = checked_float(value, issues, field=field, line=line, minimum=0.0, maximum=100.01,
                      allow_missing=allow_missing)
    return None if f is None else min(f, 100.0)


def checked_time_ms(ms: int | None, issues: Issues, now_ms: int, *, field: str | None = None,
                    line: int | None = None) -> int | None:
    """A plausible epoch time: not negative, not more than a day after ``now_ms``."""
    if ms is None:
        return None
    if ms < 0:
        issues.error(f"negative timestamp {ms}", field=field, line=line)
        return None
    if ms > now_ms + FUTURE_TOLERANCE_MS:
        issues.error(f"timestamp {ms} ms is in the future (now {now_ms})", field=field, line=line)
        return None
    return ms


def decimal_ms_to_ns(text: str) -> int | None:
    """'0.036' (milliseconds) -> 36000 ns without binary rounding; None for non-numbers."""
    try:
        d = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite():
        return None
    return int((d * 1_000_000).to_integral_value())


def quantile_from_percent(text: str) -> float | None:
    """'99.999' -> 0.99999 exactly as the decimal says (no 0.9999899999 from float division)."""
    try:
        d = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite() or d < 0 or d > 100:
        return None
    return float(d / 100)


def _short(value: Any) -> str:
    s = repr(value)
    return s if len(s) <= 40 else s[:37] + "..."


# --- text decoding --------------------------------------------------------------------------------------


def decode_text(data: bytes) -> str:
    """Bytes -> str honouring a UTF-16/UTF-8 BOM (PowerShell redirection writes UTF-16); never raises."""
    if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
        return data.decode("utf-16", errors="replace")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


# --- identifiers ----------------------------------------------------------------------------------------


def derive_run_id(tool: str, sources: Sequence[Source]) -> str:
    """Deterministic run id from the content of the files (order and names do not matter)."""
    digests = sorted(hashlib.sha256(data).hexdigest() for _, data in sources)
    h = hashlib.sha256(("\n".join(digests)).encode()).hexdigest()
    return f"{tool.lower()}-{h[:20]}"


_SIZE_RE = re.compile(r"^\s*(\d+)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)
_SIZE_MULT = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def salvaged_value(text: str, key: str, dec: json.JSONDecoder, start: int = 0, end: int | None = None) -> Any:
    """The JSON value after the first ``"key":`` in ``text[start:end]`` of a broken document; None when it is
    absent or itself broken (a truncated report keeps its complete head)."""
    m = re.compile(r'"' + re.escape(key) + r'"\s*:\s*').search(text, start, len(text) if end is None else end)
    if not m:
        return None
    try:
        return dec.raw_decode(text, m.end())[0]
    except (ValueError, RecursionError):
        return None


def salvaged_objects(text: str, pos: int, dec: json.JSONDecoder) -> list[Any]:
    """The complete objects of a JSON array whose items start at ``pos`` (just after its ``[``), up to the first
    broken one: what a killed tool's truncated report still holds whole."""
    out: list[Any] = []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            return out
        try:
            item, pos = dec.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return out
        out.append(item)


def parse_size_bytes(text: str) -> int | None:
    """'16k', '4K', '1m', '512', '64KiB' -> bytes (binary multiples, as fio and DISKSPD use)."""
    m = _SIZE_RE.match(text or "")
    if not m:
        return None
    return int(m.group(1)) * _SIZE_MULT[m.group(2).lower()]


# --- record builders: every schema field present, units in names -----------------------------------------
# The parsers validate values where they read them; the builders additionally clamp into the Avro
# ranges, so arithmetic on hostile-but-valid inputs (huge products) can never make an unencodable record.


def _long(v: int | float) -> int:
    v = int(v)
    return INT64_MAX if v > INT64_MAX else -INT64_MAX - 1 if v < -INT64_MAX - 1 else v


def _int32(v: int | float) -> int:
    v = int(v)
    return INT32_MAX if v > INT32_MAX else -INT32_MAX - 1 if v < -INT32_MAX - 1 else v


def _finite(v: float) -> float:
    v = float(v)
    return v if math.isfinite(v) else 0.0


def io_sample(*, ts_ms: int, interval_ms: int, run_id: str, step_index: int, host: str, vm: str = "",
              target: str, direction: Direction, ops: int, bytes_: int, outstanding_ios: float = 0.0,
              errors: int = 0, latency_count: int = 0, latency_sum_ns: int = 0, latency_min_ns: int = 0,
              latency_max_ns: int = 0, bucket_index: list[int] | None = None,
              bucket_count: list[int] | None = None, percentile_q: list[float] | None = None,
              percentile_ns: list[int] | None = None, tags: dict[str, str] | None = None) -> IoSample:
    return IoSample(
        ts_ms=_long(ts_ms), interval_ms=_int32(max(interval_ms, 0)), run_id=run_id,
        step_index=_int32(step_index), host=host, vm=vm, target=target, direction=direction,
        ops=_long(ops), bytes=_long(bytes_), outstanding_ios=_finite(outstanding_ios), errors=_long(errors),
        latency_count=_long(latency_count), latency_sum_ns=_long(latency_sum_ns),
        latency_min_ns=_long(latency_min_ns), latency_max_ns=_long(latency_max_ns),
        latency_hist_scheme=HIST_SCHEME, latency_bucket_index=[_int32(i) for i in bucket_index or []],
        latency_bucket_count=[_long(c) for c in bucket_count or []],
        percentile_q=[_finite(q) for q in percentile_q or []],
        percentile_ns=[_long(v) for v in percentile_ns or []], tags=dict(tags or {}),
    )


def cpu_sample(*, ts_ms: int, interval_ms: int, run_id: str, step_index: int, host: str, vm: str = "",
               scope: CpuScope, cpu: int, logical_processors: int = 0, utilization_pct: float,
               user_pct: float = 0.0, privileged_pct: float = 0.0, dpc_pct: float = 0.0,
               interrupt_pct: float = 0.0, iowait_pct: float = 0.0, interrupts_per_s: float = 0.0,
               dpcs_per_s: float = 0.0, tags: dict[str, str] | None = None) -> CpuSample:
    return CpuSample(
        ts_ms=_long(ts_ms), interval_ms=_int32(max(interval_ms, 0)), run_id=run_id,
        step_index=_int32(step_index), host=host, vm=vm, scope=scope, cpu=_int32(cpu),
        logical_processors=_int32(logical_processors), utilization_pct=_finite(utilization_pct),
        user_pct=_finite(user_pct), privileged_pct=_finite(privileged_pct), dpc_pct=_finite(dpc_pct),
        interrupt_pct=_finite(interrupt_pct), iowait_pct=_finite(iowait_pct),
        interrupts_per_s=_finite(interrupts_per_s), dpcs_per_s=_finite(dpcs_per_s), tags=dict(tags or {}),
    )


def port_sample(*, ts_ms: int, interval_ms: int, run_id: str, step_index: int, host: str, port_id: str,
                kind: PortKind, queue: int = -1, vm: str = "", link_speed_bps: int = 0, rx_bytes: int, tx_bytes: int,
                rx_frames: int = 0, tx_frames: int = 0, rx_errors: int = 0, tx_errors: int = 0, interrupts: int = 0,
                tags: dict[str, str] | None = None) -> PortSample:
    nonneg = lambda v: _long(max(v, 0))  # noqa: E731 - counts and speeds are never negative
    return PortSample(
        ts_ms=_long(ts_ms), interval_ms=_int32(max(interval_ms, 0)), run_id=run_id, step_index=_int32(step_index),
        host=host, port_id=port_id, kind=kind, queue=_int32(queue), vm=vm, link_speed_bps=nonneg(link_speed_bps),
        rx_bytes=nonneg(rx_bytes), tx_bytes=nonneg(tx_bytes), rx_frames=nonneg(rx_frames),
        tx_frames=nonneg(tx_frames), rx_errors=nonneg(rx_errors), tx_errors=nonneg(tx_errors),
        interrupts=nonneg(interrupts), tags=dict(tags or {}),
    )


def step_load(*, vm_count: int = 0, targets_per_vm: int = 1, workers_per_target: int = 1,
              outstanding_ios_per_target: int = 0, block_size_bytes: int = 0, read_pct: float = 100.0,
              random_pct: float = 100.0, adapter: str = "",
              config_labels: dict[str, str] | None = None) -> StepLoad:
    clamp = lambda v: _int32(max(v, 0))  # noqa: E731 - Avro int fields, never negative here
    return StepLoad(
        vm_count=clamp(vm_count), targets_per_vm=clamp(targets_per_vm),
        workers_per_target=clamp(workers_per_target),
        outstanding_ios_per_target=clamp(outstanding_ios_per_target),
        block_size_bytes=clamp(block_size_bytes), read_pct=_finite(read_pct), random_pct=_finite(random_pct),
        adapter=adapter, config_labels=dict(config_labels or {}),
    )


def host_topology(host: str, *, hypervisor: str = "", sockets: int = 0, cores: int = 0,
                  logical_processors: int = 0, memory_bytes: int = 0) -> HostTopology:
    return HostTopology(host=host, hypervisor=hypervisor, sockets=_int32(sockets), cores=_int32(cores),
                        logical_processors=_int32(logical_processors), memory_bytes=_long(memory_bytes))


@dataclass
class StepSpan:
    """One load step as the importers see it, before it becomes STEP_STARTED/STEP_ENDED events."""

    index: int
    label: str
    start_ms: int
    end_ms: int
    load: StepLoad
    tags: dict[str, str] = field(default_factory=dict)


def run_events(*, run_id: str, tool: Tool, scenario: str, description: str, hosts: list[HostTopology],
               steps: list[StepSpan], tags: dict[str, str] | None = None) -> list[RunEvent]:
    """RUN_STARTED, then STEP_STARTED/STEP_ENDED per step, then RUN_ENDED, in time order."""
    if not steps:
        return []
    run_start = min(s.start_ms for s in steps)
    run_end = max(s.end_ms for s in steps)
    base_tags = dict(tags or {})

    def ev(kind: RunEventType, ts: int, *, step: StepSpan | None = None, start: int | None = None,
           end: int | None = None, with_hosts: bool = False) -> RunEvent:
        return RunEvent(
            event_type=kind, ts_ms=_long(ts), run_id=run_id, scenario=scenario, tool=tool,
            description=description, hosts=list(hosts) if with_hosts else [],
            step_index=_int32(step.index) if step else -1, step_label=step.label if step else "",
            load=step.load if step else None, links=[], start_ms=None if start is None else _long(start),
            end_ms=None if end is None else _long(end),
            tags={**base_tags, **(step.tags if step else {})},
        )

    out = [ev("RUN_STARTED", run_start, with_hosts=True)]
    for s in sorted(steps, key=lambda s: (s.start_ms, s.index)):
        out.append(ev("STEP_STARTED", s.start_ms, step=s))
        out.append(ev("STEP_ENDED", s.end_ms, step=s, start=s.start_ms, end=s.end_ms))
    out.append(ev("RUN_ENDED", run_end, start=run_start, end=run_end, with_hosts=True))
    return out


def no_histogram_latency(count: int, sum_ns: float | None, tags: dict[str, str]) -> dict[str, int]:
    """Latency fields of a sample whose tool reports a mean, never a histogram (DISKSPD, perf counters, esxtop).

    The one rule for such samples: ``latency_count`` = the I/Os behind the mean, ``latency_sum_ns`` = the sum
    the mean implies (mean x count, or the tool's own sum of per-thread means x counts), tag
    ``latency_sum_basis = mean_x_count``; the bucket arrays stay empty, which is how the pipeline tells "no
    histogram" (N = 0: NULL percentiles, never made-up ones). Nothing when there are no I/Os or no mean.
    Pass the result to ``io_sample(**...)``.
    """
    if not count or sum_ns is None:
        return {}
    tags["latency_sum_basis"] = "mean_x_count"
    return {"latency_count": count, "latency_sum_ns": round(sum_ns)}


def littles_law(ops: int, interval_ms: int, mean_latency_ns: float | None) -> float:
    """Mean I/Os in flight = throughput x mean latency (holds over a whole closed-loop run)."""
    if not mean_latency_ns or interval_ms <= 0 or ops <= 0:
        return 0.0
    return ops / (interval_ms / 1000.0) * (mean_latency_ns / 1e9)
