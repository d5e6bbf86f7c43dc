"""``ioscale run fio JOBFILE...``: run real fio and emit live per-interval IoSamples plus RunEvents.

How: fio runs with ``--output-format=json+ --status-interval=<s>``, which prints a full json+ report
(cumulative since the job started) every interval and a final one at exit. Successive cumulative reports
are differenced per job and direction: ops = delta of ``total_ios``, bytes = delta of ``io_bytes``, the
latency histogram = delta of the json+ ``clat_ns.bins`` converted with the fio importer's bucket mapping.
Because the last delta is taken against fio's own final report, the emitted ops and bucket counts of a
step sum to fio's ``total_ios`` and bins EXACTLY (no remainder bookkeeping needed). Histogram logs
(``write_hist_log``) were not used: fio 3.33 buffers them in memory and writes them at exit, so they
cannot be tailed live.

Per interval the histogram count may trail ``ops`` by the I/Os fio counted but had not yet binned when it
printed (seen: 1); they appear in the next interval. Tag ``latency_sum_basis = histogram``.

Sweep: ``sweep=("iodepth", ["1", "2"])`` runs the job files once per value as successive steps. The value
is injected by rewriting a copy of each job file with ``param=value`` appended to every section: a
command-line ``--iodepth=8`` only lands in fio's global options and a job's own ``iodepth=`` overrides it,
whereas the last assignment within a section wins.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ioscale.histogram import LatencyHistogram
from ioscale.importers.common import (
    Issues,
    StepSpan,
    host_topology,
    io_sample,
    littles_law,
    parse_size_bytes,
    run_events,
    step_load,
    to_number,
)
from ioscale.importers.fio import FioDoc, Pairs, bins_histogram, fio_target, job_options, parse_fio_json, rw_mix
from ioscale.wire import topics
from ioscale.wire.records import Direction, RunEvent

SWEEPABLE = ("numjobs", "iodepth", "bs")
_DIRS: tuple[tuple[str, Direction], ...] = (("read", "READ"), ("write", "WRITE"))


class FioRunError(RuntimeError):
    pass


# --- job file rewriting -----------------------------------------------------------------------------------
def override_job_text(text: str, param: str, value: str) -> str:
    """Append ``param=value`` at the end of every section (so it wins over the section's own setting)."""
    out: list[str] = []
    in_section = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            if in_section:
                out.append(f"{param}={value}")
            in_section = True
        out.append(line)
    if in_section:
        out.append(f"{param}={value}")
    return "\n".join(out) + "\n"


# --- stream of json+ reports ------------------------------------------------------------------------------
def split_reports(text: str) -> tuple[list[str], str]:
    """Complete top-level JSON documents in ``text`` and the unparsed rest (brace matching, string aware)."""
    docs: list[str] = []
    depth, start, in_str, esc = 0, -1, False, False
    consumed = 0
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth > 0:
            in_str = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                docs.append(text[start:i + 1])
                consumed = i + 1
    return docs, text[consumed:] if depth == 0 else text[start:]


@dataclass
class _Cum:
    """Cumulative state of one (job, direction) as of the last report."""

    ops: int = 0
    bytes: int = 0
    bins: dict[int, int] = field(default_factory=dict)
    ts_ms: int = 0


def _job_key(job: Pairs, index: int) -> str:
    return f"{index}:{job.get('jobname')}"


@dataclass
class StepResult:
    step_index: int
    label: str
    start_ms: int
    end_ms: int
    load: Any
    #: (target, direction) -> (emitted ops, fio total_ios, emitted hist count, fio bins count)
    totals: dict[tuple[str, str], tuple[int, int, int, int]] = field(default_factory=dict)
    final: FioDoc | None = None


class _Differ:
    """Turns successive cumulative fio reports into interval IoSamples for one step."""

    def __init__(self, send: Callable[[str, dict], None], run_id: str, step_index: int, host: str, vm: str,
                 start_ms: int):
        self.send, self.run_id, self.step_index, self.host, self.vm = send, run_id, step_index, host, vm
        self.start_ms = start_ms
        self.state: dict[tuple[str, str], _Cum] = {}
        self.emitted: dict[tuple[str, str], list[int]] = {}
        self.targets: dict[tuple[str, str], str] = {}
        self.last: FioDoc | None = None

    def feed(self, raw: str, now_ms: int) -> None:
        doc = parse_fio_json(raw.encode(), Issues("fio", []), now_ms=now_ms + 86_400_000)
        if doc is None:
            return
        self.last = doc
        ts = doc.timestamp_ms or now_ms
        seen: dict[str, int] = {}
        for i, job in enumerate(doc.jobs):
            opts = job_options(doc, job)
            base = fio_target(doc, job, opts)
            n = seen.get(base, 0)
            seen[base] = n + 1
            target = base if n == 0 else f"{base}#{n}"
            for key, direction in _DIRS:
                d = job.get(key)
                if not isinstance(d, Pairs):
                    continue
                ops = int(to_number(d.get("total_ios")) or 0)
                nbytes = int(to_number(d.get("io_bytes")) or 0)
                clat = d.get("clat_ns")
                bins_raw = clat.get("bins") if isinstance(clat, Pairs) else None
                bins = {int(k): int(v) for k, v in bins_raw} if isinstance(bins_raw, Pairs) else {}
                k = (_job_key(job, i), direction)
                prev = self.state.get(k) or _Cum(ts_ms=self._job_start(job))
                if ops < prev.ops or nbytes < prev.bytes or any(bins.get(b, 0) < c for b, c in prev.bins.items()):
                    continue  # cannot happen with one fio process; never emit a negative count
                if not self.state.get(k) and ops == 0 and not self._expects(opts, direction):
                    continue
                self.targets[k] = target
                d_ops, d_bytes = ops - prev.ops, nbytes - prev.bytes
                d_bins = [(str(b), c - prev.bins.get(b, 0)) for b, c in sorted(bins.items())
                          if c - prev.bins.get(b, 0) > 0]
                hist = bins_histogram(Pairs(d_bins), 1, "fio", Issues("fio", [])) if d_bins else LatencyHistogram()
                interval_ms = max(ts - prev.ts_ms, 0)
                self.state[k] = _Cum(ops, nbytes, bins, ts)
                if interval_ms == 0 and d_ops == 0 and hist.count == 0:
                    continue
                sparse = hist.to_sparse()
                tags = {"fio_job": str(job.get("jobname")), "source": "fio_status_interval",
                        "fio_version": doc.version}
                if hist.count:
                    tags["latency_sum_basis"] = "histogram"
                outstanding = littles_law(d_ops, interval_ms, hist.sum_ns / hist.count if hist.count else None)
                if outstanding:
                    tags["outstanding_ios_basis"] = "littles_law"
                self.send(topics.IO_SAMPLES, io_sample(
                    ts_ms=prev.ts_ms, interval_ms=interval_ms, run_id=self.run_id, step_index=self.step_index,
                    host=self.host, vm=self.vm, target=target, direction=direction, ops=d_ops, bytes_=d_bytes,
                    outstanding_ios=outstanding, latency_count=hist.count, latency_sum_ns=hist.sum_ns,
                    latency_min_ns=hist.min_ns, latency_max_ns=hist.max_ns, bucket_index=sparse.indexes,
                    bucket_count=sparse.counts, tags=tags))
                e = self.emitted.setdefault(k, [0, 0])
                e[0] += d_ops
                e[1] += hist.count

    def _job_start(self, job: Pairs) -> int:
        js = to_number(job.get("job_start"))
        return int(js) if js else self.start_ms

    @staticmethod
    def _expects(opts: dict[str, str], direction: Direction) -> bool:
        read_pct, _ = rw_mix(opts)
        if read_pct is None:
            return False
        return read_pct > 0 if direction == "READ" else read_pct < 100

    def totals(self) -> dict[tuple[str, str], tuple[int, int, int, int]]:
        """Compare what was emitted with fio's final report, per target and direction."""
        out: dict[tuple[str, str], tuple[int, int, int, int]] = {}
        doc = self.last
        if doc is None:
            return out
        for i, job in enumerate(doc.jobs):
            for key, direction in _DIRS:
                k = (_job_key(job, i), direction)
                d = job.get(key)
                if k not in self.targets or not isinstance(d, Pairs):
                    continue
                clat = d.get("clat_ns")
                bins = clat.get("bins") if isinstance(clat, Pairs) else None
                fio_bins = sum(int(v) for _, v in bins) if isinstance(bins, Pairs) else 0
                e = self.emitted.get(k, [0, 0])
                out[(self.targets[k], direction)] = (e[0], int(to_number(d.get("total_ios")) or 0), e[1], fio_bins)
        return out


# --- running ----------------------------------------------------------------------------------------------
def _step_load_of(doc: FioDoc | None, sweep_param: str | None, sweep_value: str | None) -> tuple[Any, str]:
    opts = job_options(doc, doc.jobs[0]) if doc and doc.jobs else {}
    if sweep_param and sweep_value is not None:
        opts[sweep_param] = sweep_value
    read_pct, random_pct = rw_mix(opts)
    bs = parse_size_bytes((opts.get("bs") or opts.get("blocksize") or "").split(",")[0]) or 0
    targets = {fio_target(doc, j, job_options(doc, j)) for j in doc.jobs} if doc else set()
    labels = {"tool": "fio"}
    if sweep_param:
        labels["sweep_param"] = sweep_param
        labels[sweep_param] = str(sweep_value)
    load = step_load(targets_per_vm=max(1, len(targets)), workers_per_target=int(to_number(opts.get("numjobs")) or 1),
                     outstanding_ios_per_target=int(to_number(opts.get("iodepth")) or 1), block_size_bytes=bs,
                     read_pct=100.0 if read_pct is None else read_pct,
                     random_pct=100.0 if random_pct is None else random_pct,
                     adapter=opts.get("ioengine", ""), config_labels=labels)
    parts = [opts.get("rw", ""), opts.get("bs", ""), f"QD {opts.get('iodepth', '1')}",
             f"{opts.get('numjobs', '1')} jobs"]
    return load, " ".join(p for p in parts if p)


def run_fio(producer_like: Any, jobfiles: Sequence[str | os.PathLike], *, run_id: str | None = None,
            sweep: tuple[str, Sequence[str]] | None = None, status_interval_s: int = 1, vm: str = "",
            host: str | None = None, scenario: str = "", fio: str = "fio", extra_args: Sequence[str] = (),
            timeout_s: float | None = None, clock: Callable[[], float] = time.time) -> list[StepResult]:
    """Run fio (once, or once per sweep value as steps 0..n-1) and send RunEvents + interval IoSamples.

    Returns one StepResult per step with the emitted-vs-fio totals per (target, direction).
    Raises FioRunError when fio exits non-zero or prints no report.
    """
    if sweep is not None and sweep[0] not in SWEEPABLE:
        raise FioRunError(f"cannot sweep {sweep[0]!r}: choose one of {', '.join(SWEEPABLE)}")
    run_id = run_id or f"fio-live-{uuid.uuid4().hex[:12]}"
    host = host if host is not None else socket.gethostname()
    send = producer_like.send
    paths = [Path(p) for p in jobfiles]
    texts = [p.read_text() for p in paths]
    values: list[str | None] = list(sweep[1]) if sweep else [None]
    scenario = scenario or "+".join(p.stem for p in paths)
    common_ev = dict(run_id=run_id, tool="LIVE", scenario=scenario,
                     description=f"fio {' '.join(p.name for p in paths)}"
                                 + (f" sweep {sweep[0]}={','.join(sweep[1])}" if sweep else ""),
                     hosts=[host_topology(host, logical_processors=os.cpu_count() or 0)])
    results: list[StepResult] = []
    run_start_ms = int(clock() * 1000)
    # RUN_STARTED first, STEP events as each step starts/ends, RUN_ENDED at the end (run_events()
    # builds the same record shapes as the importers; we send its pieces at the right moments).
    first = run_events(**common_ev, steps=[StepSpan(0, "", run_start_ms, run_start_ms, step_load())],
                       tags={"sweep_param": sweep[0] if sweep else ""})[0]
    send(topics.RUNS, first)
    with tempfile.TemporaryDirectory(prefix="ioscale-fio-") as tmp:
        for step_index, value in enumerate(values):
            files = []
            for n, (p, t) in enumerate(zip(paths, texts)):
                f = Path(tmp) / f"step{step_index}_{n}_{p.name}"
                f.write_text(override_job_text(t, sweep[0], str(value)) if sweep else t)
                files.append(str(f))
            start_ms = int(clock() * 1000)
            load, label = _step_load_of(_parse_jobfile_opts(texts[0]), sweep[0] if sweep else None, value)
            span = StepSpan(step_index, label, start_ms, start_ms, load,
                            tags={"sweep_value": str(value)} if sweep else {})
            send(topics.RUNS, _step_event(common_ev, span, "STEP_STARTED"))
            differ = _Differ(send, run_id, step_index, host, vm, start_ms)
            _run_one(fio, files, status_interval_s, extra_args, differ, timeout_s, clock)
            end_ms = int(clock() * 1000)
            load, label = _step_load_of(differ.last, sweep[0] if sweep else None, value)
            span = StepSpan(step_index, label, start_ms, end_ms, load, tags=span.tags)
            send(topics.RUNS, _step_event(common_ev, span, "STEP_ENDED"))
            results.append(StepResult(step_index, label, start_ms, end_ms, load, differ.totals(), differ.last))
    end_ms = int(clock() * 1000)
    last = run_events(**common_ev, steps=[StepSpan(0, "", run_start_ms, end_ms, step_load())],
                      tags={"sweep_param": sweep[0] if sweep else ""})[-1]
    send(topics.RUNS, last)
    return results


def _parse_jobfile_opts(text: str) -> FioDoc:
    """A FioDoc from a job file's text (global + first job options) for the STEP_STARTED load."""
    glob, job, cur, section = Pairs(), Pairs(), None, ""
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1]
            cur = glob if section == "global" else (job if not job.has("__name") else None)
            if cur is job:
                job.append(("__name", section))
            continue
        if cur is not None:
            k, _, v = s.partition("=")
            cur.append((k.strip(), v.strip()))
    doc = FioDoc(global_options=glob)
    doc.jobs = [Pairs([("jobname", job.get("__name", "job")), ("job options", job)])]
    return doc


