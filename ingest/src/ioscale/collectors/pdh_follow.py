"""Follow a perf-counter log that is still being written (typeperf ``-o``, a data collector set, ``esxtop -b >``)
and stream its samples as the rows arrive.

The file is read from its start, then polled for growth every ``poll_s``. Only complete lines are parsed: the
bytes after the last newline wait for the rest of their line (the writer flushes mid-line), so a row is never
read half-written. The follow ends on ``stop()``, Ctrl-C, or when the file has not grown for ``idle_timeout_s``
(the writer has finished); a partial last line left then is reported, not parsed. A file that shrinks (the
writer started over) ends the follow with an error: its rows would repeat times already sent.

Records go out through ``producer_like.send(topic, record)`` as ``importers.hostcounters`` builds them: a row's
samples are sent once the row is complete (the very first once the second gives its interval). Samples join
the given run with ``step_index = -1``, as the Linux collector's do; I/O layers other than the counted one go
to companion runs ``<run>-<layer>``, whose run events are sent when the follow ends.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ioscale.importers import COUNTER_MAPS
from ioscale.importers.common import ImportIssue, Issues
from ioscale.importers.hostcounters import Stats, stream_lines
from ioscale.importers.pdh import IssueBudget, LineSplitter
from ioscale.wire import topics

CHUNK = 1 << 20


@dataclass
class FollowReport:
    sent: int = 0
    by_topic: dict[str, int] = field(default_factory=dict)
    stats: Stats = field(default_factory=Stats)
    errors: list[ImportIssue] = field(default_factory=list)
    ended_by: str = ""          # "stop", "interrupt", "idle", "truncated", "missing"
    partial_line_bytes: int = 0


def follow_lines(path: str, issues: Issues, report: FollowReport, *, poll_s: float = 0.5,
                 idle_timeout_s: float | None = None, stop: Callable[[], bool] = lambda: False,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 ) -> Iterator[str]:
    """Complete lines of a growing file, in order, as they are written (see the module doc for when it ends)."""
    last_growth = clock()
    while not os.path.exists(path):   # the writer may not have created it yet
        if stop():
            report.ended_by = "stop"
            return
        if idle_timeout_s is not None and clock() - last_growth >= idle_timeout_s:
            issues.error(f"no such file after {idle_timeout_s:g} s: start typeperf/esxtop first, or check the path")
            report.ended_by = "missing"
            return
        sleep(poll_s)
    splitter = LineSplitter()
    with open(path, "rb") as f:
        last_growth = clock()
        while True:
            if stop():
                report.ended_by = "stop"
                break
            data = f.read(CHUNK)
            if data:
                last_growth = clock()
                yield from splitter.feed(data)
                continue
            if os.fstat(f.fileno()).st_size < f.tell():
                issues.error("the file shrank while followed (the writer started over?): follow ended; start "
                             "a new follow for the new file")
                report.ended_by = "truncated"
                break
            if idle_timeout_s is not None and clock() - last_growth >= idle_timeout_s:
                report.ended_by = "idle"
                break
            sleep(poll_s)
    tail = splitter.partial
    if tail:
        report.partial_line_bytes = len(tail.encode("utf-8", "replace"))
        issues.warn(f"the last line was incomplete when the follow ended ({report.partial_line_bytes} bytes): "
                    "not imported")


def collect_pdh(producer_like: Any, tool: str, path: str, run_id: str, *, vm: str = "", poll_s: float = 0.5,
                idle_timeout_s: float | None = None, stop: Callable[[], bool] = lambda: False,
                sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                now_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> FollowReport:
    """Follow ``path`` (a ``tool`` = perfmon | esxtop log) and send its samples until it ends; never raises on
    bad input (issues are in the report)."""
    report = FollowReport()
    issues = Issues(path, report.errors)
    budget = IssueBudget(path, report.errors)
    lines = follow_lines(path, issues, report, poll_s=poll_s, idle_timeout_s=idle_timeout_s, stop=stop,
                         sleep=sleep, clock=clock)
    # The plausibility bound moves with the clock: a follow can run for days.
    stream, records = stream_lines(COUNTER_MAPS[tool](), lines, source=path, run_id=run_id, attached=True,
                                   now_ms=now_ms() + 366 * 86_400_000, issues=budget, vm=vm)

    def send(topic: str, rec: dict) -> None:
        producer_like.send(topic, rec)
        report.sent += 1
        report.by_topic[topic] = report.by_topic.get(topic, 0) + 1

    try:
        for topic, rec in records:
            send(topic, rec)
    except KeyboardInterrupt:
        report.ended_by = "interrupt"
    for ev in stream.run_events():
        send(topics.RUNS, ev)
    budget.close()
    report.stats = stream.stats
    return report


__all__ = ["FollowReport", "collect_pdh", "follow_lines"]
