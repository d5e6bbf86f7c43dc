"""One run per sweep (importers.sweeps): an input's steps split into runs along one load axis.

Inputs: Iometer with three access specs x QD 1..8, a VMFleet block size x mix x QD grid and a bench-fio directory
(data/_generate.py); real DISKSPD outputs, alone and with their queue depth edited into a sweep. The ops per step
are the generator's: Iometer QD x 10 s / mean latency (0.2 ms x sqrt(QD), x4 at 64K), VMFleet 200 x QD, bench-fio
100 x iodepth x numjobs.
"""

from __future__ import annotations

import json
import pytest

from ioscale.cli import ingest as cli_ingest
from ioscale.cli import main
from ioscale.errors import ExitStatus, IoscaleError
from ioscale.importers import import_files, import_runs
from ioscale.importers.sweeps import SweepAxisError, choose_axis, split_sweeps

IOMETER_SPECS = "iometer_1.1.0_3specs_qd_cycling.csv"


def runs_of(kit, tool, *paths, **kw):
    return import_runs(tool, list(paths), now_ms=kit.NOW_MS, **kw)


def steps_of(run):
    return sorted((e for e in run.run_events if e["event_type"] == "STEP_STARTED"), key=lambda e: e["step_index"])


def load_values(run, field):
    return [e["load"][field] for e in steps_of(run)]


def ops_per_step(run):
    return [sum(s["ops"] for s in run.io_samples if s["step_index"] == e["step_index"]) for e in steps_of(run)]


def assert_partition(kit, runs, whole):
    """Every sample of the one-run import is in exactly one run: counts and ops sums are kept, each sample's
    run id and step index point at a step of that run."""
    for kind in ("io_samples", "cpu_samples", "port_samples"):
        assert sum(len(getattr(r, kind)) for r in runs) == len(getattr(whole, kind))
    assert sum(s["ops"] for r in runs for s in r.io_samples) == sum(s["ops"] for s in whole.io_samples)
    assert sum(s["bytes"] for r in runs for s in r.io_samples) == sum(s["bytes"] for s in whole.io_samples)
    assert len({r.run_id for r in runs}) == len(runs)
    for r in runs:
        kit.assert_schema_valid(r)
        indices = {e["step_index"] for e in steps_of(r)}
        assert indices == set(range(len(indices)))
        assert {e["run_id"] for e in r.run_events} == {r.run_id}
        for s in (*r.io_samples, *r.cpu_samples):
            assert s["run_id"] == r.run_id and s["step_index"] in indices
        kinds = [e["event_type"] for e in r.run_events]
        assert kinds[0] == "RUN_STARTED" and kinds[-1] == "RUN_ENDED"
        ended = [e for e in r.run_events if e["event_type"] == "STEP_ENDED"]
        assert r.run_events[0]["ts_ms"] == min(e["start_ms"] for e in ended)
        assert r.run_events[-1]["end_ms"] == max(e["end_ms"] for e in ended)


# --- one input, several sweeps ----------------------------------------------------------------------------


def test_iometer_access_specs_become_one_run_each_along_the_queue_depth(kit):
    path = kit.DATA / IOMETER_SPECS
    runs = runs_of(kit, "iometer", path)
    base = import_files("iometer", [path], now_ms=kit.NOW_MS).run_id
    assert [r.run_id for r in runs] == [f"{base}-4k-random-read", f"{base}-64k-seq-write",
                                        f"{base}-4k-random-read-aligned-64k"]
    assert [r.sweep for r in runs] == ["access spec '4K random read'", "access spec '64K seq write'",
                                       "access spec '4K random read aligned 64K'"]
    for r in runs:
        assert r.sweep_axis == "iodepth" and r.sweep_group == base and r.sweep_points == ["1", "2", "4", "8"]
        assert load_values(r, "outstanding_ios_per_target") == [1, 2, 4, 8]
        for e in r.run_events:
            if e["load"] is not None:
                assert {k: e["load"]["config_labels"][k] for k in ("sweep_group", "sweep", "sweep_axis")} == {
                    "sweep_group": base, "sweep": r.sweep, "sweep_axis": "iodepth"}
            assert f"along iodepth: {r.sweep}" in e["description"] and f"of {base}" in e["description"]
    assert load_values(runs[0], "block_size_bytes") == [4096] * 4 and load_values(runs[0], "read_pct") == [100.0] * 4
    assert load_values(runs[1], "block_size_bytes") == [65536] * 4 and load_values(runs[1], "read_pct") == [0.0] * 4
    assert load_values(runs[1], "random_pct") == [0.0] * 4
    # the third spec has the first one's size and mix: only the access spec keeps their sweeps apart
    assert [e["load"]["config_labels"]["access_spec"] for e in steps_of(runs[2])] == ["4K random read aligned 64K"] * 4
    assert ops_per_step(runs[0]) == ops_per_step(runs[2]) == [50000, 70711, 100000, 141421]
    assert ops_per_step(runs[1]) == [12500, 17678, 25000, 35355]
    assert {s["direction"] for s in runs[1].io_samples} == {"WRITE"}
    assert all(len(r.cpu_samples) == 8 for r in runs)   # manager total + CPU 0, per step
    assert_partition(kit, runs, import_files("iometer", [path], now_ms=kit.NOW_MS))


