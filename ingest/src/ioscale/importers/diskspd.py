"""DISKSPD results (``-Rxml`` and ``-Rtext``) -> IoSamples, CpuSamples and run events.

What DISKSPD writes (microsoft/diskspd ``XmlResultParser.cpp`` and ``ResultParser.cpp``):

* per thread and target: read/write I/O counts and bytes for the measured time (warm-up and cool-down
  excluded), with ``-L`` the mean latency per direction in ms (3 decimals);
* per logical CPU: usage, user, kernel and idle percent, plus an average row;
* with ``-L`` one percentile table per direction: XML has 0 (min), 1..99, 99.9 .. 99.9999999 (9 nines)
  and 100 (max), over *all* threads and targets; text has min, 25/50/75/90/95/99, 3..9 nines and max, and
  additionally one table per target when there are several targets. DISKSPD keeps a histogram internally
  but never writes it, so these are percentiles, not buckets: they go to ``IoSample.percentile_q`` /
  ``percentile_ns`` of the source they describe and are never averaged or merged here.

Mapping (one DISKSPD instance = one host, or one VM under VMFleet):

* IoSample per (target, direction), threads summed; ``ts_ms`` = start time + warm-up, ``interval_ms`` =
  the actual test time DISKSPD reports. Percentiles go to the target's sample when the table covers that
  target alone (per-target text tables, or a single-target run); a table over several targets goes to an
  extra sample with ``target = "*"``, ``ops = bytes = latency_count = 0`` (so nothing is counted twice) and
  tag ``aggregate = all_targets``. Tag ``percentile_sample_count`` is the number of I/Os behind a table:
  quantiles beyond 1 - 1/N are just the maximum (FIELD-NOTES "Latency percentiles").
* With ``-D`` (XML only: the text output has no per-interval figures) a target's series replaces its
  whole-run samples: one IoSample per bucket and direction, threads summed; ``ts_ms`` = measurement start +
  ``SampleMillisecond`` - bucket length, ``interval_ms`` = the bucket length (the last one clipped or stretched
  to the measured end); ``ops`` = the bucket's IOPS x its length (tag ``ops_basis = rate_x_interval``, or
  ``rate_x_interval_plus_tail`` on the last one when it takes the I/Os DISKSPD left out of its buckets, see
  ``diskspd_model.settle_intervals``); ``bytes`` = ops x the target's block size (tag ``bytes_basis``); with
  ``-L`` latency sum = the threads' bucket means x counts and the bucket's min and max. The whole-run
  percentile table then goes to the ``target = "*"`` sample (also for one target) with ``interval_ms = 0``:
  it holds no I/O, and a whole-run span beside one-second samples would smear them in the step analysis.
* CpuSample per logical CPU plus the average (``cpu = -1``); scope HOST, or GUEST under VMFleet.
* Each result timespan is a load step; several files whose measured intervals overlap form one step
  (concurrent instances), otherwise each file is a step of its own.

Not parsed: the IOPS and latency standard deviations of ``-D`` (no schema field), ETW counters,
``<Distribution>`` ranges.
"""

from __future__ import annotations

from typing import Iterator, Sequence

from ioscale.importers.common import (UNKNOWN_HOST, ImportResult, Issues, Source, StepSpan, cpu_sample, decode_text,
                                      derive_run_id, host_topology, io_sample, littles_law, no_histogram_latency,
                                      parsed_sources, run_events, step_load)
from ioscale.importers.diskspd_model import DIRECTIONS, DiskspdRun, Load, Percentiles, TargetResult, Timespan
from ioscale.importers.diskspd_text import parse_text
from ioscale.importers.diskspd_xml import parse_xml
from ioscale.wire.records import CpuSample, CpuScope, Direction, IoSample


