"""`ioscale analyze RUN`: analyse a run that the live analytics job could not, such as one imported after the fact.

The live job keeps one event-time clock (watermark) per Kafka partition, and whatever streams now moves it. A run
stamped in the past (last week's DISKSPD sweep imported today, a fast-mode simulation) arrives behind that clock:
its samples land in the raw tables, but the live job counts them as too late instead of analysing them. This
submits a second, bounded instance of the same job (``AnalyticsJob --replay-run``): it reads the topics from just
before the run was produced up to their current end, keeps only that run's records before any watermark is
computed, so the run has a clock of its own, and writes the same result tables: rollups, scaling curve,
saturation, USL fit, alerts. Then it finishes. Rows it writes replace, never double, anything the live job wrote
for the run (ReplacingMergeTree on the same identities).

Kafka keeps a week of records (log.retention.hours), so a run can be analysed this way for a week after it was
produced.
"""

from __future__ import annotations

import math
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ioscale.errors import IoscaleError
from ioscale.provision.flink import ANALYTICS_JOB, ENDED_JOB_STATES, FlinkJobs, StreamJob, stream_jobs
from ioscale.stack.settings import StackSettings

#: Read from this long before the run's first record reached ClickHouse: the Kafka engine inserts within
#: seconds of a record's produce time, and a producer may have buffered a little before that.
KAFKA_MARGIN_MS = 120_000
REPLAY_JOB_PREFIX = "ioscale-replay-"
#: A replay that neither reads, writes nor inserts anything for this long is stuck (a bounded read of a week of
#: topics at worst takes minutes, and its counters move all the time).
STALL_S = 180.0
#: What a replay writes for a run, counted for its progress lines.
RESULT_TABLES = ("io_samples_1s", "io_fleet_1s", "port_samples_1s", "scaling_curves", "alerts")


@dataclass(frozen=True)
class RunSpan:
    run_id: str
    io_samples: int
    first_ingest_ms: int
    last_ingest_ms: int
    #: A run without I/O samples (a network test) is analysed from its whole-port samples.
    port_samples: int = 0

    def describe(self) -> str:
        return f"{self.io_samples:,} I/O samples" if self.io_samples else f"{self.port_samples:,} port samples"


def run_span(ch: Any, run_id: str) -> RunSpan:
    """When the run's records reached ClickHouse (ingested_at of the raw tables), i.e. about when they were produced."""
    # HAVING: min() over no row is 1970-01-01, not NULL: a table without the run's rows (run events that have not
    # landed yet, the raw path behind under load) would start the replay reading Kafka from 1970.
    rows = ch.query(
        "SELECT sum(io), sum(port), min(first), max(last) FROM ("
        " SELECT count() AS io, 0 AS port, min(ingested_at) AS first, max(ingested_at) AS last"
        "  FROM ioscale.io_samples WHERE run_id = {r:String} HAVING count() > 0"
        " UNION ALL SELECT 0, count(), min(ingested_at), max(ingested_at)"
        "  FROM ioscale.port_samples WHERE run_id = {r:String} HAVING count() > 0"
        " UNION ALL SELECT 0, 0, min(ingested_at), max(ingested_at) FROM ioscale.run_events WHERE run_id = {r:String}"
        "  HAVING count() > 0)",
        parameters={"r": run_id}).result_rows
    io, port, first, last = rows[0] if rows else (0, 0, None, None)
    if not (io or port) or first is None:
        raise IoscaleError(f"ClickHouse holds no I/O or port samples of run {run_id!r}",
                           "check the run id with `ioscale sql run_list`")
    return RunSpan(run_id, int(io), int(first.timestamp() * 1000), int(last.timestamp() * 1000), int(port))


def job_name(run_id: str) -> str:
    # Flink job names are free text, but keep them readable in the UI and in `stack status`.
    return REPLAY_JOB_PREFIX + re.sub(r"[^A-Za-z0-9._-]", "_", run_id)[:120]


