"""fio JSON results (``--output-format=json`` and ``json+``) -> IoSamples and run events.

Layouts handled (fio ``stat.c`` ``show_ddir_status`` JSON output):

* fio 2.x: latencies in microseconds under ``clat`` / ``lat`` / ``slat``; ``io_bytes`` is in **KiB**
  (``ts->io_bytes >> 10``), ``total_ios`` only since ~2.2 (older files: ops = iops x runtime, tagged
  ``ops_basis = iops_x_runtime``); ``json+`` bins keyed by bucket value in us.
* fio 3.x: ``clat_ns`` / ``lat_ns`` / ``slat_ns`` in nanoseconds with ``N``; ``io_bytes`` in bytes next to
  ``io_kbytes`` (the presence of ``io_kbytes`` is what tells the two byte units apart); ``json+`` bins
  keyed by bucket value in ns.
* Old fio repeats keys: the 20-slot ``percentile`` map is padded with ``"0.00": 0`` entries and
  ``global options`` may repeat ``filename``. The parser keeps every pair (``Pairs``), drops the padding
  and takes the last value of a repeated option.

Mapping: every stonewall group (``groupid``) is a load step; every job entry and direction with I/O (or
expected I/O from ``rw``) is one IoSample over the whole job runtime, ``target`` = the job's filename.
Latency is fio's completion latency ``clat`` (the one its percentiles and histogram logs use; ``lat`` when
``lat_percentiles`` moved the percentiles there); json+ bins are re-bucketed into ioscale's histogram at
fio's own representative value of each bucket (``fio_bins.plat_idx_to_val``). The coarse ``latency_us`` /
``latency_ms`` maps are percentages of I/Os, floored at 0.01, and are not used.

Times: ``job_start`` (recent fio) when present; else the groups are laid end to end backwards from the
file's ``timestamp_ms`` (written when fio finished), tagged ``time_basis = estimated``; fio 2.1 files have
no time at all and are anchored at ``start_ms`` or the epoch with a warning.

Not parsed: trim and ``mixed`` (unified_rw_reporting) directions (IoSample has READ/WRITE only; reported
as warnings), ``disk_util`` device counters, fio's own process CPU (``usr_cpu``/``sys_cpu`` kept as tags).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ioscale.histogram import LatencyHistogram
from ioscale.importers.common import (INT64_MAX, UNKNOWN_HOST, ImportResult, Issues, Source, StepSpan, checked_count,
                                      checked_float, checked_time_ms, decode_text, derive_run_id, host_topology,
                                      io_sample, littles_law, parse_size_bytes, parsed_sources, quantile_from_percent,
                                      run_events, salvaged_objects, salvaged_value, step_load, to_number)
from ioscale.importers.fio_bins import FIO_IO_U_PLAT_VAL, GROUP_NR_NSEC, GROUP_NR_USEC, plat_idx_to_val, plat_val_to_idx
from ioscale.wire.records import Direction

SUPPORTED_MAJOR_VERSIONS = {"2", "3"}
_DIRS: tuple[tuple[str, Direction], ...] = (("read", "READ"), ("write", "WRITE"))


class Pairs(list):
    """A JSON object kept as its (key, value) pairs, so repeated keys survive (``object_pairs_hook``)."""

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in reversed(self):
            if k == key:
                return v
        return default

    def get_all(self, key: str) -> list[Any]:
        return [v for k, v in self if k == key]

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self)


@dataclass
class FioDoc:
    version: str = ""
    timestamp_ms: int | None = None
    global_options: Pairs = field(default_factory=Pairs)
    jobs: list[Pairs] = field(default_factory=list)


# --- parsing --------------------------------------------------------------------------------------------


def parse_fio_json(data: bytes, issues: Issues, *, now_ms: int) -> FioDoc | None:
    """Parse fio JSON output; on a syntax error keep the header and every complete job before it."""
    text = decode_text(data)
    start = text.find("{")
    if start < 0:
        issues.error("no JSON object found")
        return None
    if start > 0 and text[:start].strip():
        issues.warn("text before the JSON document ignored (fio notes or warnings)", line=1)
    doc_obj: Any
    try:
        doc_obj, end = json.JSONDecoder(object_pairs_hook=Pairs).raw_decode(text, start)
        if text[end:].strip():
            issues.warn("text after the JSON document ignored", line=text.count("\n", 0, end) + 1)
    except (ValueError, RecursionError) as e:
        line = getattr(e, "lineno", None)
        issues.error(f"malformed or truncated JSON ({e}); keeping the complete jobs before it", line=line)
        doc_obj = _recover(text, start)
    if not isinstance(doc_obj, Pairs):
        issues.error("JSON document is not an object")
        return None
    doc = FioDoc()
    doc.version = str(doc_obj.get("fio version") or "")
    major = re.match(r"^fio-(\d+)\.", doc.version)
    if not doc.version:
        issues.warn("no 'fio version' in file", field="fio version")
    elif not major or major.group(1) not in SUPPORTED_MAJOR_VERSIONS:
        issues.error(f"unknown fio version {doc.version!r} (supported: fio-2.x, fio-3.x); parsed by layout",
                     field="fio version")
    ts_ms = to_number(doc_obj.get("timestamp_ms"))
    if ts_ms is None and to_number(doc_obj.get("timestamp")) is not None:
        ts_ms = to_number(doc_obj.get("timestamp")) * 1000
    if ts_ms is not None:
        doc.timestamp_ms = checked_time_ms(int(ts_ms), issues, now_ms, field="timestamp_ms")
    elif doc_obj.has("timestamp_ms") or doc_obj.has("timestamp"):
        issues.error("unreadable timestamp", field="timestamp_ms")
    go = doc_obj.get("global options")
    if isinstance(go, Pairs):
        doc.global_options = go
    jobs = doc_obj.get("jobs")
    if not isinstance(jobs, list) or isinstance(jobs, Pairs):
        issues.error("no 'jobs' array", field="jobs")
        return doc
    for i, job in enumerate(jobs):
        if isinstance(job, Pairs):
            doc.jobs.append(job)
        else:
            issues.error("job is not an object", field=f"jobs[{i}]")
    return doc


def _recover(text: str, start: int) -> Pairs:
    """Best effort after a JSON error: header fields, global options and each complete job."""
    out = Pairs()
    dec = json.JSONDecoder(object_pairs_hook=Pairs)
    jobs_at = text.find('"jobs"', start)
    head_end = jobs_at if jobs_at > 0 else len(text)
    for key in ("fio version", "timestamp_ms", "timestamp", "global options"):
        value = salvaged_value(text, key, dec, start, head_end)
        if value is not None:
            out.append((key, value))
    if jobs_at < 0:
        return out
    pos = text.find("[", jobs_at)
    out.append(("jobs", salvaged_objects(text, pos + 1, dec) if pos >= 0 else []))
    return out


# --- options and load -----------------------------------------------------------------------------------


def job_options(doc: FioDoc, job: Pairs) -> dict[str, str]:
    """Global options overlaid with the job's own; the last of repeated keys wins."""
    opts: dict[str, str] = {}
    for src in (doc.global_options, job.get("job options")):
        if isinstance(src, Pairs):
            for k, v in src:
                if isinstance(v, (str, int, float)) and not isinstance(v, bool):
                    opts[str(k)] = str(v)
    return opts


