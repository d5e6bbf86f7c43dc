"""Iometer results-CSV importer (hand-made files following Iometer's SaveResults layout; see data/)."""

import csv

CYCLING = "iometer_1.1.0_qd_cycling.csv"
OLD = "iometer_2006.07.27_no_targets.csv"
TIMER = 10_000_000


def _rows(path):
    """Result rows of the file as dicts, with their 'Results block number (1-based)."""
    out, header, block = [], None, 0
    for line in path.read_text().splitlines():
        if line.startswith("'Results"):
            block += 1
        elif line.startswith("'Target Type"):
            header = next(csv.reader([line[1:]]))
        elif line.startswith("'"):
            header = None if not line.startswith("'Target") else header
        elif header and line.split(",")[0] in ("ALL", "MANAGER", "PROCESSOR", "WORKER", "DISK"):
            out.append((block, dict(zip(header, next(csv.reader([line]))))))
    return out


def test_cycling_run_becomes_one_step_per_results_block(kit):
    path = kit.DATA / CYCLING
    r = kit.run("iometer", path)
    assert kit.errors_of(r) == []
    assert [w.split(": ", 2)[-1] for w in kit.errors_of(r, "warning")] == [
        "Iometer time stamps are local time without a zone; read as UTC"]
    kit.assert_schema_valid(r)
    steps = [e for e in r.run_events if e["event_type"] == "STEP_STARTED"]
    assert [e["load"]["outstanding_ios_per_target"] for e in steps] == [1, 4]
    load = steps[0]["load"]
    assert (load["block_size_bytes"], load["read_pct"], load["random_pct"], load["targets_per_vm"],
            load["workers_per_target"], load["config_labels"]["iometer_test_type"]) == (4096, 70.0, 100.0, 2, 1, "3")
    # the measured interval ends at the closing time stamp and lasts Total Raw Run Time
    assert steps[0]["ts_ms"] == 1556791265500 - 60_000 and steps[1]["ts_ms"] == 1556791335250 - 60_000

    rows = _rows(path)
    disks = [(b, row) for b, row in rows if row["Target Type"] == "DISK"]
    assert len(r.io_samples) == len(disks) * 2
    for block, row in disks:
        for direction, ops_col, bytes_col, avg_col in (
                ("READ", "Read I/Os", "Bytes Read", "Average Read Response Time"),
                ("WRITE", "Write I/Os", "Bytes Written", "Average Write Response Time")):
            (s,) = kit.samples(r, step_index=block - 1, target=row["Target Name"], direction=direction)
            assert s["host"] == "HOST1" and s["vm"] == ""
            assert s["ops"] == int(row[ops_col]) and s["bytes"] == int(row[bytes_col])
            # DISK rows repeat the worker's raw sums (Iometer bug): mean x count is used instead
            assert s["latency_sum_ns"] == round(float(row[avg_col]) * 1e6 * int(row[ops_col]))
            assert s["tags"]["latency_sum_basis"] == "mean_x_count"
            assert s["interval_ms"] == 60_000
            bins = dict(kv.split("=") for kv in s["tags"]["iometer_latency_bins"].split(";"))
            assert sum(map(int, bins.values())) == int(row["Read I/Os"]) + int(row["Write I/Os"])
    # Little's law: read + write in flight per target ~ the queue depth of the step
    for step, qd in ((0, 1), (1, 4)):
        for target in ("E: data1", "F: data2"):
            inflight = sum(s["outstanding_ios"] for s in kit.samples(r, step_index=step, target=target))
            assert abs(inflight - qd) < 0.05 * qd, (step, target, inflight)
    assert {s["tags"]["worker"] for s in r.io_samples} == {"Worker 1", "Worker 2"}


