"""Following a counter log while it is written: rows as they complete, partial lines held back, idle end."""

from __future__ import annotations

from pathlib import Path

from ioscale.collectors.pdh_follow import collect_pdh
from ioscale.importers import import_files
from ioscale.wire import topics

DATA = Path(__file__).resolve().parents[1] / "importers" / "data"
NOW_MS = 1_795_219_200_000


class Writer:
    """Appends the next piece of the file at each poll (the collector's ``sleep``), then stays idle."""

    def __init__(self, path: Path, pieces: list[bytes]):
        self.path, self.pieces, self.t, self.polls = path, list(pieces), 0.0, 0

    def sleep(self, s: float) -> None:
        self.t += s
        self.polls += 1
        if self.pieces:
            with open(self.path, "ab") as f:
                f.write(self.pieces.pop(0))

    def clock(self) -> float:
        return self.t


def pieces_of(data: bytes, n: int) -> list[bytes]:
    """n pieces cut at arbitrary byte offsets (mid-row, mid-number)."""
    step = len(data) // n + 1
    return [data[i:i + step] for i in range(0, len(data), step)]


def test_follow_sends_what_an_import_of_the_finished_file_holds(producer, tmp_path):
    src = DATA / "esxtop_batch_vmhba_vm.csv"
    log = tmp_path / "esxtop.csv"
    log.write_bytes(b"")
    w = Writer(log, pieces_of(src.read_bytes(), 7))
    report = collect_pdh(producer, "esxtop", str(log), "run-9", poll_s=1.0, idle_timeout_s=3.0, sleep=w.sleep,
                         clock=w.clock, now_ms=lambda: NOW_MS)
    producer.validate()
    whole = import_files("esxtop", [src], run_id="run-9", now_ms=NOW_MS)
    assert producer.of(topics.IO_SAMPLES) == whole.io_samples
    assert producer.of(topics.CPU_SAMPLES) == whole.cpu_samples
    assert producer.of(topics.PORT_SAMPLES) == whole.port_samples
    # Joined to run-9 (step from the time); only the companion runs get run events.
    assert {e["run_id"] for e in producer.of(topics.RUNS)} == {"run-9-device", "run-9-vdisk"}
    assert report.ended_by == "idle" and report.stats.rows == 3 and report.partial_line_bytes == 0
    assert report.sent == len(producer.records) == 37 + 8      # samples + 2 companion runs x 4 events
    assert [e.severity for e in report.errors] == ["warning"] * 4     # the header's unmapped columns, as on import


def test_rows_are_sent_as_they_complete_and_a_partial_last_line_is_held(producer, tmp_path):
    src = (DATA / "perfmon_hyperv_host.csv").read_bytes()
    lines = src.split(b"\r\n")
    log = tmp_path / "host.csv"
    log.write_bytes(b"\r\n".join(lines[:3]) + b"\r\n" + lines[3][:40])   # header, 2 rows, a row cut mid-way
    sent_at_poll = []
    w = Writer(log, [])

    def sleep(s: float) -> None:
        sent_at_poll.append(len(producer.records))
        w.sleep(s)

    report = collect_pdh(producer, "perfmon", str(log), "r", poll_s=0.5, idle_timeout_s=1.0, sleep=sleep,
                         clock=w.clock, now_ms=lambda: NOW_MS)
    # The two complete rows give one interval (the first row only seeds it): its samples went out before the
    # first poll; the cut row never did.
    assert sent_at_poll[0] == len(producer.records) - len(producer.of(topics.RUNS))
    assert {r["ts_ms"] for r in producer.of(topics.CPU_SAMPLES)} == {1_773_147_600_125}
    assert report.partial_line_bytes == 40 and report.ended_by == "idle"
    assert str(report.errors[-1]) == \
        f"warning: {log}: the last line was incomplete when the follow ended (40 bytes): not imported"


def test_stop_and_ctrl_c_end_the_follow_keeping_what_was_sent(producer, tmp_path):
    src = (DATA / "esxtop_batch_vmhba_vm.csv").read_bytes()
    log = tmp_path / "e.csv"
    log.write_bytes(src)
    polls = []

    def interrupt(_s: float) -> None:
        polls.append(1)
        raise KeyboardInterrupt

    report = collect_pdh(producer, "esxtop", str(log), "r", sleep=interrupt, now_ms=lambda: NOW_MS)
    assert report.ended_by == "interrupt" and len(producer.of(topics.CPU_SAMPLES)) == 12 and polls == [1]
    p2 = type(producer)()
    report = collect_pdh(p2, "esxtop", str(log), "r", stop=lambda: True, now_ms=lambda: NOW_MS)
    assert report.ended_by == "stop" and p2.records == []


def test_a_shrinking_file_ends_the_follow_with_an_error(producer, tmp_path):
    src = (DATA / "esxtop_batch_vmhba_vm.csv").read_bytes()
    log = tmp_path / "e.csv"
    log.write_bytes(src)

    def restart(_s: float) -> None:
        log.write_bytes(src[:100])   # esxtop started over into the same file

    report = collect_pdh(producer, "esxtop", str(log), "r", sleep=restart, now_ms=lambda: NOW_MS)
    errors = [e.reason for e in report.errors if e.severity == "error"]
    assert report.ended_by == "truncated" and len(errors) == 1 and "the file shrank while followed" in errors[0]


def test_a_file_that_never_appears(producer, tmp_path):
    w = Writer(tmp_path / "x", [])
    report = collect_pdh(producer, "perfmon", str(tmp_path / "nope.csv"), "r", poll_s=1, idle_timeout_s=2,
                         sleep=w.sleep, clock=w.clock, now_ms=lambda: NOW_MS)
    assert report.ended_by == "missing" and producer.records == [] and w.polls == 2
    assert "no such file after 2 s" in report.errors[0].reason
