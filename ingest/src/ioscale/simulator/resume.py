"""Resuming a run whose process was killed: send exactly the records that are not on Kafka yet.

The engine makes the same records for the same scenario, seed and start; ioscale.wire.resume reads, for every
key (source) of the run, the last record Kafka holds, and the delivered records of a key are a prefix of the key's
sequence (see there why). So:

1. `locate` regenerates the run (no pacing, no sending) and finds each last delivered record in its key's
   sequence: its position is how many records of that key to skip. A record that is not found means the records on
   Kafka were made with other settings: nothing is sent.
2. `skip_delivered` regenerates it again and drops the first `position` records of each key: batches wholly
   delivered vanish, partly delivered ones keep their missing records (as dicts), later ones pass unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ioscale.errors import ExitStatus, IoscaleError
from ioscale.simulator.engine import Batch
from ioscale.wire import topics
from ioscale.wire.columns import column_values
from ioscale.wire.producer import block_keys, source_key
from ioscale.wire.resume import LastDelivered, record_identity

#: How far before the run's start the scan of Kafka begins (Kafka's message time is when a record was produced).
#: A real-time run sends nothing before its start_ms, nor does a fast run started after it; the margin covers a
#: start given a little ahead of the moment the process started and the clock stepping back meanwhile.
SCAN_MARGIN_MS = 60_000

Key = tuple[str, bytes]   # (topic, source_key)

#: The topics the engine writes to.
TOPICS = (topics.RUNS, topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES)


class ResumeUsageError(IoscaleError):
    """--resume without what it needs."""

    exit_status = ExitStatus.USAGE


class RunMismatch(IoscaleError):
    """Kafka holds records of the run ids that this scenario, seed and start do not make."""

    exit_status = ExitStatus.BAD_INPUT


def scan_since_ms(start_ms: int) -> int:
    return start_ms - SCAN_MARGIN_MS


def check_resumable(start_ms: int | None, seed: int | None, clock: Callable[[], float] = time.time) -> None:
    """--resume regenerates the run: it needs the original seed and start, and a start that has passed."""
    if seed is None or start_ms is None:
        raise ResumeUsageError("--resume needs the --seed and --start-ms of the run it resumes",
                           "pass them as the first run had them (its run id ends in -<start, UTC>-s<seed>)")
    now_ms = int(clock() * 1000)
    if start_ms > now_ms:
        raise ResumeUsageError(f"--start-ms {start_ms} is {(start_ms - now_ms) / 1000:.0f} s in the future: "
                           "a run that has not started has nothing on Kafka to resume",
                           "drop --resume to start it, or pass the --start-ms of the run that was killed")


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


@dataclass
class ResumePoint:
    skip: dict[Key, int] = field(default_factory=dict)   # per key: its records already on Kafka
    total: int = 0                                       # records of the whole run
    last_ts_ms: int | None = None                        # the latest timestamp among those on Kafka

    @property
    def delivered(self) -> int:
        return sum(self.skip.values())

    @property
    def to_send(self) -> int:
        return self.total - self.delivered


def _units(batch: Batch) -> Iterator[tuple[str, list[bytes], list[Any], Callable[[], list[dict[str, Any]]]]]:
    """(topic, key of each record, ts_ms of each record, the records as dicts on demand) per part of a batch:
    the events one by one, then each block."""
    for topic, record in batch.events:
        yield topic, [source_key(record)], [record["ts_ms"]], lambda r=record: [r]
    for block in batch.blocks:
        yield block.topic, block_keys(block), column_values(block.columns["ts_ms"], block.n), block.to_records


def _mismatch(what: str) -> RunMismatch:
    return RunMismatch(f"the records on Kafka do not match this scenario, seed and start: {what}",
                        "pass the original --seed, --start-ms, --step-s and --ramp-s (and --run-id-prefix) of the "
                        "run that was killed")


def locate(batches: Iterable[Batch], delivered: Mapping[Key, LastDelivered]) -> ResumePoint:
    """Where each key's last delivered record sits in the regenerated run; raises when one is not there or differs."""
    point = ResumePoint()
    pending = {k: d for k, d in delivered.items()}
    counts: dict[Key, int] = {}
    for batch in batches:
        point.total += len(batch)
        if not pending:
            continue
        for topic, keys, stamps, records in _units(batch):
            built = None
            for i, key in enumerate(keys):
                k = (topic, key)
                target = pending.get(k)
                if target is None:
                    continue
                counts[k] = counts.get(k, 0) + 1
                if stamps[i] != target.record.get("ts_ms"):
                    continue
                if built is None:
                    built = records()
                record = built[i]
                if record_identity(record) != target.identity:
                    continue
                differs = sorted(f for f, v in record.items() if f in target.record and target.record[f] != v)
                if differs:
                    raise _mismatch(f"the last record of {key.decode()} on {topic} (partition {target.partition}, "
                                    f"offset {target.offset}) differs from the regenerated one in "
                                    f"{', '.join(differs)}")
                point.skip[k] = counts[k]
                ts = target.record["ts_ms"]
                point.last_ts_ms = ts if point.last_ts_ms is None else max(point.last_ts_ms, ts)
                del pending[k]
    if pending:
        k, target = next(iter(pending.items()))
        raise _mismatch(f"{len(pending)} of the {len(delivered)} sources on Kafka end in a record the regenerated "
                        f"run does not have, e.g. {k[1].decode()} on {k[0]} at {_iso(target.record['ts_ms'])} "
                        f"({dict(zip(('event_type', 'step_index'), target.identity[1:3]))})")
    return point


def skip_delivered(batches: Iterable[Batch], skip: Mapping[Key, int]) -> Iterator[Batch]:
    """The batches without the first skip[key] records of each key, in order; batches left empty are dropped."""
    remaining = {k: n for k, n in skip.items() if n > 0}
    left = sum(remaining.values())
    for batch in batches:
        if not left:
            yield batch
            continue
        singles: list[tuple[str, dict[str, Any]]] = []
        blocks = []
        for topic, record in batch.events:
            k = (topic, source_key(record))
            n = remaining.get(k, 0)
            if n:
                remaining[k] = n - 1
                left -= 1
            else:
                singles.append((topic, record))
        for block in batch.blocks:
            topic = block.topic
            keep = []
            for i, key in enumerate(block_keys(block)):
                k = (topic, key)
                n = remaining.get(k, 0)
                if n:
                    remaining[k] = n - 1
                    left -= 1
                else:
                    keep.append(i)
            if len(keep) == block.n:
                blocks.append(block)
            elif keep:  # partly delivered: the rest one by one (once per key, at the kill)
                records = block.to_records()
                singles.extend((topic, records[i]) for i in keep)
        if singles or blocks:
            yield Batch(batch.due_ms, singles, batch.run_key, batch.step_label, blocks=blocks)
