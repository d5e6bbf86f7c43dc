"""Running a bound query on ClickHouse: the read-only client, the query's tag, and errors that say what to do.

Queries run as the read-only ``reader`` account; ``log_comment = 'ioscale sql <name>'`` marks them in
``system.query_log`` where the server keeps one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ioscale.errors import IoscaleError, StackError
from ioscale.query.model import NamedQuery, load
from ioscale.query.output import check_format, format_result
from ioscale.query.params import bind

ROLE = "reader"


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    elapsed_ns: int | None       # server-side time (X-ClickHouse-Summary), None when not reported
    query_id: str | None = None  # the server's id of this run (system.query_log), when reported


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


def connect(settings: Any, secrets: Mapping[str, str]) -> Any:
    """A ClickHouse client as the reader account; a refused or failed connection says to start the stack."""
    from ioscale.stack.clickhouse import client

    try:
        return client(settings, secrets, ROLE)
    except Exception as e:  # refused / auth: clickhouse-connect checks the server on creation
        if isinstance(e, IoscaleError):
            raise
        raise StackError("clickhouse", f"cannot connect to ClickHouse at {settings.url('clickhouse_http')}: "
                         f"{_first_line(e)}", hint="start the stack with `ioscale stack up`") from None


def run(name: str, params: Mapping[str, Any], settings: Any, secrets: Mapping[str, str], fmt: str = "table",
        *, directory: Path | None = None) -> str:
    """Load, bind, run as the reader account and format: what `ioscale sql NAME --param k=v` prints."""
    check_format(fmt)
    query = load(name, directory)
    values = bind(query, params)   # before connecting: a typo costs no round trip
    ch = connect(settings, secrets)
    try:
        result = execute(query, values, ch)
    finally:
        ch.close()
    return format_result(result.columns, result.rows, fmt)
