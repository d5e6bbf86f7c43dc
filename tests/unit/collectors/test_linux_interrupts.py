"""Interrupts per CPU and per NIC queue / port from /proc/interrupts (linux collector).

Fixtures (fixtures/): this machine's own /proc/interrupts and /proc/stat read twice, 1 s apart (a 2-CPU
KVM guest, kernel 6.18, virtio-net eth0 = virtio2), and synthetic reads laid out with the kernel's format
strings by fixtures/make_proc_interrupts.py. The expected figures below are worked out by hand from the
increments listed there; each sum is written out term by term.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ioscale.collectors.linux import (
    Interrupts,
    IrqLine,
    PortDevice,
    Snapshot,
    Tagging,
    interrupt_deltas,
    map_irq_lines,
    parse_interrupts,
    parse_proc_stat,
    port_device,
    read_snapshot,
    records_between,
)
from ioscale.wire import topics

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def snapshot(ts_ms: int, fs: Any) -> Snapshot:
    return read_snapshot(ts_ms, fs.read_file, fs.list_dir, resolve_link=fs.resolve_link)


def cpu_rows(records: list[tuple[str, dict]]) -> dict[int, dict]:
    return {r["cpu"]: r for t, r in records if t == topics.CPU_SAMPLES}


def port_rows(records: list[tuple[str, dict]]) -> dict[tuple[str, int], dict]:
    return {(r["port_id"], r["queue"]): r for t, r in records if t == topics.PORT_SAMPLES}


# --- parsing -------------------------------------------------------------------------------------------------
def test_parse_vm4_layout() -> None:
    irq = parse_interrupts(fixture("proc_interrupts_vm4_virtio_1.txt"))
    assert irq.cpus == (0, 1, 2, 3)
    assert irq.lines["25"] == IrqLine((1_234_567, 0, 0, 0), True, ("virtio0-input.0",), "")
    assert irq.lines["9"].actions == ("acpi",) and irq.lines["4"].counts == (0, 0, 412, 0)
    assert irq.lines["LOC"] == IrqLine((9_000_000,) * 4, False, ())
    # ERR and MIS hold one system-wide count each: not per-CPU lines
    assert "ERR" not in irq.lines and "MIS" not in irq.lines and "PIW" in irq.lines
    assert len(irq.lines) == 16 + 14 + 3


def test_parse_real_6_18_layout_with_chip_pci() -> None:
    """This machine's kernel prints the PCI address in the chip column (per-device MSI-X domains)."""
    irq = parse_interrupts(fixture("proc_interrupts_real_vm2_1.txt"))
    assert irq.cpus == (0, 1)
    line = irq.lines["38"]
    assert line.actions == ("virtio2-input.0",) and line.chip_pci == "0000:00:03.0" and line.device
    assert irq.lines["24"].actions == ("ACPI:Ged",) and irq.lines["24"].chip_pci == ""
    assert irq.lines["HYP"].counts == (65, 57)


def test_parse_older_arm_and_shared_layouts() -> None:
    x86_3_10 = """\
           CPU0       CPU1       CPU2       CPU3
 11:          0          0          0       1804   IO-APIC-fasteoi   uhci_hcd:usb1, eth0
 53:     918273          0          0          0  IR-PCI-MSI-edge      eth1-TxRx-0
 54:          0          0          0          0  IR-PCI-MSI-edge      qla2xxx (default)
"""
    irq = parse_interrupts(x86_3_10)
    assert irq.lines["11"].actions == ("uhci_hcd:usb1", "eth0")  # a shared INTx line: both handlers
    assert irq.lines["53"].actions == ("eth1-TxRx-0",) and irq.lines["53"].counts == (918_273, 0, 0, 0)
    assert irq.lines["54"].actions == ("qla2xxx (default)",)  # a handler name with a space (old qla2xxx)
    arm64 = """\
           CPU0       CPU1
 11:       5000       6000     GICv3  30 Level     arch_timer
 14:          3          0     GICv3  79 Level     virtio0
IPI0:       100        200       Rescheduling interrupts
Err:          0
"""
    irq = parse_interrupts(arm64)
    assert irq.lines["11"].actions == ("arch_timer",) and irq.lines["14"].actions == ("virtio0",)
    assert irq.lines["IPI0"] == IrqLine((100, 200), False, ())
    assert set(irq.lines) == {"11", "14", "IPI0"}


