"""Each seed scenario tells its study's story: the figures are recomputed from the generated records
(steady state of each step, ramp-up excluded) and compared with what the lab reports state."""

from __future__ import annotations

import pytest

from ioscale.simulator.scenarios import S2D_VMS_PER_NODE

MB = 1e6          # the FC vendors' and the studies' "MB/s" on the wire (800 MB/s = 8 Gbps payload)
FC8_PAYLOAD = 800e6
FC4_PAYLOAD = 400e6


def gains(values: list[float]) -> list[float]:
    return [b / a - 1 for a, b in zip(values, values[1:])]


# --- seed 000: Hyper-V, 8 Gbps FC, Iometer ------------------------------------------------------------------
def test_hyperv_8k_converges_on_hba_wire_speed(steps):
    st = steps("hyperv-fc8-iometer")
    host = [st[("host-8k", i)] for i in range(4)]
    # "with three drives ... exceeded 122,000 IOPS and 960 MBps"; "converge to just under 129,000 IOPS and
    # just over 1,000 MBps" (Iometer's MB = MiB)
    assert 117e3 <= host[2].iops <= 125e3
    assert 120e3 <= host[3].iops <= 135e3
    assert 950 <= host[3].mib_per_s <= 1050
    # the read channel is what saturates: ~100 % of the 8 Gbps port's payload rate
    assert host[3].rx_bytes_per_s("QLE2560") / FC8_PAYLOAD >= 0.97
    # per-step gains of about 40 %, 20 %, 5 %
    g = gains([s.iops for s in host])
    assert g[0] == pytest.approx(0.40, abs=0.05)
    assert g[1] == pytest.approx(0.20, abs=0.05)
    assert g[2] == pytest.approx(0.05, abs=0.05)
    # "We measured that same pattern in all of our VM scalability tests"
    vms = st[("vms-8k", 3)]
    assert 118e3 <= vms.iops <= 132e3


def test_hyperv_4k_host_200k_and_four_vms_160k(steps):
    st = steps("hyperv-fc8-iometer")
    host = [st[("host-4k", i)].iops for i in range(4)]
    vms = [st[("vms-4k", i)].iops for i in range(4)]
    assert host[3] >= 195e3                                    # "performance exceeded 200,000 IOPS"
    assert gains(host)[0] == pytest.approx(0.40, abs=0.06)     # "increased about 40% with another worker"
    assert st[("host-4k", 3)].mib_per_s >= 700                 # "exceeded 700MBps"
    assert 155e3 <= vms[3] <= 168e3                            # "just over 160,000 IOPS" with four VMs
    assert gains(vms)[1] == pytest.approx(0.20, abs=0.05)      # the third VM: about +20 %
    # 4 KB reads alone exceed a 4 Gbps HBA's read capacity (the study's point)
    assert st[("host-4k", 3)].rx_bytes_per_s() > FC4_PAYLOAD


def test_hyperv_64k_two_disks_saturate_reads(steps):
    st = steps("hyperv-fc8-iometer")
    one, two = st[("host-64k", 0)], st[("host-64k", 1)]
    assert one.rx_bytes_per_s() / FC8_PAYLOAD < 0.75
    assert two.rx_bytes_per_s() / FC8_PAYLOAD >= 0.97
    assert st[("vms-64k", 3)].iops == pytest.approx(st[("host-64k", 3)].iops, rel=0.02)  # identical in all cases


def test_hyperv_one_vscsi_adapter_scales_worse(steps):
    st = steps("hyperv-fc8-iometer")
    per_disk, shared = st[("bigvm-4x1-4k", 3)].iops, st[("bigvm-1x4-4k", 3)].iops
    assert shared < 0.9 * per_disk
    # "with each disk given its own virtual SCSI adapter ... scaled identically to ... multiple VMs"
    assert per_disk == pytest.approx(st[("vms-4k", 3)].iops, rel=0.03)