def _step_event(common_ev: dict[str, Any], span: StepSpan, kind: str) -> RunEvent:
    evs = run_events(**common_ev, steps=[span], tags={})
    return next(e for e in evs if e["event_type"] == kind)


def _run_one(fio: str, files: list[str], status_interval_s: int, extra_args: Sequence[str], differ: _Differ,
             timeout_s: float | None, clock: Callable[[], float]) -> None:
    cmd = [fio, "--output-format=json+", f"--status-interval={status_interval_s}", *extra_args, *files]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    buf = ""
    deadline = None if timeout_s is None else clock() + timeout_s
    assert proc.stdout is not None
    try:
        # fio prints each report as a block of lines; feed every complete JSON document as it arrives.
        for line in proc.stdout:
            buf += line
            if line.startswith("}"):
                docs, buf = split_reports(buf)
                for d in docs:
                    differ.feed(d, int(clock() * 1000))
            if deadline is not None and clock() > deadline:
                proc.kill()
                raise FioRunError(f"fio exceeded {timeout_s:.0f}s: {' '.join(cmd)}")
        docs, buf = split_reports(buf)
        for d in docs:
            differ.feed(d, int(clock() * 1000))
        err = proc.stderr.read() if proc.stderr else ""
        rc = proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if rc != 0:
        raise FioRunError(f"fio exited {rc}: {err.strip()[-500:]}")
    if differ.last is None:
        raise FioRunError(f"fio printed no json+ report: {err.strip()[-500:]}")


def report_totals(results: Sequence[StepResult]) -> list[str]:
    """Human-readable emitted-vs-fio comparison, one line per step/target/direction."""
    lines = []
    for r in results:
        for (target, direction), (ops, fio_ops, h, fio_h) in sorted(r.totals.items()):
            lines.append(f"step {r.step_index} {target} {direction}: emitted ops {ops} / fio total_ios {fio_ops} "
                         f"(diff {ops - fio_ops}); histogram {h} / fio bins {fio_h} (diff {h - fio_h})")
    return lines


__all__ = ["run_fio", "report_totals", "override_job_text", "split_reports", "StepResult", "FioRunError",
           "SWEEPABLE"]