def test_parse_empty_and_garbled() -> None:
    assert parse_interrupts("") == Interrupts((), {})
    assert parse_interrupts("no header\n 0: 1 2\n") == Interrupts((), {})
    # a truncated row (fewer counts than CPUs) is not taken for a per-CPU line
    assert set(parse_interrupts("  CPU0  CPU1\n  0:  5\n  1:  5  6  IO-APIC  1-edge  i8042\n").lines) == {"1"}


# --- deltas --------------------------------------------------------------------------------------------------
def test_deltas_vm4_exact_per_cpu_and_sum() -> None:
    d = interrupt_deltas(parse_interrupts(fixture("proc_interrupts_vm4_virtio_1.txt")),
                         parse_interrupts(fixture("proc_interrupts_vm4_virtio_2.txt")))
    # device lines + LOC + RES + CAL + IWI; TLB (2, 3, 1, 0) is inside CAL and ERR (+1) is not per CPU
    assert d.per_cpu == {0: 1200 + 300 + 250 + 10 + 5 + 1,
                         1: 800 + 200 + 700 + 250 + 20 + 6,
                         2: 3 + 50 + 249 + 30 + 7,
                         3: 2000 + 500 + 251 + 40 + 8}
    assert d.device_per_cpu == {0: 1500, 1: 1700, 2: 53, 3: 2500}
    assert sum(d.per_cpu.values()) == 6880 and not d.cpu_set_changed
    assert d.per_line["TLB"] == 6 and d.per_line["25"] == 1200 and d.per_line["29"] == 0
    # every interrupt of every non-TLB line is on exactly one CPU
    assert sum(d.per_cpu.values()) == sum(n for label, n in d.per_line.items() if label != "TLB")


def test_deltas_counter_reset_new_and_vanished_lines() -> None:
    prev = Interrupts((0, 1), {"30": IrqLine((100, 100), True, ("eth0-TxRx-0",)),
                               "31": IrqLine((50, 0), True, ("eth0-TxRx-1",)),
                               "32": IrqLine((7, 7), True, ("gone",))})
    cur = Interrupts((0, 1), {"30": IrqLine((90, 130), True, ("eth0-TxRx-0",)),   # CPU0 went backwards
                              "31": IrqLine((60, 5), True, ("eth0-TxRx-1",)),
                              "33": IrqLine((4, 1), True, ("eth0-TxRx-2",))})     # new (ethtool -L)
    d = interrupt_deltas(prev, cur)
    assert d.per_line == {"30": 30, "31": 15, "33": 5}
    assert d.per_cpu == {0: 0 + 10 + 4, 1: 30 + 5 + 1}
    assert min(d.per_cpu.values()) >= 0


# --- CPU hotplug ---------------------------------------------------------------------------------------------
def hotplug_snap(read: int, stat_read: int | None = None) -> Snapshot:
    return Snapshot(read * 1000, stat=parse_proc_stat(fixture(f"proc_stat_hotplug_{stat_read or read}.txt")),
                    interrupts=parse_interrupts(fixture(f"proc_interrupts_hotplug_{read}.txt")),
                    ports={}, irq_targets={})


def test_hotplug_columns_follow_the_header() -> None:
    r1, r2, r3 = (parse_interrupts(fixture(f"proc_interrupts_hotplug_{i}.txt")) for i in (1, 2, 3))
    assert (r1.cpus, r2.cpus, r3.cpus) == ((0, 1, 2, 3), (0, 1, 3), (0, 1, 2, 3))
    d12 = interrupt_deltas(r1, r2)
    # CPU3 is the third column of read 2: a positional diff would subtract CPU2's counts from it
    assert d12.per_cpu == {0: 1000 + 100 + 250 + 3 + 1,
                           1: 900 + 90 + 250 + 3 + 1,
                           3: 40 + 4 + 700 + 70 + 250 + 3 + 8}
    assert d12.cpu_set_changed and d12.per_line["29"] == 40  # CPU2's 5 before it went offline: lost
    d23 = interrupt_deltas(r2, r3)  # CPU2 back: no baseline for it in read 2, skipped
    assert d23.per_cpu == {0: 1100 + 110 + 250 + 4 + 1,
                           1: 950 + 95 + 250 + 4 + 1,
                           3: 20 + 2 + 750 + 75 + 250 + 4 + 1}
    d13 = interrupt_deltas(r1, r3)  # online at both: the kernel kept its counts while offline
    assert d13.per_cpu[2] == (5 + 10) + 1 + (100 + 120) + 2 + 9 and d13.device_per_cpu[2] == 16
    assert d13.per_cpu[3] == (40 + 20) + (4 + 2) + (700 + 750) + (70 + 75) + 500 + 7 + 9
    assert not d13.cpu_set_changed
    for a, b in [(r1, r2), (r2, r3), (r2, r1), (r3, r1), (r3, r2)]:
        d = interrupt_deltas(a, b)
        assert min([*d.per_cpu.values(), *d.per_line.values()]) >= 0