# --- seed 002: ESX 3.5, 4 vs 8 Gbps ------------------------------------------------------------------------
def test_esx_eight_vms_converge_on_100_vs_50_mb_per_vm(steps):
    st = steps("esx-fc4-vs-fc8")
    for run, per_vm in (("fc8-8vm-blocks", 100 * MB), ("fc4-8vm-blocks", 50 * MB)):
        last = st[(run, 6)]   # 64 KB
        vm_rates = [b / last.seconds for b in last.per_vm_bytes.values()]
        assert len(vm_rates) == 8
        for rate in vm_rates:
            assert rate == pytest.approx(per_vm, rel=0.06)
    # 8 KB: "eight VMs ... reading more than 50MB of data per second ... a total that exceeded 400MBps"
    fc8_8k, fc4_8k = st[("fc8-8vm-blocks", 3)], st[("fc4-8vm-blocks", 3)]
    assert fc8_8k.bytes_per_s > 400 * MB
    assert min(b / fc8_8k.seconds for b in fc8_8k.per_vm_bytes.values()) > 50 * MB
    assert fc4_8k.bytes_per_s <= FC4_PAYLOAD
    # small blocks are IOPS-bound, the HBA speed makes no difference there
    assert st[("fc8-8vm-blocks", 0)].iops == pytest.approx(st[("fc4-8vm-blocks", 0)].iops, rel=0.03)


def test_esx_one_vm_60k_iops_beyond_a_4g_port(steps):
    st = steps("esx-fc4-vs-fc8")
    fc8, fc4 = st[("fc8-1vm-8k", 4)], st[("fc4-1vm-8k", 4)]
    assert fc8.iops > 60e3                                     # "more than 60,000 IOPS"
    assert fc8.mib_per_s > 500                                 # "read data at more than 500MBps"
    assert fc8.bytes_per_s > 1.25 * FC4_PAYLOAD * 0.99         # "25% greater than ... a 4Gbps HBA"
    assert fc4.bytes_per_s <= FC4_PAYLOAD                      # a 4 Gbps HBA caps it


def test_esx_full_duplex_is_1_7x_a_4g_limit(steps):
    st = steps("esx-fc4-vs-fc8")
    reads_only, mixed = st[("fc8-duplex-32k", 0)], st[("fc8-duplex-32k", 1)]
    assert reads_only.read_bytes / reads_only.seconds >= 0.97 * FC8_PAYLOAD   # "over 800MBps"
    read_rate, write_rate = mixed.read_bytes / mixed.seconds, mixed.write_bytes / mixed.seconds
    assert read_rate < reads_only.read_bytes / reads_only.seconds            # "reads slipped"
    assert (read_rate + write_rate) / (2 * FC4_PAYLOAD) == pytest.approx(1.7, abs=0.1)


# --- seed 003: S2D VMFleet ------------------------------------------------------------------------------------
def _s2d(st, run: str, vms_per_node: int):
    return st[(run, S2D_VMS_PER_NODE.index(vms_per_node))]


def test_s2d_levels_off_at_500k_once_cores_are_allocated(steps):
    st = steps("s2d-vmfleet-320")
    for n in (40, 50, 60, 70, 80):
        assert 480e3 <= _s2d(st, "4k-70r", n).iops <= 530e3, n
    # rapid scaling to 30 VMs per node, then flat
    assert _s2d(st, "4k-70r", 30).iops < 0.85 * _s2d(st, "4k-70r", 80).iops
    assert _s2d(st, "4k-70r", 10).iops == pytest.approx(10 * _s2d(st, "4k-70r", 1).iops, rel=0.05)
    # beyond the plateau the outstanding I/Os only add latency (Little's law)
    assert _s2d(st, "4k-70r", 80).mean_latency_s > 1.7 * _s2d(st, "4k-70r", 40).mean_latency_s
    # CPU levelled off at ~15-16 % from 40 VMs per node
    for n in (40, 60, 80):
        assert 13.5 <= _s2d(st, "4k-70r", n).host_cpu_pct() <= 17.5, n


