from __future__ import annotations

from ioscale.collectors.linux import (
    Snapshot,
    Tagging,
    collect_linux,
    counter_delta,
    parse_diskstats,
    parse_interrupts,
    parse_proc_stat,
    read_snapshot,
    records_between,
)
from ioscale.wire import topics

DISKSTATS_1 = """\
   8       0 sda 1000 10 80000 500 2000 20 160000 4000 3 6000 9000 0 0 0 0
   8       1 sda1 900 10 72000 450 1900 20 150000 3900 0 5000 8000
   7       0 loop0 5 0 10 0 0 0 0 0 0 0 0 0 0 0 0
"""
# sda: +100 reads (1600 sectors, 50 ms), +400 writes (3200 sectors, 200 ms); sda1's read counter wrapped.
DISKSTATS_2 = """\
   8       0 sda 1100 10 81600 550 2400 20 163200 4200 5 6500 9500 0 0 0 0
   8       1 sda1 10 10 72100 451 2000 20 150800 3950 1 5100 8100
   7       0 loop0 5 0 10 0 0 0 0 0 0 0 0 0 0 0 0
"""

STAT_1 = """\
cpu  100 0 50 800 20 5 5 0 0 0
cpu0 50 0 25 400 10 5 0 0 0 0
cpu1 50 0 25 400 10 0 5 0 0 0
intr 10000 1 2 3
ctxt 999
"""
STAT_2 = """\
cpu  200 10 90 1560 60 25 15 0 0 0
cpu0 110 10 45 770 30 15 10 0 0 0
cpu1 90 0 45 790 30 10 5 0 0 0
intr 12500 1 2 3
ctxt 1999
"""

INTERRUPTS_1 = """\
           CPU0       CPU1
  0:         10          0   IO-APIC   2-edge      timer
 24:        100        200   PCI-MSI 1-edge      virtio0-input.0
NMI:          1          1   Non-maskable interrupts
ERR:          0
"""
INTERRUPTS_2 = INTERRUPTS_1.replace("100        200", "600        700")


def snapshot(ts_ms: int, fs) -> Snapshot:
    return read_snapshot(ts_ms, fs.read_file, fs.list_dir, resolve_link=fs.resolve_link)


def test_parse_diskstats_fields() -> None:
    d = parse_diskstats(DISKSTATS_1)
    assert d["sda"].reads == 1000 and d["sda"].read_sectors == 80000 and d["sda"].read_ms == 500
    assert d["sda"].writes == 2000 and d["sda"].write_sectors == 160000 and d["sda"].in_flight == 3
    assert set(d) == {"sda", "sda1", "loop0"}


def test_parse_proc_stat_and_interrupts() -> None:
    s = parse_proc_stat(STAT_1)
    assert s.cpus[-1][:4] == (100, 0, 50, 800) and set(s.cpus) == {-1, 0, 1}
    assert s.interrupts == 10000
    irq = parse_interrupts(INTERRUPTS_1)
    assert irq.cpus == (0, 1) and set(irq.lines) == {"0", "24", "NMI"}  # ERR: one system-wide count
    assert irq.lines["24"].counts == (100, 200) and irq.lines["24"].actions == ("virtio0-input.0",)
    assert irq.lines["NMI"].counts == (1, 1) and not irq.lines["NMI"].device


def test_counter_delta_wrap_is_skipped() -> None:
    assert counter_delta(5, 8) == 3
    assert counter_delta(2**32 - 5, 3) is None
    assert counter_delta(None, 3) is None


