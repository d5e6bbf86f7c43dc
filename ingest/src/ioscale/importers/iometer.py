"""Iometer results CSV -> steps, IoSamples per target and CpuSamples per host CPU.

Layout (Iometer ``GalileoView.cpp``, ``PageSetup.cpp``, ``AccessSpecList.cpp``, ``ManagerList.cpp``,
``Manager.cpp``, ``Worker.cpp`` ``SaveResults``). A run appends one block per test, i.e. per access spec
and per cycling step (queue depth, workers or targets cycling)::

    'Test Type,Test Description          <- cycling type (0 = none) and the test name
    0,nightly-qd-sweep
    'Version
    1.1.0
    'Time Stamp                          <- test start (local time, no zone)
    2019-05-02 10:00:00:000
    'Access specifications
    'Access specification name,default assignment
    4K random read,0
    'size,% of size,% reads,% random,delay,burst,align,reply
    4096,100,100,100,0,1,0,0
    'End access specifications
    'Results
    'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,...
    ALL,All,...                          <- whole fleet (no raw counters)
    MANAGER,host1,...                    <- one Dynamo (a host); raw counters, CPU %, interrupts/s
    PROCESSOR,CPU 0,...                  <- that host's CPUs
    WORKER,Worker 1,...                  <- a worker thread; raw latency sums in timer ticks
    DISK,E: data,...                     <- that worker's targets
    'Time Stamp                          <- test end
    2019-05-02 10:01:00:500
    ...
    'End Test

Columns are read by header name, so the 2006 layout (``MBps``), 1.1.0 (``MBps (Binary)`` /
``MBps (Decimal)``) and later (``MiBps (Binary)``, 21 latency-bin columns ``0 to 50 uS`` .. ``>= 10 s``)
all parse. ``Processor Speed`` holds the manager's timer resolution (ticks per second); the ``Total Raw``
columns are in those ticks.

Mapping: each ``'Results`` block is a step; ALL -> the step's load and a cross-check, MANAGER -> host (and
its total CpuSample, ``cpu = -1``), PROCESSOR -> one CpuSample per CPU, WORKER -> tag ``worker`` of its
targets, DISK -> one IoSample per direction (``target`` = the disk's name). When the file was saved without
target rows the workers (then the managers) are the sources instead. The measured interval ends at the
block's closing time stamp and lasts ``Total Raw Run Time`` (ramp-up excluded).

Two Iometer quirks handled: (1) DISK rows repeat their *worker's* raw latency sums (``Worker.cpp`` prints
``results`` instead of ``target->results``), so a target's latency sum is taken as mean x count, while
worker and manager rows use the exact raw sums; (2) time stamps are local time without a zone; they are read
as UTC with a warning. The latency bins count reads and writes together, and are 1.4x to 2.5x wide, so they
are kept verbatim in tag ``iometer_latency_bins`` rather than passed off as a fine-grained histogram.
NETWORK targets are reported and skipped.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Sequence

from ioscale.importers.common import (UNKNOWN_HOST, ImportResult, Issues, Source, StepSpan, checked_count,
                                      checked_float, checked_pct, checked_time_ms, cpu_sample, decode_text,
                                      derive_run_id, host_topology, io_sample, littles_law, parsed_sources, run_events,
                                      step_load, to_number)
from ioscale.wire.records import Direction

#: Longest plausible test (10^7 s = 115 days); beyond it the timer resolution or run time is garbage.
MAX_RUN_S = 1e7
_BIN_RE = re.compile(r"^(>=\s*[\d.]+\s*[um]?s|[\d.]+\s+to\s+[\d.]+\s*[um]?s)$", re.IGNORECASE)
_CPU_RE = re.compile(r"^CPU\s+(\d+)$", re.IGNORECASE)
_DIRS: tuple[tuple[Direction, str, str, str, str, str, str, str], ...] = (
    ("READ", "read i/os", "bytes read", "read errors", "average read response time",
     "maximum read response time", "total raw read response time", "maximum raw read response time"),
    ("WRITE", "write i/os", "bytes written", "write errors", "average write response time",
     "maximum write response time", "total raw write response time", "maximum raw write response time"),
)


@dataclass
class AccessSpec:
    name: str
    assignment: str = ""
    #: (size bytes, % of size, % reads, % random) per line
    lines: list[tuple[int, float, float, float]] = field(default_factory=list)


@dataclass
class Row:
    line_no: int
    kind: str
    name: str
    values: dict[str, str]
    manager: str = ""
    worker: str = ""


@dataclass
class Block:
    """One ``'Results`` block: one test of the (possibly cycling) run."""

    index: int
    line_no: int
    test_type: str = ""
    description: str = ""
    version: str = ""
    start_ms: int | None = None
    end_ms: int | None = None
    specs: list[AccessSpec] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