def test_s2d_large_blocks_scale_to_60_vms_at_low_cpu(steps):
    st = steps("s2d-vmfleet-320")
    for run in ("128k-read", "128k-write"):
        assert _s2d(st, run, 60).bytes_per_s > 1.3 * _s2d(st, run, 40).bytes_per_s, run
        for n in S2D_VMS_PER_NODE:
            assert _s2d(st, run, n).host_cpu_pct() <= 3.5, (run, n)
    # "Latency is relatively low at high VM levels for heavy read workloads at < 30ms"
    assert _s2d(st, "128k-read", 80).mean_latency_s < 0.030


def test_s2d_five_nines_latency_climbs_with_the_fleet(steps):
    st = steps("s2d-vmfleet-320")
    low, high = _s2d(st, "4k-70r", 20), _s2d(st, "4k-70r", 80)
    p_low, few_low = low.quantile_ms(0.99999)
    p_high, few_high = high.quantile_ms(0.99999)
    assert not few_low and not few_high          # >= 10^6 I/Os behind each figure
    assert p_high > 3 * p_low
    assert p_high >= 50.0                        # tens to hundreds of ms at 320 VMs


# --- seed 004: vSphere pvSCSI vs LSI ---------------------------------------------------------------------------
def test_vsphere_350k_iops_under_2ms(steps):
    st = steps("vsphere-pvscsi-vs-lsi")
    three, one = st[("pvscsi", 2)], st[("pvscsi", 0)]
    assert 340e3 <= three.iops <= 365e3
    assert three.mean_latency_s < 0.002
    assert 110e3 <= one.iops < 120e3                          # "just under 120,000" from one 2-vCPU VM


def test_vsphere_pvscsi_12pct_more_throughput_18pct_less_cpu(steps):
    st = steps("vsphere-pvscsi-vs-lsi")
    pv, lsi = st[("pvscsi", 2)], st[("lsi", 2)]
    assert pv.iops / lsi.iops - 1 == pytest.approx(0.12, abs=0.03)
    cpu_per_io_pv = pv.host_cpu_pct() / pv.iops
    cpu_per_io_lsi = lsi.host_cpu_pct() / lsi.iops
    assert 1 - cpu_per_io_pv / cpu_per_io_lsi == pytest.approx(0.18, abs=0.03)


# --- seed 001: VMQ on 10GbE ---------------------------------------------------------------------------------------
def test_vmq_doubles_network_throughput_with_fewer_root_interrupts(steps):
    st = steps("hyperv-vmq-10gbe")
    on, off = st[("vmq-on", 3)], st[("vmq-off", 3)]
    gbps_on = on.rx_bytes_per_s() * 8 / 1e9
    gbps_off = off.rx_bytes_per_s() * 8 / 1e9
    assert 7.4 <= gbps_on <= 8.2                  # "approximately 7.8 Gbps"
    assert gbps_on / gbps_off > 2.0               # "more than doubled"
    assert 1 - gbps_off / gbps_on > 0.55          # copy times cut by more than half (the study: > 60 %)
    assert on.interrupts_per_s("ROOT_PARTITION") < off.interrupts_per_s("ROOT_PARTITION")


# --- demos -------------------------------------------------------------------------------------------------------
def test_demo_saturates_the_port_in_about_two_minutes(steps):
    from ioscale.simulator import get_scenario

    demo = get_scenario("demo")
    assert 100 <= demo.duration_s() <= 150
    st = steps("demo")
    util = [st[("fc4-8k", i)].rx_bytes_per_s() / FC4_PAYLOAD for i in range(4)]
    assert util[0] < 0.9 and util[1] < 0.9
    assert util[2] >= 0.95 and util[3] >= 0.95
    assert st[("fc4-8k", 3)].mean_latency_s > 1.3 * st[("fc4-8k", 2)].mean_latency_s


def test_saturation_demo_plateau_with_linear_latency(steps):
    st = steps("saturation-demo")
    qd64, qd256 = st[("qd-sweep", 6)], st[("qd-sweep", 8)]
    assert qd256.iops == pytest.approx(qd64.iops, rel=0.02)
    assert qd256.mean_latency_s / qd64.mean_latency_s == pytest.approx(4.0, rel=0.08)
    assert st[("qd-sweep", 1)].iops == pytest.approx(2 * st[("qd-sweep", 0)].iops, rel=0.05)
