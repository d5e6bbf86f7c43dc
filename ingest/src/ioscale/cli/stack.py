"""`ioscale stack up|down|status|logs` (the local stack) and `ioscale admin init|submit-jobs` (services run elsewhere)."""

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


def external_targets(args: argparse.Namespace, **extra: object):
    """The services of `admin init` and `admin submit-jobs`' arguments."""
    from ioscale.provision.external import ExternalTargets

    return ExternalTargets(kafka_bootstrap=args.kafka_bootstrap, registry_url=args.registry_url,
                           clickhouse_url=args.clickhouse_url, **extra)


def _cmd_admin_init(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ioscale.paths import repo_root
    from ioscale.provision.external import init_external
    from ioscale.stack.progress import Progress

    bundle = Path(args.superset_bundle_out) if args.superset_bundle_out else None
    targets = external_targets(args, superset_bundle_out=bundle, superset_clickhouse_host=args.superset_clickhouse_host)
    init_external(targets, repo_root(), Progress())
    return 0


def flink_targets(args: argparse.Namespace):
    """The Flink cluster of `admin submit-jobs`' arguments."""
    from pathlib import Path

    from ioscale.provision.external import FlinkTargets

    return FlinkTargets(rest_url=args.flink_url.rstrip("/"), jar=Path(args.jar),
                        checkpoint_root=Path(args.checkpoint_dir), state_dir=Path(args.state_dir),
                        parallelism=args.parallelism)


def _cmd_admin_submit_jobs(args: argparse.Namespace) -> int:
    from ioscale.provision.external import submit_jobs_external
    from ioscale.stack.progress import Progress

    submit_jobs_external(external_targets(args), flink_targets(args), Progress(), ready_timeout_s=args.ready_timeout)
    return 0


def add_stack_parser(sub: argparse._SubParsersAction) -> None:
    st = sub.add_parser("stack", help="run the local stack (Kafka, registry, ClickHouse, Flink, Superset)")
    st.add_argument("action", choices=["up", "down", "status", "logs"])
    st.add_argument("components", nargs="*", help="limit to these components (default: all)")
    st.add_argument("-n", "--lines", type=int, default=40, help="log lines to show (logs)")
    st.set_defaults(func=_cmd_stack)


def add_admin_parser(sub: argparse._SubParsersAction) -> None:
    adm = sub.add_parser("admin", help="initialise services run elsewhere (docker-compose, a lab cluster)")
    actions = adm.add_subparsers(dest="action", required=True)
    services = argparse.ArgumentParser(add_help=False)
    services.add_argument("--kafka-bootstrap", required=True)
    services.add_argument("--registry-url", required=True)
    services.add_argument("--clickhouse-url", required=True,
                          help="HTTP URL; passwords come from CLICKHOUSE_<ROLE>_PASSWORD")

    init = actions.add_parser("init", parents=[services],
                              help="topics, schemas, ClickHouse users and migrations, the Superset bundle")
    init.add_argument("--superset-bundle-out", help="write the rendered dashboard bundle (zip) here")
    init.add_argument("--superset-clickhouse-host", help="ClickHouse host name as Superset reaches it")
    init.set_defaults(func=_cmd_admin_init)

    submit = actions.add_parser(
        "submit-jobs", parents=[services],
        help="submit the stream jobs to a Flink cluster, or redeploy them if their jar or arguments changed",
        description="Service addresses are as the Flink cluster reaches them. Analytics settings come from "
                    "IOSCALE_<KEY> variables (IOSCALE_SLO, IOSCALE_SATURATION, ...: `ioscale config -v`), the "
                    "Flink writer's password from CLICKHOUSE_FLINK_PASSWORD.")
    submit.add_argument("--flink-url", required=True, help="the JobManager's REST API, e.g. http://flink-jobmanager:8081")
    submit.add_argument("--jar", required=True, help="the stream-jobs jar (stream-jobs/target/ioscale-stream-jobs.jar)")
    submit.add_argument("--checkpoint-dir", required=True,
                        help="where the jobs keep their checkpoints (<dir>/<job>), at the same path here and in "
                             "the cluster: a resubmitted job restores its newest")
    submit.add_argument("--state-dir", required=True,
                        help="deployment records, savepoints and the password file, at the same path here and in "
                             "the cluster (its JobManager reads and writes there)")
    submit.add_argument("--parallelism", type=int, choices=range(1, 1025), metavar="N",
                        help="run each job with N parallel subtasks (default: Flink's, 1 for a jar run over REST; "
                             "a change redeploys the jobs from a savepoint)")
    submit.add_argument("--ready-timeout", type=float, default=120.0, metavar="SECONDS",
                        help="wait this long for a TaskManager to register")
    submit.set_defaults(func=_cmd_admin_submit_jobs)