def parse_iometer(data: bytes, issues: Issues, *, now_ms: int) -> list[Block]:
    """Split an Iometer results CSV into its result blocks; bad lines are reported and skipped."""
    blocks: list[Block] = []
    text = decode_text(data)
    expect = ""             # what the line after a marker holds
    test_type = description = version = ""
    pending_start: int | None = None
    specs: list[AccessSpec] = []
    block: Block | None = None
    in_rows = False
    seen_marker = False
    warned_tz = False
    manager = worker = ""
    for line_no, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("'"):
            seen_marker = True
            marker = s[1:].strip()
            low = marker.lower()
            if in_rows and not low.startswith("target type"):
                in_rows = False
            if low.startswith("test type"):
                expect = "test"
            elif low == "version":
                expect = "version"
            elif low == "time stamp":
                expect = "time"
            elif low == "access specifications":
                specs, expect = [], ""
            elif low.startswith("access specification name"):
                expect = "spec"
            elif low.startswith("size,"):
                expect = "spec_line"
            elif low == "results":
                block = Block(index=len(blocks), line_no=line_no, test_type=test_type,
                              description=description, version=version, start_ms=pending_start,
                              specs=list(specs))
                blocks.append(block)
                pending_start, expect, manager, worker = None, "header", "", ""
            elif low.startswith("target type") and block is not None:
                block.header = [h.strip().lower() for h in _csv(marker)]
                in_rows, expect = True, ""
            elif low == "end test":
                expect = ""
            else:
                expect = ""
            continue
        if not seen_marker:
            issues.error("not an Iometer results file: data before any ' marker line", line=line_no)
            return blocks
        fields = _csv(s)
        if in_rows and block is not None:
            row = _row(fields, block.header, line_no, issues)
            if row is None:
                continue
            if row.kind == "MANAGER":
                manager, worker = row.name, ""
            elif row.kind == "WORKER":
                worker = row.name
            row.manager, row.worker = manager, worker
            block.rows.append(row)
        elif expect == "test":
            test_type, description = (fields + ["", ""])[0].strip(), ",".join(fields[1:]).strip()
            expect = ""
        elif expect == "version":
            version, expect = s, ""
        elif expect == "time":
            if not warned_tz:
                issues.warn("Iometer time stamps are local time without a zone; read as UTC", line=line_no)
                warned_tz = True
            ms = _parse_time(s, issues, now_ms, line_no)
            if block is not None and block.end_ms is None and block.rows:
                block.end_ms = ms
            else:
                pending_start = ms
            expect = ""
        elif expect == "spec":
            specs.append(AccessSpec(name=fields[0].strip(), assignment=",".join(fields[1:]).strip()))
            expect = ""
        elif expect == "spec_line" and specs:
            line = _spec_line(fields, issues, line_no)
            if line is not None:
                specs[-1].lines.append(line)
        else:
            issues.warn("line outside any known section ignored", line=line_no)
    if not seen_marker:
        issues.error("not an Iometer results file: no ' marker lines")
    return blocks


def _csv(s: str) -> list[str]:
    try:
        return next(csv.reader([s]))
    except (csv.Error, StopIteration):
        return s.split(",")


def _row(fields: list[str], header: list[str], line_no: int, issues: Issues) -> Row | None:
    if not header:
        issues.error("result row before the column header", line=line_no)
        return None
    kind = fields[0].strip().upper()
    if kind not in ("ALL", "MANAGER", "PROCESSOR", "WORKER", "DISK", "NETWORK", "UNKNOWN"):
        issues.error(f"unknown row type {fields[0]!r}", line=line_no)
        return None
    if len(fields) > len(header):
        issues.error(f"{len(fields)} columns, header has {len(header)}", line=line_no)
        return None
    values = dict(zip(header, (f.strip() for f in fields)))
    return Row(line_no=line_no, kind=kind, name=values.get("target name", ""), values=values)


