"""``ioscale run iperf3``: run a real iperf3 client, once or once per sweep value, and emit PortSamples + RunEvents.

How the samples get out while the run goes:

* iperf3 >= 3.17 (``--json-stream`` in ``iperf3 --help``): one JSON event per line; each ``interval`` event is
  turned into samples and sent at once, so the dashboards follow the test second by second.
* Older iperf3, e.g. Debian bookworm's 3.12: ``-J`` prints one document when the test ends, so each step's
  per-interval samples are sent together at the step's end (their timestamps are still the intervals' own).
  The run says which (``Iperf3Run.streaming``, tag ``iperf3_output``).

Either way the samples are those of the importer (``importers.iperf3.IntervalMapper``): per interval one
PortSample per stream (``queue`` = stream index) and a whole-port one (``queue = -1``); times are the runner's
clock when it launched the client plus each interval's offset (tag ``time_basis = runner_clock``). The step's
load, window and tags come from iperf3's own document, exactly as ``ioscale import iperf3`` reads the kept file.

Server: ``server=HOST`` (``--server``) is an ``iperf3 -s`` someone runs there. Without it the runner starts its own
server bound to 127.0.0.1 on a free port (``-s -J``, its output kept as ``iperf3-server.log``) and stops it at the
end: a loopback test that needs nothing else, to try the pipeline (loopback has no line rate).

Sweep: ``sweep=("parallel", ["1", "2", "4", "8"])`` runs the client with ``-P`` 1, 2, 4, 8 as steps 0..3;
``("length", [...])`` sweeps ``-l``. Options after ``--`` go to the client verbatim (``-u -b 1G``, ``-R``,
``--bidir``, ``-O 2``, ``-C bbr``, ``--get-server-output`` which adds the server's side as a second host).

Kept files (``out_dir``): per step ``step-NNN.json`` (iperf3's output verbatim: the -J document or the event
lines) and ``step-NNN.stderr.txt``; ``ioscale import iperf3 DIR`` reads them again.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ioscale.collectors.rundir import RunnerStep, log_tail, new_run_dir, run_boundary, step_event
from ioscale.errors import IoscaleError
from ioscale.importers.common import Issues, StepSpan, host_topology, parse_size_bytes
from ioscale.importers.iperf3 import (Iperf3Doc, IntervalMapper, parse_link_speed, read_documents, step_load_of,
                                      step_tags)
from ioscale.wire import topics
from ioscale.wire.records import LinkCapacity

#: sweep name -> the client option it sets
SWEEPABLE = {"parallel": "-P", "length": "-l"}
#: client options the runner sets itself, with why they cannot pass through
RESERVED_OPTIONS = {
    "-J": "ioscale reads iperf3's JSON itself", "--json": "ioscale reads iperf3's JSON itself",
    "--json-stream": "ioscale uses it by itself when iperf3 has it",
    "-c": "use --server", "--client": "use --server", "-s": "the runner is the client", "--server": "use --server",
    "-p": "use --port", "--port": "use --port", "-t": "use --duration", "--time": "use --duration",
    "-i": "use --interval", "--interval": "use --interval", "-D": "the client must run in the foreground",
    "--daemon": "the client must run in the foreground", "--logfile": "iperf3 would write its JSON there",
}
DEFAULT_PORT = 5201
SERVER_LOG = "iperf3-server.log"


class Iperf3RunError(IoscaleError):
    pass


@dataclass
class StepResult(RunnerStep):
    command: list[str]
    #: samples sent: per-stream rows, whole-port rows
    stream_samples: int = 0
    port_samples: int = 0
    #: measured (non-warm-up) bytes the samples carry, per direction of the client: {"tx": n, "rx": n}
    emitted: dict[str, int] = field(default_factory=dict)
    #: the same figures from iperf3's end sums (sum_sent / sum_received, the bidir reverse ones for rx)
    reported: dict[str, int] = field(default_factory=dict)
    report: Path | None = None
    stderr: Path | None = None


@dataclass
class Iperf3Run:
    run_id: str
    host: str
    server: str
    port: int
    iperf3_version: str
    #: True when samples went out per interval (--json-stream), False when at each step's end (-J)
    streaming: bool
    run_dir: Path | None
    steps: list[StepResult] = field(default_factory=list)


def new_run_id() -> str:
    return f"iperf3-live-{uuid.uuid4().hex[:12]}"


def check_extra_args(extra_args: Sequence[str], sweep: tuple[str, Sequence[str]] | None) -> None:
    """Refuse client options that take iperf3's output away from the runner or that the runner sets."""
    reserved = dict(RESERVED_OPTIONS)
    if sweep is not None:
        opt = SWEEPABLE[sweep[0]]
        long = {"-P": "--parallel", "-l": "--length"}[opt]
        reserved[opt] = reserved[long] = f"--sweep {sweep[0]}=... sets it per step"
    for arg in extra_args:
        name = arg.split("=", 1)[0]
        if name in reserved:
            raise Iperf3RunError(f"{name} cannot pass through to iperf3: {reserved[name]}",
                                 hint="leave it out; the run directory keeps iperf3's JSON output of every step")


