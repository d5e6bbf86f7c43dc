"""`ioscale import perfmon|esxtop FILE` (streamed) and `ioscale collect perfmon|esxtop --follow FILE`.

Kept apart from ingest.py, which hands these tools over: a host counter log is read a row at a time and
published as it is read, where the other importers build a whole ImportResult first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ioscale.cli.endpoints import make_producer
from ioscale.errors import ExitStatus, IoscaleError

#: `import` tools handled here (the keys of ioscale.importers.COUNTER_MAPS).
STREAMED_TOOLS = frozenset({"perfmon", "esxtop"})
#: Records per send_many call, as wire.publish batches an import.
BATCH = 5000


class Batches:
    """send(topic, record) -> the producer's batch path (send_many) per topic; ``close`` sends what is left."""

    def __init__(self, producer) -> None:
        self.producer = producer
        self.buffers: dict[str, list[dict]] = {}
        self.many = getattr(producer, "send_many", None)

    def send(self, topic: str, record: dict) -> None:
        if self.many is None:
            self.producer.send(topic, record)
            return
        buf = self.buffers.setdefault(topic, [])
        buf.append(record)
        if len(buf) >= BATCH:
            self.many(topic, buf)
            self.buffers[topic] = []

    def close(self) -> None:
        for topic, buf in self.buffers.items():
            if buf:
                self.many(topic, buf)
        self.buffers.clear()


def cmd_import_streamed(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ioscale.importers import stream_import

    if args.one_run or args.sweep_axis:
        raise IoscaleError(f"--one-run and --sweep-axis do not apply to {args.tool}: a counter log is one run",
                           "leave them out")
    producer = None if args.dry_run else make_producer(args)
    batches = Batches(producer) if producer is not None else None
    send: Callable[[str, dict], None] = batches.send if batches is not None else (lambda topic, rec: None)
    results = []
    for name in args.files:
        r = stream_import(args.tool, Path(name), send, run_id=args.run_id, now_ms=None)
        results.append(r)
        for issue in r.errors:
            print(f"{issue}", file=sys.stderr)
        ivals = r.stats.intervals
        span = (f", {(r.stats.last_ms - r.stats.first_ms) / 1000:g} s" if r.stats.first_ms is not None else "")
        print(f"{name}: {r.stats.rows} rows, {ivals} interval(s){span}; hosts {', '.join(sorted(r.stats.hosts)) or '-'}")
        for run_id in r.runs:
            n = r.stats.runs[run_id][2]
            print(f"  run {run_id}: {n} samples" + (" (joined to the given run, step from the time)"
                                                     if args.run_id and run_id == args.run_id else ""))
    totals: dict[str, int] = {}
    for r in results:
        for t, n in r.sent.items():
            totals[t] = totals.get(t, 0) + n
    errors = sum(1 for r in results for i in r.errors if i.severity == "error")
    warnings = sum(1 for r in results for i in r.errors if i.severity != "error")
    line = (", ".join(f"{n} to {t}" for t, n in sorted(totals.items())) or "no records")
    line += f"; {errors} errors, {warnings} warnings"
    if producer is None:
        print(line + " (dry run: nothing sent)")
    else:
        batches.close()
        from ioscale.wire import topics
        from ioscale.wire.publish import dead_letter_record

        # As for every import: errors are dead letters too (counted and queryable, never silent).
        for r in results:
            for issue in r.errors:
                if issue.severity == "error":
                    producer.send_raw(topics.DEAD_LETTER, dead_letter_record(
                        "importer", issue.reason, file=issue.file, line=issue.line, field=issue.field,
                        run_id=r.run_id))
        producer.flush()   # raises NotDelivered, with the counts, unless every record was delivered
        print(line + "; delivered " + ", ".join(f"{n} to {t}" for t, n in producer.delivered.items()))
        own = [rid for r in results for rid in r.runs if not (args.run_id and rid == args.run_id)]
        if own:
            print("to analyse in Flink (scaling curve, saturation, alerts): ioscale analyze " + " ".join(own))
    return ExitStatus.BAD_INPUT if any(r.has_errors for r in results) else ExitStatus.OK


def add_follow_args(col: argparse.ArgumentParser) -> None:
    col.add_argument("--follow", metavar="FILE",
                     help="perfmon / esxtop: the CSV that typeperf -o, a data collector set or esxtop -b is writing")
    col.add_argument("--idle-timeout-s", type=float,
                     help="perfmon / esxtop: stop when the file has not grown this long (default: follow until Ctrl-C)")
    col.add_argument("--poll-s", type=float, default=0.5, help="perfmon / esxtop: how often to look for new rows")


def cmd_collect_follow(args: argparse.Namespace) -> int:
    from ioscale.collectors.pdh_follow import collect_pdh

    if not args.follow:
        raise IoscaleError(f"collect {args.source} needs --follow FILE",
                           f"e.g. typeperf -cf counters.txt -si 1 -f CSV -o host.csv, then "
                           f"ioscale collect {args.source} --follow host.csv --run-id RUN")
    producer = make_producer(args)
    print(f"[collect] following {args.follow} for run {args.run_id} "
          f"({'until Ctrl-C' if args.idle_timeout_s is None else f'until idle {args.idle_timeout_s:g} s or Ctrl-C'})",
          file=sys.stderr)
    report = collect_pdh(producer, args.source, args.follow, args.run_id, vm=args.vm or "", poll_s=args.poll_s,
                         idle_timeout_s=args.idle_timeout_s)
    producer.flush()
    for issue in report.errors:
        print(f"{issue}", file=sys.stderr)
    by_topic = ", ".join(f"{n} to {t}" for t, n in sorted(report.by_topic.items()))
    print(f"sent {report.sent} records for run {args.run_id} from {report.stats.rows} rows "
          f"(ended: {report.ended_by or 'end of input'})" + (f": {by_topic}" if by_topic else ""))
    return ExitStatus.BAD_INPUT if any(i.severity == "error" for i in report.errors) else 0