def test_disk_records_and_wrap(producer) -> None:
    prev = Snapshot(1_000_000, disks=parse_diskstats(DISKSTATS_1))
    cur = Snapshot(1_002_000, disks=parse_diskstats(DISKSTATS_2))
    recs = [r for t, r in records_between(prev, cur, Tagging("run1", 3, "h1", "vm7")) if t == topics.IO_SAMPLES]
    by = {(r["target"], r["direction"]): r for r in recs}
    r = by[("sda", "READ")]
    assert (r["ops"], r["bytes"], r["interval_ms"], r["ts_ms"]) == (100, 1600 * 512, 2000, 1_000_000)
    assert r["latency_count"] == 0 and r["latency_bucket_index"] == [] and r["latency_sum_ns"] == 0
    assert r["tags"]["latency_sum_ns_estimate"] == str(50 * 1_000_000)
    assert r["outstanding_ios"] == 5.0 and r["vm"] == "vm7" and r["step_index"] == 3
    w = by[("sda", "WRITE")]
    assert (w["ops"], w["bytes"]) == (400, 3200 * 512)
    # sda1 reads went backwards (wrap/reset): READ skipped, WRITE still there; nothing negative anywhere.
    assert ("sda1", "READ") not in by and by[("sda1", "WRITE")]["ops"] == 100
    assert all(x["ops"] >= 0 and x["bytes"] >= 0 for x in recs)
    # idle device: zero-op samples, no latency estimate tag
    assert by[("loop0", "READ")]["ops"] == 0 and "latency_sum_ns_estimate" not in by[("loop0", "READ")]["tags"]
    # device filter
    only = records_between(prev, cur, Tagging("run1"), devices=["sda"])
    assert {r["target"] for t, r in only if t == topics.IO_SAMPLES} == {"sda"}


def test_cpu_records() -> None:
    prev = Snapshot(0, stat=parse_proc_stat(STAT_1), interrupts=parse_interrupts(INTERRUPTS_1))
    cur = Snapshot(1000, stat=parse_proc_stat(STAT_2), interrupts=parse_interrupts(INTERRUPTS_2))
    cpus = {r["cpu"]: r for t, r in records_between(prev, cur, Tagging("r")) if t == topics.CPU_SAMPLES}
    assert set(cpus) == {-1, 0, 1}
    tot = cpus[-1]
    # deltas: user 100 nice 10 system 40 idle 760 iowait 40 irq 20 softirq 10 -> total 980
    assert abs(tot["user_pct"] - 100 * 110 / 980) < 1e-9
    assert abs(tot["iowait_pct"] - 100 * 40 / 980) < 1e-9
    assert abs(tot["interrupt_pct"] - 100 * 20 / 980) < 1e-9 and abs(tot["dpc_pct"] - 100 * 10 / 980) < 1e-9
    assert abs(tot["privileged_pct"] - 100 * 70 / 980) < 1e-9
    assert abs(tot["utilization_pct"] - 100 * (980 - 760 - 40) / 980) < 1e-9
    assert tot["interrupts_per_s"] == 2500.0 and tot["logical_processors"] == 2 and tot["scope"] == "HOST"
    assert tot["tags"]["proc_interrupts_per_s"] == "1000.000"
    # line 24 went 100 -> 600 on CPU0 and 200 -> 700 on CPU1: per-CPU figures that add up to the total tag
    assert (cpus[0]["interrupts_per_s"], cpus[1]["interrupts_per_s"]) == (500.0, 500.0)


def test_cpu_counter_reset_skips_cpu() -> None:
    prev = Snapshot(0, stat=parse_proc_stat(STAT_2))
    cur = Snapshot(1000, stat=parse_proc_stat(STAT_1))  # went backwards everywhere
    assert [r for t, r in records_between(prev, cur, Tagging("r")) if t == topics.CPU_SAMPLES] == []


def _net(rx: int, tx: int, speed: str | None = "10000") -> dict[str, str]:
    base = "/sys/class/net/eth0"
    files = {f"{base}/statistics/rx_bytes": f"{rx}\n", f"{base}/statistics/tx_bytes": f"{tx}\n",
             f"{base}/statistics/rx_packets": "10\n", f"{base}/statistics/tx_packets": "20\n",
             f"{base}/statistics/rx_errors": "0\n", f"{base}/statistics/tx_errors": "1\n",
             "/sys/class/net/lo/statistics/rx_bytes": "5\n"}
    if speed is not None:
        files[f"{base}/speed"] = speed
    fc = "/sys/class/fc_host/host3"
    files.update({f"{fc}/statistics/rx_words": hex(rx), f"{fc}/statistics/tx_words": hex(tx),
                  f"{fc}/statistics/rx_frames": "0x10", f"{fc}/statistics/tx_frames": "0x20",
                  f"{fc}/statistics/error_frames": "0x0", f"{fc}/speed": "16 Gbit"})
    return files


