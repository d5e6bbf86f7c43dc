"""`ioscale run iperf3`: its options (added to the `run` parser) and its handler; `ingest.py` dispatches to it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ioscale.cli.endpoints import make_producer
from ioscale.errors import ExitStatus, IoscaleError


class UsageError(IoscaleError):
    exit_status = ExitStatus.USAGE


def link_speed(text: str) -> int:
    """argparse type: '10G', '25G', '2.5G', '100M' -> bits/s."""
    from ioscale.importers.iperf3 import parse_link_speed

    bps = parse_link_speed(text)
    if bps is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a line rate: write it in bits/s, e.g. 10G, 25G, 2.5G, 100M")
    return bps


def parse_sweep(text: str | None, example: str,
                error: type[IoscaleError] = UsageError) -> tuple[str, list[str]] | None:
    """`--sweep NAME=V1,V2,...` -> (NAME, [V1, V2, ...]); None when not given."""
    if not text:
        return None
    name, _, values = text.partition("=")
    if not values:
        raise error(f"--sweep {text!r} needs NAME=V1,V2,...", f"e.g. --sweep {example}")
    return name.strip(), [v.strip() for v in values.split(",") if v.strip()]


def add_arguments(run: argparse.ArgumentParser) -> None:
    g = run.add_argument_group("iperf3", "ioscale run iperf3 [--server HOST] [--sweep parallel=1,2,4,8] "
                                         "[-- IPERF3_CLIENT_OPTION...]")
    g.add_argument("--server", help="host running `iperf3 -s` (default: a server the run starts on 127.0.0.1)")
    g.add_argument("--port", type=int, help="the server's port (default 5201, or a free one for the local server)")
    g.add_argument("--duration", type=int, default=10, metavar="S", help="seconds per step (iperf3 -t; default 10)")
    g.add_argument("--link-speed", type=link_speed, metavar="RATE",
                   help="line rate of the NIC under test, e.g. 10G: port utilization and saturation against it")
    g.add_argument("--iperf3", default="iperf3", help="the iperf3 executable (default: iperf3 on PATH)")


def cmd(args: argparse.Namespace) -> int:
    from ioscale.collectors.iperf3_runner import new_run_id, report_totals, run_iperf3, summary_line
    from ioscale.stack.settings import StackSettings
    from ioscale.stack.superset import LIVE_DASHBOARD_SLUG, dashboard_url

    if args.jobfiles:
        raise UsageError(f"iperf3 takes no job files: {' '.join(args.jobfiles)}",
                           "put iperf3 client options after --, e.g. ioscale run iperf3 -- -u -b 1G")
    if args.analyze:
        raise UsageError("--analyze needs I/O samples; an iperf3 run has port samples only",
                           "see the run with `ioscale sql port_utilization -p run_id=RUN -p step_index=N`")
    sweep = parse_sweep(args.sweep, "parallel=1,2,4,8")
    run_id = args.run_id or new_run_id()
    out_dir = Path(args.out_dir) if args.out_dir else Path("ioscale-runs") / run_id
    live = dashboard_url(StackSettings.from_env().url("superset"), LIVE_DASHBOARD_SLUG, run_id)
    print(f"run {run_id}: iperf3's output goes to {out_dir}\nwatch it live: {live}", flush=True)
    producer = make_producer(args)
    try:
        run = run_iperf3(producer, server=args.server, port=args.port, sweep=sweep, duration_s=args.duration,
                         interval_s=args.status_interval_s, run_id=run_id, iperf3=args.iperf3,
                         extra_args=args.fio_args, out_dir=out_dir, link_speed_bps=args.link_speed or 0,
                         log=lambda m: print(f"[iperf3] {m}", file=sys.stderr, flush=True))
    finally:
        producer.flush()  # what was sent before an error is kept
    for line in report_totals(run):
        print(line)
    print(summary_line(run))
    print("next:\n"
          f"  ioscale sql run_steps -p run_id={run_id}\n"
          f"  ioscale sql port_utilization -p run_id={run_id} -p step_index=0     # against --link-speed")
    return ExitStatus.OK