def replay_job(settings: StackSettings, span: RunSpan) -> StreamJob:
    """The live analytics job's arguments (services, analytics.conf) with its checkpoints, consumer group and
    offsets replaced by a bounded read of the run's stretch of the topics."""
    live = next(j for j in stream_jobs(settings) if j.name == ANALYTICS_JOB)
    args = list(live.program_args)
    if "--checkpoint-dir" in args:  # a replay is short and bounded: a failure is simply run again
        i = args.index("--checkpoint-dir")
        del args[i:i + 2]
    args += ["--replay-run", span.run_id,
             "--replay-from-ms", str(span.first_ingest_ms - KAFKA_MARGIN_MS),
             "--group-id", f"ioscale-replay-{uuid.uuid4().hex[:12]}",
             "--job-name", job_name(span.run_id)]
    return StreamJob(job_name(span.run_id), live.entry_class, tuple(args))


def analyze(flink: FlinkJobs, ch: Any, run_id: str, timeout_s: float = 1800.0,
            stall_s: float = STALL_S, clock: Callable[[], float] = time.monotonic,
            sleep: Callable[[float], None] = time.sleep) -> dict[str, int]:
    """Run the bounded replay of ``run_id`` to completion; returns what the result tables hold for it.

    A job that reads, writes and inserts nothing for ``stall_s`` is cancelled and reported, instead of being
    waited on until ``timeout_s``."""
    span = run_span(ch, run_id)
    ui = flink.ui
    ui.step(f"analysing {run_id}: {span.describe()}, produced from "
            f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(span.first_ingest_ms / 1000))} UTC")
    flink.build_job_jar()
    job = replay_job(flink.settings, span)
    job_id = flink.submit(job)
    t0 = clock()
    state, last_report = "RUNNING", -math.inf
    progress, last_progress_at = None, t0
    while clock() - t0 < timeout_s:
        state = flink.job_state(job_id)
        if state in ENDED_JOB_STATES:
            break
        if clock() - last_report > 10:
            held = result_rows(ch, run_id)
            ui.step(f"  {clock() - t0:4.0f} s: {held['io_samples_1s']:,} per-source 1 s rows, "
                    f"{held['scaling_curves']} step rows so far")
            last_report = clock()
            now_progress = (flink.job_records(job_id), held["io_samples_1s"], held["io_fleet_1s"],
                            held["port_samples_1s"])
            if now_progress != progress:
                progress, last_progress_at = now_progress, clock()
            elif clock() - last_progress_at >= stall_s:
                flink.cancel(job_id)
                raise IoscaleError(
                    f"the replay job {job.name} ({job_id}) made no progress for {stall_s:.0f} s "
                    f"(no records read or written, no result rows); cancelled it",
                    "see the job's exceptions and its TaskManager log in the Flink UI (`ioscale stack status`); "
                    "Kafka must still hold the run's records (they are kept for a week)")
        sleep(1)
    if state != "FINISHED":
        raise IoscaleError(f"the replay job {job.name} ({job_id}) ended {state}" if state in ENDED_JOB_STATES
                           else f"the replay job {job.name} ({job_id}) is still {state} after {timeout_s:.0f} s",
                           "see the job's exceptions in the Flink UI (`ioscale stack status` shows its address)")
    held = result_rows(ch, run_id)
    ui.done(f"analysed {run_id} in {time.monotonic() - t0:.0f} s: {held['scaling_curves']} steps, "
            f"{held['io_fleet_1s']:,} fleet seconds, {held['alerts']} alert(s)")
    return held


def result_rows(ch: Any, run_id: str) -> dict[str, int]:
    q = " UNION ALL ".join(f"SELECT '{t}', count() FROM ioscale.{t} FINAL WHERE run_id = {{r:String}}"
                           for t in RESULT_TABLES)
    return {t: int(n) for t, n in ch.query(q, parameters={"r": run_id}).result_rows}
