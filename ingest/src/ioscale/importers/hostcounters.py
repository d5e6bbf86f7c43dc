"""Host counter files in PDH layout (perfmon, esxtop) -> samples, one row at a time: the shared driver.

``perfmon.py`` and ``esxtop.py`` each say which columns they read (``CounterMap.column``) and how a row's values
become records (``CounterMap.records``); this module does the rest, the same for both:

* **Intervals.** A row's rate counters average the time since the previous row, so a row's sample covers
  ``(previous row, this row]``: ``ts_ms`` = previous time, ``interval_ms`` = the gap. The first row has no
  previous one; it takes the second row's gap (typeperf and perfmon leave its rate cells blank anyway, while
  esxtop fills them). A gap <= 0 (clock set back, DST in a zone whose bias the header froze) skips that row.
* **Counts.** Samples carry counts per interval, the counters rates: count = round(rate x interval). A cumulative
  counter (perfmon's ``Packets Received Errors``) becomes the difference to the previous row, never negative.
* **Blank cells** (no value this interval) are left out; a record needs its main value (CPU %, I/O count,
  port bytes) present, so a blank one means no record for that source in that interval, not a zero.
* **Unknown columns** are listed once in the summary (objects with their column counts), never an error.
* **Layers.** The same I/O shows at several layers (an HBA, the LUNs behind it, the VMs' virtual disks). Each
  layer but the counted one goes to a companion run ``<run id>-<layer>`` (with its own run events), so no
  run counts an I/O twice while every layer stays queryable.
* **Runs.** Without ``--run-id`` the file is a run of its own (id from the content, one step over the file's
  time, tool ``LIVE``, tag ``source_tool``); with one, its samples join that run with ``step_index = -1`` (the
  step is found from the time, as for live collectors) and only companion runs get run events.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import itemgetter
from typing import IO, Any

from ioscale.importers.common import (FUTURE_TOLERANCE_MS, INT64_MAX, ImportIssue, ImportResult, Source, StepSpan,
                                      derive_run_id, host_topology, run_events, step_load)
from ioscale.importers.pdh import READ_CHUNK, CounterPath, IssueBudget, PdhHeader, PdhRow, bytes_lines, file_lines, read_pdh
from ioscale.wire import topics

Record = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Column:
    """One value a mapped column feeds: the record it belongs to (``key``), the field, and its scale."""

    index: int
    key: tuple            # (kind, ...) identity of the record within a row; kind is "cpu", "io" or "port"
    field: str            # the mapping's own field name ("ops.READ", "utilization_pct", "tag:davg_ms", ...)
    scale: float = 1.0    # value x scale = the unit the field is in
    rank: int = 0         # two columns for one field (Processor Information and Processor): lower rank wins


class Skip(str):
    """A reason a column is known but deliberately not read (e.g. a ``_Total`` that would double count)."""


class CounterMap:
    """What one tool's columns mean. Subclasses fill ``column`` and ``records``."""

    tool = ""
    counted_layer = ""
    hypervisor = ""

    def start(self, header: PdhHeader) -> None:
        """Called once with the header before any ``column`` call (e.g. to see which objects exist)."""

    def column(self, index: int, path: CounterPath) -> list[Column] | Skip | None:
        """The values a column feeds; a Skip reason; or None for a counter the tool does not map."""
        raise NotImplementedError

    def records(self, key: tuple, values: dict[str, float], ctx: "RowContext") -> list[Record]:
        raise NotImplementedError

    def row_done(self, ctx: "RowContext") -> list[Record]:
        """Records built from the whole row (after every key's ``records``), e.g. per-VM totals."""
        return []


@dataclass
class RowContext:
    """What a mapping sees while turning one row into records."""

    ts_ms: int
    interval_ms: int
    line: int
    run_id: str
    step_index: int
    vm: str
    issues: IssueBudget
    driver: "HostCounterStream"

    @property
    def seconds(self) -> float:
        return self.interval_ms / 1000.0

    def count(self, rate: float | None, what: str, detail: str = "") -> int | None:
        """A per-second rate over this interval -> a count; None (with an error) for a negative rate. ``what`` and
        ``detail`` name the value in that error (joined only then: this runs for every value of every row)."""
        if rate is None:
            return None
        if rate < 0:
            self.issues.error("negative", f"negative rate {rate:g} for {what}{detail}: left out", line=self.line)
            return None
        n = round(rate * self.seconds)
        return n if n <= INT64_MAX else INT64_MAX

    def delta(self, key: tuple, name: str, raw: float | None) -> int | None:
        """A cumulative counter's increase since the previous row (None on the first row or a reset)."""
        if raw is None:
            return None
        prev = self.driver.cumulative.get((key, name))
        self.driver.cumulative[(key, name)] = raw
        return None if prev is None or raw < prev else round(raw - prev)

    def pct(self, value: float | None, what: str) -> float | None:
        """A percentage of one CPU; up to 0.5 over 100 is timer jitter and is clamped, more is an error."""
        if value is None:
            return None
        if value < 0 or value > 100.5:
            self.issues.error("pct", f"{what} = {value:g}% is outside 0..100: left out", line=self.line)
            return None
        return min(value, 100.0)

    def layer_run(self, layer: str) -> str:
        """The run a layer's I/O samples go to: the counted layer's run, else its companion run."""
        return self.driver.layer_run_id(layer)


