"""`ioscale run fio` in-process with the real fio and a FakeProducer in Kafka's place: what it prints (run id,
live link, summary, next commands), where it keeps fio's reports, and the options after `--`."""

from __future__ import annotations

import json
import shutil

import pytest
from fake_producer import FlushingFakeProducer
from live_run import live_run_id

from ioscale.cli import build_parser, ingest, main, parse_args
from ioscale.wire import topics


def test_everything_after_the_separator_goes_to_fio():
    p = build_parser()
    args = parse_args(p, ["run", "fio", "a.fio", "b.fio", "--sweep", "iodepth=1,4,16", "--", "--direct=0",
                          "--size=64m", "--name=x"])
    assert args.jobfiles == ["a.fio", "b.fio"] and args.sweep == "iodepth=1,4,16"
    assert args.fio_args == ["--direct=0", "--size=64m", "--name=x"]
    assert parse_args(p, ["--debug", "run", "fio", "a.fio"]).fio_args == []
    # other commands keep argparse's own meaning of `--` (positionals that start with a dash)
    assert parse_args(p, ["import", "fio", "--", "-odd.json"]).files == ["-odd.json"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
def test_run_prints_its_id_first_and_the_next_commands_last(env, capsys, monkeypatch):
    analyzed: list[tuple[str, dict]] = []
    monkeypatch.setattr(ingest, "analyze_run", lambda run_id, **kw: analyzed.append((run_id, kw)))
    job = env / "rr.fio"
    job.write_text(f"[j]\nioengine=psync\nfilename={env / 'data'}\nbs=4k\nrw=randread\ntime_based\nruntime=1\n")
    rc = main(["run", "fio", str(job), "--analyze", "--", "--size=1m"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    run_id = live_run_id(out, r"run (fio-live-[0-9a-f]{12}): fio's reports go to ioscale-runs/(\S+)")
    (producer,) = FlushingFakeProducer.instances
    producer.validate()
    live = [r for _, r in producer.records if r["run_id"] == run_id]
    linked = [r for _, r in producer.records if r["run_id"] == f"{run_id}-fio-report"]
    assert len(live) + len(linked) == len(producer.records) and len(linked) == 4 + 1  # 4 events, 1 sample
    kept = json.loads((env / "ioscale-runs" / run_id / "step-000.json").read_text())
    fio_ios = kept["jobs"][0]["read"]["total_ios"]
    assert kept["global options"]["size"] == "1m"
    assert sum(r["ops"] for r in producer.of(topics.IO_SAMPLES) if r["run_id"] == run_id) == fio_ios
    assert [r["ops"] for r in producer.of(topics.IO_SAMPLES) if r["run_id"] != run_id] == [fio_ios]
    assert f"run {run_id}: 1 step(s), {fio_ios:,} I/Os in " in "\n".join(out)
    assert analyzed == [(f"{run_id}-fio-report", {"wait_for_samples": 1})]
    assert out[-4:] == [
        "next:",
        f"  ioscale sql run_steps -p run_id={run_id}",
        f"  ioscale sql step_reported_percentiles -p run_id={run_id}-fio-report     # fio's own percentiles",
        f"  ioscale sql compare_runs -p run_a={run_id} -p run_b={run_id}-fio-report     # live samples vs fio's totals"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio not installed")
def test_a_failing_fio_names_its_stderr_file(env, capsys):
    job = env / "proc.fio"
    job.write_text("[j]\nioengine=psync\nrw=write\nsize=1m\nfilename=/proc/version\n")
    rc = main(["run", "fio", str(job), "--run-id", "bad-1"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "Error: fio exited 1 in step 0" in err
    assert "Hint: fio's stderr is in ioscale-runs/bad-1/step-000.stderr.txt" in err
    (producer,) = FlushingFakeProducer.instances
    assert producer.flushes == 1 and [r["event_type"] for r in producer.of(topics.RUNS)][-1] == "RUN_ENDED"
