"""Publishing finished record batches (imports) through the shared producer, and dead-lettering issues.

Run events go first so a consumer knows the run and its steps before the samples arrive.
Import issues become JSON records on the dead-letter topic: counted and queryable, never silent. They go
through the same producer (`send_raw`), so its delivery accounting covers them: what was delivered is known
only after its `flush()`. Samples go through the producer's batch path (`send_many`: one vectorised encoding
per batch, see ioscale.wire.producer) when it has one, else record by record.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from itertools import islice
from typing import Any

from ioscale.wire import topics


def dead_letter_record(stage: str, reason: str, **context: Any) -> bytes:
    return json.dumps({"stage": stage, "reason": reason, "ts_ms": int(time.time() * 1000), **context},
                      sort_keys=True).encode()


#: Records per send_many call: big enough to amortise a batch, small enough to bound memory.
PUBLISH_BATCH = 5000


def publish_import(result, producer, dead_letters: bool = False) -> dict[str, int]:
    """Hand an ImportResult's records to the producer (with ``dead_letters``, its errors as dead letters too);
    returns the counts handed over per topic: delivered are those the producer counts after its flush."""
    counts: dict[str, int] = {}
    send_many = getattr(producer, "send_many", None)

    def send_all(topic: str, records: Iterable[dict]) -> None:
        if send_many is None:
            for rec in records:
                producer.send(topic, rec)
                counts[topic] = counts.get(topic, 0) + 1
            return
        it = iter(records)
        while batch := list(islice(it, PUBLISH_BATCH)):
            send_many(topic, batch)
            counts[topic] = counts.get(topic, 0) + len(batch)

    send_all(topics.RUNS, result.run_events)
    send_all(topics.IO_SAMPLES, result.io_samples)
    send_all(topics.CPU_SAMPLES, result.cpu_samples)
    send_all(topics.PORT_SAMPLES, result.port_samples)
    if dead_letters:
        for issue in result.errors:
            if issue.severity != "error":
                continue
            producer.send_raw(topics.DEAD_LETTER, dead_letter_record(
                "importer", issue.reason, file=issue.file, line=issue.line, field=issue.field,
                run_id=result.run_id))
            counts[topics.DEAD_LETTER] = counts.get(topics.DEAD_LETTER, 0) + 1
    return counts