def _iperf3_path(iperf3: str) -> str:
    path = shutil.which(iperf3)
    if path is None:
        raise Iperf3RunError(f"iperf3 not found: no executable {iperf3!r} on PATH",
                             hint="install it (`apt-get install iperf3`; scripts/bootstrap.sh --test does) or name "
                                  "it with --iperf3 PATH")
    return path


def iperf3_features(iperf3: str) -> tuple[str, bool]:
    """(version line, whether this iperf3 has --json-stream)."""
    try:
        version = subprocess.run([iperf3, "--version"], capture_output=True, text=True, timeout=30)
        helptext = subprocess.run([iperf3, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Iperf3RunError(f"cannot run {iperf3} --version: {e}", hint="check that iperf3 runs: iperf3 --version") \
            from None
    first = (version.stdout or version.stderr).strip().splitlines()
    return (first[0] if first else ""), "--json-stream" in helptext.stdout + helptext.stderr


# --- a local server ---------------------------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _listening(host: str, port: int) -> bool:
    """Whether something listens on host:port, found by trying to bind it (a probe connection would be taken by
    iperf3 as a test). SO_REUSEADDR: connections of earlier tests in TIME_WAIT do not count, a listener does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as e:
            return e.errno == errno.EADDRINUSE
        return False


@contextlib.contextmanager
def local_server(iperf3: str, port: int, log_path: Path, *, wait_s: float = 10.0):
    """``iperf3 -s -J`` bound to 127.0.0.1:port for the block, its output in ``log_path``; stopped at the end."""
    with open(log_path, "w", encoding="utf-8") as out:
        proc = subprocess.Popen([iperf3, "-s", "-J", "-B", "127.0.0.1", "-p", str(port)], stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + wait_s
            while not _listening("127.0.0.1", port):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise Iperf3RunError(f"the local iperf3 server did not start on 127.0.0.1:{port}: "
                                         f"{log_tail(log_path)}",
                                         hint="pass --port with a free port, or --server HOST for a server of yours")
                time.sleep(0.05)
            yield proc
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


# --- one step -------------------------------------------------------------------------------------------


def _planned_doc(command: Sequence[str], server: str, port: int, duration_s: int) -> Iperf3Doc:
    """What the command asks for, as an iperf3 document's ``test_start``: the STEP_STARTED load before iperf3
    reports its own settings."""
    ts: dict[str, Any] = {"protocol": "TCP", "num_streams": 1, "blksize": 0, "duration": duration_s,
                          "reverse": 0, "bidir": 0, "target_bitrate": 0}
    args = list(command)
    for k, a in enumerate(args):
        value = args[k + 1] if k + 1 < len(args) else ""
        if a in ("-u", "--udp"):
            ts["protocol"] = "UDP"
        elif a in ("-R", "--reverse"):
            ts["reverse"] = 1
        elif a == "--bidir":
            ts["bidir"] = 1
        elif a in ("-P", "--parallel") and value.isdigit():
            ts["num_streams"] = int(value)
        elif a in ("-l", "--length"):
            ts["blksize"] = parse_size_bytes(value) or 0
        elif a in ("-b", "--bitrate", "--bandwidth"):
            ts["target_bitrate"] = parse_link_speed(value.split("/")[0]) or 0  # iperf3's rates are decimal too
    return Iperf3Doc(name="", start={"connecting_to": {"host": server, "port": port}, "test_start": ts})


class _StepFeed:
    """Samples of one step's documents, sent as the intervals come (stream) or all at once (-J)."""

    def __init__(self, send: Callable[[str, dict], None], run_id: str, step_index: int, t0_ms: int,
                 link_speed_bps: int, host: str | None):
        self.send, self.run_id, self.step_index, self.t0_ms = send, run_id, step_index, t0_ms
        self.link_speed_bps, self.host = link_speed_bps, host
        self.issues: list = []
        self.mappers: list[IntervalMapper] = []
        self.docs: list[Iperf3Doc] = []
        self.stream_samples = self.port_samples = 0

    def mapper(self, doc: Iperf3Doc) -> IntervalMapper:
        self.docs.append(doc)
        m = IntervalMapper(doc, Issues(doc.name or "iperf3", self.issues), run_id=self.run_id,
                           step_index=self.step_index, t0_ms=self.t0_ms, time_basis="runner_clock",
                           host=self.host if doc.role == "client" else None)
        self.mappers.append(m)
        return m

    def interval(self, mapper: IntervalMapper, interval: dict[str, Any]) -> None:
        for s in mapper.samples(interval):
            if self.link_speed_bps:
                s["link_speed_bps"] = self.link_speed_bps
                s["tags"]["link_speed_basis"] = "user"
            self.send(topics.PORT_SAMPLES, s)
            if s["queue"] >= 0:
                self.stream_samples += 1
            else:
                self.port_samples += 1

    def document(self, doc: Iperf3Doc) -> None:
        m = self.mapper(doc)
        for interval in doc.intervals:
            self.interval(m, interval)


class _EventStream:
    """``--json-stream`` lines -> the step's client document, sending each interval's samples on arrival."""

    def __init__(self, feed: _StepFeed):
        self.feed = feed
        self.doc = Iperf3Doc(name="iperf3 --json-stream")
        self.mapper: IntervalMapper | None = None

    def line(self, text: str) -> None:
        try:
            obj = json.loads(text)
        except ValueError:
            return  # a note iperf3 printed between events: kept in the step's file, not an event
        if not isinstance(obj, dict) or "event" not in obj:
            return
        kind, data = obj.get("event"), obj.get("data")
        if kind == "start" and isinstance(data, dict):
            self.doc.start = data
        elif kind == "interval" and isinstance(data, dict):
            if self.mapper is None:
                self.mapper = self.feed.mapper(self.doc)
            self.doc.intervals.append(data)
            self.feed.interval(self.mapper, data)
        elif kind == "end" and isinstance(data, dict):
            self.doc.end = data
        elif kind == "error":
            self.doc.error = str(data)


def _run_client(command: list[str], stdout_path: Path, stderr_path: Path, feed: _StepFeed, streaming: bool,
                timeout_s: float, log: Callable[[str], None]) -> list[Iperf3Doc]:
    """Run the client; return its document(s) (client first, then a --get-server-output server side)."""
    with open(stdout_path, "w", encoding="utf-8") as keep, open(stderr_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, encoding="utf-8",
                                errors="replace", bufsize=1)
        assert proc.stdout is not None
        # A hung client (a server that stops answering) is killed, which ends its output and the loop below.
        expired = threading.Event()
        watchdog = threading.Timer(timeout_s, lambda: (expired.set(), proc.kill()))
        watchdog.start()
        events = _EventStream(feed) if streaming else None
        try:
            for line in proc.stdout:
                keep.write(line)
                if events is not None and line.strip():
                    keep.flush()
                    events.line(line)
            rc = proc.wait()
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    if expired.is_set() and rc != 0 and not _completed(stdout_path):
        raise Iperf3RunError(f"iperf3 did not finish within {timeout_s:.0f} s",
                             hint=f"check the server and the options; iperf3's output so far is in {stdout_path}")
    if events is not None:
        docs = [events.doc] if events.doc.start or events.doc.intervals or events.doc.error else []
    else:
        docs = read_documents(str(stdout_path), stdout_path.read_bytes(), Issues(str(stdout_path), feed.issues))
        client = [d for d in docs if d.role != "server"][:1]
        docs = client + [d for d in docs if d.role == "server"]
        for doc in docs:
            feed.document(doc)
    error = next((d.error for d in docs if d.error), "")
    if rc != 0 or error or not docs:
        what = error or log_tail(stderr_path) or f"exit status {rc}"
        raise Iperf3RunError(f"iperf3 failed: {what}",
                             hint=f"iperf3's output is in {stdout_path}, its stderr in {stderr_path}; is an iperf3 "
                                  "server (iperf3 -s) running on that host and port?")
    for issue in feed.issues:
        log(f"warning: {issue}")
    return docs


def _completed(path: Path) -> bool:
    """Whether iperf3's output holds an end summary (the watchdog may fire just as a client finishes)."""
    try:
        return b'"end"' in path.read_bytes()
    except OSError:
        return False


# --- the run ----------------------------------------------------------------------------------------------


def run_iperf3(producer_like: Any, *, server: str | None = None, port: int | None = None,
               sweep: tuple[str, Sequence[str]] | None = None, duration_s: int = 10, interval_s: float = 1.0,
               run_id: str | None = None, host: str | None = None, scenario: str = "", iperf3: str = "iperf3",
               extra_args: Sequence[str] = (), out_dir: str | os.PathLike | None = None, link_speed_bps: int = 0,
               timeout_s: float | None = None, clock: Callable[[], float] = time.time,
               log: Callable[[str], None] | None = None) -> Iperf3Run:
    """Run the iperf3 client (once, or once per sweep value as steps 0..n-1) and send RunEvents + PortSamples.

    ``server`` None starts a local server on 127.0.0.1 (``port`` or a free one) for the run. ``out_dir`` keeps
    each step's output (else a temporary directory, removed). ``link_speed_bps`` is the tested NIC's line rate:
    it goes on every sample and on the step events' ``links``. Raises Iperf3RunError (with what to do next) when
    iperf3 is missing, fails or reports an error; the step and run are then closed with STEP_ENDED / RUN_ENDED
    tagged ``iperf3_error``.
    """
    if sweep is not None and sweep[0] not in SWEEPABLE:
        raise Iperf3RunError(f"cannot sweep {sweep[0]!r}", hint=f"choose one of {', '.join(SWEEPABLE)}")
    check_extra_args(extra_args, sweep)
    binary = _iperf3_path(iperf3)
    version, streaming = iperf3_features(binary)
    run_id = run_id or new_run_id()
    host = host if host is not None else socket.gethostname()
    log = log or (lambda _msg: None)
    send = producer_like.send
    values: list[str | None] = list(sweep[1]) if sweep else [None]
    timeout_s = timeout_s if timeout_s is not None else duration_s + 60
    with contextlib.ExitStack() as stack:
        if out_dir is None:
            run_dir, kept = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ioscale-iperf3-"))), None
        else:
            run_dir = kept = new_run_dir(Path(out_dir), Iperf3RunError)
        if server is None:
            target, port = "127.0.0.1", port or free_port()
            stack.enter_context(local_server(binary, port, run_dir / SERVER_LOG))
            log(f"local iperf3 server on 127.0.0.1:{port} (output in {SERVER_LOG})")
        else:
            target, port = server, port or DEFAULT_PORT
        run = Iperf3Run(run_id, host, target, port, version, streaming, kept)
        _run_steps(run, run_dir, binary, send, values=values, sweep=sweep, duration_s=duration_s,
                   interval_s=interval_s, extra_args=list(extra_args), scenario=scenario, link_speed_bps=link_speed_bps,
                   timeout_s=timeout_s, clock=clock, log=log)
    return run


def _run_steps(run: Iperf3Run, run_dir: Path, binary: str, send: Callable[[str, dict], None], *,
               values: list[str | None], sweep: tuple[str, Sequence[str]] | None, duration_s: int, interval_s: float,
               extra_args: list[str], scenario: str, link_speed_bps: int, timeout_s: float,
               clock: Callable[[], float], log: Callable[[str], None]) -> None:
    desc = " ".join(["iperf3 -c", run.server, "-p", str(run.port), "-t", str(duration_s),
                     *([f"sweep {sweep[0]}={','.join(v for v in values if v)}"] if sweep else []),
                     *(["--", *extra_args] if extra_args else [])])
    common = dict(run_id=run.run_id, tool="LIVE", scenario=scenario or f"iperf3-{run.server}", description=desc,
                  hosts=[host_topology(run.host, logical_processors=os.cpu_count() or 0)])
    run_tags = {"tool": "iperf3", "iperf3_version": run.iperf3_version, "sweep_param": sweep[0] if sweep else "",
                "iperf3_server": f"{run.server}:{run.port}",
                "iperf3_output": "json-stream (per interval)" if run.streaming else "json (at each step's end)"}
    run_start = int(clock() * 1000)
    send(topics.RUNS, run_boundary(common, run_start, None, run_tags))
    for index, value in enumerate(values):
        prefix = f"step-{index:03d}"
        command = [binary, "-c", run.server, "-p", str(run.port), "-t", str(duration_s), "-i", f"{interval_s:g}",
                   "--json-stream" if run.streaming else "-J", *extra_args]
        if sweep is not None:
            command += [SWEEPABLE[sweep[0]], str(value)]
        step_tags_ = {"sweep_value": str(value)} if sweep else {}
        start_ms = int(clock() * 1000)
        load, label = step_load_of(_planned_doc(command, run.server, run.port, duration_s))
        send(topics.RUNS, step_event(common, StepSpan(index, label, start_ms, start_ms, load, tags=step_tags_),
                                     "STEP_STARTED"))
        log(f"step {index}" + (f" {sweep[0]}={value}" if sweep else "") + f": {' '.join(command)}")
        feed = _StepFeed(send, run.run_id, index, start_ms, link_speed_bps, run.host)
        report, stderr = run_dir / f"{prefix}.json", run_dir / f"{prefix}.stderr.txt"
        error: Iperf3RunError | None = None
        docs: list[Iperf3Doc] = []
        try:
            docs = _run_client(command, report, stderr, feed, run.streaming, timeout_s, log)
        except Iperf3RunError as e:
            error = e
            step_tags_ = {**step_tags_, "iperf3_error": str(e)[:500]}
        end_ms = int(clock() * 1000)
        windows = [w for w in (m.window_ms() for m in feed.mappers) if w is not None]
        w_start, w_end = (min(w[0] for w in windows), max(w[1] for w in windows)) if windows else (start_ms, end_ms)
        if docs and docs[0].test_start:
            load, label = step_load_of(docs[0])
        ended = step_event(common, StepSpan(index, label, w_start, w_end, load,
                                            tags={**step_tags_, **step_tags(feed.docs)}), "STEP_ENDED")
        ended["ts_ms"] = max(end_ms, w_end)
        if link_speed_bps:
            ended["links"] = [LinkCapacity(host=m.host, port_id=m.port_id, kind="NIC", speed_bps=link_speed_bps,
                                           payload_bytes_per_s=0, full_duplex=True) for m in feed.mappers]
        send(topics.RUNS, ended)
        kept = run.run_dir is not None
        result = StepResult(index, label, w_start, w_end, load, command, feed.stream_samples, feed.port_samples,
                            report=report if kept else None, stderr=stderr if kept else None)
        _totals(result, feed, docs)
        run.steps.append(result)
        if error is not None:
            send(topics.RUNS, run_boundary(common, run_start, end_ms, {**run_tags, "iperf3_error": f"step {index}"}))
            raise error
    end_ms = int(clock() * 1000)
    send(topics.RUNS, run_boundary(common, run_start, end_ms, run_tags))


def _totals(result: StepResult, feed: _StepFeed, docs: list[Iperf3Doc]) -> None:
    """What the client's samples carried (measured intervals) beside iperf3's own end sums."""
    client = next((m for m in feed.mappers if m.doc.role != "server"), None)
    if client is None:
        return
    result.emitted = {d: client.measured[d].get("bytes", 0) for d in ("tx", "rx")}
    end = client.doc.end
    sent, received = end.get("sum_sent"), end.get("sum_received")
    rev = end.get("sum_received_bidir_reverse")
    reported: dict[str, int] = {}
    if client.doc.bidir and isinstance(sent, dict) and isinstance(rev, dict):
        reported = {"tx": int(sent.get("bytes", 0)), "rx": int(rev.get("bytes", 0))}
    elif client.doc.reverse and isinstance(received, dict):
        reported = {"tx": 0, "rx": int(received.get("bytes", 0))}
    elif isinstance(sent, dict):
        reported = {"tx": int(sent.get("bytes", 0)), "rx": 0}
    result.reported = reported


def report_totals(run: Iperf3Run) -> list[str]:
    """One line per step: samples sent and their bytes beside iperf3's end sums."""
    lines = []
    for s in run.steps:
        parts = [f"step {s.step_index} {s.label}: {s.stream_samples} stream + {s.port_samples} port samples"]
        for d in ("tx", "rx"):
            if s.reported.get(d) or s.emitted.get(d):
                gbps = s.emitted.get(d, 0) * 8 / max((s.end_ms - s.start_ms) / 1000, 1e-3) / 1e9
                parts.append(f"{d} {s.emitted.get(d, 0):,} B ({gbps:.3f} Gbit/s) / iperf3 {s.reported.get(d, 0):,} B")
        lines.append("; ".join(parts))
    return lines


def summary_line(run: Iperf3Run) -> str:
    off = [s.step_index for s in run.steps if s.reported and s.emitted != s.reported]
    how = "per interval (--json-stream)" if run.streaming else \
        f"at each step's end ({run.iperf3_version or 'this iperf3'} has no --json-stream)"
    return (f"run {run.run_id}: {len(run.steps)} step(s) against {run.server}:{run.port}, samples sent {how}; "
            + (f"the samples differ from iperf3's end sums in step(s) {', '.join(map(str, off))}" if off
               else "the samples add up to iperf3's end sums in every step")
            + (f"; iperf3's output in {run.run_dir}" if run.run_dir else ""))


__all__ = ["Iperf3Run", "Iperf3RunError", "SWEEPABLE", "StepResult", "check_extra_args", "free_port",
           "iperf3_features", "local_server", "new_run_id", "report_totals", "run_iperf3", "summary_line"]
