"""Command line: `ioscale stack ...`, `ioscale demo`. One top-level handler turns errors into
`Error: ...` plus a hint and an exit status; `--debug` shows the traceback.

One module per command group, each adding its subcommands' parsers and handlers: ``stack`` (stack, admin),
``ingest`` (import, simulate, collect, run), ``sql``, ``alerts``, ``analyze``, ``report`` (report, compare),
``config``, ``docker``, ``demo``.
``superset_alerts`` is a command of its own: `python -m ioscale.cli.superset_alerts`.
"""

from __future__ import annotations

import argparse
import sys
import traceback

from ioscale.cli import alerts, analyze, config, demo, docker, ingest, report, sql, stack
from ioscale.errors import ExitStatus, IoscaleError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ioscale", description=__doc__.splitlines()[0])
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", required=True)
    stack.add_stack_parser(sub)
    ingest.add_import_parser(sub)
    ingest.add_simulate_parser(sub)
    sql.add_parser(sub)
    alerts.add_parser(sub)
    ingest.add_collect_parser(sub)
    ingest.add_run_parser(sub)
    stack.add_admin_parser(sub)
    analyze.add_parser(sub)
    report.add_parser(sub)
    config.add_parser(sub)
    docker.add_parser(sub)
    demo.add_parser(sub)
    return p


#: Commands whose arguments after ``--`` go to the tool they run, verbatim (argparse would take them as its own).
PASSTHROUGH_COMMANDS = frozenset({"run"})


def parse_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in PASSTHROUGH_COMMANDS and "--" in argv:
        cut = argv.index("--")
        args = parser.parse_args(argv[:cut])
        args.fio_args = argv[cut + 1:]
        return args
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, list(sys.argv[1:] if argv is None else argv))
    try:
        return int(args.func(args) or 0)
    except IoscaleError as e:
        if args.debug:
            traceback.print_exc()
        print(f"Error: {e}", file=sys.stderr)
        if e.hint:
            print(f"Hint: {e.hint}", file=sys.stderr)
        return int(e.exit_status)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug or an unexpected server answer: say so briefly, details on request
        if args.debug:
            traceback.print_exc()
        print(f"Error: {type(e).__name__}: {e}", file=sys.stderr)
        if not args.debug:
            print("Hint: re-run with --debug for the traceback", file=sys.stderr)
        return int(ExitStatus.ERROR)
