"""Commands that send records: `ioscale import` (result files), `simulate` (a simulated fleet), `collect` (this
machine's counters) and `run` (a load generator streamed live)."""

from __future__ import annotations

import argparse
import sys

from ioscale.cli.analyze import analyze_run
from ioscale.cli.endpoints import add_endpoint_args, endpoints
from ioscale.errors import ExitStatus, IoscaleError


def _cmd_simulate(args: argparse.Namespace) -> int:
    from ioscale.simulator import get_scenario, list_scenarios, run_simulation

    if args.list or not args.scenario:
        for sc in list_scenarios():
            print(f"{sc.name:<24} {sc.duration_s():>6.0f} s  {sc.title}")
            print(f"{'':<24} reproduces: {sc.reproduces}")
        return 0
    get_scenario(args.scenario)  # unknown name: error before connecting anywhere
    from ioscale.wire.producer import TelemetryProducer

    bootstrap, registry = endpoints(args)
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

        bootstrap, registry = endpoints(args)
        producer = TelemetryProducer(bootstrap, registry)
        dlq = Producer({"bootstrap.servers": bootstrap, "log_level": 3})
        counts = publish_import(result, producer, dlq)
        producer.flush()
        dlq.flush(30)
        print(summary + "; sent " + ", ".join(f"{n} to {t}" for t, n in counts.items()))
        if result.io_samples and args.analyze:
            analyze_run(result.run_id, wait_for_samples=len(result.io_samples))
        elif result.io_samples:
            print(f"to analyse it in Flink (scaling curve, saturation, alerts): ioscale analyze {result.run_id}")
    return ExitStatus.BAD_INPUT if result.has_errors else ExitStatus.OK


def _cmd_collect(args: argparse.Namespace) -> int:
    from ioscale.collectors.linux import collect_linux
    from ioscale.wire.producer import TelemetryProducer

    bootstrap, registry = endpoints(args)
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
    bootstrap, registry = endpoints(args)
    producer = TelemetryProducer(bootstrap, registry)
    results = run_fio(producer, args.jobfiles, run_id=args.run_id, sweep=sweep, vm=args.vm or "",
                      status_interval_s=args.status_interval_s)
    producer.flush()
    for line in report_totals(results):
        print(line)
    return 0


def add_import_parser(sub: argparse._SubParsersAction) -> None:
    from ioscale.importers import IMPORTERS

    imp = sub.add_parser("import", help="import result files of a load generator (after the fact)")
    imp.add_argument("tool", choices=sorted(IMPORTERS), help="format of the files")
    imp.add_argument("files", nargs="+", help="result files (or a directory for vmfleet)")
    imp.add_argument("--run-id", help="run id (default: derived from the files' content)")
    imp.add_argument("--start-ms", type=int, help="start time (epoch ms) for files that carry none")
    imp.add_argument("--dry-run", action="store_true", help="parse and report only, send nothing")
    imp.add_argument("--analyze", action="store_true",
                     help="then analyse the run in Flink (scaling curve, saturation, alerts): see `ioscale analyze`")
    add_endpoint_args(imp)
    imp.set_defaults(func=_cmd_import)


def add_simulate_parser(sub: argparse._SubParsersAction) -> None:
    sim = sub.add_parser("simulate", help="stream a simulated fleet sweep (the seed studies, demos)")
    sim.add_argument("--scenario", help="scenario name; without it, list the scenarios")
    sim.add_argument("--list", action="store_true", help="list scenarios and the study figures they reproduce")
    sim.add_argument("--seed", type=int, default=0, help="same seed and --start-ms: identical records")
    sim.add_argument("--fast", action="store_true", help="as fast as possible with simulated timestamps (load generator)")
    sim.add_argument("--speed", type=float, default=1.0, help="real-time mode: time compression factor")
    sim.add_argument("--start-ms", type=int, help="timestamp of the first interval (default: now)")
    sim.add_argument("--step-s", type=int, help="override each step's duration, seconds")
    sim.add_argument("--ramp-s", type=int, help="override each step's ramp-up, seconds")
    add_endpoint_args(sim)
    sim.set_defaults(func=_cmd_simulate)


def add_collect_parser(sub: argparse._SubParsersAction) -> None:
    col = sub.add_parser("collect", help="live collector: stream this machine's counters as samples")
    col.add_argument("source", choices=["linux"], help="/proc and /sys (disks, CPUs, interrupts, NICs, FC HBAs)")
    col.add_argument("--run-id", required=True)
    col.add_argument("--step-index", type=int, default=-1)
    col.add_argument("--vm", help="VM name when collecting inside a VM")
    col.add_argument("--interval-s", type=float, default=1.0)
    col.add_argument("--duration-s", type=float, help="stop after this long (default: until Ctrl-C)")
    col.add_argument("--devices", nargs="*", help="block devices to report (default: all whole disks)")
    add_endpoint_args(col)
    col.set_defaults(func=_cmd_collect)


def add_run_parser(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser("run", help="run a load generator and stream its per-interval results live")
    run.add_argument("tool", choices=["fio"])
    run.add_argument("jobfiles", nargs="+")
    run.add_argument("--sweep", help="run the jobs once per value: iodepth=1,2,4 | numjobs=1,2 | bs=4k,8k")
    run.add_argument("--run-id", help="default: generated")
    run.add_argument("--vm", help="VM name when running inside a VM")
    run.add_argument("--status-interval-s", type=int, default=1)
    add_endpoint_args(run)
    run.set_defaults(func=_cmd_run)
