"""`ioscale run iperf3` and `ioscale import iperf3 --link-speed` in-process, with the real iperf3 over 127.0.0.1 and
a FakeProducer in Kafka's place: what they print, what they send, and the usage errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_producer import FlushingFakeProducer
from live_run import live_run_id

from ioscale.cli import main
from ioscale.wire import topics

REPO = Path(__file__).resolve().parents[3]
P4 = REPO / "tests" / "fixtures" / "real" / "iperf3-3.6_tcp_P4_ekfoury.json"


@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 not installed")
def test_run_prints_its_id_first_the_step_totals_and_the_next_commands(env, capsys):
    rc = main(["run", "iperf3", "--duration", "1", "--sweep", "parallel=1,2", "--link-speed", "1G", "--",
               "-b", "20M"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    run_id = live_run_id(out, r"run (iperf3-live-[0-9a-f]{12}): iperf3's output goes to ioscale-runs/(\S+)")
    (producer,) = FlushingFakeProducer.instances
    producer.validate()
    assert producer.flushes == 1
    for step, streams in ((0, 1), (1, 2)):
        kept = json.loads((env / "ioscale-runs" / run_id / f"step-{step:03d}.json").read_text())
        whole = [r for r in producer.of(topics.PORT_SAMPLES) if r["step_index"] == step and r["queue"] == -1]
        assert sum(r["tx_bytes"] for r in whole) == kept["end"]["sum_sent"]["bytes"]
        assert out[2 + step].startswith(f"step {step} TCP {streams} stream{'s' if streams > 1 else ''} -b 20M: "
                                        f"{len(kept['intervals']) * streams} stream + {len(kept['intervals'])} port "
                                        f"samples; tx {kept['end']['sum_sent']['bytes']:,} B")
    assert {r["link_speed_bps"] for r in producer.of(topics.PORT_SAMPLES)} == {1_000_000_000}
    assert "samples sent at each step's end (iperf 3.12" in out[4] and "add up to iperf3's end sums" in out[4]
    assert out[-2:] == [f"  ioscale sql run_steps -p run_id={run_id}",
                        f"  ioscale sql port_utilization -p run_id={run_id} -p step_index=0     # against --link-speed"]


@pytest.mark.parametrize("argv,message", [
    (["run", "iperf3", "job.fio"], "Error: iperf3 takes no job files: job.fio"),
    (["run", "iperf3", "--analyze"], "Error: --analyze needs I/O samples; an iperf3 run has port samples only"),
    (["run", "fio"], "Error: fio needs at least one job file"),
    (["import", "fio", "x.json", "--link-speed", "10G"], "Error: --link-speed applies to iperf3 files, not fio"),
])
def test_usage_errors_say_what_to_do(env, capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_bad_link_speed_is_refused_by_the_parser(env, capsys):
    with pytest.raises(SystemExit):
        main(["import", "iperf3", str(P4), "--link-speed", "fast"])
    assert "'fast' is not a line rate: write it in bits/s, e.g. 10G" in capsys.readouterr().err


def test_import_with_link_speed_declares_the_port(env, capsys):
    rc = main(["import", "iperf3", str(P4), "--link-speed", "40G"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "4 run events, 0 I/O samples, 0 CPU samples, 300 port samples, 0 errors, 0 warnings; delivered 4 to " \
           "ioscale.runs, 300 to ioscale.port_samples" in out
    (producer,) = FlushingFakeProducer.instances
    started = producer.of(topics.RUNS)[0]
    assert started["links"][0]["speed_bps"] == 40_000_000_000 and started["links"][0]["port_id"] == "10.0.0.1"
    assert {r["link_speed_bps"] for r in producer.of(topics.PORT_SAMPLES)} == {40_000_000_000}