def _first_size(text: str | None) -> int:
    if not text:
        return 0
    return parse_size_bytes(re.split(r"[,:\-]", text)[0]) or 0


def rw_mix(opts: dict[str, str]) -> tuple[float | None, float | None]:
    """(read_pct, random_pct) implied by rw / rwmixread / rwmixwrite / percentage_random; None = unknown."""
    rw = (opts.get("rw") or opts.get("readwrite") or "").split(":")[0].strip().lower()
    if not rw:
        return None, None
    random = 100.0 if rw.startswith("rand") else 0.0
    if "percentage_random" in opts:
        random = to_number(opts["percentage_random"].split(",")[0]) or random
    if rw in ("read", "randread"):
        return 100.0, random
    if rw in ("write", "randwrite", "trim", "randtrim", "trimwrite"):
        return 0.0, random
    mix_read = to_number(opts.get("rwmixread"))
    mix_write = to_number(opts.get("rwmixwrite"))
    if mix_read is not None:
        return min(max(mix_read, 0.0), 100.0), random
    if mix_write is not None:
        return 100.0 - min(max(mix_write, 0.0), 100.0), random
    return 50.0, random


def fio_target(doc: FioDoc, job: Pairs, opts: dict[str, str]) -> str:
    return opts.get("filename") or str(job.get("jobname") or "") or "job"