def test_ports_nic_and_fc_with_wrap(fake_fs) -> None:
    a = snapshot(0, fake_fs(_net(1000, 2000)))
    b = snapshot(1000, fake_fs(_net(1500, 2600, speed=None)))
    c = snapshot(2000, fake_fs(_net(100, 2700)))  # rx wrapped
    ports = {r["port_id"]: r for t, r in records_between(a, b, Tagging("r")) if t == topics.PORT_SAMPLES}
    assert set(ports) == {"eth0", "host3"}  # lo skipped
    assert (ports["eth0"]["rx_bytes"], ports["eth0"]["tx_bytes"], ports["eth0"]["kind"]) == (500, 600, "NIC")
    assert ports["eth0"]["link_speed_bps"] == 0  # speed unreadable in the second read
    assert (ports["host3"]["rx_bytes"], ports["host3"]["tx_bytes"]) == (500 * 4, 600 * 4)
    assert ports["host3"]["kind"] == "FC_HBA" and ports["host3"]["link_speed_bps"] == 16_000_000_000
    wrapped = [r for t, r in records_between(b, c, Tagging("r")) if t == topics.PORT_SAMPLES]
    assert wrapped == []
    assert snapshot(0, fake_fs(_net(1, 2))).ports["eth0"].link_speed_bps == 10_000_000_000


def test_collect_linux_with_fake_proc(producer, fake_fs) -> None:
    # three reads: initial + 2 ticks; the second tick's diskstats wrapped for sda1 READ
    seq = [
        {"/proc/diskstats": DISKSTATS_1, "/proc/stat": STAT_1, "/proc/interrupts": INTERRUPTS_1, **_net(0, 0)},
        {"/proc/diskstats": DISKSTATS_2, "/proc/stat": STAT_2, "/proc/interrupts": INTERRUPTS_2, **_net(10, 20)},
        {"/proc/diskstats": DISKSTATS_2, "/proc/stat": STAT_2, "/proc/interrupts": INTERRUPTS_2, **_net(30, 20)},
    ]
    state = {"i": 0, "t": 100.0}
    reads: list[str] = []

    def read_file(path: str) -> str | None:
        if path == "/proc/diskstats":
            reads.append(path)
        return seq[len(reads) - 1].get(path) if reads else None

    def list_dir(path: str) -> list[str]:
        return fake_fs(seq[0]).list_dir(path)

    def sleep(s: float) -> None:
        state["t"] += s

    n = collect_linux(producer, "run9", step_index=2, interval_s=1.0, duration_s=2.0, vm="guest1",
                      host="hostA", clock=lambda: state["t"], sleep=sleep, read_file=read_file, list_dir=list_dir,
                      resolve_link=lambda path: None)
    assert len(reads) == 3 and n == len(producer.records)
    producer.validate()
    io = producer.of(topics.IO_SAMPLES)
    assert {r["ts_ms"] for r in io} == {100_000, 101_000}
    assert all(r["interval_ms"] == 1000 and r["host"] == "hostA" and r["vm"] == "guest1" for r in io)
    assert sum(r["ops"] for r in io if r["target"] == "sda" and r["direction"] == "READ") == 100
    cpu = producer.of(topics.CPU_SAMPLES)
    assert {r["scope"] for r in cpu} == {"GUEST"}
    ports = [r for r in producer.of(topics.PORT_SAMPLES) if r["port_id"] == "eth0"]
    assert [p["rx_bytes"] for p in ports] == [10, 20]


def test_collect_linux_real_proc(producer) -> None:
    """One real 50 ms interval on this machine: records exist and validate."""
    collect_linux(producer, "real", interval_s=0.05, duration_s=0.05)
    producer.validate()
    assert producer.of(topics.CPU_SAMPLES) and any(r["cpu"] == -1 for r in producer.of(topics.CPU_SAMPLES))
