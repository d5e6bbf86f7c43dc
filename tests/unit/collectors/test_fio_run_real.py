"""`run_fio` with the real fio on small file-backed jobs in a tmp dir: the run directory it keeps, the linked
report run, the options after `--`, and the errors a user meets (fio missing, a bad job, fio failing)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ioscale.collectors.fio_runner import FioRunError, fio_report_run, report_run_id, run_fio
from ioscale.wire import topics
from ioscale.wire.publish import publish_import

pytestmark = pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")

ENGINE = "libaio" if shutil.which("fio") and "libaio" in subprocess.run(
    ["fio", "--enghelp"], capture_output=True, text=True).stdout.split() else "psync"

# No size in the job: it comes from `-- --size=...`, so the report shows whether it reached fio.
TIMED = """\
[global]
ioengine={engine}
filename={data}
bs=4k
rw=randrw
rwmixread=70
time_based
runtime=2
[job1]
iodepth=1
"""


def _doc(path: Path) -> dict:
    return json.loads(path.read_text())


def test_run_dir_keeps_each_steps_report_equal_to_the_live_samples(tmp_path: Path, producer) -> None:
    job = tmp_path / "mixed.fio"
    job.write_text(TIMED.format(engine=ENGINE, data=tmp_path / "data"))
    out = tmp_path / "runs" / "r1"
    notes: list[str] = []
    run = run_fio(producer, [job], run_id="r1", sweep=("iodepth", ["1", "4"]), host="h1", out_dir=out,
                  extra_args=["--size=1m"], timeout_s=60, log=notes.append)
    producer.validate()

    assert run.run_dir == out and run.fio_version.startswith("fio-3.")
    assert sorted(p.name for p in out.iterdir()) == [
        "step-000.json", "step-000.mixed.fio", "step-000.stderr.txt",
        "step-001.json", "step-001.mixed.fio", "step-001.stderr.txt"]
    assert "iodepth=4" in (out / "step-001.mixed.fio").read_text().splitlines()[-1]
    samples = producer.of(topics.IO_SAMPLES)
    assert {s["run_id"] for s in samples} == {"r1"}
    for step, depth in ((0, "1"), (1, "4")):
        doc = _doc(out / f"step-{step:03d}.json")
        assert doc["fio version"] == run.fio_version
        assert doc["global options"]["size"] == "1m"  # the option after -- reached fio
        (fio_job,) = doc["jobs"]
        assert fio_job["job options"]["iodepth"] == depth
        live = [s for s in samples if s["step_index"] == step]
        assert len(live) >= 4  # 2 directions x (>= 1 status interval + the tail)
        for key, direction in (("read", "READ"), ("write", "WRITE")):
            mine = [s for s in live if s["direction"] == direction]
            # Exact, not within a tolerance: the live samples are differences of fio's cumulative reports and
            # the last one is taken against the final report, which is the very document kept.
            assert sum(s["ops"] for s in mine) == fio_job[key]["total_ios"] > 0
            assert sum(s["bytes"] for s in mine) == fio_job[key]["io_bytes"] == fio_job[key]["total_ios"] * 4096
            assert sum(s["latency_count"] for s in mine) == sum(fio_job[key]["clat_ns"]["bins"].values())
        assert run.steps[step].report == out / f"step-{step:03d}.json"
        assert run.steps[step].command[-1] == str(out / f"step-{step:03d}.mixed.fio")
        assert "--size=1m" in run.steps[step].command
    first = producer.of(topics.RUNS)[0]
    assert first["event_type"] == "RUN_STARTED" and first["tags"]["fio_report_run_id"] == "r1-fio-report"
    assert [n for n in notes if n.startswith("warning")] == []

    # fio's own reports as the linked run: same steps and loads, fio's totals and percentile tables
    report = fio_report_run(run, now_ms=max(s["ts_ms"] for s in samples) + 60_000)
    assert report.run_id == report_run_id("r1") == "r1-fio-report" and report.errors == []
    counts = publish_import(report, producer)
    producer.validate()
    assert counts == {topics.RUNS: 6, topics.IO_SAMPLES: 4}
    for s in report.io_samples:
        doc_dir = _doc(out / f"step-{s['step_index']:03d}.json")["jobs"][0][s["direction"].lower()]
        assert s["ops"] == doc_dir["total_ios"] and s["bytes"] == doc_dir["io_bytes"]
        assert s["host"] == "h1" and s["tags"]["live_run_id"] == "r1"
        assert s["percentile_q"][-1] == 0.9999 and len(s["percentile_ns"]) == len(s["percentile_q"]) == 17
        assert sum(s["latency_bucket_count"]) == s["latency_count"] == doc_dir["clat_ns"]["N"]
    assert sorted((s["step_index"], s["direction"]) for s in report.io_samples) == [
        (0, "READ"), (0, "WRITE"), (1, "READ"), (1, "WRITE")]
    live_ended = [e for e in producer.of(topics.RUNS) if e["event_type"] == "STEP_ENDED" and e["run_id"] == "r1"]
    rep_ended = [e for e in report.run_events if e["event_type"] == "STEP_ENDED"]
    assert [(e["step_index"], e["step_label"], e["load"]) for e in rep_ended] == \
        [(e["step_index"], e["step_label"], e["load"]) for e in live_ended]
    assert [e["load"]["outstanding_ios_per_target"] for e in rep_ended] == [1, 4]
    assert report.run_events[0]["tags"]["live_run_id"] == "r1" and report.run_events[0]["tool"] == "FIO"


def test_extra_size_sets_the_io_fio_does(tmp_path: Path, producer) -> None:
    # Not time based: fio reads the file once, so --size=1m must show as exactly 1 MiB of I/O.
    job = tmp_path / "once.fio"
    job.write_text(f"[once]\nioengine=psync\nfilename={tmp_path / 'data'}\nbs=4k\nrw=read\n")
    run = run_fio(producer, [job], run_id="r2", out_dir=tmp_path / "r2", extra_args=["--size=1m"], timeout_s=60)
    doc = _doc(run.steps[0].report)
    assert doc["jobs"][0]["read"]["io_bytes"] == 1 << 20 and doc["jobs"][0]["read"]["total_ios"] == 256
    assert sum(s["ops"] for s in producer.of(topics.IO_SAMPLES)) == 256


def test_an_option_the_job_file_overrides_is_named(tmp_path: Path, producer) -> None:
    job = tmp_path / "sized.fio"
    job.write_text(f"[global]\nsize=2m\n[once]\nioengine=psync\nfilename={tmp_path / 'data'}\nbs=4k\nrw=read\n")
    notes: list[str] = []
    run = run_fio(producer, [job], run_id="r3", out_dir=tmp_path / "r3", extra_args=["--size=1m"], timeout_s=60,
                  log=notes.append)
    assert _doc(run.steps[0].report)["jobs"][0]["read"]["io_bytes"] == 2 << 20  # fio's rule: the job file wins
    assert [n for n in notes if n.startswith("warning")] == [
        "warning: fio ignored --size=1m: the job file sets size=2m (job file settings win over command-line "
        "ones; edit the job file)"]


def test_missing_fio_says_how_to_get_it_and_sends_nothing(tmp_path: Path, producer) -> None:
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=read\n")
    with pytest.raises(FioRunError) as e:
        run_fio(producer, [job], fio=str(tmp_path / "no-such-fio"), out_dir=tmp_path / "r")
    assert "fio not found" in str(e.value) and "--fio PATH" in e.value.hint
    assert producer.records == [] and not (tmp_path / "r").exists()


def test_a_job_fio_refuses_fails_before_anything_is_sent(tmp_path: Path, producer) -> None:
    job = tmp_path / "bad.fio"
    job.write_text(f"[global]\nbogus_opt=3\n[j]\nrw=read\nsize=1m\nfilename={tmp_path / 'data'}\n")
    with pytest.raises(FioRunError) as e:
        run_fio(producer, [job], out_dir=tmp_path / "r")
    stderr = tmp_path / "r" / "step-000.stderr.txt"
    assert "Bad option <bogus_opt=3>" in str(e.value) and str(stderr) in e.value.hint
    assert "Bad option <bogus_opt=3>" in stderr.read_text()
    assert producer.records == []


def test_a_bad_option_after_the_separator_fails_before_anything_is_sent(tmp_path: Path, producer) -> None:
    job = tmp_path / "j.fio"
    job.write_text(f"[j]\nrw=read\nsize=1m\nfilename={tmp_path / 'data'}\n")
    with pytest.raises(FioRunError) as e:
        run_fio(producer, [job], out_dir=tmp_path / "r", extra_args=["--bs=foo"])
    assert "failed parsing bs=foo" in str(e.value) and producer.records == []
    with pytest.raises(FioRunError) as e:
        run_fio(producer, [job], out_dir=tmp_path / "r2", extra_args=["--output=x.json"])
    assert "--output cannot pass through" in str(e.value) and producer.records == []


def test_fio_failing_keeps_its_stderr_and_closes_the_run(tmp_path: Path, producer) -> None:
    job = tmp_path / "proc.fio"
    job.write_text("[j]\nioengine=psync\nrw=write\nsize=1m\nfilename=/proc/version\n")  # not writable
    with pytest.raises(FioRunError) as e:
        run_fio(producer, [job], run_id="r4", out_dir=tmp_path / "r4", timeout_s=60)
    stderr = tmp_path / "r4" / "step-000.stderr.txt"
    assert str(e.value).startswith("fio exited 1 in step 0: fio: pid=")
    assert f"fio's stderr is in {stderr}" in e.value.hint
    assert str(e.value).endswith(stderr.read_text().strip())  # fio's one-line message, as kept
    events = producer.of(topics.RUNS)
    assert [ev["event_type"] for ev in events] == ["RUN_STARTED", "STEP_STARTED", "STEP_ENDED", "RUN_ENDED"]
    assert events[2]["tags"]["fio_error"].startswith("fio exited 1") and events[3]["tags"]["fio_error"] == "step 0"


def test_a_used_run_dir_is_refused(tmp_path: Path, producer) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "step-000.json").write_text("{}")
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=read\n")
    with pytest.raises(FioRunError) as e:
        run_fio(producer, [job], out_dir=tmp_path / "r")
    assert "not empty" in str(e.value) and "--out-dir" in e.value.hint and producer.records == []