def _spec_line(fields: list[str], issues: Issues, line_no: int) -> tuple[int, float, float, float] | None:
    nums = [f.strip() for f in fields if f.strip() != ""]
    if len(nums) < 4:
        issues.error("access specification line with fewer than 4 numbers", line=line_no)
        return None
    size = checked_count(nums[0], issues, line=line_no, field="size")
    of_size = checked_pct(nums[1], issues, line=line_no, field="% of size")
    reads = checked_pct(nums[2], issues, line=line_no, field="% reads")
    rnd = checked_pct(nums[3], issues, line=line_no, field="% random")
    if size is None or of_size is None or reads is None or rnd is None:
        return None
    return size, of_size, reads, rnd


def _parse_time(s: str, issues: Issues, now_ms: int, line_no: int) -> int | None:
    for fmt in ("%Y-%m-%d %H:%M:%S:%f", "%Y-%m-%d %H:%M:%S"):
        try:
            dt = datetime.strptime(s.strip(), fmt).replace(tzinfo=timezone.utc)
            return checked_time_ms(int(dt.timestamp() * 1000), issues, now_ms, line=line_no, field="Time Stamp")
        except ValueError:
            continue
    issues.error(f"unreadable time stamp {s!r}", line=line_no)
    return None


# --- records --------------------------------------------------------------------------------------------


def import_iometer(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                   now_ms: int) -> ImportResult:
    """Import Iometer results CSV files; every ``'Results`` block of every file is a step, in order."""
    result = ImportResult(run_id=run_id or derive_run_id("IOMETER", sources))
    spans: list[StepSpan] = []
    hosts: dict[str, int] = {}
    versions: set[str] = set()
    anchor = start_ms or 0
    for name, blocks, issues in parsed_sources(sources, result, parse_iometer, now_ms=now_ms, holds=len,
                                               missing="no 'Results block found"):
        for block in blocks:
            versions.add(block.version)
            span, anchor = _block_records(block, name, issues, result, len(spans), anchor, start_ms is not None,
                                          hosts)
            if span is not None:
                spans.append(span)
    if spans:
        first = sources[0][0].replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        result.run_events = run_events(
            run_id=result.run_id, tool="IOMETER", scenario=first,
            description=f"imported from {len(sources)} Iometer results file(s)",
            hosts=[host_topology(h, logical_processors=n) for h, n in sorted(hosts.items())], steps=spans,
            tags={"iometer_version": ",".join(sorted(v for v in versions if v))})
    return result


def _num(row: Row, col: str, issues: Issues, *, count: bool = False,
         allow_missing: bool = True) -> float | int | None:
    v = row.values.get(col)
    if count:
        return checked_count(v, issues, line=row.line_no, field=col, allow_missing=allow_missing)
    return checked_float(v, issues, line=row.line_no, field=col, allow_missing=allow_missing)


