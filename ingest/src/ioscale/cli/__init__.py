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


def _cmd_config(args: argparse.Namespace) -> int:
    from ioscale.errors import ConfigError
    from ioscale.provision import analytics_config
    from ioscale.stack.settings import StackSettings

    home = StackSettings.from_env().home
    values = analytics_config.load(home)
    changes = {}
    for item in args.settings:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"expected KEY=VALUE, got {item!r}", hint="e.g. ioscale config slo='p99.999 < 2 ms'")
        analytics_config.check(key.strip(), value.strip())
        changes[key.strip()] = value.strip()
    for key in args.unset or []:
        analytics_config.require_known(key)
        values.pop(key, None)
    if changes or args.unset:
        values.update(changes)
        path = analytics_config.save(home, values)
        print(f"saved {path}; `ioscale stack up` redeploys the analytics job with it (from a savepoint)")
    width = max(len(k) for k in analytics_config.TUNABLES)
    for key, tunable in analytics_config.TUNABLES.items():
        shown = values.get(key, "(job default)")
        print(f"{key:<{width}}  {shown}")
        if args.verbose:
            print(f"{'':<{width}}  {tunable.meaning}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ioscale.cli.demo import run_demo

    return run_demo(scenario=args.scenario, seed=args.seed, speed=args.speed)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from ioscale.simulator import get_scenario, list_scenarios, run_simulation

    if args.list or not args.scenario:
        for sc in list_scenarios():
            print(f"{sc.name:<24} {sc.duration_s():>6.0f} s  {sc.title}")
            print(f"{'':<24} reproduces: {sc.reproduces}")
        return 0
    get_scenario(args.scenario)  # unknown name: error before connecting anywhere
    from ioscale.wire.producer import TelemetryProducer

    bootstrap, registry = _endpoints(args)
    producer = TelemetryProducer(bootstrap, registry)
    report = run_simulation(
        args.scenario, producer, seed=args.seed, realtime=not args.fast, speed=args.speed,
        start_ms=args.start_ms, step_s=args.step_s, ramp_s=args.ramp_s,
        progress=lambda p: print(f"[simulate] {p.fraction_done:4.0%} {p.run_key} {p.step_label} "
                                 f"{p.records_sent} records ({p.records_per_s:.0f}/s)", file=sys.stderr, flush=True),
    )
    print(f"sent {report.records_sent} records for run(s) {', '.join(report.run_ids)} in {report.elapsed_s:.1f} s: "
          + ", ".join(f"{n} to {t}" for t, n in sorted(report.by_topic.items())))
    return 0


def _endpoints(args: argparse.Namespace) -> tuple[str, str]:
    from ioscale.stack.settings import StackSettings

    settings = StackSettings.from_env()
    return (args.bootstrap or settings.kafka_bootstrap, args.registry_url or settings.url("registry"))


def _cmd_import(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ioscale.importers import import_files

    result = import_files(args.tool, [Path(p) for p in args.files], run_id=args.run_id, start_ms=args.start_ms)
    for issue in result.errors:
        print(f"{issue}", file=sys.stderr)
    summary = (f"run {result.run_id}: {len(result.run_events)} run events, {len(result.io_samples)} I/O samples, "
               f"{len(result.cpu_samples)} CPU samples, {len(result.port_samples)} port samples, "
               f"{sum(1 for i in result.errors if i.severity == 'error')} errors, "
               f"{sum(1 for i in result.errors if i.severity != 'error')} warnings")
    if args.dry_run:
        print(summary + " (dry run: nothing sent)")
    else:
        from confluent_kafka import Producer

        from ioscale.wire.producer import TelemetryProducer
        from ioscale.wire.publish import publish_import

        bootstrap, registry = _endpoints(args)
        producer = TelemetryProducer(bootstrap, registry)
        dlq = Producer({"bootstrap.servers": bootstrap, "log_level": 3})
        counts = publish_import(result, producer, dlq)
        producer.flush()
        dlq.flush(30)
        print(summary + "; sent " + ", ".join(f"{n} to {t}" for t, n in counts.items()))
        if result.io_samples and args.analyze:
            _analyze(result.run_id, wait_for_samples=len(result.io_samples))
        elif result.io_samples:
            print(f"to analyse it in Flink (scaling curve, saturation, alerts): ioscale analyze {result.run_id}")
    return ExitStatus.BAD_INPUT if result.has_errors else ExitStatus.OK


def _analyze(run_id: str, wait_for_samples: int = 0, timeout_s: float = 1800.0) -> None:
    import time

    from ioscale.provision.replay import analyze
    from ioscale.stack.clickhouse import client
    from ioscale.stack.component import StackContext
    from ioscale.stack.flink import FlinkComponent
    from ioscale.stack.progress import Progress
    from ioscale.stack.settings import StackSettings, load_secrets

    settings = StackSettings.from_env()
    secrets = load_secrets(settings)
    flink = FlinkComponent(StackContext(settings, secrets, Progress()))
    with client(settings, secrets, "reader") as ch:
        deadline = time.monotonic() + 120
        while wait_for_samples and time.monotonic() < deadline and ch.query(  # the Kafka engine inserts in batches
                "SELECT count() FROM ioscale.io_samples WHERE run_id = {r:String}",
                parameters={"r": run_id}).result_rows[0][0] < wait_for_samples:
            time.sleep(1)
        analyze(flink, ch, run_id, timeout_s)


def _cmd_analyze(args: argparse.Namespace) -> int:
    for run_id in args.run_ids:
        _analyze(run_id, timeout_s=args.timeout_s)
        print(f"results: ioscale sql scaling_curve -p run_id={run_id}; ioscale sql saturation_events -p run_id={run_id}")
    return 0


def _cmd_admin(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ioscale.provision.external import ExternalTargets, init_external
    from ioscale.stack.progress import Progress
    from ioscale.paths import repo_root

    targets = ExternalTargets(
        kafka_bootstrap=args.kafka_bootstrap, registry_url=args.registry_url, clickhouse_url=args.clickhouse_url,
        superset_bundle_out=Path(args.superset_bundle_out) if args.superset_bundle_out else None,
        superset_clickhouse_host=args.superset_clickhouse_host,
    )
    init_external(targets, repo_root(), Progress())
    return 0


def _cmd_sql(args: argparse.Namespace) -> int:
    from ioscale import sqllib

    if args.list or not args.name:
        print(sqllib.format_query_list(), end="")
        return 0
    if args.describe:
        print(sqllib.describe(args.name), end="")
        return 0
    from ioscale.stack.settings import StackSettings, load_secrets

    settings = StackSettings.from_env()
    print(sqllib.run(args.name, sqllib.parse_param_args(args.param), settings, load_secrets(settings), args.format),
          end="")
    return 0


def _cmd_alerts(args: argparse.Namespace) -> int:
    from ioscale.services.notifier import Notifier, WebhookSender, watch

    bootstrap, _ = _endpoints(args)
    notifier = Notifier(webhook=WebhookSender(args.webhook) if args.webhook else None)
    try:
        watch(bootstrap, notifier, from_beginning=args.from_beginning, max_seconds=args.max_seconds,
              group_id=args.group)
    except KeyboardInterrupt:
        pass
    print(f"[notifier] delivered {notifier.delivered} alert(s), webhook failures {notifier.webhook_failures}",
          file=sys.stderr)
    return 0


def _cmd_collect(args: argparse.Namespace) -> int:
    from ioscale.collectors.linux import collect_linux
    from ioscale.wire.producer import TelemetryProducer

    bootstrap, registry = _endpoints(args)
    producer = TelemetryProducer(bootstrap, registry)
    print(f"[collect] sampling every {args.interval_s:g} s for run {args.run_id} (Ctrl-C stops)", file=sys.stderr)
    sent = collect_linux(producer, args.run_id, step_index=args.step_index, interval_s=args.interval_s,
                         duration_s=args.duration_s, vm=args.vm or "", devices=args.devices or None)
    producer.flush()
    print(f"sent {sent} records for run {args.run_id}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from ioscale.collectors.fio_runner import report_totals, run_fio
    from ioscale.wire.producer import TelemetryProducer

    sweep = None
    if args.sweep:
        name, _, values = args.sweep.partition("=")
        if not values:
            raise IoscaleError(f"--sweep {args.sweep!r} needs NAME=V1,V2,...", "e.g. --sweep iodepth=1,2,4,8")
        sweep = (name.strip(), [v.strip() for v in values.split(",") if v.strip()])
    bootstrap, registry = _endpoints(args)
    producer = TelemetryProducer(bootstrap, registry)
    results = run_fio(producer, args.jobfiles, run_id=args.run_id, sweep=sweep, vm=args.vm or "",
                      status_interval_s=args.status_interval_s)
    producer.flush()
    for line in report_totals(results):
        print(line)
    return 0


def _add_endpoint_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", help="Kafka bootstrap servers (default: the local stack's)")
    p.add_argument("--registry-url", help="schema registry URL (default: the local stack's)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ioscale", description=__doc__.splitlines()[0])
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", required=True)

    st = sub.add_parser("stack", help="run the local stack (Kafka, registry, ClickHouse, Flink, Superset)")
    st.add_argument("action", choices=["up", "down", "status", "logs"])
    st.add_argument("components", nargs="*", help="limit to these components (default: all)")
    st.add_argument("-n", "--lines", type=int, default=40, help="log lines to show (logs)")
    st.set_defaults(func=_cmd_stack)

    from ioscale.importers import IMPORTERS

    imp = sub.add_parser("import", help="import result files of a load generator (after the fact)")
    imp.add_argument("tool", choices=sorted(IMPORTERS), help="format of the files")
    imp.add_argument("files", nargs="+", help="result files (or a directory for vmfleet)")
    imp.add_argument("--run-id", help="run id (default: derived from the files' content)")
    imp.add_argument("--start-ms", type=int, help="start time (epoch ms) for files that carry none")
    imp.add_argument("--dry-run", action="store_true", help="parse and report only, send nothing")
    imp.add_argument("--analyze", action="store_true",
                     help="then analyse the run in Flink (scaling curve, saturation, alerts): see `ioscale analyze`")
    _add_endpoint_args(imp)
    imp.set_defaults(func=_cmd_import)

    sim = sub.add_parser("simulate", help="stream a simulated fleet sweep (the seed studies, demos)")
    sim.add_argument("--scenario", help="scenario name; without it, list the scenarios")
    sim.add_argument("--list", action="store_true", help="list scenarios and the study figures they reproduce")
    sim.add_argument("--seed", type=int, default=0, help="same seed and --start-ms: identical records")
    sim.add_argument("--fast", action="store_true", help="as fast as possible with simulated timestamps (load generator)")
    sim.add_argument("--speed", type=float, default=1.0, help="real-time mode: time compression factor")
    sim.add_argument("--start-ms", type=int, help="timestamp of the first interval (default: now)")
    sim.add_argument("--step-s", type=int, help="override each step's duration, seconds")
    sim.add_argument("--ramp-s", type=int, help="override each step's ramp-up, seconds")
    _add_endpoint_args(sim)
    sim.set_defaults(func=_cmd_simulate)

    from ioscale import sqllib

    q = sub.add_parser("sql", help="run a named query of the SQL library (sql/queries)")
    q.add_argument("name", nargs="?", help="query name; without it, list the queries")
    q.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE")
    q.add_argument("-f", "--format", choices=sqllib.FORMATS, default="table")
    q.add_argument("--list", action="store_true", help="list the queries")
    q.add_argument("--describe", action="store_true", help="show a query's parameters and columns")
    q.set_defaults(func=_cmd_sql)

    al = sub.add_parser("alerts", help="follow saturation and SLO alerts: print them, optionally POST to a webhook")
    al.add_argument("--webhook", help="POST each alert as JSON ({text, alert}) to this URL")
    al.add_argument("--from-beginning", action="store_true", help="replay the alerts already in Kafka")
    al.add_argument("--group", help="consumer group: resume where this group left off")
    al.add_argument("--max-seconds", type=float, help="stop after this long (default: run until Ctrl-C)")
    _add_endpoint_args(al)
    al.set_defaults(func=_cmd_alerts)

    col = sub.add_parser("collect", help="live collector: stream this machine's counters as samples")
    col.add_argument("source", choices=["linux"], help="/proc and /sys (disks, CPUs, interrupts, NICs, FC HBAs)")
    col.add_argument("--run-id", required=True)
    col.add_argument("--step-index", type=int, default=-1)
    col.add_argument("--vm", help="VM name when collecting inside a VM")
    col.add_argument("--interval-s", type=float, default=1.0)
    col.add_argument("--duration-s", type=float, help="stop after this long (default: until Ctrl-C)")
    col.add_argument("--devices", nargs="*", help="block devices to report (default: all whole disks)")
    _add_endpoint_args(col)
    col.set_defaults(func=_cmd_collect)

    run = sub.add_parser("run", help="run a load generator and stream its per-interval results live")
    run.add_argument("tool", choices=["fio"])
    run.add_argument("jobfiles", nargs="+")
    run.add_argument("--sweep", help="run the jobs once per value: iodepth=1,2,4 | numjobs=1,2 | bs=4k,8k")
    run.add_argument("--run-id", help="default: generated")
    run.add_argument("--vm", help="VM name when running inside a VM")
    run.add_argument("--status-interval-s", type=int, default=1)
    _add_endpoint_args(run)
    run.set_defaults(func=_cmd_run)

    adm = sub.add_parser("admin", help="initialise services run elsewhere (docker-compose, a lab cluster)")
    adm.add_argument("action", choices=["init"])
    adm.add_argument("--kafka-bootstrap", required=True)
    adm.add_argument("--registry-url", required=True)
    adm.add_argument("--clickhouse-url", required=True, help="HTTP URL; passwords come from CLICKHOUSE_<ROLE>_PASSWORD")
    adm.add_argument("--superset-bundle-out", help="write the rendered dashboard bundle (zip) here")
    adm.add_argument("--superset-clickhouse-host", help="ClickHouse host name as Superset reaches it")
    adm.set_defaults(func=_cmd_admin)

    an = sub.add_parser("analyze", help="analyse runs the live Flink job could not (imported or replayed after "
                                        "the fact): a bounded replay of the run through the same job")
    an.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="see `ioscale sql run_list`")
    an.add_argument("--timeout-s", type=float, default=1800.0, help="longest wait for the replay (default 1800)")
    an.set_defaults(func=_cmd_analyze)

    cfg = sub.add_parser("config", help="show or change the analytics job's settings (QoS objectives, saturation "
                                        "thresholds, lateness); `stack up` applies them")
    cfg.add_argument("settings", nargs="*", metavar="KEY=VALUE", help="e.g. slo='p99 < 1 ms, p99.999 < 2 ms'")
    cfg.add_argument("--unset", action="append", metavar="KEY", help="back to the job's default")
    cfg.add_argument("-v", "--verbose", action="store_true", help="explain each setting")
    cfg.set_defaults(func=_cmd_config)

    demo = sub.add_parser("demo", help="stack up, then stream a demo sweep into the dashboards")
    demo.add_argument("--scenario", default="demo", help="simulator scenario (see `ioscale simulate --list`)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--speed", type=float, default=1.0, help="time compression (2 = twice real time)")
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
    except Exception as e:  # a bug or an unexpected server answer: say so briefly, details on request
        if args.debug:
            traceback.print_exc()
        print(f"Error: {type(e).__name__}: {e}", file=sys.stderr)
        if not args.debug:
            print("Hint: re-run with --debug for the traceback", file=sys.stderr)
        return int(ExitStatus.ERROR)


if __name__ == "__main__":
    sys.exit(main())
