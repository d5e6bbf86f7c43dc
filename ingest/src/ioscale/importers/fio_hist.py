"""fio histogram logs (``write_hist_log`` + ``log_hist_msec``) -> one IoSample per logged interval.

Line format (fio ``iolog.c`` ``flush_hist_samples``)::

    <time_ms>, <ddir 0=read 1=write 2=trim>, <block size>, <bin 0>, <bin 1>, ..., <bin N-1>

``time_ms`` is when the interval ended, relative to the job's start (absolute epoch ms with
``log_unix_epoch``). Each bin holds the I/Os completed *in that interval* (fio subtracts the previous
snapshot), so intervals and jobs merge by adding counts. N is 1216 (fio < 3, microseconds) or 1856 (fio >= 3,
nanoseconds), divided by 2^``log_hist_coarseness`` when neighbouring buckets were summed; see ``fio_bins``.
One file per job clone: ``<prefix>_clat_hist.<n>.log`` with n counting the jobs (and their ``numjobs``
clones) of the job file in order.

Each line becomes an IoSample: ops = sum of the bins, bytes = ops x block size (tag ``bytes_basis``), and
the histogram re-bucketed at fio's representative value of each bin; count/sum/min/max come from that
histogram (tag ``latency_sum_basis = histogram``: within fio's 0.78% bucket error, not exact).

Pass the run's fio JSON output along with the logs to name the targets, find each log's stonewall group
(the load step) and anchor the relative times at the group's start (``fio.group_windows``); the JSON's own
whole-run numbers are *not* emitted here (they would double-count the intervals; import them with
``fio``). Without it every log is step 0, targets are ``job<n>``, and times are anchored at ``start_ms`` or
the epoch with a warning.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from ioscale.histogram import LatencyHistogram
from ioscale.importers.common import (INT64_MAX, UNKNOWN_HOST, ImportResult, Issues, Source, StepSpan, decode_text,
                                      derive_run_id, host_topology, io_sample, littles_law, run_events, step_load,
                                      to_number)
from ioscale.importers.fio import FioDoc, fio_target, group_windows, job_options, parse_fio_json, rw_mix
from ioscale.importers.fio_bins import coarse_bin_value, hist_log_layout
from ioscale.wire.records import Direction

_DDIR: dict[int, Direction] = {0: "READ", 1: "WRITE"}
_LOG_INDEX_RE = re.compile(r"\.(\d+)\.log$")
#: Times above this are epoch milliseconds (log_unix_epoch), not milliseconds since the job started.
_EPOCH_THRESHOLD_MS = 10 ** 11


@dataclass
class HistLine:
    line_no: int
    t_ms: int
    ddir: int
    block_size: int
    counts: list[int] | None   # None: the line's bins were unreadable (reported); only its time is used


@dataclass
class HistLog:
    unit_ns: int = 1
    coarseness: int = 0
    lines: list[HistLine] = field(default_factory=list)


def parse_hist_log(data: bytes, issues: Issues) -> HistLog | None:
    """Parse one histogram log; bad lines are reported and skipped, the others kept."""
    rows: list[tuple[int, list[str]]] = []
    for n, raw in enumerate(decode_text(data).splitlines(), start=1):
        if not raw.strip():
            continue
        rows.append((n, [p.strip() for p in raw.split(",")]))
    if not rows:
        issues.error("empty histogram log")
        return None
    widths = Counter(len(p) - 3 for _, p in rows if len(p) > 3)
    if not widths:
        issues.error("no histogram line (expected: time, direction, block size, bins...)")
        return None
    n_bins = widths.most_common(1)[0][0]
    layout = hist_log_layout(n_bins)
    if layout is None:
        issues.error(f"unknown histogram layout: {n_bins} bins per line (expected 1216 or 1856, "
                     "divided by 2^log_hist_coarseness)")
        return None
    log = HistLog(unit_ns=layout[0], coarseness=layout[1])
    for line_no, parts in rows:
        head = [_int(p) for p in parts[:3]] if len(parts) >= 3 else [None]
        if any(v is None for v in head):
            issues.error(f"unreadable time, direction or block size: {', '.join(parts[:3])!r}", line=line_no)
            continue
        t_ms, ddir, bs = head  # type: ignore[misc]
        if t_ms < 0 or bs < 0 or ddir not in (0, 1, 2):
            issues.error(f"bad time {t_ms}, direction {ddir} or block size {bs}", line=line_no)
            continue
        counts: list[int] | None = None
        if len(parts) - 3 != n_bins:
            issues.error(f"{len(parts) - 3} bins, expected {n_bins} (truncated or corrupt line)", line=line_no)
        else:
            values = [_int(p) for p in parts[3:]]
            bad = [i for i, v in enumerate(values) if v is None or v < 0 or v > INT64_MAX]
            if bad:
                issues.error(f"bin {bad[0]} is not a non-negative 64-bit integer: {parts[3 + bad[0]]!r}",
                             line=line_no)
            else:
                counts = values  # type: ignore[assignment]
        # A line with a readable time but bad bins still ends its interval: the next line's interval
        # must not swallow it (its I/Os are lost, its time span is not).
        log.lines.append(HistLine(line_no, t_ms, ddir, bs, counts))  # type: ignore[arg-type]
    return log


def _first_interval_start(times: list[int], epoch: bool) -> int:
    """Start of the first interval: the job start (0) for relative times; for epoch times one typical
    interval (the median spacing) before the first line, which is all the log says about it."""
    if not epoch or not times:
        return 0
    diffs = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    return times[0] - (diffs[len(diffs) // 2] if diffs else 0)


def _int(text: str) -> int | None:
    if not text or not (text.isdigit() or (text[0] == "-" and text[1:].isdigit())):
        return None
    return int(text)


@dataclass
class _JobRef:
    """What the fio JSON says about histogram log number n."""

    target: str
    group: int
    jobname: str
    clone: int


def _log_map(doc: FioDoc) -> list[_JobRef]:
    """Log n (1-based) -> job: jobs in order, each repeated ``numjobs`` times when fio grouped clones."""
    refs: list[_JobRef] = []
    for job in doc.jobs:
        opts = job_options(doc, job)
        grouped = opts.get("group_reporting", "0") not in ("0", "false")
        clones = int(to_number(opts.get("numjobs")) or 1) if grouped else 1
        g = to_number(job.get("groupid"))
        for k in range(max(1, clones)):
            refs.append(_JobRef(fio_target(doc, job, opts), int(g) if g is not None and g >= 0 else 0,
                                str(job.get("jobname")), k))
    return refs


def import_fio_hist(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                    now_ms: int) -> ImportResult:
    """Import fio histogram logs (optionally with the run's fio JSON output among the sources)."""
    result = ImportResult(run_id=run_id or derive_run_id("FIO", sources))
    doc: FioDoc | None = None
    logs: list[tuple[str, bytes]] = []
    for name, data in sources:
        if decode_text(data[:256]).lstrip().startswith("{") or name.lower().endswith(".json"):
            parsed = parse_fio_json(data, Issues(name, result.errors), now_ms=now_ms)
            if parsed is not None and doc is None:
                doc = parsed
            elif parsed is not None:
                Issues(name, result.errors).warn("more than one fio JSON given; only the first is used")
        else:
            logs.append((name, data))
    refs = _log_map(doc) if doc else []
    groups = sorted({r.group for r in refs}) or [0]
    windows = group_windows(doc, groups, Issues(sources[0][0] if sources else "", result.errors),
                            anchor_ms=start_ms) if doc else {}
    used_targets: Counter[tuple[int, str]] = Counter()
    lines_by_step: dict[int, list[tuple[int, int]]] = {}
    block_sizes: dict[int, set[int]] = {}
    warned_anchor = False
    for pos, (name, data) in enumerate(logs, start=1):
        issues = Issues(name, result.errors)
        log = parse_hist_log(data, issues)
        if log is None or not log.lines:
            continue
        m = _LOG_INDEX_RE.search(name)
        n = int(m.group(1)) if m else pos
        ref = refs[n - 1] if 0 < n <= len(refs) else None
        if doc is not None and ref is None:
            issues.warn(f"log number {n} has no job in the fio JSON ({len(refs)} job clones)")
        group = ref.group if ref else 0
        step_index = groups.index(group) if group in groups else 0
        base_target = ref.target if ref else f"job{n}"
        clone = used_targets[(step_index, base_target)]
        used_targets[(step_index, base_target)] += 1
        target = base_target if clone == 0 else f"{base_target}#{clone}"
        epoch = log.lines[0].t_ms > _EPOCH_THRESHOLD_MS
        if epoch:
            base, basis = 0, "file"
        elif ref is not None and group in windows:
            base, basis = windows[group][0], windows[group][2]
        else:
            base, basis = start_ms or 0, "anchor"
            if not warned_anchor:
                issues.warn("log times are relative to the job start and no fio JSON anchors them; anchored at "
                            + ("the given start time" if start_ms is not None else "the Unix epoch"))
                warned_anchor = True
        prev_t = {d: _first_interval_start([hl.t_ms for hl in log.lines if hl.ddir == d], epoch)
                  for d in _DDIR}
        for hl in log.lines:
            if hl.ddir not in _DDIR:
                issues.warn("trim interval skipped (IoSample has READ/WRITE only)", line=hl.line_no)
                continue
            start_t = prev_t[hl.ddir]
            if hl.t_ms <= start_t:
                issues.error(f"time {hl.t_ms} ms does not advance (interval starts at {start_t} ms)",
                             line=hl.line_no)
                continue
            prev_t[hl.ddir] = hl.t_ms
            if hl.counts is None:
                continue
            hist = LatencyHistogram()
            for j, c in enumerate(hl.counts):
                if c:
                    hist.record(coarse_bin_value(j, log.coarseness) * log.unit_ns, c)
            ops = hist.count
            interval = hl.t_ms - start_t
            sparse = hist.to_sparse()
            tags = {"source_file": name, "time_basis": basis, "fio_log_index": str(n),
                    "fio_hist_coarseness": str(log.coarseness), "bytes_basis": "ops_x_block_size"}
            if ops:
                tags["latency_sum_basis"] = "histogram"
            if ref:
                tags["fio_job"] = ref.jobname
            outstanding = littles_law(ops, interval, hist.sum_ns / ops if ops else None)
            if outstanding:
                tags["outstanding_ios_basis"] = "littles_law"
            result.io_samples.append(io_sample(
                ts_ms=base + start_t, interval_ms=interval, run_id=result.run_id, step_index=step_index,
                host=UNKNOWN_HOST, target=target, direction=_DDIR[hl.ddir], ops=ops,
                bytes_=ops * hl.block_size, outstanding_ios=outstanding, latency_count=ops,
                latency_sum_ns=hist.sum_ns, latency_min_ns=hist.min_ns, latency_max_ns=hist.max_ns,
                bucket_index=sparse.indexes, bucket_count=sparse.counts, tags=tags))
            lines_by_step.setdefault(step_index, []).append((base + start_t, base + hl.t_ms))
            block_sizes.setdefault(step_index, set()).add(hl.block_size)
    spans: list[StepSpan] = []
    for step_index, ivs in sorted(lines_by_step.items()):
        g = groups[step_index] if step_index < len(groups) else 0
        members = [j for j in (doc.jobs if doc else []) if int(to_number(j.get("groupid")) or 0) == g]
        opts = job_options(doc, members[0]) if doc and members else {}
        read_pct, random_pct = rw_mix(opts)
        bss = block_sizes.get(step_index, set())
        spans.append(StepSpan(
            index=step_index, label=" ".join(p for p in (opts.get("rw", ""), opts.get("bs", "")) if p)
            or f"step {step_index}",
            start_ms=min(a for a, _ in ivs), end_ms=max(b for _, b in ivs),
            load=step_load(targets_per_vm=1, workers_per_target=int(to_number(opts.get("numjobs")) or 1),
                           outstanding_ios_per_target=int(to_number(opts.get("iodepth")) or 0),
                           block_size_bytes=bss.pop() if len(bss) == 1 else 0,
                           read_pct=100.0 if read_pct is None else read_pct,
                           random_pct=100.0 if random_pct is None else random_pct,
                           adapter=opts.get("ioengine", ""),
                           config_labels={"source": "fio histogram logs"})))
    if spans:
        result.run_events = run_events(
            run_id=result.run_id, tool="FIO", scenario=(logs[0][0].rsplit("/", 1)[-1].split("_clat_hist")[0]
                                                        if logs else ""),
            description=f"imported from {len(logs)} fio histogram log(s)", hosts=[host_topology(UNKNOWN_HOST)],
            steps=spans, tags={"fio_version": doc.version if doc else ""})
    return result


__all__ = ["import_fio_hist", "parse_hist_log", "HistLog", "HistLine"]
