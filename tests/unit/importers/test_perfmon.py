"""perfmon (PDH CSV/TSV) -> samples: exact values from the hand-made Hyper-V host log, real counter names from a
Hyper-V host, time zones, layers, _Total handling, streaming = registry path."""

from __future__ import annotations

from datetime import datetime, timezone

from ioscale.importers import stream_import
from ioscale.importers.perfmon import PerfmonMap
from ioscale.importers.pdh import parse_header, IssueBudget
from ioscale.wire import topics


def utc_ms(*args) -> int:
    return int(datetime(*args, tzinfo=timezone.utc).timestamp() * 1000)


# Row times of data/perfmon_hyperv_host.csv in W. Europe time (bias -60): 14:00:00.125, 14:00:15.125, 14:00:30.130.
T0, T1, T2 = (utc_ms(2026, 3, 10, 13, 0, 0, 125000), utc_ms(2026, 3, 10, 13, 0, 15, 125000),
              utc_ms(2026, 3, 10, 13, 0, 30, 130000))


def host_log(kit, **kw):
    return kit.run("perfmon", kit.DATA / "perfmon_hyperv_host.csv", **kw)


def test_disk_counts_are_rates_times_the_interval(kit):
    r = host_log(kit)
    kit.assert_clean(r)
    rd = kit.one(r.io_samples, target="1 E:", direction="READ", ts_ms=T0)
    # Disk Reads/sec 2000 over 15.000 s; Read Bytes/sec 8192000; Avg. Disk sec/Read 0.0015; read queue 3.0.
    assert (rd["interval_ms"], rd["ops"], rd["bytes"]) == (15_000, 30_000, 122_880_000)
    assert (rd["latency_count"], rd["latency_sum_ns"], rd["outstanding_ios"]) == (30_000, 45_000_000_000, 3.0)
    assert rd["latency_bucket_index"] == [] and rd["latency_bucket_count"] == [] and rd["percentile_q"] == []
    assert rd["tags"]["latency_sum_basis"] == "mean_x_count" and rd["tags"]["io_layer"] == "physical_disk"
    assert rd["run_id"] == r.run_id and rd["step_index"] == 0 and rd["host"] == "HV01"
    wr = kit.one(r.io_samples, target="1 E:", direction="WRITE", ts_ms=T0)
    # 1000.5/s x 15 s = 15007.5 I/Os: rounded half to even, 15008; mean 4.2 ms.
    assert (wr["ops"], wr["bytes"], wr["latency_sum_ns"]) == (15_008, 61_470_720, 15_008 * 4_200_000)
    later = kit.one(r.io_samples, target="1 E:", direction="READ", ts_ms=T1)
    assert (later["interval_ms"], later["ops"]) == (15_005, 37_512)          # 2500/s x 15.005 s = 37512.5
    # The last row has no Disk Writes/sec value (" "): no WRITE sample, not a zero one.
    assert [s["direction"] for s in r.io_samples if s["target"] == "1 E:" and s["ts_ms"] == T1] == ["READ"]


def test_the_first_row_only_seeds_the_interval(kit):
    r = host_log(kit)
    assert {s["ts_ms"] for s in r.io_samples + r.cpu_samples + r.port_samples} == {T0, T1}
    assert T1 + 15_005 == T2


def test_cpu_scopes_on_a_hyperv_host(kit):
    r = host_log(kit)
    cpu0 = kit.one(r.cpu_samples, scope="ROOT_PARTITION", cpu=0, ts_ms=T0)
    # Processor Information(0,0) wins over Processor(0) for % Processor Time; Processor(0) adds % User Time.
    assert (cpu0["utilization_pct"], cpu0["user_pct"], cpu0["dpc_pct"]) == (60.25, 30.5, 7.5)
    assert (cpu0["interrupts_per_s"], cpu0["dpcs_per_s"], cpu0["logical_processors"]) == (12500.5, 9800.0, 1)
    assert cpu0["tags"] == {"source": "perfmon", "processor_group": "0", "group_cpu": "0",
                            "root_vp_total_run_pct": "48.5"}
    # Processor Information(1,0) is the third CPU in (group, number) order.
    assert kit.one(r.cpu_samples, scope="ROOT_PARTITION", cpu=2, ts_ms=T0)["tags"]["processor_group"] == "1"
    total = kit.one(r.cpu_samples, scope="ROOT_PARTITION", cpu=-1, ts_ms=T0)
    assert (total["utilization_pct"], total["logical_processors"]) == (41.5, 3)
    assert kit.one(r.cpu_samples, scope="ROOT_PARTITION", cpu=-1, ts_ms=T1)["utilization_pct"] == 100.0  # 100.2 clamped
    lp = kit.one(r.cpu_samples, scope="HYPERVISOR", cpu=0, ts_ms=T0)
    assert (lp["utilization_pct"], lp["interrupts_per_s"]) == (70.0, 15000.0)
    assert kit.one(r.cpu_samples, scope="HYPERVISOR", cpu=-1, ts_ms=T0)["utilization_pct"] == 55.125
    vm = kit.one(r.cpu_samples, scope="VM", vm="vm01", cpu=-1, ts_ms=T1)
    assert (vm["utilization_pct"], vm["logical_processors"], vm["tags"]["utilization_basis"]) == (85.0, 2, "mean_of_vps")
    # Per-CPU samples never include the "0,_Total" group total: 3 ROOT_PARTITION CPUs + the host total per row.
    assert sorted(s["cpu"] for s in r.cpu_samples if s["scope"] == "ROOT_PARTITION" and s["ts_ms"] == T0) == [-1, 0, 1, 2]