def test_iometer_one_run_keeps_every_block_in_file_order(kit):
    [r] = runs_of(kit, "iometer", kit.DATA / IOMETER_SPECS, one_run=True)
    assert r.run_id == import_files("iometer", [kit.DATA / IOMETER_SPECS], now_ms=kit.NOW_MS).run_id
    assert load_values(r, "outstanding_ios_per_target") == [1, 2, 4, 8] * 3
    assert load_values(r, "block_size_bytes") == [4096] * 4 + [65536] * 4 + [4096] * 4
    assert r.sweep_axis == "" and all("sweep_group" not in e["load"]["config_labels"] for e in steps_of(r))


def test_ids_and_records_are_the_same_on_a_second_import(kit):
    first = runs_of(kit, "iometer", kit.DATA / IOMETER_SPECS)
    second = runs_of(kit, "iometer", kit.DATA / IOMETER_SPECS)
    assert [r.run_id for r in first] == [r.run_id for r in second]
    assert [r.run_events for r in first] == [r.run_events for r in second]
    assert [r.io_samples for r in first] == [r.io_samples for r in second]


def test_vmfleet_block_size_and_mix_each_a_run_along_the_queue_depth(kit):
    d = kit.DATA / "vmfleet_bs_mix_qd"
    runs = runs_of(kit, "vmfleet", d)
    base = runs[0].sweep_group
    assert [r.run_id.removeprefix(base + "-") for r in runs] == ["4k-r100-rand", "4k-r70-rand", "64k-r100-rand",
                                                                 "64k-r70-rand"]
    assert [r.sweep for r in runs] == ["4K, random read", "4K, random 70% read", "64K, random read",
                                       "64K, random 70% read"]
    for r, (bs, read) in zip(runs, [(4096, 100.0), (4096, 70.0), (65536, 100.0), (65536, 70.0)]):
        assert load_values(r, "outstanding_ios_per_target") == [1, 8]
        assert load_values(r, "block_size_bytes") == [bs, bs] and load_values(r, "read_pct") == [read, read]
        assert load_values(r, "vm_count") == [1, 1]
        assert ops_per_step(r) == [200, 1600]
        assert {s["vm"] for s in r.io_samples} == {"vm-base-NODE1-1"}
        assert r.run_events[0]["hosts"][0]["host"] == "NODE1"
    assert_partition(kit, runs, import_files("vmfleet", [d], now_ms=kit.NOW_MS))


def test_diskspd_files_of_different_profiles_given_together(kit):
    files = [kit.DATA / "diskspd_2.0_xml_latency_2targets_2timespans.xml",
             kit.fixture("pkb_diskspd_result_nolatency.xml"), kit.fixture("diskspd_text_readwrite_70_30_vc.txt")]
    runs = runs_of(kit, "diskspd", *files)
    by_bs = {load_values(r, "block_size_bytes")[0]: r for r in runs}
    assert len(runs) == 3 and set(by_bs) == {8192, 65536, 4096}
    # the two timespans of the hand-made file are one profile at QD 8 and 32: one run of two steps
    assert load_values(by_bs[8192], "outstanding_ios_per_target") == [8, 32]
    assert [len(steps_of(by_bs[b])) for b in (65536, 4096)] == [1, 1]
    assert load_values(by_bs[65536], "workers_per_target") == [4]   # the real PKB run: 4 threads, QD 2
    assert load_values(by_bs[65536], "outstanding_ios_per_target") == [2]
    assert {s["tags"]["source_file"] for s in by_bs[65536].io_samples} == {str(files[1])}
    assert_partition(kit, runs, import_files("diskspd", files, now_ms=kit.NOW_MS))


