"""Commands that send records: `ioscale import` (result files), `simulate` (a simulated fleet), `collect` (this
machine's counters) and `run` (a load generator streamed live)."""

from __future__ import annotations

import argparse
import sys

from ioscale.cli import run_iperf3
from ioscale.cli.analyze import analyze_run
from ioscale.cli.endpoints import add_producer_args, make_producer
from ioscale.errors import ExitStatus, IoscaleError


def _cmd_simulate(args: argparse.Namespace) -> int:
    from ioscale.simulator import get_scenario, list_scenarios, run_simulation

    if args.list or not args.scenario:
        for sc in list_scenarios():
            print(f"{sc.name:<24} {sc.duration_s():>6.0f} s  {sc.title}")
            print(f"{'':<24} reproduces: {sc.reproduces}")
        return 0
    get_scenario(args.scenario)  # unknown name: error before connecting anywhere
    seed = 0 if args.seed is None else args.seed
    delivered = None
    if args.resume:
        delivered = _delivered_so_far(args, seed)
    producer = make_producer(args)
    report = run_simulation(
        args.scenario, producer, seed=seed, realtime=not args.fast, speed=args.speed,
        start_ms=args.start_ms, step_s=args.step_s, ramp_s=args.ramp_s, run_id_prefix=args.run_id_prefix,
        resume=delivered, on_resume=_print_resume_point,
        progress=lambda p: print(f"[simulate] {p.fraction_done:4.0%} {p.run_key} {p.step_label} "
                                 f"{p.records_sent} records ({p.records_per_s:.0f}/s)", file=sys.stderr, flush=True),
    )
    already = f" ({report.already_delivered} were on Kafka already)" if args.resume else ""
    by_topic = ", ".join(f"{n} to {t}" for t, n in sorted(report.by_topic.items()) if n)
    print(f"sent {report.records_sent} records for run(s) {', '.join(report.run_ids)} in {report.elapsed_s:.1f} s"
          f"{already}" + (f": {by_topic}" if by_topic else ""))
    return 0


def _delivered_so_far(args: argparse.Namespace, seed: int) -> dict:
    """--resume: the last record of each of the run's sources on Kafka."""
    from ioscale.cli.endpoints import endpoints
    from ioscale.simulator import make_engine
    from ioscale.simulator.resume import TOPICS, check_resumable, scan_since_ms
    from ioscale.wire.resume import last_delivered

    check_resumable(args.start_ms, args.seed)
    engine = make_engine(args.scenario, seed, args.start_ms, step_s=args.step_s, ramp_s=args.ramp_s,
                         run_id_prefix=args.run_id_prefix)
    bootstrap, registry = endpoints(args)
    runs = engine.run_ids()
    print(f"[resume] reading what run(s) {', '.join(runs)} already put on Kafka at {bootstrap}", file=sys.stderr,
          flush=True)
    return last_delivered(bootstrap, registry, runs, TOPICS, scan_since_ms(engine.start_ms),
                          progress=lambda line: print(line, file=sys.stderr, flush=True))