@dataclass
class Stats:
    rows: int = 0
    intervals: int = 0
    records: dict[str, int] = field(default_factory=dict)
    first_ms: int | None = None
    last_ms: int | None = None
    hosts: set[str] = field(default_factory=set)
    #: run id -> [first ts, last end, records] of the runs that received samples
    runs: dict[str, list[int]] = field(default_factory=dict)


class HostCounterStream:
    """Header + rows in, (topic, record) pairs out; bounded memory (one row, plus per-column cumulative values)."""

    def __init__(self, mapping: CounterMap, *, source: str, run_id: str, attached: bool, now_ms: int, vm: str = "",
                 issues: IssueBudget):
        self.mapping = mapping
        self.source = source
        self.run_id = run_id
        self.attached = attached
        self.step_index = -1 if attached else 0
        self.now_ms = now_ms
        self.vm = vm
        self.issues = issues
        self.columns: list[Column] = []
        self._groups: list[tuple] = []
        self.cumulative: dict[tuple, float] = {}
        self.stats = Stats()
        self.header: PdhHeader | None = None

    def layer_run_id(self, layer: str) -> str:
        return self.run_id if layer == self.mapping.counted_layer else f"{self.run_id}-{layer}"

    def start(self, header: PdhHeader) -> None:
        self.header = header
        self.mapping.start(header)
        unmapped: dict[str, int] = {}
        skipped: dict[str, int] = {}
        for i, path in enumerate(header.columns):
            if path is None:
                unmapped["(not a counter path)"] = unmapped.get("(not a counter path)", 0) + 1
                continue
            got = self.mapping.column(i, path)
            if isinstance(got, Skip):
                skipped[str(got)] = skipped.get(str(got), 0) + 1
            elif not got:
                name = path.object if got is None else f"{path.object}\\{path.counter}"
                unmapped[name] = unmapped.get(name, 0) + 1
            else:
                self.columns.extend(got)
                self.stats.hosts.add(path.host)
        if unmapped:
            listed = sorted(unmapped.items(), key=lambda kv: (-kv[1], kv[0]))
            text = ", ".join(f"{k} ({n})" for k, n in listed[:12]) + (", ..." if len(listed) > 12 else "")
            self.issues.issues.warn(f"{sum(unmapped.values())} of {len(header.columns)} columns not imported "
                                    f"(no {self.mapping.tool} mapping): {text}", line=1)
        for reason, n in sorted(skipped.items()):
            self.issues.issues.warn(f"{n} column(s) left out: {reason}", line=1)
        if not self.columns:
            self.issues.error("nothing", f"no column the {self.mapping.tool} importer maps: nothing to import", line=1)
        self._groups = _groups(self.columns)

    def records(self, rows: Iterable[PdhRow]) -> Iterator[Record]:
        """The samples of every row, in file order (the first row once the second gives its interval)."""
        prev: PdhRow | None = None
        pending_first: PdhRow | None = None
        for row in rows:
            self.stats.rows += 1
            if row.ts_ms > self.now_ms + FUTURE_TOLERANCE_MS or row.ts_ms < 0:
                self.issues.error("future", f"row skipped: sample time {row.ts_ms} ms is implausible (now "
                                            f"{self.now_ms})", line=row.line)
                continue
            if prev is None:
                prev = pending_first = row
                continue
            gap = row.ts_ms - prev.ts_ms
            if gap <= 0:
                self.issues.warn("gap", f"row skipped: its time is not after the previous row's ({gap} ms)",
                                 line=row.line)
                prev = row
                continue
            if pending_first is not None:
                yield from self._row(pending_first, gap)
                pending_first = None
            yield from self._row(row, gap)
            prev = row
        if pending_first is not None and self.stats.rows:
            self.issues.warn("single", "one sample only: no interval to turn its rates into counts", line=prev.line)

    def _row(self, row: PdhRow, interval_ms: int) -> Iterator[Record]:
        cells = row.cells
        per_key: list[tuple[tuple, dict[str, float]]] = []
        for key, get, fields, scales, simple, cols in self._groups:
            texts = get(cells)
            if simple:
                # Fast path (one column per field, every cell a number): one comprehension per record. A blank,
                # text, NaN or infinite cell sends the group to the checked path below.
                try:
                    values = {f: float(t) * k for f, t, k in zip(fields, texts, scales)}
                    total = sum(values.values())
                    if total - total == 0:
                        per_key.append((key, values))
                        continue
                except ValueError:
                    pass
            values = self._checked(row, cols, texts)
            if values:
                per_key.append((key, values))
        ctx = RowContext(row.ts_ms - interval_ms, interval_ms, row.line, self.run_id, self.step_index, self.vm,
                         self.issues, self)
        out: list[Record] = []
        records = self.mapping.records
        for key, values in per_key:
            out.extend(records(key, values, ctx))
        out.extend(self.mapping.row_done(ctx))
        if not out:
            return iter(())
        self.stats.intervals += 1
        end = row.ts_ms
        for topic, rec in out:
            self.stats.records[topic] = self.stats.records.get(topic, 0) + 1
            span = self.stats.runs.get(rec["run_id"])
            if span is None:
                self.stats.runs[rec["run_id"]] = [ctx.ts_ms, end, 1]
            else:
                span[0], span[1], span[2] = min(span[0], ctx.ts_ms), max(span[1], end), span[2] + 1
        if self.stats.first_ms is None:
            self.stats.first_ms = ctx.ts_ms
        self.stats.last_ms = end
        return iter(out)

    def _checked(self, row: PdhRow, cols: tuple[Column, ...], texts: tuple[str, ...]) -> dict[str, float]:
        """One record's values, cell by cell: blanks left out, bad numbers reported, the lowest rank per field."""
        best: dict[str, tuple[int, float]] = {}
        for col, cell in zip(cols, texts):
            if not cell or cell.isspace():
                continue
            try:
                v = float(cell)
            except ValueError:
                v = math.nan
            if not math.isfinite(v):
                self.issues.error("number", f"not a number: {cell[:30]!r}", line=row.line,
                                  field=_column_name(self.header, col.index))
                continue
            have = best.get(col.field)
            if have is None or col.rank < have[0]:
                best[col.field] = (col.rank, v * col.scale)
        return {f: v for f, (_, v) in best.items()}

    def run_events(self) -> list[dict]:
        """RUN_STARTED .. RUN_ENDED for the file's own run (unless attached) and every companion run."""
        out: list[dict] = []
        hosts = [host_topology(h, hypervisor=self.mapping.hypervisor) for h in sorted(self.stats.hosts)]
        for run_id, (start, end, _) in sorted(self.stats.runs.items()):
            if run_id == self.run_id and self.attached:
                continue
            layer = run_id[len(self.run_id) + 1:] if run_id != self.run_id else self.mapping.counted_layer
            out.extend(run_events(
                run_id=run_id, tool="LIVE", scenario=self.source.rsplit("/", 1)[-1].rsplit(".", 1)[0],
                description=f"{self.mapping.tool} counters from {self.source.rsplit('/', 1)[-1]}"
                            + (f" ({layer} layer)" if layer else ""),
                hosts=hosts, steps=[StepSpan(0, f"{self.mapping.tool} file", start, end,
                                             step_load(config_labels={"source_tool": self.mapping.tool}))],
                tags={"source_tool": self.mapping.tool, "io_layer": layer,
                      **({"parent_run_id": self.run_id} if run_id != self.run_id else {})}))
        return out