# --- records --------------------------------------------------------------------------------------------


@dataclass
class _Unit:
    """One (job, direction) with I/O: what becomes one IoSample."""

    job_index: int
    direction: Direction
    group: int
    target: str
    runtime_ms: int
    ops: int
    bytes: int
    fields: dict[str, Any]
    tags: dict[str, str]


def import_fio(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
               now_ms: int) -> ImportResult:
    """Import fio JSON files; each file is a run of stonewall groups, files follow one another."""
    result = ImportResult(run_id=run_id or derive_run_id("FIO", sources))
    spans: list[StepSpan] = []
    versions: list[str] = []
    for name, doc, issues in parsed_sources(sources, result, parse_fio_json, now_ms=now_ms,
                                            holds=lambda doc: doc.jobs, missing="no jobs in file"):
        versions.append(doc.version)
        units = [u for i, job in enumerate(doc.jobs) for u in job_units(doc, i, job, issues)]
        groups = sorted({u.group for u in units} | {_group_of(j) for j in doc.jobs})
        windows = group_windows(doc, groups, issues, anchor_ms=start_ms)
        step_base = len(spans)
        seen_targets: dict[tuple[int, str, str], int] = {}
        for u in units:
            g_start, _, basis = windows[u.group]
            key = (u.group, u.target, u.direction)
            clone = seen_targets.get(key, 0)
            seen_targets[key] = clone + 1
            target = u.target if clone == 0 else f"{u.target}#{clone}"
            result.io_samples.append(io_sample(
                ts_ms=g_start, interval_ms=u.runtime_ms, run_id=result.run_id,
                step_index=step_base + groups.index(u.group), host=UNKNOWN_HOST, target=target,
                direction=u.direction, ops=u.ops, bytes_=u.bytes,
                tags={**u.tags, "source_file": name, "time_basis": basis}, **u.fields))
        for g in groups:
            g_start, g_end, basis = windows[g]
            members = [j for j in doc.jobs if _group_of(j) == g]
            opts = job_options(doc, members[0]) if members else {}
            read_pct, random_pct = rw_mix(opts)
            labels = {"fio_jobs": ",".join(str(j.get("jobname")) for j in members)[:200]}
            if read_pct is None:
                g_units = [u for u in units if u.group == g]
                r = sum(u.ops for u in g_units if u.direction == "READ")
                w = sum(u.ops for u in g_units if u.direction == "WRITE")
                read_pct = 100.0 * r / (r + w) if r + w else 100.0
                labels["load_inferred"] = "read_pct from I/O counts; rw unknown"
            if random_pct is None:
                labels["random_pct_unknown"] = "true"
            block_size = _first_size(opts.get("bs") or opts.get("blocksize"))
            if not block_size:
                inferred = {u.tags.get("block_size_inferred_bytes") for u in units if u.group == g}
                if len(inferred) == 1 and None not in inferred:
                    block_size = int(inferred.pop())
                    labels["block_size_inferred"] = "bw / iops"
            numjobs = int(to_number(opts.get("numjobs")) or 1)
            spans.append(StepSpan(
                index=step_base + groups.index(g), label=_group_label(opts, members, g),
                start_ms=g_start, end_ms=g_end,
                load=step_load(vm_count=0,
                               targets_per_vm=max(1, len({fio_target(doc, j, job_options(doc, j)) for j in members})),
                               workers_per_target=numjobs,
                               outstanding_ios_per_target=int(to_number(opts.get("iodepth")) or 1),
                               block_size_bytes=block_size,
                               read_pct=read_pct, random_pct=100.0 if random_pct is None else random_pct,
                               adapter=opts.get("ioengine", ""), config_labels=labels),
                tags={"time_basis": basis, "source_file": name}))
    if spans:
        result.run_events = run_events(
            run_id=result.run_id, tool="FIO", scenario=sources[0][0].rsplit("/", 1)[-1].rsplit(".", 1)[0],
            description=f"imported from {len(sources)} fio JSON file(s)",
            hosts=[host_topology(UNKNOWN_HOST)], steps=spans,
            tags={"fio_version": ",".join(sorted(set(versions)))})
    return result