def test_hotplug_records() -> None:
    tag = Tagging("hp", host="g1")
    cpus = cpu_rows(records_between(hotplug_snap(1), hotplug_snap(2), tag))
    assert set(cpus) == {-1, 0, 1, 3}  # /proc/stat has no cpu2 line while it is offline
    assert cpus[3]["interrupts_per_s"] == 1075.0 and cpus[3]["tags"]["interrupts_per_s_basis"] == "proc_interrupts"
    assert cpus[-1]["tags"]["proc_interrupts_per_s"] == f"{1354 + 1244 + 1075:.3f}"
    assert cpus[-1]["interrupts_per_s"] == 2000.0  # /proc/stat intr, untouched
    # /proc/stat read at both ends with cpu2 online, /proc/interrupts not: no figure rather than a wrong one
    mixed = cpu_rows(records_between(hotplug_snap(1), hotplug_snap(2, stat_read=3), tag))
    assert mixed[2]["interrupts_per_s"] == 0.0 and mixed[2]["tags"]["interrupts_per_s_basis"] == "cpu_set_changed"
    assert "device_interrupts_per_s" not in mixed[2]["tags"]
    assert all(r["interrupts_per_s"] >= 0 for r in mixed.values())


def test_hotplug_port_interrupts_are_partial(fake_fs) -> None:
    def snap(i: int) -> Snapshot:
        fs = fake_fs({"/proc/interrupts": fixture(f"proc_interrupts_hotplug_{i}.txt")})
        fs.nic("ens3", "/sys/devices/pci0000:00/0000:00:03.0/virtio0", "virtio_net")
        return snapshot(i * 1000, fs)

    ports = port_rows(records_between(snap(1), snap(2), Tagging("hp")))
    assert {q: ports[("ens3", q)]["interrupts"] for q in range(4)} == {0: 1100, 1: 990, 2: 44, 3: 770}
    assert ports[("ens3", -1)]["interrupts"] == 1100 + 990 + 44 + 770
    assert ports[("ens3", -1)]["tags"]["interrupts_basis"] == "proc_interrupts_partial"
    whole = port_rows(records_between(snap(1), snap(3), Tagging("hp")))[("ens3", -1)]
    assert whole["interrupts"] == (1000 + 1100) + (100 + 110) + (900 + 950) + (90 + 95) + (5 + 40 + 10 + 20) \
        + (4 + 1 + 2) + (700 + 750) + (70 + 75)
    assert whole["tags"]["interrupts_basis"] == "proc_interrupts"


# --- per-queue and per-port, three host types ----------------------------------------------------------------
def vm4_fs(fake_fs, read: int):
    fs = fake_fs({"/proc/interrupts": fixture(f"proc_interrupts_vm4_virtio_{read}.txt"),
                  "/proc/stat": fixture(f"proc_stat_vm4_virtio_{read}.txt")})
    fs.nic("enp0s3", "/sys/devices/pci0000:00/0000:00:03.0/virtio0", "virtio_net", rx_bytes=1000 * read,
           speed_mbps=-1)  # virtio reports speed -1 (unknown) unless the host sets one
    fs.nic("docker0", None)  # virtual: no device, no IRQ
    return fs


