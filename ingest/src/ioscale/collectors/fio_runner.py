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

Kept files: with a run directory (``out_dir``), each step leaves ``step-NNN.<jobfile>`` (the job as run),
``step-NNN.json`` (fio's final json+ report, verbatim: the last document fio printed) and
``step-NNN.stderr.txt`` (fio's stderr and the notes it prints between reports). ``fio_report_run`` turns the
reports into the linked run ``<run_id>-fio-report`` through the fio importer; ``ioscale import fio`` reads
the directory as well (one step per file, in name order).

Options after ``--`` on the command line reach fio verbatim, before the job files; by fio's rules they are
defaults that a job file's own setting overrides (``ignored_options`` names those).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ioscale.collectors.rundir import RunnerStep, log_tail, new_run_dir, run_boundary, step_event
from ioscale.errors import IoscaleError
from ioscale.histogram import LatencyHistogram
from ioscale.importers.common import (
    ImportResult,
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
from ioscale.importers.fio import (FioDoc, Pairs, bins_histogram, fio_target, import_fio, job_options, parse_fio_json,
                                   rw_mix)
from ioscale.wire import topics
from ioscale.wire.records import Direction

SWEEPABLE = ("numjobs", "iodepth", "bs")
_DIRS: tuple[tuple[str, Direction], ...] = (("read", "READ"), ("write", "WRITE"))
REPORT_RUN_SUFFIX = "-fio-report"
#: fio options the runner sets itself, with why they cannot pass through.
RESERVED_OPTIONS = {
    "--output": "fio would write its reports to that file instead of the stream ioscale reads live",
    "--output-format": "ioscale reads json+ (its histogram bins)",
    "--status-interval": "use ioscale's --status-interval-s",
    "--minimal": "ioscale reads json+, not terse output",
    "--append-terse": "ioscale reads json+, not terse output",
}


class FioRunError(IoscaleError):
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
class StepResult(RunnerStep):
    #: (target, direction) -> (emitted ops, fio total_ios, emitted hist count, fio bins count)
    totals: dict[tuple[str, str], tuple[int, int, int, int]] = field(default_factory=dict)
    final: FioDoc | None = None
    #: the job files as run, fio's final json+ report (None if fio printed none) and its stderr
    jobfiles: list[Path] = field(default_factory=list)
    report: Path | None = None
    stderr: Path | None = None
    command: list[str] = field(default_factory=list)


@dataclass
class FioRun:
    run_id: str
    host: str
    vm: str
    scenario: str
    #: the run directory with every step's files; None when they went to a removed temporary directory
    run_dir: Path | None
    fio_version: str
    extra_args: list[str]
    steps: list[StepResult] = field(default_factory=list)


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


def new_run_id() -> str:
    return f"fio-live-{uuid.uuid4().hex[:12]}"


def report_run_id(run_id: str) -> str:
    """Id of the run that holds fio's own final reports of live run ``run_id``."""
    return f"{run_id}{REPORT_RUN_SUFFIX}"


def check_extra_args(extra_args: Sequence[str]) -> None:
    """Refuse fio options that would take fio's output away from the live stream."""
    for arg in extra_args:
        name = arg.split("=", 1)[0]
        if name in RESERVED_OPTIONS:
            raise FioRunError(f"{name} cannot pass through to fio: {RESERVED_OPTIONS[name]}",
                              hint="leave it out; the run directory keeps fio's final json+ report of every step")


def ignored_options(extra_args: Sequence[str], doc: FioDoc | None) -> list[str]:
    """Options after ``--`` that fio overrode with the job file's own value (fio's rule: job files win)."""
    if doc is None:
        return []
    out = []
    for arg in extra_args:
        if not arg.startswith("--") or "=" not in arg:
            continue
        name, value = arg[2:].split("=", 1)
        others = {str(v) for v in [doc.global_options.get(name), *(_job_opt(j, name) for j in doc.jobs)]
                  if v is not None} - {value}
        if others:
            out.append(f"fio ignored --{name}={value}: the job file sets {name}={','.join(sorted(others))} "
                       f"(job file settings win over command-line ones; edit the job file"
                       + (f" or use --sweep {name}=...)" if name in SWEEPABLE else ")"))
    return out


def _job_opt(job: Pairs, name: str) -> Any:
    opts = job.get("job options")
    return opts.get(name) if isinstance(opts, Pairs) else None


def _fio_path(fio: str) -> str:
    path = shutil.which(fio)
    if path is None:
        raise FioRunError(f"fio not found: no executable {fio!r} on PATH",
                          hint="install fio 3.x (e.g. `apt-get install fio`) or name it with --fio PATH")
    return path


def _fio_version(fio: str) -> str:
    try:
        out = subprocess.run([fio, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise FioRunError(f"cannot run {fio} --version: {e}", hint="check that fio runs: fio --version") from None
    return out.stdout.strip()


@dataclass
class _Step:
    index: int
    value: str | None
    jobfiles: list[Path]
    report: Path
    stderr: Path
    command: list[str]


def _prepare_steps(fio: str, run_dir: Path, paths: list[Path], texts: list[str], values: list[str | None],
                   sweep: tuple[str, Sequence[str]] | None, status_interval_s: int,
                   extra_args: Sequence[str]) -> list[_Step]:
    """Write each step's job files into the run directory and have fio parse them (``--parse-only``) before
    anything runs or is sent: a typo fails here, not after earlier steps streamed."""
    steps = []
    for index, value in enumerate(values):
        prefix = f"step-{index:03d}"
        files = []
        for n, (p, t) in enumerate(zip(paths, texts)):
            f = run_dir / (f"{prefix}.{p.name}" if len(paths) == 1 else f"{prefix}.{n}.{p.name}")
            f.write_text(override_job_text(t, sweep[0], str(value)) if sweep else t)
            files.append(f)
        step = _Step(index, value, files, run_dir / f"{prefix}.json", run_dir / f"{prefix}.stderr.txt",
                     [fio, "--output-format=json+", f"--status-interval={status_interval_s}", *extra_args,
                      *map(str, files)])
        check = subprocess.run([fio, "--parse-only", *extra_args, *map(str, files)], capture_output=True,
                               text=True, errors="replace", timeout=60)
        if check.returncode != 0:
            step.stderr.write_text(check.stderr + check.stdout)
            raise FioRunError(f"fio refused the job of step {index}"
                              + (f" ({sweep[0]}={value})" if sweep else "") + f": {log_tail(step.stderr)}",
                              hint=f"fix the job file or the options after --; fio's message is in {step.stderr}, "
                                   f"the job as fio read it in {files[0]}")
        steps.append(step)
    return steps


def run_fio(producer_like: Any, jobfiles: Sequence[str | os.PathLike], *, run_id: str | None = None,
            sweep: tuple[str, Sequence[str]] | None = None, status_interval_s: int = 1, vm: str = "",
            host: str | None = None, scenario: str = "", fio: str = "fio", extra_args: Sequence[str] = (),
            out_dir: str | os.PathLike | None = None, timeout_s: float | None = None,
            clock: Callable[[], float] = time.time, log: Callable[[str], None] | None = None) -> FioRun:
    """Run fio (once, or once per sweep value as steps 0..n-1) and send RunEvents + interval IoSamples.

    ``out_dir`` (the run directory) keeps, per step, the job files as run, fio's final json+ report and its
    stderr; without it they go to a temporary directory that is removed. ``extra_args`` go to fio verbatim,
    before the job files. ``log`` receives fio's notes and warnings as they come.
    Raises FioRunError (with what to do next) when fio is missing, refuses a job, exits non-zero or prints
    no report; the step and run are then closed with STEP_ENDED / RUN_ENDED tagged ``fio_error``.
    """
    if sweep is not None and sweep[0] not in SWEEPABLE:
        raise FioRunError(f"cannot sweep {sweep[0]!r}", hint=f"choose one of {', '.join(SWEEPABLE)}")
    check_extra_args(extra_args)
    fio = _fio_path(fio)
    run_id = run_id or new_run_id()
    host = host if host is not None else socket.gethostname()
    log = log or (lambda _msg: None)
    send = producer_like.send
    paths = [Path(p) for p in jobfiles]
    texts = []
    for p in paths:
        try:
            texts.append(p.read_text())
        except OSError as e:
            raise FioRunError(f"cannot read job file {p}: {e.strerror or e}",
                              hint="name an existing fio job file") from None
    values: list[str | None] = list(sweep[1]) if sweep else [None]
    scenario = scenario or "+".join(p.stem for p in paths)
    with contextlib.ExitStack() as stack:
        if out_dir is None:
            run_dir, kept = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ioscale-fio-"))), None
        else:
            run_dir = kept = new_run_dir(Path(out_dir), FioRunError)
        steps = _prepare_steps(fio, run_dir, paths, texts, values, sweep, status_interval_s, extra_args)
        version = _fio_version(fio)
        run = FioRun(run_id, host, vm, scenario, kept, version, list(extra_args))
        desc = " ".join(["fio", *(p.name for p in paths),
                         *([f"sweep {sweep[0]}={','.join(sweep[1])}"] if sweep else []),
                         *(["--", *extra_args] if extra_args else [])])
        _run_steps(run, steps, send, fio_desc=desc, sweep=sweep, first_text=texts[0], timeout_s=timeout_s,
                   clock=clock, log=log)
    return run


def _run_steps(run: FioRun, steps: list[_Step], send: Callable[[str, dict], None], *, fio_desc: str,
               sweep: tuple[str, Sequence[str]] | None, first_text: str, timeout_s: float | None,
               clock: Callable[[], float], log: Callable[[str], None]) -> None:
    common_ev = dict(run_id=run.run_id, tool="LIVE", scenario=run.scenario, description=fio_desc,
                     hosts=[host_topology(run.host, logical_processors=os.cpu_count() or 0)])
    run_tags = {"sweep_param": sweep[0] if sweep else "", "fio_version": run.fio_version}
    if run.run_dir is not None:
        run_tags["fio_report_run_id"] = report_run_id(run.run_id)
    run_start_ms = int(clock() * 1000)
    # RUN_STARTED first, STEP events as each step starts/ends, RUN_ENDED at the end (run_events()
    # builds the same record shapes as the importers; we send its pieces at the right moments).
    send(topics.RUNS, run_boundary(common_ev, run_start_ms, None, run_tags))
    warned: set[str] = set()
    for step in steps:
        start_ms = int(clock() * 1000)
        load, label = _step_load_of(_parse_jobfile_opts(first_text), sweep[0] if sweep else None, step.value)
        tags = {"sweep_value": str(step.value)} if sweep else {}
        send(topics.RUNS, step_event(common_ev, StepSpan(step.index, label, start_ms, start_ms, load, tags=tags),
                                     "STEP_STARTED"))
        log(f"step {step.index}" + (f" {sweep[0]}={step.value}" if sweep else "") + f": {' '.join(step.command)}")
        differ = _Differ(send, run.run_id, step.index, run.host, run.vm, start_ms)
        error: FioRunError | None = None
        try:
            _run_one(step, differ, timeout_s, clock, log)
        except FioRunError as e:
            error = e
            tags = {**tags, "fio_error": str(e)[:500]}
        end_ms = int(clock() * 1000)
        load, label = _step_load_of(differ.last, sweep[0] if sweep else None, step.value)
        send(topics.RUNS, step_event(common_ev, StepSpan(step.index, label, start_ms, end_ms, load, tags=tags),
                                     "STEP_ENDED"))
        for msg in ignored_options(run.extra_args, differ.last):
            if msg not in warned:
                warned.add(msg)
                log(f"warning: {msg}")
        kept = run.run_dir is not None
        run.steps.append(StepResult(step.index, label, start_ms, end_ms, load, differ.totals(), differ.last,
                                    jobfiles=step.jobfiles if kept else [],
                                    report=step.report if kept and step.report.exists() else None,
                                    stderr=step.stderr if kept else None, command=step.command))
        if error is not None:
            # Close the run so the live analysis evaluates what streamed instead of waiting for more.
            send(topics.RUNS, run_boundary(common_ev, run_start_ms, end_ms,
                                           {**run_tags, "fio_error": f"step {step.index}"}))
            raise error
    end_ms = int(clock() * 1000)
    send(topics.RUNS, run_boundary(common_ev, run_start_ms, end_ms, run_tags))


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


def _run_one(step: _Step, differ: _Differ, timeout_s: float | None, clock: Callable[[], float],
             log: Callable[[str], None]) -> None:
    """Run one step's fio, feeding each json+ report to ``differ`` as it arrives.

    fio prints the status reports and, last, its final report on stdout (with ``--output`` fio 3.33 writes all
    of them to that file instead, so stdout is the one stream): the last document is kept verbatim as the
    step's report. Its stderr goes straight to the step's stderr file (no pipe to fill), in append mode so the
    notes fio prints on stdout between reports ("note: ... queue depth will be capped at 1") join it in order.
    """
    deadline = None if timeout_s is None else clock() + timeout_s
    last_doc: str | None = None
    with open(step.stderr, "a", encoding="utf-8") as err:
        proc = subprocess.Popen(step.command, stdout=subprocess.PIPE, stderr=err, text=True, encoding="utf-8",
                                errors="replace", bufsize=1)
        assert proc.stdout is not None
        buf = ""
        try:
            # fio prints each report as a block of lines; feed every complete JSON document as it arrives.
            for line in proc.stdout:
                if not buf and not line.lstrip().startswith("{"):
                    if line.strip():
                        err.write(line)
                        err.flush()
                        log(line.strip())
                    continue
                buf += line
                if line.startswith("}"):
                    docs, buf = split_reports(buf)
                    for d in docs:
                        differ.feed(d, int(clock() * 1000))
                        last_doc = d
                if deadline is not None and clock() > deadline:
                    proc.kill()
                    raise FioRunError(f"fio exceeded {timeout_s:.0f}s in step {step.index}",
                                      hint=f"shorten the job (runtime=) or raise the timeout; fio's stderr: "
                                           f"{step.stderr}")
            docs, buf = split_reports(buf)
            for d in docs:
                differ.feed(d, int(clock() * 1000))
                last_doc = d
            rc = proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if last_doc is not None:
                step.report.write_text(last_doc + "\n")
    if rc != 0:
        raise FioRunError(f"fio exited {rc} in step {step.index}: {log_tail(step.stderr)}",
                          hint=f"fio's stderr is in {step.stderr}, the job as run in {step.jobfiles[0]}"
                               + (f", its last report in {step.report}" if last_doc is not None else ""))
    if differ.last is None:
        raise FioRunError(f"fio printed no json+ report in step {step.index}: {log_tail(step.stderr)}",
                          hint=f"fio's stderr is in {step.stderr}; run the job by hand: {' '.join(step.command)}")


def report_totals(results: Sequence[StepResult]) -> list[str]:
    """Human-readable emitted-vs-fio comparison, one line per step/target/direction."""
    lines = []
    for r in results:
        for (target, direction), (ops, fio_ops, h, fio_h) in sorted(r.totals.items()):
            lines.append(f"step {r.step_index} {target} {direction}: emitted ops {ops} / fio total_ios {fio_ops} "
                         f"(diff {ops - fio_ops}); histogram {h} / fio bins {fio_h} (diff {h - fio_h})")
    return lines


def summary_line(run: FioRun) -> str:
    """One line: steps, I/Os, wall time, and whether the live samples add up to fio's own totals."""
    ops = sum(t[1] for s in run.steps for t in s.totals.values())
    off = [s.step_index for s in run.steps if any(t[0] != t[1] for t in s.totals.values())]
    wall_s = (run.steps[-1].end_ms - run.steps[0].start_ms) / 1000 if run.steps else 0.0
    return (f"run {run.run_id}: {len(run.steps)} step(s), {ops:,} I/Os in {wall_s:.1f} s; live samples "
            + (f"differ from fio's totals in step(s) {', '.join(map(str, off))}" if off
               else "add up to fio's own totals in every step")
            + (f"; fio's reports in {run.run_dir}" if run.run_dir else ""))


# --- fio's own reports as a linked run ----------------------------------------------------------------------
def fio_report_run(run: FioRun, *, now_ms: int | None = None) -> ImportResult:
    """Records of run ``<run_id>-fio-report``: the kept final json+ reports through the fio importer, one step
    per live step (same step index and load), so `ioscale sql compare_runs` puts fio's totals and percentiles
    beside what the live samples gave. Tag ``live_run_id`` links it back.

    A step's report is one IoSample per job and direction over the step, with fio's percentile table and its
    json+ histogram. A job file with several stonewall groups still makes one step, as in the live run.
    """
    rid = report_run_id(run.run_id)
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    result = ImportResult(run_id=rid)
    spans: list[StepSpan] = []
    for step in run.steps:
        if step.report is None:
            continue
        part = import_fio([(str(step.report), step.report.read_bytes())], rid, now_ms=now_ms)
        result.errors.extend(part.errors)
        if not part.io_samples:
            continue
        for s in part.io_samples:
            s.update(step_index=step.step_index, host=run.host, vm=run.vm,
                     tags={**s["tags"], "live_run_id": run.run_id})
        result.io_samples.extend(part.io_samples)
        ended = [e for e in part.run_events if e["event_type"] == "STEP_ENDED"]
        spans.append(StepSpan(step.step_index, step.label, min(e["start_ms"] for e in ended),
                              max(e["end_ms"] for e in ended), step.load,
                              tags={"live_run_id": run.run_id, "source_file": str(step.report),
                                    "time_basis": ended[0]["tags"].get("time_basis", "")}))
    result.run_events = run_events(
        run_id=rid, tool="FIO", scenario=run.scenario, description=f"fio's own final json+ reports of live run "
                                                                   f"{run.run_id}",
        hosts=[host_topology(run.host, logical_processors=os.cpu_count() or 0)], steps=spans,
        tags={"live_run_id": run.run_id, "fio_version": run.fio_version})
    return result


__all__ = ["run_fio", "report_totals", "summary_line", "fio_report_run", "report_run_id", "new_run_id",
           "override_job_text", "split_reports", "check_extra_args", "ignored_options", "FioRun", "StepResult",
           "FioRunError", "SWEEPABLE", "REPORT_RUN_SUFFIX"]
