"""The PDH CSV layout shared by Windows performance counters and ESXi ``esxtop -b``: a streaming reader.

What the tools write (typeperf, a data collector set, ``relog -f CSV|TSV``, ``esxtop -b``):

* one header row: the first cell names the format and the writer's time zone,
  ``(PDH-CSV 4.0) (W. Europe Standard Time)(-60)`` -- the number is the Windows *bias* in minutes
  (UTC = local time + bias: Pacific 480, India -330); esxtop writes ``(PDH-CSV 4.0) (UTC)(0)``; typeperf may
  write a bare ``(PDH-CSV 4.0)`` (no zone: times are taken as UTC, with a warning). ``relog -f TSV`` writes
  ``(PDH-TSV 4.0) ...`` with tab-separated cells. Every other cell is a counter path
  ``\\\\HOST\\Object(Instance)\\Counter`` or ``\\\\HOST\\Object\\Counter``;
* one row per sample: the local sample time ``MM/DD/YYYY HH:MM:SS[.mmm]``, then one value per column. A
  blank cell (``""`` or ``" "``) means the counter had no value for that sample (the first row of a rate
  counter, an instance that came or went); it is skipped, never read as 0.

Instances can hold parentheses, commas, colons and ``#n`` duplicates (``Processor Information(0,1)``,
``Group Cpu(1234:vm (2))``, ``Network Adapter(Intel[R] X710 #2)``): an instance ends at the *last* ``)\\``
of the path, so only the counter name must be free of ``)\\``, which no counter name holds.

Bounded memory: the reader takes an iterator of text lines and yields one row at a time (esxtop batch files
reach hundreds of MB and tens of thousands of columns). Python's ``csv`` module parses each line (C code;
PDH cells never span lines); pandas is not used because it reads a whole file (or fixed chunks of rows,
each a full-width frame) into memory and infers a dtype per column, where one pass over the lines that
keeps only the mapped columns is both smaller and faster here.
"""

from __future__ import annotations

import calendar
import codecs
import csv
import re
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

from ioscale.importers.common import ImportIssue, Issues

#: Issues of one kind kept in full; past this, only counted (a damaged 200 MB file must not yield 10^6 issues).
ISSUES_PER_KIND = 20