def _group_of(job: Pairs) -> int:
    g = to_number(job.get("groupid"))
    return int(g) if g is not None and g >= 0 else 0


def _group_label(opts: dict[str, str], members: list[Pairs], g: int) -> str:
    parts = [opts.get("rw", ""), opts.get("bs") or opts.get("blocksize") or ""]
    if opts.get("iodepth"):
        parts.append(f"QD {opts['iodepth']}")
    if opts.get("numjobs") and opts["numjobs"] != "1":
        parts.append(f"{opts['numjobs']} jobs")
    label = " ".join(p for p in parts if p)
    return label or f"group {g}: " + ", ".join(str(j.get("jobname")) for j in members)[:120]


def job_units(doc: FioDoc, index: int, job: Pairs, issues: Issues) -> list[_Unit]:
    """The (direction) samples of one job entry; invalid fields are reported and skipped."""
    where = f"jobs[{index}]"
    opts = job_options(doc, job)
    read_pct, _ = rw_mix(opts)
    expected = {"READ": read_pct is not None and read_pct > 0, "WRITE": read_pct is not None and read_pct < 100}
    out: list[_Unit] = []
    bytes_are_kib = None
    err = to_number(job.get("error"))
    for key in ("trim", "mixed"):
        d = job.get(key)
        if isinstance(d, Pairs) and (to_number(d.get("total_ios")) or to_number(d.get("io_bytes"))):
            issues.warn(f"{key} I/O is not representable as READ/WRITE and was skipped", field=f"{where}.{key}")
    for key, direction in _DIRS:
        d = job.get(key)
        if not isinstance(d, Pairs):
            continue
        dw = f"{where}.{key}"
        if bytes_are_kib is None:
            bytes_are_kib = not d.has("io_kbytes")
        io_bytes = checked_count(d.get("io_bytes"), issues, field=f"{dw}.io_bytes")
        runtime_ms = checked_count(d.get("runtime"), issues, field=f"{dw}.runtime")
        if io_bytes is None or runtime_ms is None:
            continue
        tags: dict[str, str] = {"fio_job": str(job.get("jobname")), "fio_groupid": str(_group_of(job)),
                                "fio_version": doc.version}
        if d.has("total_ios"):
            ops = checked_count(d.get("total_ios"), issues, field=f"{dw}.total_ios")
            if ops is None:
                continue
        else:
            iops = checked_float(d.get("iops"), issues, field=f"{dw}.iops")
            if iops is None:
                continue
            ops, basis, bs_kib = _ops_without_total(io_bytes, iops, runtime_ms, to_number(d.get("bw")))
            tags["ops_basis"] = basis
            if bs_kib:
                tags["block_size_inferred_bytes"] = str(bs_kib * 1024)
        if ops == 0 and io_bytes == 0 and not expected[direction]:
            continue
        nbytes = io_bytes * 1024 if bytes_are_kib else io_bytes
        if bytes_are_kib:
            tags["bytes_basis"] = "io_bytes_kib"
        for cpu_key in ("usr_cpu", "sys_cpu"):
            v = to_number(job.get(cpu_key))
            if v is not None:
                tags[f"fio_{cpu_key}_pct"] = f"{v:g}"
        if err:
            tags["fio_error"] = f"{err:g}"
        fields = _latency_fields(d, dw, ops, runtime_ms, issues, tags)
        out.append(_Unit(index, direction, _group_of(job), fio_target(doc, job, opts), runtime_ms, ops,
                         nbytes, fields, tags))
    return out


