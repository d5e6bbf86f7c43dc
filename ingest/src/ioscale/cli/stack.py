"""`ioscale stack up|down|status|logs` (the local stack) and `ioscale admin init` (services run elsewhere)."""

from __future__ import annotations

import argparse
import sys

from ioscale.errors import ExitStatus


def _cmd_stack(args: argparse.Namespace) -> int:
    from ioscale.provision.launcher import Launcher
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


def _cmd_admin(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ioscale.paths import repo_root
    from ioscale.provision.external import ExternalTargets, init_external
    from ioscale.stack.progress import Progress

    targets = ExternalTargets(
        kafka_bootstrap=args.kafka_bootstrap, registry_url=args.registry_url, clickhouse_url=args.clickhouse_url,
        superset_bundle_out=Path(args.superset_bundle_out) if args.superset_bundle_out else None,
        superset_clickhouse_host=args.superset_clickhouse_host,
    )
    init_external(targets, repo_root(), Progress())
    return 0


def add_stack_parser(sub: argparse._SubParsersAction) -> None:
    st = sub.add_parser("stack", help="run the local stack (Kafka, registry, ClickHouse, Flink, Superset)")
    st.add_argument("action", choices=["up", "down", "status", "logs"])
    st.add_argument("components", nargs="*", help="limit to these components (default: all)")
    st.add_argument("-n", "--lines", type=int, default=40, help="log lines to show (logs)")
    st.set_defaults(func=_cmd_stack)


def add_admin_parser(sub: argparse._SubParsersAction) -> None:
    adm = sub.add_parser("admin", help="initialise services run elsewhere (docker-compose, a lab cluster)")
    adm.add_argument("action", choices=["init"])
    adm.add_argument("--kafka-bootstrap", required=True)
    adm.add_argument("--registry-url", required=True)
    adm.add_argument("--clickhouse-url", required=True, help="HTTP URL; passwords come from CLICKHOUSE_<ROLE>_PASSWORD")
    adm.add_argument("--superset-bundle-out", help="write the rendered dashboard bundle (zip) here")
    adm.add_argument("--superset-clickhouse-host", help="ClickHouse host name as Superset reaches it")
    adm.set_defaults(func=_cmd_admin)