# --- many files, one sweep at a time ----------------------------------------------------------------------


def test_bench_fio_directory_default_axis_is_iodepth_ordered_by_value(kit):
    d = kit.DATA / "fio_benchfio_4k"
    whole = import_files("fio", [d], now_ms=kit.NOW_MS)
    # by file name the queue depths come 1, 16, 2, 4: the runs order them by value
    assert load_values(whole, "outstanding_ios_per_target")[:8] == [1, 1, 16, 16, 2, 2, 4, 4]
    runs = runs_of(kit, "fio", d)
    assert [r.run_id.removeprefix(whole.run_id + "-") for r in runs] == ["j1-r100-rand", "j2-r100-rand",
                                                                         "j1-r0-rand", "j2-r0-rand"]
    for r, (jobs, read) in zip(runs, [(1, 100.0), (2, 100.0), (1, 0.0), (2, 0.0)]):
        assert r.sweep_axis == "iodepth"
        assert load_values(r, "outstanding_ios_per_target") == [1, 2, 4, 16]
        assert load_values(r, "workers_per_target") == [jobs] * 4 and load_values(r, "read_pct") == [read] * 4
        assert ops_per_step(r) == [100 * qd * jobs for qd in (1, 2, 4, 16)]
        assert [e["tags"]["source_file"].rsplit("/", 1)[-1] for e in steps_of(r)] == [
            f"rand{'read' if read else 'write'}-{qd}-{jobs}.json" for qd in (1, 2, 4, 16)]
    assert_partition(kit, runs, whole)


def test_bench_fio_along_numjobs_one_run_per_rw_and_iodepth(kit):
    d = kit.DATA / "fio_benchfio_4k"
    runs = runs_of(kit, "fio", d, sweep_axis="numjobs")
    assert len(runs) == 8
    assert [r.run_id.rsplit("-", 3)[-3:] for r in runs][:4] == [["qd1", "r100", "rand"], ["qd2", "r100", "rand"],
                                                                 ["qd4", "r100", "rand"], ["qd16", "r100", "rand"]]
    for r in runs:
        assert load_values(r, "workers_per_target") == [1, 2]
        qd = load_values(r, "outstanding_ios_per_target")
        assert qd[0] == qd[1] and ops_per_step(r) == [100 * qd[0], 200 * qd[0]]
    assert_partition(kit, runs, import_files("fio", [d], now_ms=kit.NOW_MS))


def test_an_axis_that_does_not_vary_gives_one_step_runs_and_says_which_does(kit):
    runs = runs_of(kit, "fio", kit.DATA / "fio_benchfio_4k", sweep_axis="bs")
    assert len(runs) == 16 and all(len(steps_of(r)) == 1 for r in runs)
    warnings = [str(i) for r in runs for i in r.errors]
    assert warnings == ["warning: : no sweep steps along bs: each of the 16 runs has one step; the load varies most "
                        "along iodepth (--sweep-axis iodepth)"]


def test_ties_go_to_the_queue_depth(kit):
    files = [kit.DATA / "fio_benchfio_4k" / f"randread-{qd}-{jobs}.json" for qd in (1, 2) for jobs in (1, 2)]
    runs = runs_of(kit, "fio", *files)
    assert [r.sweep_axis for r in runs] == ["iodepth", "iodepth"]
    assert [load_values(r, "workers_per_target") for r in runs] == [[1, 1], [2, 2]]
    assert [r.sweep for r in runs] == ["1 worker/target", "2 workers/target"]


def test_a_single_sweep_keeps_the_base_id_and_orders_steps(kit):
    files = [kit.DATA / "fio_benchfio_4k" / f"randread-{qd}-1.json" for qd in (16, 1, 4, 2)]
    [r] = runs_of(kit, "fio", *files, run_id="my-run")
    assert r.run_id == "my-run" and r.sweep_group == "my-run" and r.sweep == ""
    assert load_values(r, "outstanding_ios_per_target") == [1, 2, 4, 16]
    assert [e["event_type"] for e in r.run_events][:3] == ["RUN_STARTED", "STEP_STARTED", "STEP_ENDED"]
    assert all(e["description"].endswith("; sweep along iodepth") for e in r.run_events)