def _ops_without_total(io_kib: int, iops: float, runtime_ms: int, bw_kib_s: float | None) -> tuple[int, str, int]:
    """I/O count for fio < 2.2 (no ``total_ios``): (ops, basis, inferred block size in KiB or 0).

    fio 2.1 prints integer ``iops`` and ``bw`` (KiB/s); for a fixed block size bw / iops is that size, and
    ``io_bytes`` (KiB) divided by it is the exact count. Otherwise iops x runtime (+-1 per second).
    """
    if bw_kib_s and iops > 0:
        ratio = bw_kib_s / iops
        p2 = 1 << max(0, round(ratio).bit_length() - 1)
        if p2 * 2 - ratio < ratio - p2:
            p2 *= 2
        if abs(ratio - p2) / p2 < 0.02 and io_kib % p2 == 0:
            return io_kib // p2, "io_bytes_div_block_size", p2
    return round(iops * runtime_ms / 1000), "iops_x_runtime", 0


def _latency_fields(d: Pairs, dw: str, ops: int, runtime_ms: int, issues: Issues,
                    tags: dict[str, str]) -> dict[str, Any]:
    ns_layout = d.has("clat_ns") or d.has("lat_ns")
    clat_key, lat_key = ("clat_ns", "lat_ns") if ns_layout else ("clat", "lat")
    unit = 1 if ns_layout else 1000
    clat, lat = d.get(clat_key), d.get(lat_key)
    chosen, key = clat, clat_key
    if not _has_distribution(clat) and _has_distribution(lat):
        chosen, key = lat, lat_key
    if not isinstance(chosen, Pairs):
        return {}
    tags["latency_kind"] = key.split("_")[0]
    w = f"{dw}.{key}"
    out: dict[str, Any] = {}
    count = checked_count(chosen.get("N"), issues, field=f"{w}.N") if chosen.has("N") else ops
    mean = checked_float(chosen.get("mean"), issues, field=f"{w}.mean")
    lo = checked_float(chosen.get("min"), issues, field=f"{w}.min")
    hi = checked_float(chosen.get("max"), issues, field=f"{w}.max")
    if count and mean is not None and lo is not None and hi is not None:
        out.update(latency_count=count, latency_sum_ns=round(mean * unit * count),
                   latency_min_ns=round(lo * unit), latency_max_ns=round(hi * unit))
        tags["latency_sum_basis"] = "mean_x_count"
    total = lat if isinstance(lat, Pairs) else chosen
    total_mean = checked_float(total.get("mean"), issues, field=f"{dw}.{lat_key}.mean", allow_missing=True)
    if total_mean:
        outstanding = littles_law(ops, runtime_ms, total_mean * unit)
        if outstanding:
            out["outstanding_ios"] = outstanding
            tags["outstanding_ios_basis"] = "littles_law"
    pct = chosen.get("percentile")
    if isinstance(pct, Pairs):
        rows: dict[float, int] = {}
        for k, v in pct:
            if k == "0.00":
                continue  # padding of fio's fixed 20-slot list (the duplicate-key quirk)
            q = quantile_from_percent(str(k))
            val = checked_float(v, issues, field=f"{w}.percentile[{k}]")
            if q is None:
                issues.error(f"bad percentile key {k!r}", field=f"{w}.percentile")
            elif val is not None:
                rows[q] = round(val * unit)
        if rows:
            out["percentile_q"] = sorted(rows)
            out["percentile_ns"] = [rows[q] for q in out["percentile_q"]]
            tags["percentile_sample_count"] = str(count or ops)
    bins = chosen.get("bins")
    if isinstance(bins, Pairs):
        hist = bins_histogram(bins, unit, w, issues)
        if hist is not None and hist.count:
            sparse = hist.to_sparse()
            out["bucket_index"], out["bucket_count"] = sparse.indexes, sparse.counts
            if count and hist.count != count:
                issues.warn(f"json+ bins hold {hist.count} samples, {key} N is {count}", field=f"{w}.bins")
    return out


