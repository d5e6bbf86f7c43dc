"""`ioscale analyze RUN`: a bounded replay of a run through the analytics job (see ioscale.provision.replay),
then a check that the result tables account for every raw I/O sample (see ioscale.provision.analysis_check)."""

from __future__ import annotations

import argparse


def analyze_run(run_id: str, wait_for_samples: int = 0, timeout_s: float = 1800.0, *, replay: bool = True,
                check: bool = True) -> None:
    import time

    from ioscale.provision.flink import FlinkJobs
    from ioscale.provision.replay import analyze
    from ioscale.stack.clickhouse import client
    from ioscale.stack.component import StackContext
    from ioscale.stack.progress import Progress
    from ioscale.stack.settings import StackSettings, load_secrets

    settings = StackSettings.from_env()
    secrets = load_secrets(settings)
    progress = Progress()
    with client(settings, secrets, "reader") as ch:
        if replay:
            deadline = time.monotonic() + 120
            while wait_for_samples and time.monotonic() < deadline and ch.query(  # the Kafka engine inserts in batches
                    "SELECT (SELECT count() FROM ioscale.io_samples WHERE run_id = {r:String})"
                    " + (SELECT count() FROM ioscale.port_samples WHERE run_id = {r:String})",
                    parameters={"r": run_id}).result_rows[0][0] < wait_for_samples:
                time.sleep(1)
            analyze(FlinkJobs(StackContext(settings, secrets, progress)), ch, run_id, timeout_s)
        if check:
            check_results(ch, run_id, progress)


def check_results(ch, run_id: str, progress) -> None:
    """The result tables against the raw ones; raises ResultCheckError naming each table and step that differ."""
    import time

    from ioscale.provision import analysis_check

    t0 = time.monotonic()
    result = analysis_check.check(ch, run_id)
    if not result.ok:
        raise analysis_check.failure(result)
    progress.done(f"{analysis_check.passed_line(result)} ({time.monotonic() - t0:.1f} s)")


def _cmd_analyze(args: argparse.Namespace) -> int:
    for run_id in args.run_ids:
        analyze_run(run_id, timeout_s=args.timeout_s, replay=not args.check_only, check=not args.no_check)
        print(f"results: ioscale sql scaling_curve -p run_id={run_id}; ioscale sql saturation_events -p run_id={run_id}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    an = sub.add_parser("analyze", help="analyse runs the live Flink job could not (imported or replayed after "
                                        "the fact): a bounded replay of the run through the same job, then a "
                                        "check that the result tables hold every raw I/O sample")
    an.add_argument("run_ids", nargs="+", metavar="RUN_ID", help="see `ioscale sql run_list`")
    an.add_argument("--timeout-s", type=float, default=1800.0, help="longest wait for the replay (default 1800)")
    check = an.add_mutually_exclusive_group()
    check.add_argument("--no-check", action="store_true",
                       help="skip the check (it reads the run's raw samples and rollups once more)")
    check.add_argument("--check-only", action="store_true",
                       help="no replay: check the result tables an earlier analysis wrote")
    an.set_defaults(func=_cmd_analyze)