def _block_records(block: Block, name: str, issues: Issues, result: ImportResult, step_index: int,
                   anchor: int, anchor_given: bool, hosts: dict[str, int]) -> tuple[StepSpan | None, int]:
    rows = block.rows
    if not rows:
        issues.error("'Results block without result rows", line=block.line_no)
        return None, anchor
    # Timer resolution (ticks/s) and measured run time per manager.
    timer: dict[str, float] = {}
    runtime_ms: dict[str, int] = {}
    for r in rows:
        if r.kind == "MANAGER":
            tr = _num(r, "processor speed", issues)
            if tr and tr > 0:
                timer[r.name] = tr
                ticks = _num(r, "total raw run time", issues)
                if ticks is not None and ticks / tr > MAX_RUN_S:
                    issues.error(f"run time {ticks / tr:g} s is implausible", line=r.line_no,
                                 field="total raw run time")
                elif ticks is not None:
                    runtime_ms[r.name] = round(ticks / tr * 1000)
    duration = max(runtime_ms.values(), default=0)
    if block.end_ms is not None:
        end, basis = block.end_ms, "file"
        start = end - duration if duration else (block.start_ms if block.start_ms is not None else end)
    elif block.start_ms is not None:
        start, basis = block.start_ms, "estimated"
        end = start + duration
    else:
        if not anchor_given and step_index == 0:
            issues.warn("no time stamps; anchored at the Unix epoch", line=block.line_no)
        start, basis = anchor, "anchor"
        end = start + duration
    spec = _block_spec(block, rows)
    read_pct, random_pct, block_size = _spec_mix(spec)
    expected = {"READ": read_pct is None or read_pct > 0, "WRITE": read_pct is None or read_pct < 100}
    bin_cols = [h for h in block.header if _BIN_RE.match(h)]
    base_tags = {"source_file": name, "time_basis": basis, "iometer_block": str(block.index + 1)}
    if block.version:
        base_tags["iometer_version"] = block.version
    if spec is not None:
        base_tags["access_spec"] = spec.name

    # Sources: the finest level present for each manager.
    by_manager: dict[str, dict[str, list[Row]]] = {}
    for r in rows:
        by_manager.setdefault(r.manager, {}).setdefault(r.kind, []).append(r)
    if set(by_manager) <= {""}:
        # Saved without manager rows: the fleet total is the only source there is.
        by_manager = {"": {"MANAGER": [r for r in rows if r.kind == "ALL"]}}
    else:
        by_manager.pop("", None)
    read_total = 0
    for mgr, kinds in by_manager.items():
        host = mgr or UNKNOWN_HOST
        tr = timer.get(mgr)
        cpus = kinds.get("PROCESSOR", [])
        hosts[host] = max(hosts.get(host, 0), len(cpus))
        for r in kinds.get("NETWORK", []):
            issues.warn("network target skipped (not storage I/O)", line=r.line_no)
        sources = kinds.get("DISK") or kinds.get("WORKER") or kinds.get("MANAGER") or []
        for r in sources:
            interval = runtime_ms.get(mgr, duration)
            ticks = _num(r, "total raw run time", issues)
            if ticks is not None and tr and r.kind != "DISK" and ticks / tr <= MAX_RUN_S:
                interval = round(ticks / tr * 1000)
            target = r.name if r.kind in ("DISK", "WORKER") else "*"
            tags = {**base_tags, "iometer_row": r.kind}
            if r.worker and r.kind == "DISK":
                tags["worker"] = r.worker
            bins = _bins(r, bin_cols)
            if bins:
                tags["iometer_latency_bins"] = bins
                tags["iometer_latency_bins_scope"] = "read+write"
            for direction, c_ops, c_bytes, c_err, c_avg, c_max, c_raw, c_rawmax in _DIRS:
                ops = _num(r, c_ops, issues, count=True, allow_missing=False)
                nbytes = _num(r, c_bytes, issues, count=True, allow_missing=False)
                if ops is None or nbytes is None:
                    continue
                if ops == 0 and not expected[direction]:
                    continue
                if direction == "READ":
                    read_total += ops
                errors = _num(r, c_err, issues, count=True) or 0
                dtags = dict(tags)
                lat: dict[str, int] = {}
                if ops:
                    lat = _latency(r, ops, tr, c_avg, c_max, c_raw, c_rawmax, issues, dtags)
                mean = lat["latency_sum_ns"] / lat["latency_count"] if lat.get("latency_count") else None
                outstanding = littles_law(ops, interval, mean)
                if outstanding:
                    dtags["outstanding_ios_basis"] = "littles_law"
                result.io_samples.append(io_sample(
                    ts_ms=start, interval_ms=interval, run_id=result.run_id, step_index=step_index, host=host,
                    target=target, direction=direction, ops=ops, bytes_=nbytes, errors=errors,
                    outstanding_ios=outstanding, tags=dtags, **lat))
        for r in [m for m in kinds.get("MANAGER", []) if m.kind == "MANAGER"] + cpus:
            cpu = -1
            if r.kind == "PROCESSOR":
                m = _CPU_RE.match(r.name)
                if not m:
                    issues.error(f"processor row name {r.name!r} is not 'CPU <n>'", line=r.line_no)
                    continue
                cpu = int(m.group(1))
            util = checked_pct(r.values.get("% cpu utilization"), issues, line=r.line_no,
                               field="% CPU Utilization", allow_missing=True)
            if util is None:
                continue
            pct = {k: checked_pct(r.values.get(col), issues, line=r.line_no, field=col, allow_missing=True) or 0.0
                   for k, col in (("user", "% user time"), ("priv", "% privileged time"),
                                  ("dpc", "% dpc time"), ("irq", "% interrupt time"))}
            irq_s = _num(r, "interrupts per second", issues) or 0.0
            result.cpu_samples.append(cpu_sample(
                ts_ms=start, interval_ms=runtime_ms.get(mgr, duration), run_id=result.run_id,
                step_index=step_index, host=host, scope="HOST", cpu=cpu,
                logical_processors=len(cpus) if cpu == -1 else 0, utilization_pct=util, user_pct=pct["user"],
                privileged_pct=pct["priv"], dpc_pct=pct["dpc"], interrupt_pct=pct["irq"],
                interrupts_per_s=irq_s, tags=dict(base_tags)))
    all_row = next((r for r in rows if r.kind == "ALL"), None)
    labels: dict[str, str] = {"iometer_test_type": block.test_type}
    managers = workers = disks = qd = 0
    if all_row is not None:
        managers = _num(all_row, "# managers", issues, count=True) or 0
        workers = _num(all_row, "# workers", issues, count=True) or 0
        disks = _num(all_row, "# disks", issues, count=True) or 0
        qd_f = to_number(all_row.values.get("queue depth"))
        qd = int(qd_f) if qd_f is not None and qd_f > 0 else 0
        all_reads = _num(all_row, "read i/os", issues, count=True)
        if all_reads is not None and all_reads != read_total:
            issues.warn(f"ALL row has {all_reads} reads, the sources sum to {read_total}", line=all_row.line_no)
        labels.update(managers=str(managers), workers=str(workers), disks=str(disks))
    if not qd:
        qds = {int(q) for r in rows if r.kind == "WORKER" and (q := to_number(r.values.get("queue depth")))}
        qd = qds.pop() if len(qds) == 1 else 0
    # The access spec is the workload a cycling sweep steps through: the profile sweeps.split_sweeps keeps apart.
    labels["access_spec"] = spec.name if spec is not None else "unknown or mixed"
    label = f"{spec.name if spec else 'mixed specs'} | {managers} mgr x {workers} wkr x {disks} tgt, QD {qd}"
    span = StepSpan(
        index=step_index, label=label, start_ms=start, end_ms=max(end, start),
        load=step_load(vm_count=0, targets_per_vm=max(1, round(disks / managers)) if managers else 1,
                       workers_per_target=max(1, round(workers / disks)) if disks else 1,
                       outstanding_ios_per_target=qd, block_size_bytes=block_size,
                       read_pct=100.0 if read_pct is None else read_pct,
                       random_pct=100.0 if random_pct is None else random_pct, config_labels=labels),
        tags={"time_basis": basis, "source_file": name})
    return span, max(end, start)