_HEADER_RE = re.compile(r"^\(PDH-(CSV|TSV) (\d+(?:\.\d+)?)\)(.*)$")
_BIAS_RE = re.compile(r"\((-?\d{1,4})\)\s*$")
_TIME_RE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4}) (\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?\s*$")


@dataclass(frozen=True)
class CounterPath:
    host: str
    object: str
    instance: str | None   # None: the object has no instances (Memory, System)
    counter: str


def parse_counter_path(text: str) -> CounterPath | None:
    """``\\\\HOST\\Object(Instance)\\Counter`` -> its parts; None when the cell is no counter path."""
    if not text.startswith("\\\\"):
        return None
    rest = text[2:]
    host, sep, rest = rest.partition("\\")
    if not sep or not host or not rest:
        return None
    paren, slash = rest.find("("), rest.find("\\")
    if slash < 0:
        return None
    if paren < 0 or slash < paren:
        obj, counter = rest[:slash], rest[slash + 1:]
        instance = None
    else:
        end = rest.rfind(")\\")
        if end < paren:
            return None
        obj, instance, counter = rest[:paren], rest[paren + 1:end], rest[end + 2:]
    if not obj or not counter:
        return None
    return CounterPath(host, obj, instance, counter)


@dataclass(frozen=True)
class PdhHeader:
    fmt: str                           # "CSV" or "TSV"
    zone: str                          # as the header names it; "" when absent
    bias_min: int | None               # UTC - local, minutes; None when the header has none
    columns: list[CounterPath | None]  # per cell after the time cell; None: not a counter path

    def instances(self) -> Iterator[CounterPath]:
        """The counter paths that name an instance (``Processor(0)``, not ``Memory``), in column order."""
        return (p for p in self.columns if p is not None and p.instance is not None)


@dataclass(frozen=True)
class PdhRow:
    line: int           # 1-based line in the file
    ts_ms: int          # sample time, UTC epoch ms
    cells: list[str]    # every cell after the time cell, as written


class IssueBudget:
    """``Issues`` with a cap per kind: the first ISSUES_PER_KIND of a kind in full, then only a count."""

    def __init__(self, file: str, sink: list[ImportIssue], per_kind: int = ISSUES_PER_KIND):
        self.issues = Issues(file, sink)
        self.per_kind = per_kind
        self.counts: dict[str, int] = {}

    def _take(self, kind: str) -> bool:
        n = self.counts.get(kind, 0) + 1
        self.counts[kind] = n
        return n <= self.per_kind

    def error(self, kind: str, reason: str, *, line: int | None = None, field: str | None = None) -> None:
        if self._take(kind):
            self.issues.error(reason, line=line, field=field)

    def warn(self, kind: str, reason: str, *, line: int | None = None, field: str | None = None) -> None:
        if self._take(kind):
            self.issues.warn(reason, line=line, field=field)

    def close(self) -> None:
        """One warning per kind that went over its cap, saying how many were left out."""
        for kind, n in self.counts.items():
            if n > self.per_kind:
                self.issues.warn(f"{n - self.per_kind} more issue(s) like '{kind}' not listed ({n} in all)")


def parse_header(cells: list[str], issues: IssueBudget) -> PdhHeader | None:
    """The header row -> format, zone and counter paths; None (with an error) when it is no PDH header."""
    first = cells[0].strip().lstrip("\ufeff") if cells else ""
    m = _HEADER_RE.match(first)
    if not m:
        issues.error("header", f"not a PDH CSV/TSV header (expected '(PDH-CSV 4.0) (zone)(bias)'): {first[:60]!r}",
                     line=1)
        return None
    rest = m.group(3).strip()
    bias_m = _BIAS_RE.search(rest)
    bias = int(bias_m.group(1)) if bias_m else None
    # "(W. Europe Standard Time)(-60)"; a localized zone name may come cut short, e.g. "(RTZ 2 (".
    zone = (rest[:bias_m.start()] if bias_m else rest).strip().removeprefix("(").removesuffix(")").strip()
    if bias is None:
        issues.warn("zone", "header gives no time-zone bias: sample times are taken as UTC", line=1)
    elif abs(bias) > 14 * 60:
        issues.error("zone", f"time-zone bias {bias} min is beyond +-14 h: sample times are taken as UTC", line=1)
        bias = None
    columns = [parse_counter_path(c) for c in cells[1:]]
    return PdhHeader(m.group(1), zone, bias, columns)


def parse_local_time_ms(text: str) -> int | None:
    """``MM/DD/YYYY HH:MM:SS[.fff]`` (PDH's fixed US order) -> epoch ms as if UTC; None when unreadable."""
    m = _TIME_RE.match(text)
    if not m:
        return None
    mo, d, y, hh, mi, ss, frac = m.groups()
    mo_i, d_i, hh_i, mi_i, ss_i = int(mo), int(d), int(hh), int(mi), int(ss)
    if not (1 <= mo_i <= 12 and 1 <= d_i <= calendar.monthrange(int(y), mo_i)[1] and hh_i < 24 and mi_i < 60
            and ss_i < 60):
        return None
    ms = round(int(frac) / 10 ** (len(frac) - 3)) if frac else 0
    return calendar.timegm((int(y), mo_i, d_i, hh_i, mi_i, ss_i, 0, 0, 0)) * 1000 + ms


def _delimiter(line: str) -> str:
    head = line.lstrip("\ufeff")
    if head.startswith('"(PDH-TSV') or head.startswith("(PDH-TSV"):
        return "\t"
    return ","


def read_pdh(lines: Iterable[str], issues: IssueBudget) -> tuple[PdhHeader | None, Iterator[PdhRow]]:
    """Header and a lazy iterator of rows. Rows with an unreadable time or a wrong cell count are reported
    and skipped; a blank line ends nothing (relog and typeperf leave none, but a file being written may)."""
    it = iter(lines)
    first = next(it, None)
    if first is None:
        issues.error("empty", "empty file: no PDH header")
        return None, iter(())
    delim = _delimiter(first)
    header_cells = next(csv.reader([first], delimiter=delim), [])
    header = parse_header(header_cells, issues)
    if header is None:
        return None, iter(())
    return header, _rows(it, header, delim, issues)


def _rows(it: Iterator[str], header: PdhHeader, delim: str, issues: IssueBudget) -> Iterator[PdhRow]:
    width = len(header.columns)
    bias_ms = (header.bias_min or 0) * 60_000
    counted = _count_lines(it)
    reader = csv.reader(counted.lines(), delimiter=delim)
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as e:   # a stray CR or NUL in a damaged line; the reader goes on with the next line
            issues.error("csv", f"row skipped: unreadable CSV ({e})", line=counted.n)
            continue
        line = counted.n
        if not cells or (len(cells) == 1 and not cells[0].strip()):
            continue
        local = parse_local_time_ms(cells[0])
        if local is None:
            if len(cells) - 1 != width:
                continue   # neither a time nor a row's width: typeperf's closing messages ("Exiting, ...")
            issues.warn("time", f"row skipped: no sample time in its first cell ({cells[0][:40]!r})", line=line)
            continue
        if len(cells) - 1 != width:
            issues.error("width", f"row skipped: {len(cells) - 1} values for {width} columns (cut or damaged line)",
                         line=line)
            continue
        yield PdhRow(line, local + bias_ms, cells[1:])


@dataclass
class _count_lines:
    """Counts the lines handed to csv.reader so rows carry their line number (csv's own counts records)."""

    source: Iterator[str]
    n: int = 1

    def lines(self) -> Iterator[str]:
        for text in self.source:
            self.n += 1
            yield text


# --- bytes -> text lines, bounded -------------------------------------------------------------------------------

READ_CHUNK = 1 << 20


def detect_encoding(head: bytes) -> tuple[str, int]:
    """(codec, BOM length) of a file start: PowerShell redirection writes UTF-16; relog and esxtop write 8-bit."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8", 3
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le", 2
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", 2
    return "utf-8", 0


@dataclass
class LineSplitter:
    """Bytes in, complete text lines out; the tail after the last newline is kept until more bytes come.

    Decoding is incremental (a UTF-16 character or a UTF-8 sequence may straddle two reads); bytes that are not
    valid in the detected codec become U+FFFD rather than stopping the import.
    """

    encoding: str | None = None
    _decoder: codecs.IncrementalDecoder | None = None
    _tail: str = ""
    _head: bytes = b""
    bytes_in: int = 0
    lines_out: int = 0

    def feed(self, data: bytes) -> list[str]:
        self.bytes_in += len(data)
        if self._decoder is None:
            self._head += data
            if len(self._head) < 3 and data:
                return []
            enc, bom = detect_encoding(self._head)
            self.encoding = enc
            self._decoder = codecs.getincrementaldecoder(enc)(errors="replace")
            data, self._head = self._head[bom:], b""
        text = self._tail + self._decoder.decode(data)
        parts = text.split("\n")
        self._tail = parts.pop()
        out = [p[:-1] if p.endswith("\r") else p for p in parts]
        self.lines_out += len(out)
        return out

    def finish(self) -> str:
        """The text after the last newline (a complete last line of a finished file, or a partial one)."""
        if self._decoder is None:
            self.feed(b"")
            if self._decoder is None:
                enc, bom = detect_encoding(self._head)
                self._decoder = codecs.getincrementaldecoder(enc)(errors="replace")
                self._tail += self._decoder.decode(self._head[bom:])
                self._head = b""
        tail = self._tail + self._decoder.decode(b"", final=True)
        self._tail = ""
        return tail[:-1] if tail.endswith("\r") else tail

    @property
    def partial(self) -> str:
        return self._tail


def file_lines(f: IO[bytes], chunk: int = READ_CHUNK) -> Iterator[str]:
    """Every line of a whole (finished) file, read a chunk at a time."""
    splitter = LineSplitter()
    while data := f.read(chunk):
        yield from splitter.feed(data)
    last = splitter.finish()
    if last:
        yield last


def bytes_lines(data: bytes) -> Iterator[str]:
    """Lines of an in-memory file (the importer registry's sources), with the same decoding as ``file_lines``."""
    splitter = LineSplitter()
    yield from splitter.feed(data)
    last = splitter.finish()
    if last:
        yield last


__all__ = ["CounterPath", "IssueBudget", "LineSplitter", "PdhHeader", "PdhRow", "bytes_lines", "detect_encoding",
           "file_lines", "parse_counter_path", "parse_header", "parse_local_time_ms", "read_pdh"]
