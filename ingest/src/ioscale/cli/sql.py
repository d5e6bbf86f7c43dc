"""`ioscale sql NAME`: the named queries of the SQL library (sql/queries)."""

from __future__ import annotations

import argparse


def _cmd_sql(args: argparse.Namespace) -> int:
    from ioscale import query

    if args.list or not args.name:
        print(query.format_query_list(), end="")
        return 0
    if args.describe:
        print(query.describe(args.name), end="")
        return 0
    from ioscale.stack.settings import StackSettings, load_secrets

    settings = StackSettings.from_env()
    print(query.run(args.name, query.parse_param_args(args.param), settings, load_secrets(settings), args.format),
          end="")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    from ioscale import query

    q = sub.add_parser("sql", help="run a named query of the SQL library (sql/queries)")
    q.add_argument("name", nargs="?", help="query name; without it, list the queries")
    q.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE")
    q.add_argument("-f", "--format", choices=query.FORMATS, default="table")
    q.add_argument("--list", action="store_true", help="list the queries")
    q.add_argument("--describe", action="store_true", help="show a query's parameters and columns")
    q.set_defaults(func=_cmd_sql)