def _groups(columns: list[Column]) -> list[tuple]:
    """Columns per record key, in first-seen order: (key, cell getter, fields, scales, simple, columns). ``simple``:
    no field is fed by two columns, so the rank rule has nothing to decide."""
    by_key: dict[tuple, list[Column]] = {}
    for c in columns:
        by_key.setdefault(c.key, []).append(c)
    out = []
    for key, cols in by_key.items():
        idx = [c.index for c in cols]
        # itemgetter of one index returns a bare value: ask for two or more, as linux.interrupt_deltas does.
        pick = itemgetter(*idx, idx[0])
        fields = tuple(c.field for c in cols)
        out.append((key, pick, fields, tuple(c.scale for c in cols), len(set(fields)) == len(fields), tuple(cols)))
    return out


def _column_name(header: PdhHeader | None, index: int) -> str | None:
    if header is None or index >= len(header.columns) or header.columns[index] is None:
        return None
    p = header.columns[index]
    return f"{p.object}({p.instance})\\{p.counter}" if p.instance is not None else f"{p.object}\\{p.counter}"


def content_run_id(tool: str, file_sha256: str) -> str:
    """``derive_run_id(tool, [one file])`` from the file's SHA-256, so a streamed file gets the id the registry
    path gives it."""
    return f"{tool.lower()}-{hashlib.sha256(file_sha256.encode()).hexdigest()[:20]}"


