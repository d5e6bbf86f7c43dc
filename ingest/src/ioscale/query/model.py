"""A query as read from its file: name, title, description, parameters, columns, notes and the statement.

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
command line are checked and coerced first (``ioscale.query.params``), so a bad value is reported naming the
parameter, before any query reaches the server.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ioscale.paths import repo_root
from ioscale.query.errors import QueryFileError, QueryLibraryError
from ioscale.query.params import Param, parse_declaration

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: ``{name:Type}`` as ClickHouse (and clickhouse-connect's binding) reads it.
_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}")
_SECTIONS = {"parameters:": "params", "columns:": "columns", "notes:": "notes"}


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


# --- discovery -------------------------------------------------------------------------------------------
def queries_dir(repo: Path | None = None) -> Path:
    """``<checkout>/sql/queries``."""
    if repo is None:
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
        return QueryFileError(f"{where}: {message}", "see the file format in ioscale/query/model.py")

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

    params = tuple(parse_declaration(entry, fail) for entry in raw_params)
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


def _strip_literals(sql: str) -> str:
    """The SQL with string literals, quoted identifiers and comments blanked (for ';' and placeholder checks)."""
    return re.sub(r"'(?:[^'\\]|\\.|'')*'|`[^`]*`|\"[^\"]*\"|--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)


def _single_statement(sql: str, fail: Callable[[str], QueryFileError]) -> str:
    sql = sql.rstrip().rstrip(";").rstrip()
    if ";" in _strip_literals(sql):
        raise fail("more than one statement: a query file holds exactly one")
    return sql


def _check_placeholders(sql: str, params: Sequence[Param], fail: Callable[[str], QueryFileError]) -> None:
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