def test_a_repeated_sweep_is_a_run_per_repetition_never_merged(kit):
    d = kit.DATA / "fio_benchfio_4k"
    sources = []
    for rep, shift in ((1, 0), (2, 3_600_000)):   # bench-fio's run-1/, run-2/: the same sweep an hour later
        for qd in (1, 2, 4):
            doc = json.loads((d / f"randread-{qd}-1.json").read_text())
            doc["timestamp_ms"] += shift
            doc["jobs"][0]["job_start"] += shift
            sources.append((f"run-{rep}/randread-{qd}-1.json", json.dumps(doc).encode()))
    whole = kit.run_bytes("fio", *sources)
    runs = split_sweeps(kit.run_bytes("fio", *sources))
    assert [r.run_id for r in runs] == [whole.run_id, f"{whole.run_id}-rep2"]
    assert [r.sweep for r in runs] == ["", "repetition 2"]
    for r, rep in zip(runs, (1, 2)):
        assert load_values(r, "outstanding_ios_per_target") == [1, 2, 4]
        assert {s["tags"]["source_file"].split("/")[0] for s in r.io_samples} == {f"run-{rep}"}
    assert [str(i) for i in runs[0].errors] == [
        f"warning: run-1/randread-1-1.json: load points along iodepth repeat: the sweep was measured 2 times; each "
        f"repetition is a run of its own, not merged: {whole.run_id}, {whole.run_id}-rep2"]
    assert_partition(kit, runs, whole)


def test_real_diskspd_edited_into_a_queue_depth_sweep(kit):
    """The real PKB output with RequestCount (QD) set to 2, 8, 32 and the start an hour apart: three files, one
    profile, one run of three steps along the queue depth, each file's I/O in its step."""
    text = kit.fixture("pkb_diskspd_result_nolatency.xml").read_text()
    sources = []
    for hour, qd in ((23, 32), (21, 2), (22, 8)):
        edited = text.replace("<RequestCount>2</RequestCount>", f"<RequestCount>{qd}</RequestCount>")
        edited = edited.replace("2018/10/18 21:39:04", f"2018/10/18 {hour}:39:04")
        sources.append((f"qd{qd}.xml", edited.encode()))
    [r] = split_sweeps(kit.run_bytes("diskspd", *sources))
    assert load_values(r, "outstanding_ios_per_target") == [2, 8, 32]
    assert [e["tags"].get("source_file") for e in steps_of(r)] == [None] * 3   # DISKSPD steps carry no file tag
    per_step = {e["step_index"]: {s["tags"]["source_file"] for s in r.io_samples if s["step_index"] == e["step_index"]}
                for e in steps_of(r)}
    assert per_step == {0: {"qd2.xml"}, 1: {"qd8.xml"}, 2: {"qd32.xml"}}
    assert ops_per_step(r) == [22645 + 22623 + 22548 + 23154] * 3


# --- issues, edge cases -----------------------------------------------------------------------------------


def test_each_issue_lands_once_on_the_run_of_its_file(kit, tmp_path):
    d = tmp_path / "bench"
    d.mkdir()
    for f in (kit.DATA / "fio_benchfio_4k").iterdir():
        (d / f.name).write_bytes(f.read_bytes())
    (d / "randwrite-8-2.json").write_text('{"fio version": "fio-3.28", "jobs": [ {"jobname": "x", "read": {')
    noted = d / "randwrite-16-2.json"   # fio's notes printed before the JSON: a warning, the records stay
    noted.write_bytes(b"note: both iodepth_batch_complete_min and iodepth_batch_complete_max are set\n"
                      + noted.read_bytes())
    whole = import_files("fio", [d], now_ms=kit.NOW_MS)
    broken = [i for i in whole.errors if i.file == str(d / "randwrite-8-2.json")]
    assert len(broken) == 2 and [str(i) for i in whole.errors if i not in broken] == [
        f"warning: {noted}:1: text before the JSON document ignored (fio notes or warnings)"]
    runs = runs_of(kit, "fio", d)
    assert len(runs) == 4
    assert runs[0].errors == broken   # its file gave no records: the first run holds its issues
    assert [r.errors for r in runs[1:3]] == [[], []]
    assert runs[3].run_id.endswith("-j2-r0-rand") and [i.file for i in runs[3].errors] == [str(noted)]


def test_samples_of_a_step_without_event_keep_the_import_whole(kit):
    result = import_files("fio", [kit.DATA / "fio_benchfio_4k"], now_ms=kit.NOW_MS)
    result.run_events = [e for e in result.run_events if e["step_index"] != 3]
    [r] = split_sweeps(result)
    assert r is result and str(r.errors[-1]) == (
        "warning: : samples of step(s) [3] have no step event; the import stays one run")