def stream_lines(mapping: CounterMap, lines: Iterable[str], *, source: str, run_id: str, attached: bool,
                 now_ms: int, issues: IssueBudget, vm: str = "") -> tuple[HostCounterStream, Iterator[Record]]:
    """The driver over text lines; iterate the records, then read ``stream.stats`` and ``stream.run_events()``."""
    stream = HostCounterStream(mapping, source=source, run_id=run_id, attached=attached, now_ms=now_ms, vm=vm,
                               issues=issues)
    header, rows = read_pdh(lines, issues)
    if header is None:
        return stream, iter(())
    stream.start(header)
    if not stream.columns:
        return stream, iter(())
    return stream, stream.records(rows)


def import_sources(mapping_factory, tool: str, sources: list[Source], run_id: str | None, *,
                   now_ms: int) -> ImportResult:
    """The registry form: in-memory sources -> one ImportResult (companion runs' records included)."""
    base = run_id or derive_run_id(tool, sources)
    result = ImportResult(run_id=base)
    lists = {topics.IO_SAMPLES: result.io_samples, topics.CPU_SAMPLES: result.cpu_samples,
             topics.PORT_SAMPLES: result.port_samples}
    streams: list[HostCounterStream] = []
    for name, data in sources:
        budget = IssueBudget(name, result.errors)
        stream, records = stream_lines(mapping_factory(), bytes_lines(data), source=name, run_id=base,
                                       attached=run_id is not None, now_ms=now_ms, issues=budget)
        for topic, rec in records:
            lists[topic].append(rec)
        if stream.header is not None and stream.columns and not stream.stats.intervals:
            budget.error("no-rows", "no sample rows with an interval (a file needs two timed rows)")
        budget.close()
        streams.append(stream)
    if streams:
        # Several files of one run: one set of run events over all of them.
        first = streams[0]
        for other in streams[1:]:
            first.stats.hosts |= other.stats.hosts
            for rid, (a, b, n) in other.stats.runs.items():
                have = first.stats.runs.get(rid)
                first.stats.runs[rid] = [a, b, n] if have is None else [min(have[0], a), max(have[1], b), have[2] + n]
        result.run_events = first.run_events()
    return result


@dataclass
class StreamedImport:
    """What ``stream_file`` did: the run ids, counts per topic (run events included) and every issue."""

    run_id: str
    stats: Stats
    sent: dict[str, int]
    errors: list[ImportIssue]

    @property
    def has_errors(self) -> bool:
        return any(i.severity == "error" for i in self.errors)

    @property
    def runs(self) -> list[str]:
        return sorted(self.stats.runs)


def file_digest(f: IO[bytes], chunk: int = READ_CHUNK) -> str:
    h = hashlib.sha256()
    while data := f.read(chunk):
        h.update(data)
    return h.hexdigest()


def stream_file(mapping: CounterMap, f: IO[bytes], name: str, send: Callable[[str, dict], None], *,
                run_id: str | None, now_ms: int) -> StreamedImport:
    """One file, read twice a chunk at a time (its content digest names the run when ``run_id`` is None, then
    the rows): each record goes to ``send(topic, record)`` as it is built, run events last. Bounded memory."""
    errors: list[ImportIssue] = []
    base = run_id
    if base is None:
        base = content_run_id(mapping.tool, file_digest(f))
        f.seek(0)
    budget = IssueBudget(name, errors)
    stream, records = stream_lines(mapping, file_lines(f), source=name, run_id=base, attached=run_id is not None,
                                   now_ms=now_ms, issues=budget)
    sent: dict[str, int] = {}
    for topic, rec in records:
        send(topic, rec)
        sent[topic] = sent.get(topic, 0) + 1
    for ev in stream.run_events():
        send(topics.RUNS, ev)
        sent[topics.RUNS] = sent.get(topics.RUNS, 0) + 1
    if stream.header is not None and stream.columns and not stream.stats.intervals:
        budget.error("no-rows", "no sample rows with an interval (a file needs two timed rows)")
    budget.close()
    return StreamedImport(base, stream.stats, sent, errors)


__all__ = ["Column", "CounterMap", "HostCounterStream", "Record", "RowContext", "Skip", "Stats", "content_run_id",
           "file_digest", "import_sources", "stream_file", "stream_lines", "StreamedImport"]
