"""The SQL query library: named, documented, parameterized queries in ``sql/queries/<name>.sql``.

    list_queries()                                  -> every query, parsed (name, title, parameters, columns)
    describe(name)                                  -> the query's documentation as text
    run(name, {"run_id": "..."}, settings, secrets, fmt="table")  -> the result, formatted
    parse_param_args(["run_id=r1", "step_index=3"]) -> {"run_id": "r1", "step_index": "3"} (CLI helper)

Lower level: ``load(name)``, ``bind(query, params)`` (validate + coerce), ``execute(query, values, client)``,
``format_result(columns, rows, fmt)``.

By role: ``model`` reads a query file (the file format is described there), ``params`` declares, binds and
checks parameters, ``execution`` runs a bound query on ClickHouse, ``output`` renders results and the
library's documentation.
"""

from ioscale.query.errors import QueryFileError, QueryLibraryError
from ioscale.query.execution import ROLE, QueryResult, connect, execute, run
from ioscale.query.model import Column, NamedQuery, discover, list_queries, load, parse, queries_dir
from ioscale.query.output import FORMATS, NULL_TEXT, describe, format_query_list, format_result
from ioscale.query.params import SUPPORTED_TYPES, Param, bind, coerce, parse_param_args

__all__ = [
    "FORMATS", "NULL_TEXT", "ROLE", "SUPPORTED_TYPES",
    "Column", "NamedQuery", "Param", "QueryFileError", "QueryLibraryError", "QueryResult",
    "bind", "coerce", "connect", "describe", "discover", "execute", "format_query_list", "format_result", "list_queries",
    "load", "parse", "parse_param_args", "queries_dir", "run",
]