def test_vm4_virtio_records(fake_fs, producer) -> None:
    recs = records_between(snapshot(1000, vm4_fs(fake_fs, 1)), snapshot(2000, vm4_fs(fake_fs, 2)),
                           Tagging("vm", host="guest4", vm="vm7"))
    cpus = cpu_rows(recs)
    assert {c: cpus[c]["interrupts_per_s"] for c in range(4)} == {0: 1766.0, 1: 1976.0, 2: 339.0, 3: 2799.0}
    assert {c: cpus[c]["tags"]["device_interrupts_per_s"] for c in range(4)} == {
        0: "1500.000", 1: "1700.000", 2: "53.000", 3: "2500.000"}
    tot = cpus[-1]
    assert tot["interrupts_per_s"] == 6881.0  # /proc/stat intr: the per-CPU lines plus ERR's 1
    assert tot["tags"]["proc_interrupts_per_s"] == "6880.000" == f"{1766 + 1976 + 339 + 2799:.3f}"
    assert tot["tags"]["proc_device_interrupts_per_s"] == f"{1500 + 1700 + 53 + 2500:.3f}"
    ports = port_rows(recs)
    assert set(ports) == {("enp0s3", -1), ("docker0", -1), *(("enp0s3", q) for q in range(4))}
    queues = {q: ports[("enp0s3", q)]["interrupts"] for q in range(4)}
    assert queues == {0: 1200 + 300, 1: 800 + 200, 2: 0 + 50, 3: 2000 + 500}
    whole = ports[("enp0s3", -1)]
    assert whole["interrupts"] == sum(queues.values()) + 0  # + virtio0-config, idle
    assert whole["rx_bytes"] == 1000 and whole["vm"] == "vm7"
    assert whole["tags"]["interrupts_basis"] == "proc_interrupts"
    assert ports[("docker0", -1)]["interrupts"] == 0
    assert ports[("docker0", -1)]["tags"]["interrupts_basis"] == "unmapped"
    q3 = ports[("enp0s3", 3)]
    assert (q3["kind"], q3["vm"], q3["rx_bytes"], q3["tx_bytes"], q3["rx_frames"]) == ("NIC", "", 0, 0, 0)
    assert q3["tags"] == {"source": "proc_interrupts", "traffic_basis": "not_measured",
                          "interrupts_basis": "proc_interrupts"}
    assert (q3["ts_ms"], q3["interval_ms"], q3["host"]) == (1000, 1000, "guest4")
    # every record, per-queue PortSamples included, has exactly its schema's fields and validates
    for t, r in recs:
        producer.send(t, r)
    producer.validate()


def test_rates_use_the_interval() -> None:
    def snap(ts_ms: int, read: int) -> Snapshot:
        return Snapshot(ts_ms, stat=parse_proc_stat(fixture(f"proc_stat_vm4_virtio_{read}.txt")),
                        interrupts=parse_interrupts(fixture(f"proc_interrupts_vm4_virtio_{read}.txt")))

    cpus = cpu_rows(records_between(snap(0, 1), snap(2000, 2), Tagging("r")))
    assert cpus[0]["interrupts_per_s"] == 1766 / 2 and cpus[-1]["tags"]["proc_interrupts_per_s"] == "3440.000"


def machine_fs(fake_fs, interrupts: str, nics: list[tuple[str, str, str, int]], fc_hosts: list[tuple[str, str, str]]):
    """/proc/interrupts plus NICs (name, PCI device path, driver, Mb/s) and FC hosts (name, device path, driver)."""
    fs = fake_fs({"/proc/interrupts": interrupts})
    for name, path, driver, mbps in nics:
        fs.nic(name, path, driver, speed_mbps=mbps)
    for name, path, driver in fc_hosts:
        fs.fc_host(name, path, driver)
    return fs


def host_fs(fake_fs, read: int):
    return machine_fs(fake_fs, fixture(f"proc_interrupts_host_ixgbe_qla_{read}.txt"),
                      [("eth0", "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0", "ixgbe", 10000),
                       ("eth1", "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1", "ixgbe", 10000)],
                      [("host3", "/sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0/host3", "qla2xxx"),
                       ("host4", "/sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.1/host4", "qla2xxx")])