def _print_resume_point(point) -> None:
    from datetime import datetime, timezone

    if point.last_ts_ms is None:
        print(f"resume: no record of the run on Kafka yet; {point.to_send} of {point.total} records to send",
              flush=True)
        return
    last = datetime.fromtimestamp(point.last_ts_ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds")
    print(f"resume: {point.delivered} of {point.total} records already on Kafka (the latest stamped {last}); "
          f"{point.to_send} records to send", flush=True)


def _run_id_prefix(text: str) -> str:
    if "/" in text:
        raise argparse.ArgumentTypeError(f"{text!r} holds a '/' (record keys join run id and source with '/')")
    return text


def _cmd_import(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ioscale.cli import hostcounters
    from ioscale.importers import import_runs

    if args.link_speed and args.tool != "iperf3":
        raise run_iperf3.UsageError(f"--link-speed applies to iperf3 files, not {args.tool}", "leave it out")
    if args.tool in hostcounters.STREAMED_TOOLS:
        return hostcounters.cmd_import_streamed(args)

    runs = import_runs(args.tool, [Path(p) for p in args.files], run_id=args.run_id, start_ms=args.start_ms,
                       sweep_axis=args.sweep_axis, one_run=args.one_run)
    if args.link_speed:
        from ioscale.importers.iperf3 import apply_link_speed

        for r in runs:
            apply_link_speed(r, args.link_speed)
    issues = [i for r in runs for i in r.errors]
    for issue in issues:
        print(f"{issue}", file=sys.stderr)
    if len(runs) > 1:
        print(f"{len(runs)} runs, one per sweep along {runs[0].sweep_axis}, sweep group {runs[0].sweep_group} "
              f"(`ioscale sql run_list -p sweep_group={runs[0].sweep_group}`; --one-run keeps them as one run):")
    for r in runs:
        print(_run_line(r))
    count = lambda kind: sum(len(getattr(r, kind)) for r in runs)  # noqa: E731
    totals = (f"{count('run_events')} run events, {count('io_samples')} I/O samples, {count('cpu_samples')} CPU "
              f"samples, {count('port_samples')} port samples, {sum(1 for i in issues if i.severity == 'error')} "
              f"errors, {sum(1 for i in issues if i.severity != 'error')} warnings")
    if args.dry_run:
        print(totals + " (dry run: nothing sent)")
        return ExitStatus.BAD_INPUT if any(r.has_errors for r in runs) else ExitStatus.OK
    from ioscale.wire.publish import publish_import

    producer = make_producer(args)
    for r in runs:
        publish_import(r, producer, dead_letters=True)
    producer.flush()  # raises NotDelivered, with the counts, unless every record was delivered
    print(totals + "; delivered " + ", ".join(f"{n} to {t}" for t, n in producer.delivered.items()))
    # A network test (iperf3) has port samples only: its steps are measured by their ports' payload.
    analysed = [r for r in runs if r.io_samples or r.port_samples]
    if analysed and args.analyze:
        analyze_runs([(r.run_id, len(r.io_samples) + len(r.port_samples)) for r in analysed])
    elif analysed:
        print("to analyse in Flink (scaling curve, saturation, alerts): ioscale analyze "
              + " ".join(r.run_id for r in analysed))
    return ExitStatus.BAD_INPUT if any(r.has_errors for r in runs) else ExitStatus.OK


def _run_line(r) -> str:
    steps = sum(1 for e in r.run_events if e["event_type"] == "STEP_STARTED")
    line = f"run {r.run_id}: {steps} step{'s' if steps != 1 else ''}"
    if r.sweep_axis:
        points = r.sweep_points if len(r.sweep_points) <= 10 else [*r.sweep_points[:9], "...", r.sweep_points[-1]]
        line += f" along {r.sweep_axis} ({', '.join(points)})"
    if r.sweep:
        line += f" [{r.sweep}]"
    return line + f", {len(r.io_samples)} I/O samples, {len(r.cpu_samples)} CPU samples"


def analyze_runs(runs: list[tuple[str, int]]) -> None:
    """Analyse each run, the later ones also when an earlier one fails; then raise the first failure, naming all."""
    if len(runs) == 1:
        analyze_run(runs[0][0], wait_for_samples=runs[0][1])
        return
    failed: list[tuple[str, IoscaleError]] = []
    for run_id, samples in runs:
        try:
            analyze_run(run_id, wait_for_samples=samples)
        except IoscaleError as e:
            print(f"Error: {run_id}: {e}", file=sys.stderr)
            failed.append((run_id, e))
    if failed:
        first = failed[0][1]
        err = IoscaleError(f"the analysis of {len(failed)} of {len(runs)} runs failed: "
                           + ", ".join(r for r, _ in failed), first.hint)
        err.exit_status = first.exit_status
        raise err


def _cmd_collect(args: argparse.Namespace) -> int:
    from ioscale.cli import hostcounters
    from ioscale.collectors.linux import collect_linux

    if args.source in hostcounters.STREAMED_TOOLS:
        return hostcounters.cmd_collect_follow(args)

    producer = make_producer(args)
    print(f"[collect] sampling every {args.interval_s:g} s for run {args.run_id} (Ctrl-C stops)", file=sys.stderr)
    sent = collect_linux(producer, args.run_id, step_index=args.step_index, interval_s=args.interval_s,
                         duration_s=args.duration_s, vm=args.vm or "", devices=args.devices or None)
    producer.flush()
    print(f"sent {sent} records for run {args.run_id}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    if args.tool == "iperf3":
        return run_iperf3.cmd(args)
    if not args.jobfiles:
        raise run_iperf3.UsageError("fio needs at least one job file", "ioscale run fio JOBFILE... [-- FIO_OPTION...]")
    from pathlib import Path

    from ioscale.collectors.fio_runner import (fio_report_run, new_run_id, report_run_id, report_totals, run_fio,
                                               summary_line)
    from ioscale.stack.settings import StackSettings
    from ioscale.stack.superset import LIVE_DASHBOARD_SLUG, dashboard_url
    from ioscale.wire.publish import publish_import

    sweep = run_iperf3.parse_sweep(args.sweep, "iodepth=1,2,4,8", IoscaleError)
    run_id = args.run_id or new_run_id()
    report_id = report_run_id(run_id)
    out_dir = Path(args.out_dir) if args.out_dir else Path("ioscale-runs") / run_id
    live = dashboard_url(StackSettings.from_env().url("superset"), LIVE_DASHBOARD_SLUG, run_id)
    print(f"run {run_id}: fio's reports go to {out_dir}\nwatch it live: {live}", flush=True)
    producer = make_producer(args)
    try:
        run = run_fio(producer, args.jobfiles, run_id=run_id, sweep=sweep, vm=args.vm or "",
                      status_interval_s=args.status_interval_s, fio=args.fio, extra_args=args.fio_args,
                      out_dir=out_dir, log=lambda m: print(f"[fio] {m}", file=sys.stderr, flush=True))
    finally:
        producer.flush()  # what streamed before an error is kept
    for line in report_totals(run.steps):
        print(line)
    report = fio_report_run(run)
    for issue in report.errors:
        print(f"{issue}", file=sys.stderr)
    publish_import(report, producer)
    producer.flush()
    print(summary_line(run))
    print(f"fio's own totals and percentiles: run {report_id} ({len(report.io_samples)} samples, one per step, "
          f"job and direction)")
    if args.analyze:
        analyze_run(report_id, wait_for_samples=len(report.io_samples))
    print("next:\n"
          f"  ioscale sql run_steps -p run_id={run_id}\n"
          f"  ioscale sql step_reported_percentiles -p run_id={report_id}     # fio's own percentiles\n"
          + ("" if args.analyze else f"  ioscale analyze {report_id}     # fio's reports into the result tables\n")
          + f"  ioscale sql compare_runs -p run_a={run_id} -p run_b={report_id}     # live samples vs fio's totals")
    return ExitStatus.BAD_INPUT if report.has_errors else 0


def add_import_parser(sub: argparse._SubParsersAction) -> None:
    from ioscale.importers import IMPORTERS
    from ioscale.importers.sweeps import AXES

    imp = sub.add_parser("import", help="import result files of a load generator (after the fact)")
    imp.add_argument("tool", choices=sorted(IMPORTERS), help="format of the files")
    imp.add_argument("files", nargs="+", help="result files (or a directory for vmfleet)")
    imp.add_argument("--run-id", help="run id (default: derived from the files' content); when the files hold "
                                      "several sweeps, the start of each sweep's run id and their sweep_group")
    imp.add_argument("--start-ms", type=int, help="start time (epoch ms) for files that carry none")
    imp.add_argument("--dry-run", action="store_true", help="parse and report only, send nothing")
    imp.add_argument("--link-speed", type=run_iperf3.link_speed, metavar="RATE",
                     help="iperf3: line rate of the NIC the tests ran on, e.g. 10G (the files do not say it)")
    imp.add_argument("--analyze", action="store_true",
                     help="then analyse each run in Flink (scaling curve, saturation, alerts): see `ioscale analyze`")
    runs = imp.add_mutually_exclusive_group()
    runs.add_argument("--sweep-axis", choices=[a.name for a in AXES],
                      help="one run per sweep along this axis, one for each combination of the other axes' values: "
                           + "; ".join(f"{a.name} = {a.meaning}" for a in AXES)
                           + " (default: the axis with the most distinct values; ties go to iodepth)")
    runs.add_argument("--one-run", action="store_true",
                      help="every step in one run, in file order, even when they cross several sweeps")
    add_producer_args(imp)
    imp.set_defaults(func=_cmd_import)


def add_simulate_parser(sub: argparse._SubParsersAction) -> None:
    sim = sub.add_parser("simulate", help="stream a simulated fleet sweep (the seed studies, demos)")
    sim.add_argument("--scenario", help="scenario name; without it, list the scenarios")
    sim.add_argument("--list", action="store_true", help="list scenarios and the study figures they reproduce")
    sim.add_argument("--seed", type=int, help="same seed and --start-ms: identical records (default: 0)")
    sim.add_argument("--fast", action="store_true", help="as fast as possible with simulated timestamps (load generator)")
    sim.add_argument("--speed", type=float, default=1.0, help="real-time mode: time compression factor")
    sim.add_argument("--start-ms", type=int, help="timestamp of the first interval (default: now)")
    sim.add_argument("--step-s", type=int, help="override each step's duration, seconds")
    sim.add_argument("--ramp-s", type=int, help="override each step's ramp-up, seconds")
    sim.add_argument("--run-id-prefix", type=_run_id_prefix, default="",
                     help="put this before each run id (sim-<scenario>-...): keeps test or trial runs apart")
    sim.add_argument("--resume", action="store_true",
                     help="the run's process was killed: send only the records Kafka does not hold yet (needs the "
                          "run's --seed and --start-ms, and the same --step-s, --ramp-s, --run-id-prefix); in real "
                          "time what is already due goes at once, the rest at start + offset / speed on the clock")
    add_producer_args(sim)
    sim.set_defaults(func=_cmd_simulate)


def add_collect_parser(sub: argparse._SubParsersAction) -> None:
    col = sub.add_parser("collect", help="live collector: stream this machine's counters as samples")
    col.add_argument("source", choices=["linux", "perfmon", "esxtop"],
                     help="linux: /proc and /sys (disks, CPUs, interrupts, NICs, FC HBAs); perfmon, esxtop: the "
                          "counter log given by --follow")
    col.add_argument("--run-id", required=True)
    col.add_argument("--step-index", type=int, default=-1)
    col.add_argument("--vm", help="VM name when collecting inside a VM")
    col.add_argument("--interval-s", type=float, default=1.0)
    col.add_argument("--duration-s", type=float, help="stop after this long (default: until Ctrl-C)")
    col.add_argument("--devices", nargs="*", help="block devices to report (default: all whole disks)")
    from ioscale.cli.hostcounters import add_follow_args
    add_follow_args(col)
    add_producer_args(col)
    col.set_defaults(func=_cmd_collect)


def add_run_parser(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser(
        "run", help="run a load generator and stream its per-interval results live",
        usage="ioscale run fio JOBFILE... [options] [-- FIO_OPTION...]\n"
              "       ioscale run iperf3 [--server HOST] [--sweep parallel=1,2,4,8] [options] [-- IPERF3_OPTION...]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run fio on the job files, streaming a sample per second, job and direction while it runs.\n"
                    "Prints the run id and its live dashboard first; keeps every step's job file, fio's final\n"
                    "json+ report and stderr in the run directory; then sends those reports as the linked run\n"
                    "RUN_ID-fio-report, so fio's own totals and percentiles stand beside the live ones.",
        epilog="Everything after -- goes to fio verbatim, before the job files, e.g.\n"
               "  ioscale run fio job.fio --sweep iodepth=1,4,16 -- --direct=0 --size=64m\n"
               "fio treats such options as defaults: a setting the job file makes itself wins (ioscale warns\n"
               "when fio ignored one). --output, --output-format and --status-interval are ioscale's.\n\n"
               "iperf3: the client runs once per step against --server (or a server it starts on 127.0.0.1),\n"
               "one PortSample per interval and stream, e.g.\n"
               "  ioscale run iperf3 --server 10.0.0.2 --sweep parallel=1,2,4,8 --link-speed 10G -- -O 2\n"
               "Options after -- go to the iperf3 client (-u -b 1G, -R, --bidir, -C bbr, --get-server-output).")
    run.add_argument("tool", choices=["fio", "iperf3"])
    run.add_argument("jobfiles", nargs="*", metavar="JOBFILE", help="fio job files")
    run.add_argument("--sweep", help="run once per value: fio iodepth=1,2,4 | numjobs=1,2 | bs=4k,8k; "
                                     "iperf3 parallel=1,2,4,8 | length=64K,128K")
    run.add_argument("--run-id", help="default: generated (fio-live-...)")
    run.add_argument("--out-dir", help="run directory for fio's reports (default: ./ioscale-runs/RUN_ID); "
                                       "must be new or empty")
    run.add_argument("--vm", help="VM name when running inside a VM")
    run.add_argument("--status-interval-s", type=int, default=1, help="seconds per sample (fio --status-interval, "
                                                                       "iperf3 -i)")
    run.add_argument("--fio", default="fio", help="the fio executable (default: fio on PATH)")
    run.add_argument("--analyze", action="store_true",
                     help="then analyse fio's reports in Flink for `ioscale sql compare_runs` (see `ioscale analyze`)")
    run_iperf3.add_arguments(run)
    add_producer_args(run)
    run.set_defaults(func=_cmd_run, fio_args=[])