def test_ports_vnic_vswitch_and_vmq(kit):
    r = host_log(kit)
    nic = kit.one(r.port_samples, kind="NIC", port_id="Mellanox ConnectX-4 Lx Ethernet Adapter #2", ts_ms=T0)
    assert (nic["rx_bytes"], nic["tx_bytes"], nic["rx_frames"]) == (1_875_000_000, 37_500_000, 1_350_000)
    # Packets Received Errors is cumulative: 17 -> 20 -> 23.
    assert (nic["link_speed_bps"], nic["rx_errors"], nic["queue"]) == (25_000_000_000, 3, -1)
    assert kit.one(r.port_samples, kind="NIC", port_id=nic["port_id"], ts_ms=T1)["rx_errors"] == 3
    vmq = kit.one(r.port_samples, kind="NIC_VMQ", ts_ms=T0)
    # Per Processor Network Interface Card Activity(2, ...): 80000 packets/s, 7000.25 interrupts/s over 15 s.
    assert (vmq["queue"], vmq["rx_frames"], vmq["interrupts"], vmq["link_speed_bps"]) == (2, 1_200_000, 105_004,
                                                                                         25_000_000_000)
    vnic = kit.one(r.port_samples, vm="vm01", ts_ms=T0)
    assert (vnic["rx_bytes"], vnic["tx_bytes"], vnic["tags"]["port_role"]) == (15_000_000, 750_000, "vm_adapter")
    assert kit.one(r.port_samples, port_id="SETswitch", ts_ms=T0)["rx_bytes"] == 18_000_000


def test_other_io_layers_go_to_companion_runs(kit):
    r = host_log(kit)
    runs = {s["run_id"] for s in r.io_samples}
    assert runs == {r.run_id, r.run_id + "-vsd", r.run_id + "-csvfs"}
    vsd = kit.one(r.io_samples, run_id=r.run_id + "-vsd", direction="READ", ts_ms=T0)
    assert (vsd["target"], vsd["ops"], vsd["bytes"]) == ("C:-ClusterStorage-Volume1-vm01-vm01.vhdx", 22_500, 92_160_000)
    csv = kit.one(r.io_samples, run_id=r.run_id + "-csvfs", direction="READ", ts_ms=T0)
    # Read Latency 0.0021 s; no queue counter, so Little's law: 1400/s x 2.1 ms = 2.94.
    assert (csv["ops"], csv["latency_sum_ns"], round(csv["outstanding_ios"], 9)) == (21_000, 44_100_000_000, 2.94)
    started = [e["run_id"] for e in r.run_events if e["event_type"] == "RUN_STARTED"]
    assert sorted(started) == sorted(runs)
    ended = kit.one(r.run_events, run_id=r.run_id, event_type="STEP_ENDED")
    assert (ended["start_ms"], ended["end_ms"], ended["tool"]) == (T0, T2, "LIVE")
    assert ended["tags"]["source_tool"] == "perfmon"


def test_a_given_run_id_joins_that_run_without_run_events_of_its_own(kit):
    r = host_log(kit, run_id="diskspd-run-7")
    assert {s["step_index"] for s in r.cpu_samples} == {-1}
    assert sorted({e["run_id"] for e in r.run_events}) == ["diskspd-run-7-csvfs", "diskspd-run-7-vsd"]


