"""Command line: `ioscale stack ...`, `ioscale demo`. One top-level handler turns errors into
`Error: ...` plus a hint and an exit status; `--debug` shows the traceback."""

from __future__ import annotations

import argparse
import sys
import traceback

from ioscale.errors import ExitStatus, IoscaleError


def _cmd_stack(args: argparse.Namespace) -> int:
    from ioscale.stack.launcher import Launcher
    from ioscale.stack import process

    launcher = Launcher()
    if args.action == "up":
        comps = launcher.up(args.components)
        print_endpoints(launcher.endpoints(comps))
    elif args.action == "down":
        stopped = launcher.down(args.components)
        print(f"stopped {len(stopped)} process(es)" if stopped else "nothing was running")
    elif args.action == "status":
        rows = launcher.status(args.components)
        all_up = True
        for st in rows:
            pids = ", ".join(f"{n}={pid or '-'}" for n, pid in st.processes)
            if st.health is None:
                state, detail, all_up = "down", "", False
            else:
                state, detail = ("up" if st.health.ok else "unhealthy"), st.health.detail
                all_up &= st.health.ok
            print(f"{st.name:<11} {state:<10} {pids:<48} {detail}")
        return 0 if all_up else ExitStatus.STACK
    elif args.action == "logs":
        comp = args.components[0] if args.components else None
        settings = launcher.settings
        files = sorted(settings.log_dir.glob(f"{comp}*.log" if comp else "*.log"))
        if not files:
            print(f"no logs under {settings.log_dir}", file=sys.stderr)
            return ExitStatus.ERROR
        for f in files:
            print(f"==> {f} <==")
            print(process.tail(f, args.lines))
    return 0


def print_endpoints(rows: list[tuple[str, str]]) -> None:
    width = max(len(k) for k, _ in rows)
    print("\nioscale local stack is up:")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")


def _cmd_demo(args: argparse.Namespace) -> int:
    from ioscale.demo import run_demo

    return run_demo(duration_s=args.duration_s, keep_running=not args.no_wait)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ioscale", description=__doc__.splitlines()[0])
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", required=True)

    st = sub.add_parser("stack", help="run the local stack (Kafka, registry, ClickHouse, Flink, Superset)")
    st.add_argument("action", choices=["up", "down", "status", "logs"])
    st.add_argument("components", nargs="*", help="limit to these components (default: all)")
    st.add_argument("-n", "--lines", type=int, default=40, help="log lines to show (logs)")
    st.set_defaults(func=_cmd_stack)

    demo = sub.add_parser("demo", help="stack up, then stream a demo sweep into the dashboards")
    demo.add_argument("--duration-s", type=float, default=120.0, help="how long the demo sweep runs")
    demo.add_argument("--no-wait", action="store_true", help="return when the sweep has been sent")
    demo.set_defaults(func=_cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
