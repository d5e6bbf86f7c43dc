"""The SQL query library: named, documented, parameterized queries in ``sql/queries/<name>.sql``.

    list_queries()                                  -> every query, parsed (name, title, parameters, columns)
    describe(name)                                  -> the query's documentation as text
    run(name, {"run_id": "..."}, settings, secrets, fmt="table")  -> the result, formatted
    parse_param_args(["run_id=r1", "step_index=3"]) -> {"run_id": "r1", "step_index": "3"} (CLI helper)

Lower level: ``load(name)``, ``bind(query, params)`` (validate + coerce), ``execute(query, values, client)``,
``format_result(columns, rows, fmt)``.

File format
-----------
One SQL statement per file, named verb-object or noun-phrase (``scaling_curve.sql``, ``lagging_vms.sql``).
The file opens with a header of ``--`` comment lines; the first non-comment line starts the statement::

    -- One-line title: what the query answers.
    --
    -- Free text: purpose, how, when to use it.
    --
    -- Parameters:
    --   run_id        String                          the run (see `ioscale sql run_list`)
    --   step_index    Int32 = -1                      step, 0-based; -1 = every step
    --   direction     String = all {all|read|write}   reads, writes or both
    --                                                 (deeper-indented lines continue the description)
    --
    -- Columns:
    --   step_index    step, 0-based
    --   p99_us        99th percentile latency, microseconds
    --
    -- Notes:
    --   Why the non-obvious choices were made (FINAL, an engine quirk, a rule shared with Flink).
    SELECT ... WHERE run_id = {run_id:String} AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})

A parameter is ``name Type [= default] [{choice|choice}] description``; without a default it is required.
The statement uses it as a ClickHouse server-side parameter ``{name:Type}`` (sent as ``param_name``, never
spliced into the SQL text), with exactly the declared type; every declared parameter must be used and every
used one declared. Types: String, Bool, Int8..Int64, UInt8..UInt64, Float32, Float64. Values given on the
command line are checked and coerced here first, so a bad value is reported naming the parameter, before any
query reaches the server.

Queries run as the read-only ``reader`` account; ``log_comment = 'ioscale sql <name>'`` marks them in
``system.query_log`` where the server keeps one.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import difflib
import io
import ipaddress
import json
import math
import re
import textwrap
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ioscale.errors import ExitStatus, IoscaleError, StackError

FORMATS = ("table", "vertical", "csv", "json")
ROLE = "reader"
NULL_TEXT = "NULL"

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_PARAM_RE = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+(?P<type>[A-Za-z][A-Za-z0-9]*)"
    r"(?:\s*=\s*(?P<default>'[^']*'|[^\s{]+))?"
    r"(?:\s*\{(?P<choices>[^}]*)\})?"
    r"(?:\s+(?P<doc>.*))?$"
)
#: ``{name:Type}`` as ClickHouse (and clickhouse-connect's binding) reads it.
_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}")
_SECTIONS = {"parameters:": "params", "columns:": "columns", "notes:": "notes"}

_INT_RANGES = {f"{'U' if unsigned else ''}Int{bits}": ((0, 2 ** bits - 1) if unsigned
                                                        else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1))
               for bits in (8, 16, 32, 64) for unsigned in (False, True)}
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
SUPPORTED_TYPES = ("String", "Bool", *sorted(_INT_RANGES), "Float32", "Float64")


class QueryLibraryError(IoscaleError):
    """Bad use of the library: unknown query, unknown / missing / invalid parameter, unknown format."""

    exit_status = ExitStatus.USAGE


class QueryFileError(IoscaleError):
    """A query file that does not follow the format (a bug in sql/queries, not in the user's input)."""

    exit_status = ExitStatus.CONFIG


# --- model -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: str | None          # as written in the header; None = required
    choices: tuple[str, ...]     # allowed values (as text); empty = any value of the type
    doc: str

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class Column:
    name: str
    doc: str


@dataclass(frozen=True)
class NamedQuery:
    name: str
    path: Path
    title: str
    description: str
    params: tuple[Param, ...]
    columns: tuple[Column, ...]
    notes: str
    sql: str                     # the statement, header removed, no trailing semicolon

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    elapsed_ns: int | None       # server-side time (X-ClickHouse-Summary), None when not reported
    query_id: str | None = None  # the server's id of this run (system.query_log), when reported


# --- discovery -------------------------------------------------------------------------------------------
def queries_dir(repo: Path | None = None) -> Path:
    """``<checkout>/sql/queries``."""
    if repo is None:
        from ioscale.stack.settings import repo_root

        repo = repo_root()
    return repo / "sql" / "queries"


def discover(directory: Path | None = None) -> dict[str, Path]:
    """Query name -> file, for every ``*.sql`` in the directory (sorted by name)."""
    directory = queries_dir() if directory is None else directory
    if not directory.is_dir():
        raise QueryFileError(f"no query directory at {directory}", "the checkout should hold sql/queries/")
    found: dict[str, Path] = {}
    for path in sorted(directory.glob("*.sql")):
        if not _NAME_RE.match(path.stem):
            raise QueryFileError(f"{path.name}: query names are lower_snake_case ([a-z][a-z0-9_]*)")
        found[path.stem] = path
    return found


def load(name: str, directory: Path | None = None) -> NamedQuery:
    """Parse one query by name; unknown names raise QueryLibraryError listing the close matches."""
    files = discover(directory)
    path = files.get(name)
    if path is None:
        close = difflib.get_close_matches(name, files, n=3)
        hint = (f"did you mean {' or '.join(close)}? " if close else "") + "`ioscale sql --list` shows them all"
        raise QueryLibraryError(f"no query named {name!r}", hint)
    return parse(path.read_text(encoding="utf-8"), name, path)


def list_queries(directory: Path | None = None) -> list[NamedQuery]:
    """Every query of the library, parsed, sorted by name."""
    return [parse(path.read_text(encoding="utf-8"), name, path) for name, path in discover(directory).items()]


# --- parsing ---------------------------------------------------------------------------------------------
def parse(text: str, name: str, path: Path | None = None) -> NamedQuery:
    """Parse a query file; raises QueryFileError naming the file and the problem."""
    where = path.name if path is not None else f"{name}.sql"

    def fail(message: str) -> QueryFileError:
        return QueryFileError(f"{where}: {message}", "see the file format in ioscale/sqllib.py")

    lines = text.splitlines()
    header: list[str] = []
    i = 0
    while i < len(lines) and lines[i].lstrip().startswith("--"):
        header.append(re.sub(r"^\s*--\s?", "", lines[i]).rstrip())
        i += 1
    sql = "\n".join(lines[i:]).strip()
    if not header:
        raise fail("no header comment (title, Parameters:, Columns:)")
    if not sql:
        raise fail("no SQL statement after the header")
    sql = _single_statement(sql, fail)

    section = "intro"
    intro: list[str] = []
    notes: list[str] = []
    raw_params: list[list[str]] = []
    raw_columns: list[list[str]] = []
    for line in header:
        key = line.strip().lower()
        if key in _SECTIONS and not line.startswith(" "):
            section = _SECTIONS[key]
            continue
        if section == "intro":
            intro.append(line)
        elif section == "notes":
            notes.append(line[2:] if line.startswith("  ") else line.strip())   # keep tables' indentation
        else:
            target = raw_params if section == "params" else raw_columns
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            if indent == 2:
                target.append([line.strip()])
            elif indent > 2 and target:
                target[-1].append(line.strip())   # continuation of the entry above
            else:
                raise fail(f"in {section}: entries are indented by 2 spaces, continuations deeper: {line!r}")

    title = next((ln.strip() for ln in intro if ln.strip()), "")
    if not title:
        raise fail("the header's first line must be a one-line title")
    rest = intro[intro.index(next(ln for ln in intro if ln.strip())) + 1:]
    if rest and rest[0].strip():
        raise fail("the title is one line, followed by an empty comment line")
    description = _paragraphs(rest)

    params = tuple(_parse_param(entry, fail) for entry in raw_params)
    seen: set[str] = set()
    for p in params:
        if p.name in seen:
            raise fail(f"parameter {p.name} is declared twice")
        seen.add(p.name)
    columns = tuple(Column(entry[0].split()[0], " ".join([" ".join(entry[0].split()[1:]), *entry[1:]]).strip())
                    for entry in raw_columns)
    if not columns:
        raise fail("no Columns: section (document every output column with its unit)")
    names = [c.name for c in columns]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise fail(f"column(s) documented twice: {', '.join(dupes)}")

    _check_placeholders(sql, params, fail)
    return NamedQuery(name, path or Path(where), title, description, params, columns, "\n".join(notes).strip(), sql)


def _paragraphs(lines: Sequence[str]) -> str:
    paras: list[str] = []
    current: list[str] = []
    for ln in lines:
        if ln.strip():
            current.append(ln.strip())
        elif current:
            paras.append(" ".join(current))
            current = []
    if current:
        paras.append(" ".join(current))
    return "\n\n".join(paras)


def _parse_param(entry: list[str], fail) -> Param:
    m = _PARAM_RE.match(entry[0])
    if m is None:
        raise fail(f"cannot read parameter line {entry[0]!r}: expected `name Type [= default] [{{a|b}}] text`")
    ptype = m["type"]
    if ptype not in SUPPORTED_TYPES:
        raise fail(f"parameter {m['name']}: unsupported type {ptype} (supported: {', '.join(SUPPORTED_TYPES)})")
    default = m["default"]
    if default is not None and len(default) >= 2 and default[0] == default[-1] == "'":
        default = default[1:-1]
    choices = tuple(c.strip() for c in m["choices"].split("|")) if m["choices"] is not None else ()
    param = Param(m["name"], ptype, default, choices, " ".join([m["doc"] or "", *entry[1:]]).strip())
    for choice in choices:
        try:
            coerce(param, choice)
        except QueryLibraryError as e:
            raise fail(f"parameter {param.name}: choice {choice!r} is not a valid {ptype} ({e})") from None
    if default is not None:
        try:
            coerce(param, default)
        except QueryLibraryError as e:
            raise fail(f"parameter {param.name}: default {default!r} is invalid: {e}") from None
    return param


def _strip_literals(sql: str) -> str:
    """The SQL with string literals, quoted identifiers and comments blanked (for ';' and placeholder checks)."""
    return re.sub(r"'(?:[^'\\]|\\.|'')*'|`[^`]*`|\"[^\"]*\"|--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)


def _single_statement(sql: str, fail) -> str:
    sql = sql.rstrip().rstrip(";").rstrip()
    if ";" in _strip_literals(sql):
        raise fail("more than one statement: a query file holds exactly one")
    return sql


def _check_placeholders(sql: str, params: Sequence[Param], fail) -> None:
    declared = {p.name: p for p in params}
    used: dict[str, str] = {}
    for pname, ptype in _PLACEHOLDER_RE.findall(_strip_literals(sql)):
        ptype = ptype.strip()
        if pname not in declared:
            raise fail(f"the statement uses {{{pname}:{ptype}}} but Parameters: does not declare {pname}")
        if ptype != declared[pname].type:
            raise fail(f"{{{pname}:{ptype}}} does not match the declared type {declared[pname].type}")
        used[pname] = ptype
    unused = [n for n in declared if n not in used]
    if unused:
        raise fail(f"declared but never used in the statement: {', '.join(unused)}")
    comment_uses = set(_PLACEHOLDER_RE.findall(sql)) - set(_PLACEHOLDER_RE.findall(_strip_literals(sql)))
    if comment_uses:
        # clickhouse-connect scans the whole text for {name:Type}, comments and literals included.
        raise fail(f"placeholder-like text in a comment or literal: {sorted(comment_uses)}")


# --- parameters ------------------------------------------------------------------------------------------
def parse_param_args(items: Iterable[str]) -> dict[str, str]:
    """``["k=v", ...]`` (the CLI's repeated --param) -> {k: v}; the value may contain '=' and be empty."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise QueryLibraryError(f"--param {item!r} is not of the form name=value",
                                    "e.g. --param run_id=sim-demo-... --param step_index=3")
        if key in out:
            raise QueryLibraryError(f"--param {key} is given twice")
        out[key] = value
    return out


def coerce(param: Param, raw: Any) -> Any:
    """The Python value for one parameter; raises QueryLibraryError naming the parameter and the rule."""
    text = _as_text(raw)
    t = param.type
    if t == "String":
        value: Any = text
    elif t == "Bool":
        low = text.strip().lower()
        if low in _TRUE:
            value = True
        elif low in _FALSE:
            value = False
        else:
            raise _bad(param, text, "Bool expects true or false (also 1/0, yes/no, on/off)")
    elif t in _INT_RANGES:
        lo, hi = _INT_RANGES[t]
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise _bad(param, text, f"{t} expects an integer from {lo} to {hi}") from None
        if not lo <= value <= hi:
            raise _bad(param, text, f"{t} expects an integer from {lo} to {hi}")
    elif t in ("Float32", "Float64"):
        try:
            value = float(text.strip())
        except ValueError:
            raise _bad(param, text, f"{t} expects a number") from None
        if not math.isfinite(value):
            raise _bad(param, text, f"{t} expects a finite number")
    else:  # parse() admits only SUPPORTED_TYPES
        raise _bad(param, text, f"unsupported type {t}")
    if param.choices and text.strip() not in param.choices and not (
            t != "String" and any(coerce(_plain(param), c) == value for c in param.choices)):
        raise _bad(param, text, f"expected one of {', '.join(param.choices)}")
    return value


def _plain(param: Param) -> Param:
    return Param(param.name, param.type, None, (), "")


def _as_text(raw: Any) -> str:
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return raw if isinstance(raw, str) else str(raw)


def _bad(param: Param, text: str, rule: str) -> QueryLibraryError:
    return QueryLibraryError(f"--param {param.name}={text!r}: {rule}", f"{param.name}: {param.doc}" if param.doc else None)


def bind(query: NamedQuery, params: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``params`` against the query's declared parameters; fill defaults; coerce to Python values."""
    unknown = [k for k in params if query.param(k) is None]
    if unknown:
        known = [p.name for p in query.params]
        close = difflib.get_close_matches(unknown[0], known, n=1)
        raise QueryLibraryError(
            f"query {query.name} has no parameter {unknown[0]!r}"
            + (f" (did you mean {close[0]}?)" if close else ""),
            f"it takes: {', '.join(known) or 'no parameters'} (`ioscale sql {query.name} --describe`)")
    values: dict[str, Any] = {}
    missing: list[Param] = []
    for p in query.params:
        if p.name in params:
            values[p.name] = coerce(p, params[p.name])
        elif p.default is not None:
            values[p.name] = coerce(p, p.default)
        else:
            missing.append(p)
    if missing:
        raise QueryLibraryError(
            f"query {query.name} needs " + ", ".join(f"--param {p.name}=<{p.type}>" for p in missing),
            "; ".join(f"{p.name}: {p.doc}" for p in missing))
    return values


# --- running ---------------------------------------------------------------------------------------------
def execute(query: NamedQuery, values: Mapping[str, Any], ch_client: Any, sql: str | None = None) -> QueryResult:
    """Run a bound query on a clickhouse-connect client (server-side parameters). ``sql`` overrides the text
    (tests point a query at a scratch database)."""
    from clickhouse_connect.driver.exceptions import DatabaseError, OperationalError

    try:
        result = ch_client.query(sql or query.sql, parameters=dict(values),
                                 settings={"log_comment": f"ioscale sql {query.name}"})
    except OperationalError as e:
        raise StackError("clickhouse", f"cannot reach ClickHouse for query {query.name}: {_first_line(e)}",
                         hint="start the stack with `ioscale stack up` (or check `ioscale stack status`)") from None
    except DatabaseError as e:
        raise _query_failed(query, e) from None
    summary = result.summary or {}
    elapsed = summary.get("elapsed_ns")
    rows = list(result.result_rows)
    # An empty answer can come without a header (no data block): name the documented columns instead.
    columns = tuple(result.column_names) or (tuple(c.name for c in query.columns) if not rows else ())
    return QueryResult(columns, rows, int(elapsed) if elapsed not in (None, "") else None,
                       summary.get("query_id") or None)


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    m = re.search(r"DB::Exception: (.*?)(?: \(version [^)]*\))?(?:\n|$)", text)
    line = m.group(1) if m else text.splitlines()[0] if text else type(e).__name__
    return line.split(". In scope ")[0][:500]   # the echoed statement adds nothing to the reason


def _query_failed(query: NamedQuery, e: Exception) -> IoscaleError:
    text = str(e)
    code = re.search(r"[Cc]ode: (\d+)", text)
    hint = None
    if code and code.group(1) in ("60", "81"):  # UNKNOWN_TABLE / UNKNOWN_DATABASE
        hint = ("a table this query reads does not exist yet: the Flink result tables appear once the analytics "
                "job is deployed (`ioscale stack up`); the *_raw queries need only the raw tables")
    elif code and code.group(1) in ("159", "160"):  # TIMEOUT_EXCEEDED / TOO_SLOW
        hint = "narrow it down: pass --param step_index=N"
    return IoscaleError(f"query {query.name} failed: {_first_line(e)}", hint)


def run(name: str, params: Mapping[str, Any], settings: Any, secrets: Mapping[str, str], fmt: str = "table",
        *, directory: Path | None = None) -> str:
    """Load, bind, run as the reader account and format: what `ioscale sql NAME --param k=v` prints."""
    if fmt not in FORMATS:
        raise QueryLibraryError(f"unknown output format {fmt!r}", f"choose one of {', '.join(FORMATS)}")
    query = load(name, directory)
    values = bind(query, params)   # before connecting: a typo costs no round trip
    from ioscale.stack.clickhouse import client

    try:
        ch = client(settings, secrets, ROLE)
    except Exception as e:  # refused / auth: clickhouse-connect checks the server on creation
        if isinstance(e, IoscaleError):
            raise
        raise StackError("clickhouse", f"cannot connect to ClickHouse at {settings.url('clickhouse_http')}: "
                         f"{_first_line(e)}", hint="start the stack with `ioscale stack up`") from None
    try:
        result = execute(query, values, ch)
    finally:
        ch.close()
    return format_result(result.columns, result.rows, fmt)


# --- output ----------------------------------------------------------------------------------------------
def format_result(columns: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table") -> str:
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
    if fmt == "json":
        return json.dumps([{c: _json(v) for c, v in zip(columns, row)} for row in rows], indent=2,
                          ensure_ascii=False, allow_nan=False) + "\n"
    raise QueryLibraryError(f"unknown output format {fmt!r}", f"choose one of {', '.join(FORMATS)}")


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


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[_text(v) for v in row] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    right = [bool(rows) and all(_numeric(r[i]) or r[i] is None for r in rows) for i in range(len(columns))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right)).rstrip()

    out = [line(columns), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in cells)
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out) + "\n"


def _vertical(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    width = max((len(c) for c in columns), default=0)
    out: list[str] = []
    for n, row in enumerate(rows, 1):
        out.append(f"-- row {n} " + "-" * max(0, width - 4))
        out.extend(f"{c.ljust(width)}  {_text(v)}" for c, v in zip(columns, row))
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
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
        out += ["", "Notes:", _indent(q.notes, 2)]
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


def _indent(text: str, n: int) -> str:
    return "\n".join((" " * n + ln) if ln else ln for ln in text.splitlines())
