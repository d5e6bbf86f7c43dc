"""esxtop -b -> samples: exact values from the hand-made batch file (PCPU and VM CPU, vmhba latency split, LUN
and virtual disk companion runs, network ports)."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_ms(*args) -> int:
    return int(datetime(*args, tzinfo=timezone.utc).timestamp() * 1000)


# data/esxtop_batch_vmhba_vm.csv: rows at 02:13:06, :11, :16 UTC (header "(UTC)(0)"), 5 s apart; the first row
# takes the second's gap, so samples start at 02:13:01.
S0, S1, S2 = (utc_ms(2018, 5, 15, 2, 13, 1), utc_ms(2018, 5, 15, 2, 13, 6), utc_ms(2018, 5, 15, 2, 13, 11))


def batch(kit, **kw):
    return kit.run("esxtop", kit.DATA / "esxtop_batch_vmhba_vm.csv", **kw)


def test_pcpu_utilization_and_host_total(kit):
    r = batch(kit)
    kit.assert_clean(r)
    p0 = kit.one(r.cpu_samples, cpu=0, ts_ms=S0)
    assert (p0["scope"], p0["utilization_pct"], p0["interval_ms"], p0["host"]) == ("HYPERVISOR", 48.2, 5000,
                                                                                   "esx01.lab.local")
    assert p0["tags"] == {"source": "esxtop", "processor_time_pct": "55.1", "core_util_pct": "60.3"}
    total = kit.one(r.cpu_samples, scope="HYPERVISOR", cpu=-1, ts_ms=S1)
    assert (total["utilization_pct"], total["logical_processors"]) == (41.8, 2)


def test_vm_group_cpu_is_per_vcpu_and_keeps_ready_and_wait(kit):
    r = batch(kit)
    vm = kit.one(r.cpu_samples, scope="VM", ts_ms=S0)
    # % Used 150.4 over the group's 2 Vcpu worlds; ESXi's own groups (system, hostd.2099) are not VMs.
    assert (vm["vm"], vm["utilization_pct"], vm["logical_processors"]) == ("vm-sql (2)", 75.2, 2)
    assert {k: vm["tags"][k] for k in ("ready_pct", "wait_pct", "costop_pct", "utilization_basis")} == {
        "ready_pct": "2.25", "wait_pct": "240.1", "costop_pct": "0.5", "utilization_basis": "used_over_vcpus"}
    assert {s["vm"] for s in r.cpu_samples if s["scope"] == "VM"} == {"vm-sql (2)"}


def test_adapter_samples_carry_the_latency_split(kit):
    r = batch(kit)
    rd = kit.one(r.io_samples, run_id=r.run_id, target="vmhba2", direction="READ", ts_ms=S0)
    # Reads/sec 8000 x 5 s; MBytes Read/sec 62.5 MiB; GAVG/rd 5.2 ms is the mean; Little's law 8000 x 5.2 ms.
    assert (rd["ops"], rd["bytes"], rd["latency_count"], rd["latency_sum_ns"]) == (40_000, 327_680_000, 40_000,
                                                                                   208_000_000_000)
    assert round(rd["outstanding_ios"], 9) == 41.6 and rd["latency_bucket_index"] == []
    assert {k: rd["tags"][k] for k in ("davg_ms", "kavg_ms", "qavg_ms", "gavg_ms", "commands_per_s")} == {
        "davg_ms": "4.9", "kavg_ms": "0.25", "qavg_ms": "0.1", "gavg_ms": "4.75", "commands_per_s": "12000"}
    wr = kit.one(r.io_samples, target="vmhba2", direction="WRITE", ts_ms=S0)
    # No /Write latency columns: the per-command GAVG (4.75 ms) and DAVG (4.5 ms) stand for the writes.
    assert (wr["ops"], wr["bytes"], wr["latency_sum_ns"], wr["tags"]["davg_ms"]) == (20_000, 163_840_000,
                                                                                     95_000_000_000, "4.5")


def test_the_split_tells_host_queueing_from_the_device(kit):
    r = batch(kit)
    first, second = (kit.one(r.io_samples, target="vmhba2", direction="WRITE", ts_ms=t)["tags"] for t in (S0, S1))
    # Latency up 4.75 -> 12.75 ms: the device part doubled (4.5 -> 9.5) but the kernel part grew 13-fold
    # (0.25 -> 3.25 ms, of which 2.9 ms queued): the host's queue, not only the array, is filling.
    assert (float(first["gavg_ms"]), float(second["gavg_ms"])) == (4.75, 12.75)
    assert (float(first["davg_ms"]), float(second["davg_ms"])) == (4.5, 9.5)
    assert (float(first["kavg_ms"]), float(second["kavg_ms"]), float(second["qavg_ms"])) == (0.25, 3.25, 2.9)


def test_luns_and_virtual_disks_are_companion_runs(kit):
    r = batch(kit)
    assert {s["run_id"] for s in r.io_samples} == {r.run_id, r.run_id + "-device", r.run_id + "-vdisk"}
    lun = kit.one(r.io_samples, run_id=r.run_id + "-device", direction="READ", ts_ms=S0)
    assert (lun["target"], lun["ops"], lun["bytes"]) == ("naa.600508b1001c4d5e", 35_000, 286_720_000)
    vd = kit.one(r.io_samples, run_id=r.run_id + "-vdisk", direction="READ", ts_ms=S0)
    assert (vd["vm"], vd["target"], vd["ops"], vd["latency_sum_ns"]) == ("vm-sql (2)", "scsi0:1", 29_500,
                                                                         29_500 * 6_100_000)
    # Virtual Disk(vm-sql (2)) is the VM's sum: left out, never a second target.
    assert {s["target"] for s in r.io_samples if s["run_id"].endswith("-vdisk")} == {"scsi0:1"}
    # The last row has blank vmhba2 Reads/Writes: no adapter sample there, the others still come.
    assert not [s for s in r.io_samples if s["target"] == "vmhba2" and s["ts_ms"] == S2]
    assert kit.one(r.io_samples, run_id=r.run_id + "-device", direction="READ", ts_ms=S2)["ops"] == 42_500


def test_network_ports_and_adapter_traffic(kit):
    r = batch(kit)
    nic = kit.one(r.port_samples, port_id="vmnic0", ts_ms=S0)
    # MBits Received/sec 720.25 = 90,031,250 bytes/s over 5 s; 0.5 % of 300,000 received packets dropped.
    assert (nic["rx_bytes"], nic["tx_bytes"], nic["rx_frames"], nic["tx_frames"]) == (450_156_250, 675_312_500,
                                                                                      300_000, 450_000)
    assert (nic["rx_errors"], nic["kind"], nic["tags"]["port_role"], nic["tags"]["portset"]) == (1500, "NIC", "physical",
                                                                                                "DvsPortset-0")
    vnic = kit.one(r.port_samples, port_id="vm-sql (2).eth0", ts_ms=S0)
    assert (vnic["vm"], vnic["rx_bytes"], vnic["tx_bytes"]) == ("vm-sql (2)", 125_156_250, 62_812_500)
    hba = kit.one(r.port_samples, port_id="vmhba2", ts_ms=S2)
    assert (hba["kind"], hba["rx_bytes"], hba["tx_bytes"]) == ("OTHER", 75 * 2**20 * 5, 40 * 2**20 * 5)


def test_unmapped_and_left_out_columns_are_reported_once(kit):
    r = batch(kit)
    f = kit.DATA / "esxtop_batch_vmhba_vm.csv"
    assert kit.errors_of(r, "warning") == [
        f"warning: {f}:1: 2 of 44 columns not imported (no esxtop mapping): Memory (1), Physical Cpu Load (1)",
        f"warning: {f}:1: 2 column(s) left out: Group Cpu of ESXi's own services (not VMs)",
        f"warning: {f}:1: 2 column(s) left out: Vcpu (read only to count each VM's vCPUs)",
        f"warning: {f}:1: 1 column(s) left out: Virtual Disk per-VM sums (their disks are imported)"]


def test_bad_values_lose_only_their_field(kit):
    text = (kit.DATA / "esxtop_batch_vmhba_vm.csv").read_text()
    lines = text.splitlines()
    cells = lines[2].split('","')
    cells[2] = "-5"        # Physical Cpu(0)\% Util Time
    cells[18] = "NaN"      # vmhba2 Reads/sec
    lines[2] = '","'.join(cells)
    r = kit.run_bytes("esxtop", ("bad.csv", ("\n".join(lines) + "\n").encode()))
    assert kit.errors_of(r) == [
        "error: bad.csv:3 [Physical Disk Adapter(vmhba2)\\Reads/sec]: not a number: 'NaN'",
        "error: bad.csv:3: PCPU 0 % Util Time = -5% is outside 0..100: left out"]
    assert not [s for s in r.cpu_samples if s["cpu"] == 0 and s["ts_ms"] == S1]
    assert [s["direction"] for s in r.io_samples if s["target"] == "vmhba2" and s["ts_ms"] == S1] == ["WRITE"]
    assert len(r.cpu_samples) == 11 and len(r.port_samples) == 9