def test_two_socket_ixgbe_and_qla2xxx(fake_fs) -> None:
    a, b = snapshot(0, host_fs(fake_fs, 1)), snapshot(1000, host_fs(fake_fs, 2))
    d = interrupt_deltas(a.interrupts, b.interrupts)
    base = 1000 + 100 + 30  # LOC + RES + CAL on every CPU (TLB's 10 left out)
    assert d.per_cpu == {0: 5000 + 1 + 3000 + 2 + 50 + base,
                         1: 4000 + 3100 + 10 + 50 + base,
                         2: 3000 + 3200 + 50 + base,
                         3: 2000 + 3300 + 50 + 7 + base,  # + ahci (not a port)
                         4: 1000 + 100 + 1000 + 50 + base,
                         5: 500 + 200 + 1000 + 5 + 50 + base,
                         6: 250 + 300 + 1000 + 50 + base,
                         7: 0 + 400 + 1000 + 50 + base}
    ports = port_rows(records_between(a, b, Tagging("h", host="pe1")))
    eth0_q = {q: ports[("eth0", q)]["interrupts"] for q in range(8)}
    assert eth0_q == {0: 5000, 1: 4000, 2: 3000, 3: 2000, 4: 1000, 5: 500, 6: 250, 7: 0}
    assert ports[("eth0", -1)]["interrupts"] == sum(eth0_q.values()) + 1  # + the misc vector 'eth0'
    assert {q: ports[("eth1", q)]["interrupts"] for q in range(4)} == {0: 100, 1: 200, 2: 300, 3: 400}
    assert ports[("eth1", -1)]["interrupts"] == 1000
    assert ports[("eth0", 3)]["link_speed_bps"] == 10_000_000_000  # a queue shares its port's capacity
    # FC: whole port only, every vector of the SCSI host named in qla2xxx<N>_...
    assert ports[("host3", -1)]["interrupts"] == 2 + 10 + 3000 + 3100 + 3200 + 3300
    assert ports[("host4", -1)]["interrupts"] == 5 + 4 * 1000
    assert ports[("host3", -1)]["kind"] == "FC_HBA"
    assert {k for k in ports if k[0].startswith("host")} == {("host3", -1), ("host4", -1)}
    # unmapped lines (nvme, ahci naming a PCI address no port has) stay in the per-CPU figures only
    assert "29" not in b.irq_targets and not any(str(n) in b.irq_targets for n in range(100, 109))
    mapped = sum(ports[(p, -1)]["interrupts"] for p in ("eth0", "eth1", "host3", "host4"))
    assert mapped + 7 + 8 * 50 == sum(d.device_per_cpu.values())


def mlx5_fs(fake_fs, read: int, *, chip_pci: bool = True):
    text = fixture(f"proc_interrupts_host_mlx5_lpfc_{read}.txt")
    if not chip_pci:  # the layout of kernels before per-device MSI-X domains
        text = text.replace("IR-PCI-MSIX-0000:d8:00.0", "IR-PCI-MSI").replace("IR-PCI-MSIX-0000:d8:00.1", "IR-PCI-MSI")
    return machine_fs(fake_fs, text,
                      [("ens1f0np0", "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0", "mlx5_core", 100000),
                       ("ens1f1np1", "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.1", "mlx5_core", 100000)],
                      [("host7", "/sys/devices/pci0000:d7/0000:d7:00.0/0000:d8:00.0/host7", "lpfc"),
                       ("host8", "/sys/devices/pci0000:d7/0000:d7:00.0/0000:d8:00.1/host8", "lpfc")])


def test_mlx5_and_lpfc(fake_fs) -> None:
    a, b = snapshot(0, mlx5_fs(fake_fs, 1)), snapshot(1000, mlx5_fs(fake_fs, 2))
    d = interrupt_deltas(a.interrupts, b.interrupts)
    base = 250 + 5 + 2
    assert d.per_cpu == {0: 10000 + 3 + 500 + 100 + base, 1: 9000 + 500 + 100 + base,
                         2: 500 + 250 + 100 + base, 3: 500 + 250 + 100 + base,
                         4: 250 + 100 + base, 5: 250 + 100 + base}
    ports = port_rows(records_between(a, b, Tagging("h")))
    assert {q: ports[("ens1f0np0", q)]["interrupts"] for q in range(6)} == {0: 10000, 1: 9000, 2: 0, 3: 0, 4: 0, 5: 0}
    assert ports[("ens1f0np0", -1)]["interrupts"] == 10000 + 9000 + 3  # + mlx5_async0
    assert {q: ports[("ens1f1np1", q)]["interrupts"] for q in range(6)} == dict.fromkeys(range(6), 100)
    assert ports[("ens1f1np1", -1)]["interrupts"] == 600
    # both HBA ports name their vectors lpfc:0..3: told apart by the PCI address in the chip column
    assert (ports[("host7", -1)]["interrupts"], ports[("host8", -1)]["interrupts"]) == (4 * 500, 4 * 250)
    # without that column two lpfc hosts cannot be told apart: no guess
    old = port_rows(records_between(snapshot(0, mlx5_fs(fake_fs, 1, chip_pci=False)),
                                    snapshot(1000, mlx5_fs(fake_fs, 2, chip_pci=False)), Tagging("h")))
    assert old[("host7", -1)]["interrupts"] == 0 and old[("host7", -1)]["tags"]["interrupts_basis"] == "unmapped"
    assert old[("ens1f0np0", -1)]["interrupts"] == 19003


