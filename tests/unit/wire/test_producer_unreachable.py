"""Kafka unreachable (nothing listens on 127.0.0.1:1), with the real librdkafka and a real schema registry:
librdkafka's own log stays off, ioscale prints one status line a period, a full buffer makes sending wait, and
giving up at the delivery timeout raises NotDelivered with the counts delivered and not delivered."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from ioscale.errors import ExitStatus
from ioscale.simulator import make_engine
from ioscale.wire import topics
from ioscale.wire.producer import STATUS_AFTER_S, NotDelivered, TelemetryProducer

from memory_registry import memory_registry

UNREACHABLE = "127.0.0.1:1"


@pytest.fixture(scope="module")
def registry_url() -> Iterator[str]:
    with memory_registry() as url:
        yield url


def cpu_samples(n: int) -> list[dict]:
    engine = make_engine("demo", seed=1, start_ms=1_767_225_600_000, step_s=60, ramp_s=0)
    out = [r for b in engine.batches() for t, r in b.records if t == topics.CPU_SAMPLES]
    assert len(out) >= n
    return out[:n]


class Lines:
    """The status lines with the second each came, from the producer's creation."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.got: list[tuple[float, str]] = []

    def __call__(self, line: str) -> None:
        self.got.append((time.monotonic() - self.t0, line))


@pytest.mark.slow
def test_unreachable_kafka_one_status_line_a_second_then_give_up_with_counts(registry_url, capfd):
    lines = Lines()
    p = TelemetryProducer(UNREACHABLE, registry_url, {"delivery.timeout.ms": 6000}, status=lines, status_every_s=1.0)
    p.send_many(topics.CPU_SAMPLES, cpu_samples(25))
    with pytest.raises(NotDelivered) as raised:
        p.flush()
    elapsed = time.monotonic() - lines.t0
    assert 6.0 <= elapsed < 8.0  # gave up at the delivery timeout, not at flush's own limit (11 s)

    # One line at STATUS_AFTER_S, then one a second until the records timed out at 6 s: 4 or 5 lines.
    times = [t for t, _ in lines.got]
    assert 4 <= len(times) <= 5, lines.got
    assert STATUS_AFTER_S <= times[0] < STATUS_AFTER_S + 0.6
    assert all(0.9 <= b - a <= 1.4 for a, b in zip(times, times[1:])), times
    pattern = (r"\[kafka\] Kafka at 127\.0\.0\.1:1 unreachable for (\d+) s \(Connect to ipv4#127\.0\.0\.1:1 failed: "
               r"Connection refused \(after \d+ms in state CONNECT\)\); 25 records buffered; a record not delivered "
               r"within 6 s makes ioscale give up")
    spells = [int(re.fullmatch(pattern, line).group(1)) for _, line in lines.got]
    assert spells == sorted(spells) and spells[0] == 2 and spells[-1] in (5, 6)

    err = raised.value
    assert err.exit_status == ExitStatus.NOT_DELIVERED == 7
    assert re.fullmatch(r"gave up on Kafka at 127\.0\.0\.1:1: a record waited 6 s \(delivery\.timeout\.ms\) without "
                        r"being delivered \(Connect to .* Connection refused .*\); delivered 0 of 25 records "
                        r"\(0 of 25 to ioscale\.cpu_samples\), 25 not delivered", str(err)), str(err)
    assert "ioscale stack status kafka" in err.hint
    assert (p.produced, p.failed, p.delivered) == ({topics.CPU_SAMPLES: 25}, {topics.CPU_SAMPLES: 25},
                                                   {topics.CPU_SAMPLES: 0})
    with pytest.raises(NotDelivered) as again:  # given up for good: the next send says the same, sends nothing
        p.send(topics.CPU_SAMPLES, cpu_samples(1)[0])
    assert again.value is err and p.produced[topics.CPU_SAMPLES] == 25
    # librdkafka would have printed a "%3|...|FAIL|" line per connection attempt, ~12 in 6 s: none
    assert capfd.readouterr().err == ""


@pytest.mark.slow
def test_a_full_buffer_makes_sending_wait_saying_so_then_give_up(registry_url, capfd):
    lines = Lines()
    p = TelemetryProducer(UNREACHABLE, registry_url, {"delivery.timeout.ms": 4000, "queue.buffering.max.messages": 10},
                          status=lines, status_every_s=1.0)
    records = cpu_samples(30)
    with pytest.raises(NotDelivered) as raised:
        p.send_many(topics.CPU_SAMPLES, records)  # the 11th record finds the buffer full: send_many waits
    elapsed = time.monotonic() - lines.t0
    assert 4.0 <= elapsed < 6.0
    assert p.produced[topics.CPU_SAMPLES] == 10 and p.failed[topics.CPU_SAMPLES] == 10
    assert str(raised.value).endswith("delivered 0 of 10 records (0 of 10 to ioscale.cpu_samples), 10 not delivered")
    assert 2 <= len(lines.got) <= 3, lines.got
    assert all(re.fullmatch(r"\[kafka\] Kafka at 127\.0\.0\.1:1 unreachable for \d+ s \(.*\); 10 records buffered "
                            r"\(buffer full for \d+ s: sending waits\); a record not delivered within 4 s makes "
                            r"ioscale give up", line) for _, line in lines.got), lines.got
    assert capfd.readouterr().err == ""


def test_status_lines_go_to_stderr_by_default(registry_url, capfd):
    p = TelemetryProducer(UNREACHABLE, registry_url, {"delivery.timeout.ms": 3500})
    p.send(topics.CPU_SAMPLES, cpu_samples(1)[0])
    with pytest.raises(NotDelivered, match="delivered 0 of 1 record "):
        p.flush()
    out, err = capfd.readouterr()
    assert out == ""
    # the default period is 5 s: only the first line, at 2 s, fits before the give-up at 3.5 s
    assert len(err.splitlines()) == 1
    assert re.fullmatch(r"\[kafka\] Kafka at 127\.0\.0\.1:1 unreachable for 2 s \(Connect to ipv4#127\.0\.0\.1:1 failed: "
                        r"Connection refused \(after \d+ms in state CONNECT\)\); 1 record buffered; a record not "
                        r"delivered within 3\.5 s makes ioscale give up\n", err), err
    assert p.status_lines == 1
