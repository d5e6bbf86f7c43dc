"""`ioscale import perfmon|esxtop` (streamed) and `ioscale collect perfmon|esxtop --follow`, in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_producer import FakeProducer

from ioscale.cli import main
from ioscale.errors import ExitStatus
from ioscale.wire import producer as wire_producer
from ioscale.wire import topics

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "unit" / "importers" / "data"


class BatchingFakeProducer(FakeProducer):
    instances: list["BatchingFakeProducer"] = []

    def __init__(self, bootstrap: str, registry: str, config: dict | None = None) -> None:
        super().__init__()
        self.batches: list[int] = []
        self.raw: list[tuple[str, bytes]] = []
        self.delivered: dict[str, int] = {}
        BatchingFakeProducer.instances.append(self)

    def send_many(self, topic: str, records) -> None:
        self.batches.append(len(records))
        for r in records:
            self.send(topic, r)

    def send(self, topic: str, record: dict) -> None:
        super().send(topic, record)
        self.delivered[topic] = self.delivered.get(topic, 0) + 1

    def send_raw(self, topic: str, value: bytes) -> None:
        self.raw.append((topic, value))

    def flush(self, timeout_s: float = 60.0) -> None:
        pass


@pytest.fixture
def env(clean_env, monkeypatch):
    """Not conftest's env: these commands send in batches, counted by BatchingFakeProducer."""
    BatchingFakeProducer.instances = []
    monkeypatch.setattr(wire_producer, "TelemetryProducer", BatchingFakeProducer)
    return clean_env


def test_import_esxtop_dry_run_counts_and_names_the_runs(env, capsys):
    rc = main(["import", "esxtop", str(DATA / "esxtop_batch_vmhba_vm.csv"), "--dry-run"])
    out = capsys.readouterr().out
    assert rc == ExitStatus.OK and not BatchingFakeProducer.instances
    assert "3 rows, 3 interval(s), 15 s; hosts esx01.lab.local" in out
    assert ("12 to ioscale.cpu_samples, 16 to ioscale.io_samples, 9 to ioscale.port_samples, 12 to ioscale.runs; "
            "0 errors, 4 warnings (dry run: nothing sent)") in out
    assert "-device: 6 samples" in out and "-vdisk: 6 samples" in out


def test_import_perfmon_sends_in_batches_and_joins_a_given_run(env, capsys):
    rc = main(["import", "perfmon", str(DATA / "perfmon_hyperv_host.csv"), "--run-id", "dskspd-1"])
    out = capsys.readouterr().out
    assert rc == ExitStatus.OK
    (producer,) = BatchingFakeProducer.instances
    producer.validate()
    assert {r["run_id"] for r in producer.of(topics.CPU_SAMPLES)} == {"dskspd-1"}
    assert {e["run_id"] for e in producer.of(topics.RUNS)} == {"dskspd-1-vsd", "dskspd-1-csvfs"}
    assert len(producer.batches) == 4      # one per topic: every topic's records fit one batch
    assert "run dskspd-1: 29 samples (joined to the given run, step from the time)" in out
    assert "ioscale analyze dskspd-1-csvfs dskspd-1-vsd" in out


def test_import_of_a_non_pdh_file_exits_bad_input(env, tmp_path, capsys):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    rc = main(["import", "perfmon", str(bad), "--dry-run"])
    assert rc == ExitStatus.BAD_INPUT
    assert "not a PDH CSV/TSV header" in capsys.readouterr().err


def test_collect_perfmon_needs_follow(env, capsys):
    rc = main(["collect", "perfmon", "--run-id", "r"])
    err = capsys.readouterr().err
    assert rc != ExitStatus.OK and "collect perfmon needs --follow FILE" in err and "typeperf" in err


def test_collect_esxtop_follows_until_idle(env, tmp_path, capsys):
    log = tmp_path / "esx.csv"
    log.write_bytes((DATA / "esxtop_batch_vmhba_vm.csv").read_bytes())
    rc = main(["collect", "esxtop", "--follow", str(log), "--run-id", "r", "--idle-timeout-s", "0.2",
               "--poll-s", "0.05"])
    out = capsys.readouterr().out
    assert rc == ExitStatus.OK
    assert "sent 45 records for run r from 3 rows (ended: idle)" in out
    (producer,) = BatchingFakeProducer.instances
    assert len(producer.of(topics.IO_SAMPLES)) == 16


def test_import_errors_go_to_the_dead_letter_topic(env, tmp_path, capsys):
    import json

    lines = (DATA / "esxtop_batch_vmhba_vm.csv").read_text().splitlines()
    lines[2] = lines[2].replace('"58.2"', '"x"', 1)      # Physical Cpu(0)\% Processor Time of the second row
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    assert main(["import", "esxtop", str(bad)]) == ExitStatus.BAD_INPUT
    (producer,) = BatchingFakeProducer.instances
    ((topic, value),) = producer.raw
    letter = json.loads(value)
    assert topic == topics.DEAD_LETTER and (letter["line"], letter["reason"]) == (3, "not a number: 'x'")
    assert letter["field"] == "Physical Cpu(0)\\% Processor Time" and letter["run_id"].startswith("esxtop-")