def test_single_lpfc_host_maps_by_driver() -> None:
    irq = parse_interrupts("""\
            CPU0       CPU1
 170:         11         22  IR-PCI-MSI 1234-edge      lpfc:0
 171:         33         44  IR-PCI-MSI 1235-edge      lpfc:1
""")
    fc = {"host7": PortDevice("host7", "0000:d8:00.0", "lpfc")}
    assert map_irq_lines(irq, {}, fc) == {"170": ("host7", -1), "171": ("host7", -1)}
    assert map_irq_lines(irq, {}, {**fc, "host8": PortDevice("host8", "0000:d8:00.1", "lpfc")}) == {}
    assert map_irq_lines(irq, {}, {"host1": PortDevice("host1", "0000:03:00.0", "qla2xxx")}) == {}


# --- handler names -------------------------------------------------------------------------------------------
NICS = {
    "eth0": PortDevice("0000:3b:00.0", "0000:3b:00.0", "i40e"),
    "eth1": PortDevice("0000:3b:00.1", "0000:3b:00.1", "ixgbe"),
    "eth10": PortDevice("0000:3c:00.0", "0000:3c:00.0", "ixgbe"),
    "ens5": PortDevice("0000:00:05.0", "0000:00:05.0", "ena"),
    "ens192": PortDevice("0000:0b:00.0", "0000:0b:00.0", "vmxnet3"),
    "enp1s0f0": PortDevice("0000:01:00.0", "0000:01:00.0", "tg3"),
    "eno1": PortDevice("0000:18:00.0", "0000:18:00.0", "bnx2x"),
    "enp0s3": PortDevice("virtio0", "0000:00:03.0", "virtio_net"),
    "rep0": PortDevice("0000:5e:00.0", "0000:5e:00.0", "mlx5_core"),  # a representor sharing the PF's
    "pf0": PortDevice("0000:5e:00.0", "0000:5e:00.0", "mlx5_core"),   # PCI function: ambiguous
    "lan": PortDevice("0000:02:00.0", "0000:02:00.0", "igb"),
    "br-lan": PortDevice("0000:02:00.1", "0000:02:00.1", "igb"),  # contains 'lan', and 'br-' looks like a prefix
}
FC = {"host3": PortDevice("host3", "0000:af:00.0", "qla2xxx")}


@pytest.mark.parametrize("action, target", [
    ("eth1-TxRx-3", ("eth1", 3)),           # ixgbe, igb, bnxt
    ("i40e-eth0-TxRx-3", ("eth0", 3)),      # i40e / ice prefix the driver
    ("eth10-TxRx-1", ("eth10", 1)),         # not eth1's
    ("ens5-rx-0", ("ens5", 0)), ("ens5-tx-0", ("ens5", 0)), ("ens5-Tx-Rx-2", ("ens5", 2)),
    ("ens192-rxtx-2", ("ens192", 2)), ("ens192-event-0", ("ens192", -1)),
    ("enp1s0f0-0", ("enp1s0f0", 0)), ("enp1s0f0", ("enp1s0f0", -1)),
    ("eno1-fp-7", ("eno1", 7)), ("eth1", ("eth1", -1)),
    ("br-lan-TxRx-1", ("br-lan", 1)), ("igb-lan-TxRx-1", ("lan", 1)),
    ("virtio0-input.5", ("enp0s3", 5)), ("virtio0-output.5", ("enp0s3", 5)),
    ("virtio0-config", ("enp0s3", -1)), ("virtio0-virtqueues", ("enp0s3", -1)),
    ("i40e-0000:3b:00.0:misc", ("eth0", -1)),
    ("qla2xxx3_qpair2", ("host3", -1)), ("qla2xxx3_default", ("host3", -1)),
    ("virtio1-req.0", None), ("nvme0q1", None), ("ahci[0000:00:17.0]", None), ("timer", None),
    ("mlx5_comp0@pci:0000:5e:00.0", None),  # two interfaces on that PCI function
    ("qla2xxx9_rsp_q", None),               # no SCSI host 9, and two qla2xxx hosts: no guess
])
def test_handler_names(action: str, target: tuple[str, int] | None) -> None:
    irq = Interrupts((0,), {"40": IrqLine((1,), True, (action,))})
    fc = FC if action != "qla2xxx9_rsp_q" else {**FC, "host4": PortDevice("host4", "0000:af:00.1", "qla2xxx")}
    assert map_irq_lines(irq, NICS, fc).get("40") == target