def test_cpu_rows(kit):
    r = kit.run("iometer", kit.DATA / CYCLING)
    cpus = [c for c in r.cpu_samples if c["step_index"] == 0]
    by_cpu = {c["cpu"]: c for c in cpus}
    assert sorted(by_cpu) == [-1, 0, 1]
    c0 = by_cpu[0]
    assert (c0["utilization_pct"], c0["user_pct"], c0["privileged_pct"], c0["dpc_pct"], c0["interrupt_pct"],
            c0["interrupts_per_s"]) == (15.0, 3.0, 12.0, 4.0, 1.5, 15000.0)
    total = by_cpu[-1]
    assert total["utilization_pct"] == 12.5 and total["interrupts_per_s"] == 25000.0
    assert total["logical_processors"] == 2 and total["host"] == "HOST1" and total["scope"] == "HOST"


def test_old_layout_without_targets_uses_worker_rows_with_exact_raw_sums(kit):
    path = kit.DATA / OLD
    r = kit.run("iometer", path)
    kit.assert_clean(r)
    (s,) = r.io_samples
    worker = [row for _, row in _rows(path) if row["Target Type"] == "WORKER"][0]
    assert (s["host"], s["target"], s["direction"]) == ("OLDBOX", "Worker 1", "READ")
    assert s["ops"] == 960000 and s["bytes"] == 960000 * 8192 and s["interval_ms"] == 30_000
    assert s["latency_sum_ns"] == round(int(worker["Total Raw Read Response Time"]) / TIMER * 1e9)
    assert s["tags"]["latency_sum_basis"] == "exact"
    assert s["latency_max_ns"] == round(int(worker["Maximum Raw Read Response Time"]) / TIMER * 1e9)
    assert 7.9 < s["outstanding_ios"] < 8.1              # QD 8
    load = r.run_events[1]["load"]
    assert (load["block_size_bytes"], load["read_pct"], load["random_pct"], load["outstanding_ios_per_target"]) == (
        8192, 100.0, 0.0, 8)
    assert r.run_events[0]["hosts"][0]["host"] == "OLDBOX"


# --- bad input -------------------------------------------------------------------------------------------


def test_negative_count_and_nan_keep_the_other_rows(kit):
    lines = (kit.DATA / CYCLING).read_text().splitlines()
    disk_rows = [i for i, ln in enumerate(lines) if ln.startswith("DISK,")]
    f = lines[disk_rows[0]].split(",")
    f[32] = "-7"                                          # Read I/Os
    lines[disk_rows[0]] = ",".join(f)
    f = lines[disk_rows[1]].split(",")
    f[18] = "nan"                                         # Average Read Response Time
    lines[disk_rows[1]] = ",".join(f)
    r = kit.run_bytes("iometer", ("bad.csv", "\n".join(lines).encode()))
    errs = kit.errors_of(r)
    assert any(f"bad.csv:{disk_rows[0] + 1} [read i/os]: negative count: -7" in e for e in errs)
    assert any(f"bad.csv:{disk_rows[1] + 1} [average read response time]: not a finite number" in e for e in errs)
    assert not kit.samples(r, step_index=0, target="E: data1", direction="READ")        # dropped
    assert kit.samples(r, step_index=0, target="E: data1", direction="WRITE")           # kept
    (f2,) = kit.samples(r, step_index=0, target="F: data2", direction="READ")
    assert f2["ops"] == 378000 and f2["latency_count"] == 0                            # latency dropped only
    assert len(r.io_samples) == 8 - 1


def test_truncated_file_keeps_complete_blocks(kit):
    text = (kit.DATA / CYCLING).read_text()
    cut = text.index("WORKER,Worker 2", text.index("'Results", text.index("'Results") + 1))
    r = kit.run_bytes("iometer", ("cut.csv", text[:cut].encode()))
    assert {s["step_index"] for s in r.io_samples} == {0, 1}
    assert len(kit.samples(r, step_index=0)) == 4 and len(kit.samples(r, step_index=1)) == 2


def test_not_an_iometer_file(kit):
    r = kit.run_bytes("iometer", ("x.csv", b"a,b,c\n1,2,3\n"))
    assert r.io_samples == [] and any("not an Iometer results file" in e for e in kit.errors_of(r))
