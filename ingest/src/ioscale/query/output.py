"""What `ioscale sql` prints: a result as a table, vertically, as CSV or JSON, and the library's documentation.

CSV and JSON come from the standard library. The table and the value texts are written here: none of the
pinned dependencies renders tables, and these few lines fix the layout the tests and users read (numbers
right-aligned, NULL shown as n/a, datetimes to the millisecond, floats to 15 significant digits) without
another dependency on every host. A NULL is a figure that does not exist (e.g. a percentile of a step whose
source sent no histogram): n/a says so to a reader, where 0 or a blank could pass for a value. CSV leaves it
empty and JSON writes null, as their readers expect.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import ipaddress
import json
import math
import textwrap
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ioscale.query.errors import QueryLibraryError
from ioscale.query.model import NamedQuery, list_queries, load

FORMATS = ("table", "vertical", "csv", "json")
NULL_TEXT = "n/a"


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise QueryLibraryError(f"unknown output format {fmt!r}", f"choose one of {', '.join(FORMATS)}")


# --- results ---------------------------------------------------------------------------------------------
def format_result(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table") -> str:
    check_format(fmt)
    if fmt == "table":
        return _table(columns, rows)
    if fmt == "vertical":
        return _vertical(columns, rows)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for row in rows:
            w.writerow(["" if v is None else _text(v) for v in row])
        return buf.getvalue()
    return json.dumps([{c: _json(v) for c, v in zip(columns, row)} for row in rows], indent=2,
                      ensure_ascii=False, allow_nan=False) + "\n"


def _text(v: Any) -> str:
    if v is None:
        return NULL_TEXT
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.15g}" if abs(v) < 1e15 else repr(v)
    if isinstance(v, dt.datetime):
        s = v.strftime("%Y-%m-%d %H:%M:%S")
        return s + (f".{v.microsecond // 1000:03d}" if v.microsecond else "")
    if isinstance(v, (dt.date, decimal.Decimal, uuid.UUID, ipaddress.IPv4Address, ipaddress.IPv6Address)):
        return str(v)
    if isinstance(v, (list, tuple, dict)):
        return json.dumps(_json(v), ensure_ascii=False)
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    return str(v)


def _json(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dict):
        return {str(k): _json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    return _text(v)


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def _row_count(rows: Sequence[Any]) -> str:
    return f"({len(rows)} row{'s' if len(rows) != 1 else ''})"


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[_text(v) for v in row] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    right = [bool(rows) and all(_numeric(r[i]) or r[i] is None for r in rows) for i in range(len(columns))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right)).rstrip()

    out = [line(columns), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in cells)
    out.append(_row_count(rows))
    return "\n".join(out) + "\n"


def _vertical(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    width = max((len(c) for c in columns), default=0)
    out: list[str] = []
    for n, row in enumerate(rows, 1):
        out.append(f"-- row {n} " + "-" * max(0, width - 4))
        out.extend(f"{c.ljust(width)}  {_text(v)}" for c, v in zip(columns, row))
    out.append(_row_count(rows))
    return "\n".join(out) + "\n"


# --- documentation ---------------------------------------------------------------------------------------
def describe(name: str, directory: Path | None = None) -> str:
    """The query's documentation: title, description, parameters, columns, notes and an example call."""
    q = load(name, directory)
    out = [f"{q.name} - {q.title}", ""]
    if q.description:
        out += [textwrap.fill(para, 110) + "\n" for para in q.description.split("\n\n")]
    out.append("Parameters:")
    if not q.params:
        out.append("  (none)")
    width = max((len(p.name) for p in q.params), default=0)
    for p in q.params:
        rule = "required" if p.required else f"default {p.default!r}" if p.default == "" else f"default {p.default}"
        if p.choices:
            rule += f"; one of {', '.join(p.choices)}"
        out.append(f"  {p.name.ljust(width)}  {p.type:<8} {rule}")
        if p.doc:
            out.append(f"  {'':{width}}  {p.doc}")
    out += ["", "Columns:"]
    cwidth = max(len(c.name) for c in q.columns)
    out += [f"  {c.name.ljust(cwidth)}  {c.doc}" for c in q.columns]
    if q.notes:
        # Notes' lines are stripped on the right when parsed, so indent() leaves only empty lines bare.
        out += ["", "Notes:", textwrap.indent(q.notes, "  ")]
    example = " ".join(f"--param {p.name}=..." for p in q.params if p.required)
    out += ["", "Example:", f"  ioscale sql {q.name} {example}".rstrip(), ""]
    return "\n".join(out)


def format_query_list(queries: Sequence[NamedQuery] | None = None) -> str:
    """One line per query: name, required parameters, title (what `ioscale sql --list` prints)."""
    queries = list_queries() if queries is None else queries
    width = max((len(q.name) for q in queries), default=0)
    lines = []
    for q in queries:
        needs = " ".join(f"{p.name}=" for p in q.params if p.required)
        lines.append(f"{q.name.ljust(width)}  {q.title}" + (f"  [needs {needs.strip()}]" if needs else ""))
    return "\n".join(lines) + "\n"
