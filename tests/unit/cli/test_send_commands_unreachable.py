"""`ioscale import` and `ioscale simulate` as a user runs them (a subprocess), with Kafka unreachable: status lines
of ioscale's own instead of librdkafka's log, exit status 7, and the counts delivered and not delivered, dead letters
included, instead of "sent N to ...". The real librdkafka, and the real schema registry on an ephemeral port."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_registry import memory_registry


REPO = Path(__file__).resolve().parents[3]
FIO_JSON = REPO / "tests" / "fixtures" / "real" / "pkb_fio-2.1.4_sample.json"
STATUS = re.compile(r"\[kafka\] Kafka at 127\.0\.0\.1:1 unreachable for \d+ s \(Connect to ipv4#127\.0\.0\.1:1 failed: "
                    r"Connection refused \(after \d+ms in state CONNECT\)\); \d+ records? buffered; a record not "
                    r"delivered within 3 s makes ioscale give up")


@pytest.fixture(scope="module")
def registry_url() -> Iterator[str]:
    with memory_registry() as url:
        yield url


def ioscale(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IOSCALE_")}
    env |= {"IOSCALE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO / "ingest" / "src")}
    return subprocess.run([sys.executable, "-m", "ioscale.cli", *args], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)


def test_import_says_what_was_not_delivered_dead_letters_included(tmp_path, registry_url):
    text = FIO_JSON.read_text()
    broken = tmp_path / "cut.json"
    broken.write_text(text[: text.index('"jobname"', text.index('"jobname"', text.index('"jobname"') + 1) + 1) + 400])
    done = ioscale(tmp_path, "import", "fio", str(broken), "--bootstrap", "127.0.0.1:1", "--registry-url",
                   registry_url, "--delivery-timeout-s", "3")
    assert done.returncode == 7, done.stderr
    assert "sent" not in done.stdout and "delivered" not in done.stdout
    err = done.stderr.splitlines()
    assert any(line.startswith("error: ") and "malformed or truncated JSON" in line for line in err)
    assert not any(line.startswith("%") or "FAIL|" in line for line in err)  # librdkafka's own log
    assert len([line for line in err if STATUS.fullmatch(line)]) == 1  # at 2 s; the next would be at 7 s
    error = next(line for line in err if line.startswith("Error: "))
    counts = re.search(r"; delivered 0 of (\d+) records \((.*)\), (\d+) not delivered$", error)
    assert error.startswith("Error: gave up on Kafka at 127.0.0.1:1: a record waited 3 s"), error
    by_topic = dict((t, (int(d), int(n))) for d, n, t in re.findall(r"(\d+) of (\d+) to (\S+?)(?:,|$)", counts[2]))
    assert by_topic["ioscale.dead_letter"] == (0, 1)  # the truncation's issue, not delivered either
    assert set(by_topic) == {"ioscale.dead_letter", "ioscale.runs", "ioscale.io_samples"}
    assert int(counts[1]) == int(counts[3]) == sum(n for _, n in by_topic.values())
    assert err[-1] == "Hint: check that Kafka at 127.0.0.1:1 is up (`ioscale stack status kafka`, `ioscale stack " \
                      "logs kafka`), then send the records again"


def test_simulate_exits_7_with_the_counts(tmp_path, registry_url):
    done = ioscale(tmp_path, "simulate", "--scenario", "demo", "--fast", "--step-s", "1", "--ramp-s", "0", "--seed",
                   "1", "--bootstrap", "127.0.0.1:1", "--registry-url", registry_url, "--delivery-timeout-s", "3")
    assert done.returncode == 7, done.stderr
    assert "sent" not in done.stdout
    err = [line for line in done.stderr.splitlines() if not line.startswith("[simulate]")]
    assert len(err) == 3, err
    assert STATUS.fullmatch(err[0]), err[0]
    assert re.fullmatch(r"Error: gave up on Kafka at 127\.0\.0\.1:1: a record waited 3 s .*; delivered 0 of 52 "
                        r"records \(.*\), 52 not delivered", err[1]), err[1]
    assert err[2].startswith("Hint: check that Kafka at 127.0.0.1:1 is up")