def _has_distribution(section: Any) -> bool:
    return isinstance(section, Pairs) and (isinstance(section.get("percentile"), Pairs)
                                           or isinstance(section.get("bins"), Pairs))


def bins_histogram(bins: Pairs, unit: int, where: str, issues: Issues) -> LatencyHistogram | None:
    """json+ ``bins`` (fio bucket value -> count) re-bucketed into an ioscale histogram."""
    nr = (GROUP_NR_USEC if unit == 1000 else GROUP_NR_NSEC) * FIO_IO_U_PLAT_VAL
    hist = LatencyHistogram()
    off_grid = 0
    for k, v in bins:
        value = to_number(k)
        n = checked_count(v, issues, field=f"{where}.bins[{k}]")
        if value is None or value < 0 or value != int(value):
            issues.error(f"bin key is not a latency value: {k!r}", field=f"{where}.bins")
            continue
        if n is None:
            continue
        value = int(value)
        if value * unit > INT64_MAX:
            issues.error(f"bin key {k!r} is beyond the 64-bit nanosecond range", field=f"{where}.bins")
            continue
        if plat_idx_to_val(plat_val_to_idx(value, nr)) != value:
            off_grid += 1
        hist.record(value * unit, n)
    if off_grid:
        issues.warn(f"{off_grid} bin key(s) are not fio bucket values (not fio's plat_idx_to_val)",
                    field=f"{where}.bins")
    return hist


def group_windows(doc: FioDoc, groups: Iterable[int], issues: Issues, *,
                  anchor_ms: int | None) -> dict[int, tuple[int, int, str]]:
    """(start, end, time_basis) of each stonewall group."""
    groups = sorted(groups)
    dur: dict[int, int] = {}
    starts: dict[int, int] = {}
    elapsed_s = 0.0
    for job in doc.jobs:
        g = _group_of(job)
        for key in ("read", "write", "trim"):
            d = job.get(key)
            rt = to_number(d.get("runtime")) if isinstance(d, Pairs) else None
            if rt is not None and rt >= 0:
                dur[g] = max(dur.get(g, 0), int(rt))
        js = to_number(job.get("job_start"))
        if js is not None and js > 0:
            starts[g] = min(starts.get(g, int(js)), int(js))
        el = to_number(job.get("elapsed"))
        if el is not None and el > 0:
            elapsed_s = max(elapsed_s, el)
    out: dict[int, tuple[int, int, str]] = {}
    if starts and all(g in starts for g in groups):
        for g in groups:
            out[g] = (starts[g], starts[g] + dur.get(g, 0), "file")
        return out
    total = sum(dur.get(g, 0) for g in groups)
    if doc.timestamp_ms is not None:
        cursor, basis = doc.timestamp_ms - max(total, round(elapsed_s * 1000)), "estimated"
    else:
        cursor, basis = anchor_ms or 0, "anchor"
        issues.warn("no timestamp in file; job times are anchored at "
                    + ("the given start time" if anchor_ms is not None else "the Unix epoch"))
    for g in groups:
        out[g] = (cursor, cursor + dur.get(g, 0), basis)
        cursor += dur.get(g, 0)
    return out


__all__ = ["import_fio", "parse_fio_json", "FioDoc", "Pairs", "job_options", "rw_mix", "group_windows",
           "fio_target"]