def test_an_empty_import_stays_as_it_is(kit, tmp_path):
    [r] = runs_of(kit, "fio", tmp_path / "missing.json")
    assert r.run_events == [] and r.has_errors


def test_unknown_axis_is_a_usage_error(kit):
    with pytest.raises(SweepAxisError) as e:
        runs_of(kit, "fio", kit.DATA / "fio_benchfio_4k", sweep_axis="qd")
    assert e.value.exit_status == ExitStatus.USAGE and "iodepth" in e.value.hint


def test_choose_axis_counts_values_within_a_profile(kit):
    """Three access specs of one block size each, QD 1..8: bs has 2 values over the file but 1 per spec."""
    whole = import_files("iometer", [kit.DATA / IOMETER_SPECS], now_ms=kit.NOW_MS)
    loads = [e["load"] for e in steps_of(whole)]
    assert choose_axis(loads) == "iodepth"
    only_qd1 = [l for l in loads if l["outstanding_ios_per_target"] == 1]
    assert choose_axis(only_qd1) == "iodepth"   # one value everywhere: the tie goes to the queue depth


# --- the command ------------------------------------------------------------------------------------------


def test_import_prints_each_run_with_its_steps_and_axis(kit, capsys):
    rc = main(["import", "iometer", str(kit.DATA / IOMETER_SPECS), "--dry-run"])
    out = capsys.readouterr().out.splitlines()
    base = import_files("iometer", [kit.DATA / IOMETER_SPECS], now_ms=kit.NOW_MS).run_id
    assert rc == ExitStatus.OK
    assert out[0].startswith(f"3 runs, one per sweep along iodepth, sweep group {base} ")
    assert out[1] == (f"run {base}-4k-random-read: 4 steps along iodepth (1, 2, 4, 8) [access spec '4K random read'], "
                      "4 I/O samples, 8 CPU samples")
    assert out[2].startswith(f"run {base}-64k-seq-write: 4 steps along iodepth (1, 2, 4, 8)")
    assert out[4] == ("30 run events, 12 I/O samples, 24 CPU samples, 0 port samples, 0 errors, 1 warnings "
                      "(dry run: nothing sent)")


def test_import_one_run_and_sweep_axis(kit, capsys):
    assert main(["import", "iometer", str(kit.DATA / IOMETER_SPECS), "--dry-run", "--one-run"]) == ExitStatus.OK
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].endswith(": 12 steps, 12 I/O samples, 24 CPU samples")
    assert main(["import", "fio", str(kit.DATA / "fio_benchfio_4k"), "--dry-run", "--sweep-axis", "numjobs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("8 runs, one per sweep along numjobs") and len(out) == 10
    assert all(" 2 steps along numjobs (1, 2) " in line for line in out[1:9])
    with pytest.raises(SystemExit) as e:
        main(["import", "fio", str(kit.DATA / "fio_benchfio_4k"), "--one-run", "--sweep-axis", "bs"])
    assert e.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_analyze_runs_every_run_and_exits_with_the_first_failure(monkeypatch, capsys):
    seen = []

    class Differ(IoscaleError):
        exit_status = ExitStatus.RESULTS_DIFFER

    def analyze_run(run_id, wait_for_samples=0):
        seen.append((run_id, wait_for_samples))
        if run_id == "b":
            raise Differ("step 1 differs", hint="re-run `ioscale analyze b`")

    monkeypatch.setattr(cli_ingest, "analyze_run", analyze_run)
    with pytest.raises(IoscaleError) as e:
        cli_ingest.analyze_runs([("a", 4), ("b", 5), ("c", 6)])
    assert seen == [("a", 4), ("b", 5), ("c", 6)]
    assert e.value.exit_status == ExitStatus.RESULTS_DIFFER and str(e.value) == "the analysis of 1 of 3 runs failed: b"
    assert e.value.hint == "re-run `ioscale analyze b`"
    assert "Error: b: step 1 differs" in capsys.readouterr().err
    seen.clear()
    cli_ingest.analyze_runs([("a", 1), ("c", 2)])
    assert seen == [("a", 1), ("c", 2)]
    with pytest.raises(Differ) as one:   # a single run fails with its own error, as before sweeps
        cli_ingest.analyze_runs([("b", 3)])
    assert str(one.value) == "step 1 differs"
