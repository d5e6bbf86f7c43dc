"""Importers: after-the-fact results of real tools -> run events, IoSamples and CpuSamples.

``import_files(tool, paths)`` is the edge: it reads the files (and, for VMFleet, the XML files of a
directory), then hands ``(name, bytes)`` pairs to the pure importer registered for the tool. Importers
never raise on bad input: problems come back in ``ImportResult.errors`` as ``ImportIssue`` (file, line or
field, reason, severity) next to every record the valid part of the input still yields.

=========  =========================================  ====================================================
tool       input                                      records
=========  =========================================  ====================================================
diskspd    ``-Rxml`` or ``-Rtext`` output files       IoSample per target/direction (percentiles), CPU
vmfleet    a VMFleet result directory (or its XMLs)   one step per sweep point, one VM per file
fio        fio ``json`` / ``json+`` output            IoSample per job/direction (percentiles, json+ hist)
fio-hist   fio histogram logs (+ the run's fio JSON)  IoSample per logged interval with its histogram
iometer    Iometer results CSV                        step per 'Results block, IoSample per target, CPU
iperf3     iperf3 ``-J`` / ``--json-stream`` output   step per test, PortSample per interval and stream
perfmon    PDH CSV/TSV (typeperf, perfmon, relog)     per interval: CPU, IoSample per disk, PortSample per NIC
esxtop     ``esxtop -b`` batch CSV                    per interval: PCPU/VM CPU, IoSample per vmhba, ports
=========  =========================================  ====================================================

perfmon and esxtop files are read as a stream (``hostcounters.py``; ``ioscale import`` publishes them as it
reads, with bounded memory); through ``import_files`` they are read whole like the others.

The run id is derived from the files' content unless given, so importing the same files twice yields the
same records (idempotent downstream).

``import_files`` puts every step of the input into one run. ``import_runs`` (what ``ioscale import`` does)
splits it into one run per sweep along one load axis (``sweeps.split_sweeps``): an Iometer CSV's access
specifications, a VMFleet directory's block sizes and mixes, a bench-fio directory's (rw, numjobs) each become a
run stepping along the queue depth, linked by the ``sweep_group`` label.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

from ioscale.errors import ExitStatus, IoscaleError
from ioscale.importers.common import ImportIssue, ImportResult, Issues, Source, derive_run_id
from ioscale.importers.diskspd import import_diskspd
from ioscale.importers.esxtop import EsxtopMap, import_esxtop
from ioscale.importers.fio import import_fio
from ioscale.importers.fio_hist import import_fio_hist
from ioscale.importers.hostcounters import CounterMap, Stats, StreamedImport, stream_file
from ioscale.importers.iometer import import_iometer
from ioscale.importers.iperf3 import import_iperf3
from ioscale.importers.perfmon import PerfmonMap, import_perfmon
from ioscale.importers.sweeps import AXIS_NAMES, split_sweeps
from ioscale.importers.vmfleet import import_vmfleet

#: ``(sources, run_id, *, start_ms, now_ms) -> ImportResult``; pure (no I/O, no clock).
Importer = Callable[..., ImportResult]

IMPORTERS: dict[str, Importer] = {
    "diskspd": import_diskspd,
    "vmfleet": import_vmfleet,
    "fio": import_fio,
    "fio-hist": import_fio_hist,
    "iometer": import_iometer,
    "iperf3": import_iperf3,
    "perfmon": import_perfmon,
    "esxtop": import_esxtop,
}

#: Files taken from a directory argument, per tool.
DIRECTORY_SUFFIXES: dict[str, tuple[str, ...]] = {
    "diskspd": (".xml", ".txt"),
    "vmfleet": (".xml",),
    "fio": (".json",),
    "fio-hist": (".log", ".json"),
    "iometer": (".csv",),
    "iperf3": (".json",),
    "perfmon": (".csv", ".tsv"),
    "esxtop": (".csv",),
}

#: Tools whose files ``stream_import`` reads a row at a time (perf counter logs grow to hundreds of MB).
COUNTER_MAPS: dict[str, type[CounterMap]] = {"perfmon": PerfmonMap, "esxtop": EsxtopMap}

#: Larger inputs are refused rather than read into memory (a results file is megabytes at most).
MAX_FILE_BYTES = 1 << 30



class UnknownImporterError(IoscaleError):
    exit_status = ExitStatus.USAGE

    def __init__(self, tool: str):
        super().__init__(f"no importer for {tool!r}", hint="choose one of: " + ", ".join(sorted(IMPORTERS)))


def read_sources(tool: str, paths: Sequence[Path], errors: list[ImportIssue]) -> list[Source]:
    """Read the input files (directories expand to their matching files, sorted by name)."""
    out: list[Source] = []
    suffixes = DIRECTORY_SUFFIXES.get(tool, ())
    for path in paths:
        path = Path(path)
        files: list[Path]
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
            if not files:
                hint = " (subdirectories are not searched: pass them too, e.g. DIR/*/)" if any(
                    p.is_dir() for p in path.iterdir()) else ""
                errors.append(ImportIssue(str(path), f"directory holds no {'/'.join(suffixes)} file{hint}"))
        else:
            files = [path]
        for f in files:
            try:
                size = f.stat().st_size
                if size > MAX_FILE_BYTES:
                    errors.append(ImportIssue(str(f), f"file is {size} bytes, above the {MAX_FILE_BYTES} limit"))
                    continue
                out.append((str(f), f.read_bytes()))
            except OSError as e:
                errors.append(ImportIssue(str(f), f"cannot read: {e.strerror or e}"))
    return out


def import_sources(tool: str, sources: Sequence[Source], run_id: str | None = None, *,
                   start_ms: int | None = None, now_ms: int | None = None) -> ImportResult:
    """Run the pure importer for ``tool`` on in-memory sources; never raises on bad input."""
    key = tool.strip().lower()
    if key not in IMPORTERS:
        raise UnknownImporterError(tool)
    now = int(time.time() * 1000) if now_ms is None else now_ms
    try:
        return IMPORTERS[key](list(sources), run_id, start_ms=start_ms, now_ms=now)
    except Exception as e:  # noqa: BLE001 - last resort: a parser bug must not lose the other files' issues
        result = ImportResult(run_id=run_id or derive_run_id(key, sources))
        Issues(sources[0][0] if sources else "", result.errors).error(
            f"internal error in the {key} importer ({type(e).__name__}: {e}); no records imported")
        return result


def import_files(tool: str, paths: list[Path], run_id: str | None = None, *, start_ms: int | None = None,
                 now_ms: int | None = None) -> ImportResult:
    """Import the result files of ``tool`` (see the table above) into records plus issues.

    ``start_ms`` anchors files that carry no absolute time (fio 2.1 JSON, relative histogram logs, DISKSPD
    text without a start time); ``now_ms`` (default: the clock) bounds plausible timestamps.
    """
    key = tool.strip().lower()
    if key not in IMPORTERS:
        raise UnknownImporterError(tool)
    read_errors: list[ImportIssue] = []
    sources = read_sources(key, paths, read_errors)
    if not sources:
        result = ImportResult(run_id=run_id or "")
        result.errors.extend(read_errors or [ImportIssue("", "no input files")])
        return result
    result = import_sources(key, sources, run_id, start_ms=start_ms, now_ms=now_ms)
    result.errors[:0] = read_errors
    return result


def import_runs(tool: str, paths: list[Path], run_id: str | None = None, *, sweep_axis: str | None = None,
                one_run: bool = False, start_ms: int | None = None, now_ms: int | None = None) -> list[ImportResult]:
    """``import_files``, then one run per sweep along ``sweep_axis`` (None: the axis with the most values).

    ``one_run`` keeps every step in one run, as ``import_files``. ``run_id`` is the id of a single sweep and
    the base of each sweep's id (and their ``sweep_group``) when the input holds several. Each import issue is
    on exactly one of the runs.
    """
    result = import_files(tool, paths, run_id, start_ms=start_ms, now_ms=now_ms)
    return [result] if one_run else split_sweeps(result, sweep_axis)


def stream_import(tool: str, path: Path, send: Callable[[str, dict], None], run_id: str | None = None, *,
                  now_ms: int | None = None) -> StreamedImport:
    """A perfmon or esxtop file, streamed: each record goes to ``send(topic, record)`` as its row is read (no size
    limit, bounded memory); the run id is derived from the content unless given. Unreadable files are issues."""
    key = tool.strip().lower()
    if key not in COUNTER_MAPS:
        raise UnknownImporterError(tool)
    now = int(time.time() * 1000) if now_ms is None else now_ms
    try:
        with open(path, "rb") as f:
            return stream_file(COUNTER_MAPS[key](), f, str(path), send, run_id=run_id, now_ms=now)
    except OSError as e:
        return StreamedImport(run_id or "", Stats(), {}, [ImportIssue(str(path), f"cannot read: {e.strerror or e}")])


__all__ = ["AXIS_NAMES", "COUNTER_MAPS", "IMPORTERS", "ImportIssue", "ImportResult", "UnknownImporterError", "import_files",
           "import_runs", "import_sources", "read_sources", "stream_import"]