def test_shared_lines() -> None:
    lines = {"11": IrqLine((5,), True, ("uhci_hcd:usb1", "eth1")),      # INTx shared with USB: cannot split
             "12": IrqLine((5,), True, ("eth1-rx-0", "eth1-tx-0")),     # one queue's two handlers
             "13": IrqLine((5,), True, ("eth1-TxRx-0", "eth1-TxRx-1")),  # one port, two queues: port only
             "14": IrqLine((5,), True, ("eth1", "eth10")),              # two ports
             "LOC": IrqLine((5,), False, ())}
    assert map_irq_lines(Interrupts((0,), lines), NICS, {}) == {"12": ("eth1", 0), "13": ("eth1", -1)}


def test_port_device_from_sysfs_paths() -> None:
    drivers = {"/sys/devices/pci0000:00/0000:00:03.0/virtio0/driver": "/sys/bus/virtio/drivers/virtio_net",
               "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/driver": "/sys/bus/pci/drivers/ixgbe",
               "/sys/devices/pci0000:ae/0000:ae:00.0/0000:AF:00.0/driver": "/sys/bus/pci/drivers/qla2xxx"}
    assert port_device("/sys/devices/pci0000:00/0000:00:03.0/virtio0", drivers.get) == \
        PortDevice("virtio0", "0000:00:03.0", "virtio_net")
    assert port_device("/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0", drivers.get) == \
        PortDevice("0000:3b:00.0", "0000:3b:00.0", "ixgbe")
    assert port_device("/sys/devices/pci0000:ae/0000:ae:00.0/0000:AF:00.0/host3", drivers.get) == \
        PortDevice("host3", "0000:af:00.0", "qla2xxx")
    assert port_device("/sys/devices/vif-0", drivers.get) == PortDevice("vif-0", "", "")
    assert port_device(None, drivers.get) is None


# --- this machine ---------------------------------------------------------------------------------------------
def real_fs(fake_fs, read: int):
    fs = fake_fs({"/proc/interrupts": fixture(f"proc_interrupts_real_vm2_{read}.txt"),
                  "/proc/stat": fixture(f"proc_stat_real_vm2_{read}.txt")})
    fs.nic("eth0", "/sys/devices/pci0000:00/0000:00:03.0/virtio2", "virtio_net")
    fs.links["/sys/devices/pci0000:00/0000:00:03.0/virtio2/driver"] = "/sys/bus/virtio/drivers/virtio_net"
    fs.nic("ifb0", None)
    return fs


def test_real_capture_of_this_machine(fake_fs) -> None:
    """Recorded here: 2 CPUs, kernel 6.18; the two files of a read were read back to back."""
    a, b = snapshot(0, real_fs(fake_fs, 1)), snapshot(1000, real_fs(fake_fs, 2))
    assert b.irq_targets == {"37": ("eth0", -1), "38": ("eth0", 0), "39": ("eth0", 0)}
    recs = records_between(a, b, Tagging("real"))
    cpus = cpu_rows(recs)
    # CPU0: virtio3-rx 1, LOC 688, RES 61, CAL 102; CPU1: virtio0-stats 1, virtio1-req.0 45, virtio3-tx 4,
    # LOC 573, RES 45, CAL 112 (TLB 7 and 12 are inside CAL)
    assert (cpus[0]["interrupts_per_s"], cpus[1]["interrupts_per_s"]) == (1 + 688 + 61 + 102, 1 + 45 + 4 + 573 + 45 + 112)
    # /proc/stat's intr moved 1633 in the same second: the per-CPU sum (1632) agrees to the reads' skew;
    # counting TLB as well would be 19 off.
    assert cpus[-1]["interrupts_per_s"] == 1633.0 and cpus[-1]["tags"]["proc_interrupts_per_s"] == "1632.000"
    ports = port_rows(recs)
    assert ports[("eth0", 0)]["interrupts"] == 0 and ports[("eth0", -1)]["tags"]["interrupts_basis"] == "proc_interrupts"