def import_diskspd(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                   now_ms: int) -> ImportResult:
    """Import DISKSPD XML or text results; concurrent files form one step, sequential files one each."""
    result = ImportResult(run_id=run_id or derive_run_id("DISKSPD", sources))
    parsed = [(name, run) for name, run, _ in diskspd_runs(sources, result, now_ms)]
    if not parsed:
        return result

    # Group timespans into steps: overlapping measured intervals run concurrently.
    units: list[tuple[str, DiskspdRun, Timespan, int, int, str]] = []
    for name, run in parsed:
        issues = Issues(name, result.errors)
        for ts, (start, end, basis) in zip(run.timespans, timespan_windows(run, issues, start_ms)):
            if not ts.targets and not ts.cpus:
                issues.warn("timespan holds no I/O or CPU results; skipped", field=f"timespan {ts.index + 1}")
                continue
            units.append((name, run, ts, start, end, basis))
    if not units:
        return result
    units.sort(key=lambda u: (u[3], u[0], u[2].index))
    steps: list[list[tuple[str, DiskspdRun, Timespan, int, int, str]]] = []
    for u in units:
        # Only intervals placed by the file's own clock can be compared; anchored ones stay apart.
        timed = u[5] != "anchor"
        if steps and timed and steps[-1][0][5] != "anchor" and u[3] < max(x[4] for x in steps[-1]):
            steps[-1].append(u)
        else:
            steps.append([u])

    spans: list[StepSpan] = []
    hosts: dict[str, int] = {}
    for step_index, members in enumerate(steps):
        targets_total = 0
        for name, run, ts, start, end, basis in members:
            host = run.computer or UNKNOWN_HOST
            hosts[host] = max(hosts.get(host, 0), run.logical_processors)
            io, cpu = timespan_records(run, ts, run_id=result.run_id, step_index=step_index, host=host,
                                       vm="", scope="HOST", start_ms=start, end_ms=end, time_basis=basis,
                                       source_tags={"source_file": name})
            result.io_samples.extend(io)
            result.cpu_samples.extend(cpu)
            targets_total += len(ts.targets)
        first = members[0][2]
        spans.append(StepSpan(
            index=step_index, label=load_label(first.load),
            start_ms=min(m[3] for m in members), end_ms=max(m[4] for m in members),
            load=step_load(vm_count=0, targets_per_vm=max(1, targets_total // max(1, len(members))),
                           workers_per_target=first.load.threads_per_target,
                           outstanding_ios_per_target=first.load.outstanding,
                           block_size_bytes=first.load.block_size_bytes,
                           read_pct=100.0 - first.load.write_pct if first.load.write_pct is not None else 100.0,
                           random_pct=first.load.random_pct if first.load.random_pct is not None else 100.0,
                           config_labels={**first.load.labels, "instances": str(len(members))}),
        ))
    scenario = parsed[0][0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
    result.run_events = run_events(
        run_id=result.run_id, tool="DISKSPD", scenario=scenario,
        description=f"imported from {len(parsed)} DISKSPD result file(s)",
        hosts=[host_topology(h, logical_processors=lp) for h, lp in sorted(hosts.items())], steps=spans,
        tags={"diskspd_version": parsed[0][1].version, "format": parsed[0][1].fmt},
    )
    return result


def diskspd_runs(sources: Sequence[Source], result: ImportResult,
                 now_ms: int) -> Iterator[tuple[str, DiskspdRun, Issues]]:
    """The sources that parse as DISKSPD results with at least one timespan; the others are reported."""
    return parsed_sources(sources, result, parse_diskspd, now_ms=now_ms, holds=lambda run: run.timespans,
                          missing="no result timespan found")


def parse_diskspd(data: bytes, issues: Issues, *, now_ms: int) -> DiskspdRun | None:
    """Parse one DISKSPD output (XML if it starts with '<', else text). Never raises on bad input."""
    text_start = decode_text(data[:4096]).lstrip()
    if text_start.startswith("<"):
        return parse_xml(data, issues, now_ms=now_ms)
    return parse_text(decode_text(data), issues, now_ms=now_ms)


def timespan_windows(run: DiskspdRun, issues: Issues, anchor_ms: int | None) -> list[tuple[int, int, str]]:
    """(start, end, time_basis) of each timespan's measured interval.

    DISKSPD records one start time for the whole run (before the first warm-up); later timespans start
    after the previous one's duration and cool-down, so their times are estimates (basis ``estimated``).
    """
    out: list[tuple[int, int, str]] = []
    if run.start_ms is not None:
        cursor, basis = run.start_ms, "file"
    else:
        cursor, basis = (anchor_ms or 0), "anchor"
        issues.warn("no start time in file; measurement times are anchored at "
                    + ("the given start time" if anchor_ms is not None else "the Unix epoch"))
    for k, ts in enumerate(run.timespans):
        start = cursor + round((ts.warmup_s or 0.0) * 1000)
        length = ts.test_time_ms if ts.test_time_ms is not None else round((ts.duration_s or 0.0) * 1000)
        out.append((start, start + length, basis if k == 0 or basis != "file" else "estimated"))
        cursor = start + length + round((ts.cooldown_s or 0.0) * 1000)
    return out


def load_label(load: Load) -> str:
    parts = []
    if load.block_size_bytes:
        bs = load.block_size_bytes
        parts.append(f"{bs // 1024}K" if bs % 1024 == 0 else f"{bs}B")
    if load.random_pct is not None:
        parts.append("random" if load.random_pct >= 100 else "seq" if load.random_pct <= 0
                     else f"{load.random_pct:g}% random")
    if load.write_pct is not None:
        parts.append(f"{100 - load.write_pct:g}% read")
    if load.outstanding:
        parts.append(f"QD {load.outstanding}")
    if load.threads_per_target:
        parts.append(f"{load.threads_per_target} thread(s)/target")
    return ", ".join(parts) or "DISKSPD run"


def timespan_records(run: DiskspdRun, ts: Timespan, *, run_id: str, step_index: int, host: str, vm: str,
                     scope: CpuScope, start_ms: int, end_ms: int, time_basis: str,
                     source_tags: dict[str, str]) -> tuple[list[IoSample], list[CpuSample]]:
    """IoSamples and CpuSamples of one measured timespan."""
    interval = max(0, end_ms - start_ms)
    base_tags = {**source_tags, "time_basis": time_basis, "diskspd_format": run.fmt}
    if run.version:
        base_tags["diskspd_version"] = run.version
    io: list[IoSample] = []
    expect = {"READ": ts.load.write_pct is not None and ts.load.write_pct < 100,
              "WRITE": ts.load.write_pct is not None and ts.load.write_pct > 0}
    single = len(ts.targets) == 1
    series = any(t.intervals for t in ts.targets.values())
    for path, t in ts.targets.items():
        chart = ts.charts.get(path) or (ts.charts.get("") if single and not series else None)
        for d in DIRECTIONS:
            ops = t.ops[d]
            if ops == 0 and not expect[d]:
                continue
            tags = {**base_tags, "threads": str(t.threads)}
            if t.file_size_bytes is not None:
                tags["file_size_bytes"] = str(t.file_size_bytes)
            if t.intervals:
                io.extend(_interval_samples(ts, t, d, tags, run_id=run_id, step_index=step_index, host=host, vm=vm,
                                            start_ms=start_ms, end_ms=end_ms))
                continue
            lat_sum_ms = t.lat_sum_ms[d]
            lat = no_histogram_latency(ops, lat_sum_ms * 1_000_000 if ts.latency_measured and lat_sum_ms is not None
                                       else None, tags)
            kw = _chart_fields(chart.get(d) if chart else None, tags, ops)
            outstanding = littles_law(ops, interval, lat["latency_sum_ns"] / ops if lat else None)
            if outstanding:
                tags["outstanding_ios_basis"] = "littles_law"
            io.append(io_sample(ts_ms=start_ms, interval_ms=interval, run_id=run_id, step_index=step_index,
                                host=host, vm=vm, target=path, direction=d, ops=ops, bytes_=t.bytes[d],
                                outstanding_ios=outstanding, tags=tags, **lat, **kw))
    all_chart = ts.charts.get("")
    if all_chart and (series or not single) and ts.targets:
        for d in DIRECTIONS:
            if d not in all_chart:
                continue
            n = sum(t.ops[d] for t in ts.targets.values())
            tags = {**base_tags, "aggregate": "all_targets", "targets": str(len(ts.targets))}
            if series:
                tags["percentile_window_ms"] = str(interval)
            kw = _chart_fields(all_chart[d], tags, n)
            io.append(io_sample(ts_ms=start_ms, interval_ms=0 if series else interval, run_id=run_id,
                                step_index=step_index, host=host, vm=vm, target="*", direction=d, ops=0, bytes_=0,
                                tags=tags, **kw))
    cpu: list[CpuSample] = []
    rows = list(ts.cpus) + ([ts.cpu_avg] if ts.cpu_avg is not None else [])
    for row in rows:
        cpu.append(cpu_sample(ts_ms=start_ms, interval_ms=interval, run_id=run_id, step_index=step_index,
                              host=host, vm=vm, scope=scope, cpu=row.cpu,
                              logical_processors=len(ts.cpus) if row.cpu == -1 else 0,
                              utilization_pct=row.usage_pct, user_pct=row.user_pct,
                              privileged_pct=row.kernel_pct, tags={**base_tags, **row.tags}))
    return io, cpu


def _interval_samples(ts: Timespan, t: TargetResult, d: Direction, tags: dict[str, str], *, run_id: str, step_index: int,
                      host: str, vm: str, start_ms: int, end_ms: int) -> list[IoSample]:
    """The target's ``-D`` series in one direction: one IoSample per bucket (see the module docstring)."""
    bucket = ts.bucket_ms or 0
    sizes = ts.block_sizes.get(t.path, set())
    if len(sizes) == 1:
        size, size_basis = next(iter(sizes)), "ops_x_block_size"
    else:   # no profile, or one path listed with several sizes (VMFleet's VDI and SQL profiles)
        size, size_basis = (round(t.bytes[d] / t.ops[d]) if t.ops[d] else 0), "ops_x_mean_io_size"
    out: list[IoSample] = []
    ends = sorted(t.intervals)
    for end in ends:
        iv = t.intervals[end]
        ts_ms = start_ms + end - bucket
        length = bucket
        ops = iv.ops[d]
        stags = {**tags, "ops_basis": "rate_x_interval", "bytes_basis": size_basis}
        if end == ends[-1]:
            # The last bucket may reach past the measured end (Duration not a multiple of it), and the I/Os
            # DISKSPD left out of its buckets completed between its end and the measured end.
            if 0 < end_ms - ts_ms and (end_ms - ts_ms < bucket or t.tail_ops[d]):
                length = end_ms - ts_ms
            if t.tail_ops[d]:
                ops += t.tail_ops[d]
                stags["ops_basis"] = "rate_x_interval_plus_tail"
        lat_sum = iv.lat_sum_ns[d] if ts.latency_measured else None
        lat = no_histogram_latency(iv.ops[d], lat_sum, stags)
        if lat:
            lat.update(latency_min_ns=iv.lat_min_ns[d] or 0, latency_max_ns=iv.lat_max_ns[d] or 0)
        outstanding = littles_law(iv.ops[d], length, lat["latency_sum_ns"] / iv.ops[d] if lat else None)
        if outstanding:
            stags["outstanding_ios_basis"] = "littles_law"
        out.append(io_sample(ts_ms=ts_ms, interval_ms=length, run_id=run_id, step_index=step_index, host=host,
                             vm=vm, target=t.path, direction=d, ops=ops, bytes_=ops * size,
                             outstanding_ios=outstanding, tags=stags, **lat))
    return out


def _chart_fields(p: Percentiles | None, tags: dict[str, str], n: int) -> dict:
    if p is None:
        return {}
    rows = sorted(p.rows)
    tags["percentile_sample_count"] = str(n)
    return {"percentile_q": [q for q, _ in rows], "percentile_ns": [ns for _, ns in rows],
            "latency_min_ns": p.min_ns or 0, "latency_max_ns": p.max_ns or 0}


__all__ = ["import_diskspd", "parse_diskspd", "DiskspdRun", "Timespan", "timespan_records",
           "timespan_windows", "load_label"]