def _block_spec(block: Block, rows: list[Row]) -> AccessSpec | None:
    names = {r.values.get("access specification name", "") for r in rows if r.kind in ("ALL", "WORKER")}
    names.discard("")
    if len(names) == 1:
        wanted = names.pop()
        for s in block.specs:
            if s.name == wanted:
                return s
    return block.specs[0] if len(block.specs) == 1 and not names else None


def _spec_mix(spec: AccessSpec | None) -> tuple[float | None, float | None, int]:
    """(read %, random %, block size) of an access spec, weighting its lines by '% of size'."""
    if spec is None or not spec.lines:
        return None, None, 0
    weight = sum(of for _, of, _, _ in spec.lines) or 1.0
    read = sum(of * rd for _, of, rd, _ in spec.lines) / weight
    rnd = sum(of * rn for _, of, _, rn in spec.lines) / weight
    size = max(spec.lines, key=lambda ln: ln[1])[0]
    return read, rnd, size


def _latency(r: Row, ops: int, timer: float | None, c_avg: str, c_max: str, c_raw: str, c_rawmax: str,
             issues: Issues, tags: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    raw = _num(r, c_raw, issues) if r.kind != "DISK" else None
    if raw is not None and timer:
        out["latency_sum_ns"] = round(raw / timer * 1e9)
        tags["latency_sum_basis"] = "exact"
    else:
        avg_ms = _num(r, c_avg, issues)
        if avg_ms is None:
            return {}
        out["latency_sum_ns"] = round(avg_ms * 1e6 * ops)
        tags["latency_sum_basis"] = "mean_x_count"
    out["latency_count"] = ops
    raw_max = _num(r, c_rawmax, issues) if r.kind != "DISK" else None
    max_ms = _num(r, c_max, issues)
    if raw_max is not None and timer:
        out["latency_max_ns"] = round(raw_max / timer * 1e9)
    elif max_ms is not None:
        out["latency_max_ns"] = round(max_ms * 1e6)
    return out


def _bins(r: Row, cols: list[str]) -> str:
    parts = []
    for c in cols:
        v = to_number(r.values.get(c))
        if v is not None and v > 0 and v == int(v):
            parts.append(f"{c}={int(v)}")
    return ";".join(parts)


__all__ = ["import_iometer", "parse_iometer", "Block", "Row", "AccessSpec"]