def test_unknown_counters_and_totals_are_reported_once(kit):
    r = host_log(kit)
    warnings = kit.errors_of(r, "warning")
    assert warnings == [
        f"warning: {kit.DATA / 'perfmon_hyperv_host.csv'}:1: 2 of 46 columns not imported (no perfmon mapping): "
        "Memory (1), System (1)",
        f"warning: {kit.DATA / 'perfmon_hyperv_host.csv'}:1: 1 column(s) left out: PhysicalDisk(_Total) (the sum of "
        "the instances, which are imported)",
        f"warning: {kit.DATA / 'perfmon_hyperv_host.csv'}:1: 1 column(s) left out: Processor Information group/NUMA-node "
        "totals (the host total is _Total)"]


def test_relog_tsv_is_the_same_data_in_pacific_time(kit):
    csv_r, tsv_r = host_log(kit), kit.run("perfmon", kit.DATA / "perfmon_relog.tsv")
    shift = 9 * 3600 * 1000       # bias 480 (Pacific) instead of -60 (W. Europe)
    assert [(s["ts_ms"] - shift, s["target"], s["ops"]) for s in tsv_r.io_samples] == \
           [(s["ts_ms"], s["target"], s["ops"]) for s in csv_r.io_samples]
    assert len(tsv_r.cpu_samples) == len(csv_r.cpu_samples) == 18


def test_streamed_import_sends_what_the_registry_returns(kit):
    path = kit.DATA / "perfmon_hyperv_host.csv"
    whole = host_log(kit)
    sent = []
    streamed = stream_import("perfmon", path, lambda t, rec: sent.append((t, rec)), now_ms=kit.NOW_MS)
    assert streamed.run_id == whole.run_id and not streamed.has_errors
    assert [rec for t, rec in sent if t == topics.IO_SAMPLES] == whole.io_samples
    assert [rec for t, rec in sent if t == topics.CPU_SAMPLES] == whole.cpu_samples
    assert [rec for t, rec in sent if t == topics.RUNS] == whole.run_events
    assert [t for t, _ in sent][-len(whole.run_events):] == [topics.RUNS] * 12   # run events last


def test_time_going_back_skips_that_row(kit):
    text = ('"(PDH-CSV 4.0) (UTC)(0)","\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec"\n'
            '"01/02/2024 00:00:00.000","10"\n"01/02/2024 00:00:01.000","10"\n'
            '"01/02/2024 00:00:00.500","10"\n"01/02/2024 00:00:02.500","10"\n')
    r = kit.run_bytes("perfmon", ("back.csv", text.encode()))
    t0 = utc_ms(2024, 1, 2)
    # Row 1 takes row 2's gap; the row at 00.500 is skipped and is the base of the next gap (2 s, 20 reads).
    assert [(s["ts_ms"] - t0, s["interval_ms"], s["ops"]) for s in r.io_samples] == [(-1000, 1000, 10),
                                                                                    (0, 1000, 10), (500, 2000, 20)]
    assert "not after the previous row's (-500 ms)" in kit.errors_of(r, "warning")[0]


def test_real_hyperv_host_counter_names_map_to_scopes(kit):
    """The counter list of a real Hyper-V host (lower-cased by its collector), as a PDH header."""
    paths = kit.fixture("vc_perfcounters_windows_hyperv_host.txt").read_text().splitlines()
    header = parse_header(["(PDH-CSV 4.0) (UTC)(0)"] + ["\\\\host7" + p for p in paths], IssueBudget("f", []))
    assert all(c is not None for c in header.columns) and len(header.columns) == 2191
    m = PerfmonMap()
    m.start(header)
    mapped: dict[str, set] = {}
    for i, p in enumerate(header.columns):
        got = m.column(i, p)
        if got and not isinstance(got, str):
            for c in got:
                mapped.setdefault(c.field, set()).add(c.key)
    util = mapped["utilization_pct"]
    assert {(k[2], k[4]) for k in util if k[2] == "HYPERVISOR"} == {("HYPERVISOR", n) for n in range(-1, 8)}
    assert {(k[2], k[4]) for k in util if k[2] == "ROOT_PARTITION"} == {("ROOT_PARTITION", n) for n in range(-1, 8)}
    assert {(k[3], k[4]) for k in util if k[2] == "VM"} == {("ubuntu20.04", 0)}
    assert m.cpu_count[("host7", "HYPERVISOR", "")] == 8 and m.cpu_count[("host7", "ROOT_PARTITION", "")] == 8
    assert {k for k in mapped["ops.READ"]} == {("io", "host7", "physical_disk", "0 c: s:")}
    assert mapped["interrupts_per_s"] >= {("cpu", "host7", "HYPERVISOR", "", 0), ("cpu", "host7", "ROOT_PARTITION", "", 7)}
