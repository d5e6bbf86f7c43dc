"""`ioscale demo` (the README's first command): the stack up, then a simulated sweep streaming live.

The default scenario is a short sweep whose FC port saturates in its third step, so the live
dashboard shows IOPS flattening at wire speed while latency climbs; `--scenario saturation-demo`
is the longer queue-depth sweep whose saturation raises an alert.
"""

from __future__ import annotations

import argparse
import sys

from ioscale.cli.stack import print_endpoints
from ioscale.provision.launcher import Launcher
from ioscale.stack.settings import load_secrets


def _progress(p) -> None:
    print(f"[demo] {p.fraction_done:4.0%}  {p.run_key}  {p.step_label:<28}  {p.records_sent} records sent "
          f"({p.records_per_s:.0f}/s)", file=sys.stderr, flush=True)


def run_demo(scenario: str = "demo", seed: int = 1, speed: float = 1.0) -> int:
    from ioscale.simulator import get_scenario, run_simulation
    from ioscale.wire.producer import TelemetryProducer

    launcher = Launcher()
    comps = launcher.up()
    print_endpoints(launcher.endpoints(comps))
    spec = get_scenario(scenario)
    settings = launcher.settings
    from ioscale.simulator.engine import run_id_for
    from ioscale.simulator.runner import start_now_ms
    from ioscale.stack.superset import LIVE_DASHBOARD_SLUG, dashboard_url

    # The first run's id is known before it streams (it starts with the simulation): the live dashboard's link
    # opens on it (?run=), not on whatever run happens to be the newest.
    start_ms = start_now_ms(spec.interval_ms)
    first_run = run_id_for(spec.name, spec.runs[0].key, start_ms, seed)
    live = dashboard_url(settings.url("superset"), LIVE_DASHBOARD_SLUG, first_run)
    print(f"\nStreaming scenario '{scenario}' ({spec.title}) in real time, "
          f"{spec.duration_s() / speed:.0f} s. Watch it live: {live}\n", flush=True)
    producer = TelemetryProducer(settings.kafka_bootstrap, settings.url("registry"))
    report = run_simulation(scenario, producer, seed=seed, realtime=True, speed=speed, progress=_progress,
                            start_ms=start_ms)
    summarize(settings, report.run_ids)
    links = "\n".join(f"  {dashboard_url(settings.url('superset'), LIVE_DASHBOARD_SLUG, r)}" for r in report.run_ids)
    print(f"\nDone: {report.records_sent} records in {report.elapsed_s:.0f} s. The stack keeps running; "
          f"live dashboard of each run:\n{links}\nStop it with `make down`.")
    return 0


def summarize(settings, run_ids: list[str]) -> None:
    """Per-step totals as ClickHouse now holds them: proof the sweep landed."""
    from ioscale.stack.clickhouse import client

    if not run_ids:
        return
    ch = client(settings, load_secrets(settings), "reader")
    rows = ch.query(
        "SELECT run_id, step_index, round(sum(ops) * 1000 / (max(toUnixTimestamp64Milli(ts) + interval_ms) - "
        "min(toUnixTimestamp64Milli(ts)))) AS iops, "
        "round(sum(latency_sum_ns) / greatest(sum(latency_count), 1) / 1000, 1) AS mean_latency_us "
        "FROM ioscale.io_samples FINAL WHERE run_id IN {runs:Array(String)} "
        "GROUP BY run_id, step_index ORDER BY run_id, step_index",
        parameters={"runs": run_ids},
    ).result_rows
    print("\nIn ClickHouse (ioscale.io_samples):")
    print(f"  {'run':<36} {'step':>4} {'IOPS':>10} {'mean latency us':>16}")
    for run_id, step, iops, lat in rows:
        print(f"  {run_id:<36} {step:>4} {iops:>10,.0f} {lat:>16}")


def _cmd_demo(args: argparse.Namespace) -> int:
    return run_demo(scenario=args.scenario, seed=args.seed, speed=args.speed)


def add_parser(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="stack up, then stream a demo sweep into the dashboards")
    demo.add_argument("--scenario", default="demo", help="simulator scenario (see `ioscale simulate --list`)")
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("--speed", type=float, default=1.0, help="time compression (2 = twice real time)")
    demo.set_defaults(func=_cmd_demo)
