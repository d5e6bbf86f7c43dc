"""Linux live counters -> IoSample / CpuSample / PortSample, one set per interval (default 1 s).

Sources (all cumulative counters; a sample is the delta between two successive reads):

* ``/proc/diskstats``: per block device reads/writes completed, sectors (x 512 bytes, the kernel's fixed
  unit there), ms spent reading/writing, I/Os in flight. One IoSample per device and direction.
  diskstats has no per-I/O latencies, so ``latency_count`` is 0 and there is no histogram. The time
  spent is kept as ``tags.latency_sum_ns_estimate`` (ms spent x 1e6; the kernel sums per-I/O service
  times, so sum / ops is the mean latency) with ``latency_sum_basis = diskstats_estimate``; the schema
  field ``latency_sum_ns`` stays 0 so it is never mistaken for a histogram-backed sum.
  ``outstanding_ios`` is the in-flight gauge at the end of the interval.
* ``/proc/stat``: per CPU and total (cpu = -1) jiffies -> user (+nice), privileged (system + irq +
  softirq, as Windows' privileged time includes DPC and interrupt time), dpc (= softirq), interrupt
  (= irq), iowait percentages; utilization = 100 - idle - iowait. The total's ``interrupts_per_s`` is
  the ``intr`` total (tag ``interrupts_per_s_basis = proc_stat_intr``).
* ``/proc/interrupts``: one row per IRQ line, one numeric column per *online* CPU (the header names them:
  ``CPU0 CPU1 CPU3`` when CPU2 is offline, so columns are matched by the header's CPU numbers, never by
  position). Per CPU, ``interrupts_per_s`` of that CPU's CpuSample = the sum over the per-CPU lines:
  device IRQs (numbered lines) AND the architecture lines (x86 NMI, LOC, RES, CAL, ...; arm64 IPIn).
  Why the architecture lines count: the local timer and IPIs are hardware interrupts the core services
  (Windows' Processor Interrupts/sec counter, which the Hyper-V studies report, includes clock ticks too),
  and it keeps the per-CPU figures adding up to /proc/stat's ``intr`` (which adds ERR). Left out: ``ERR`` and ``MIS``
  (x86) / ``Err`` (arm64), one system-wide counter each, not per CPU; and ``TLB``, because x86 sends TLB
  shootdowns as function-call IPIs, so each one is already in ``CAL`` (/proc/stat's ``intr`` leaves it
  out for the same reason: on this project's 6.18 test machine intr = sum of the other lines, checked).
  Device-only rates (numbered lines: NICs, HBAs, disks, without timer and IPIs) are in the tag
  ``device_interrupts_per_s``. The total CPU sample carries ``proc_interrupts_per_s`` and
  ``proc_device_interrupts_per_s``: exactly the sums of those per-CPU values.
  CPU hotplug: a CPU online at only one of the two reads gets no interrupt figure for that interval
  (its CpuSample, if /proc/stat has one, says ``interrupts_per_s_basis = cpu_set_changed`` and 0). The
  kernel keeps an offline CPU's counts, so from the first read with it back online figures are exact.
  Per line and CPU: a count that went backwards (32-bit wrap, IRQ freed and reused) adds nothing; a line
  missing from the previous read counts from 0 (the kernel hides only lines with no handler and zero
  counts on every online CPU, e.g. a NIC queue created by ``ethtool -L`` mid-run).
* IRQ line -> port and queue, by the handler (action) name, the last column of a numbered line:
  ``eth0-TxRx-3``, ``i40e-eth0-TxRx-3``, ``ens5-rx-0`` / ``-tx-0`` (both count for queue 0),
  ``ens5-Tx-Rx-0`` (ena), ``eth0-fp-0`` (bnx2x/qede), ``ens192-rxtx-0`` (vmxnet3), ``enp1s0f0-0``
  (tg3/sfc) -> queue N of that interface; ``eth0`` alone or with another suffix (misc/link vector,
  ``-event-0``) -> the whole port only. ``virtio0-input.0`` / ``-output.0`` -> queue 0 of the interface
  whose ``/sys/class/net/<if>/device`` is ``virtio0`` (``virtio0-config`` etc.: whole port).
  ``mlx5_comp3@pci:0000:5e:00.0`` -> queue 3 of the interface whose device is that PCI function
  (``mlx5_async0@pci:...``: whole port); any other handler naming a PCI address (``i40e-0000:3b:00.0:misc``,
  ``ena-mgmnt@pci:...``) -> that port, whole. FC HBAs (``/sys/class/fc_host/host<N>``), whole port only:
  ``qla2xxx<N>_rsp_q`` / ``_qpair0`` carry the SCSI host number N; older qla2xxx names and lpfc's
  ``lpfc:3`` do not, so they map by the PCI address in the chip column (``IR-PCI-MSIX-0000:d8:00.0``,
  printed by recent kernels) or, failing that, when exactly one FC host uses that driver. A PCI function shared by
  several interfaces maps nothing; a line shared by handlers of different devices (legacy INTx) cannot be
  split and maps nothing. Unmapped lines still count in the per-CPU figures.
* ``/sys/class/net/*/statistics``: PortSample kind NIC (bytes, packets, errors); ``speed`` (Mb/s) when
  readable. ``lo`` is skipped. ``interrupts`` = the sum over the IRQ lines mapped to the port (queues
  and misc vectors), tag ``interrupts_basis``: ``proc_interrupts``, ``proc_interrupts_partial`` (the
  CPU set changed: only CPUs online at both reads), ``unmapped`` (no IRQ line names the port, e.g. a
  virtual device) or ``unavailable`` (no /proc/interrupts).
  One more PortSample per NIC queue: queue = N, ``vm`` empty, ``interrupts`` = that queue's lines, the
  port's ``link_speed_bps`` (a queue shares its port's capacity). rx/tx bytes, frames and errors are 0:
  sysfs has no per-queue traffic counters (``queues/rx-N`` holds only RPS/XPS settings; ``ethtool -S``
  has per-queue counters for some drivers, not read here), said by the tag ``traffic_basis =
  not_measured``. Port totals are the queue = -1 rows only (as the Flink step analysis and
  sql/queries/port_utilization.sql select them): adding queue rows would count interrupts twice.
* ``/sys/class/fc_host/*/statistics``: PortSample kind FC_HBA; bytes = words x 4, frames; error count is
  ``error_frames`` (receive side) and ``invalid_crc_count``. ``interrupts`` as for NICs.

Counter wraps or resets (a negative delta) skip that interval for that source: nothing negative is ever
emitted. Parsers are pure functions over file text; the sampler reads through injected callables
(``read_file``, ``list_dir``, ``resolve_link`` for sysfs symlinks).
"""

from __future__ import annotations

import os
import posixpath
import re
import socket
import time
from dataclasses import dataclass, field
from operator import add, itemgetter, sub
from typing import Any, Callable, Iterable, Mapping

from ioscale.importers.common import cpu_sample, io_sample
from ioscale.wire import topics
from ioscale.wire.records import PortKind, PortSample

SECTOR_BYTES = 512
#: /proc/stat cpu columns in kernel order.
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice")


# --- pure parsers -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiskCounters:
    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    in_flight: int


def parse_diskstats(text: str) -> dict[str, DiskCounters]:
    """/proc/diskstats -> device -> counters (lines with fewer than 14 columns are ignored)."""
    out: dict[str, DiskCounters] = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) < 14:
            continue
        try:
            v = [int(x) for x in p[3:14]]
        except ValueError:
            continue
        # columns after the name: reads, reads merged, sectors read, ms reading, writes, writes merged,
        # sectors written, ms writing, in flight, ms doing I/O, weighted ms
        out[p[2]] = DiskCounters(v[0], v[2], v[3], v[4], v[6], v[7], v[8])
    return out


@dataclass(frozen=True)
class ProcStat:
    cpus: dict[int, tuple[int, ...]]   # cpu number (-1 = total) -> jiffies in CPU_FIELDS order
    interrupts: int | None              # total from the intr line


def parse_proc_stat(text: str) -> ProcStat:
    cpus: dict[int, tuple[int, ...]] = {}
    intr: int | None = None
    for line in text.splitlines():
        p = line.split()
        if not p:
            continue
        if p[0].startswith("cpu"):
            n = -1 if p[0] == "cpu" else int(p[0][3:]) if p[0][3:].isdigit() else None
            if n is None:
                continue
            vals = tuple(int(x) for x in p[1:1 + len(CPU_FIELDS)])
            cpus[n] = vals + (0,) * (len(CPU_FIELDS) - len(vals))
        elif p[0] == "intr" and len(p) > 1:
            intr = int(p[1])
    return ProcStat(cpus, intr)


#: /proc/interrupts lines holding one system-wide counter instead of one per CPU (x86, arm64).
SYSTEM_WIDE_IRQ_LINES = frozenset({"ERR", "MIS", "Err"})
#: Per-CPU lines that are a breakdown of another line: x86 TLB shootdowns arrive as function-call IPIs,
#: so every one is in CAL already.
SUBSET_IRQ_LINES = frozenset({"TLB"})
PCI_ADDRESS = r"[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
_PCI_ADDRESS_RE = re.compile(PCI_ADDRESS)
_CHIP_PCI_RE = re.compile(rf"PCI-MSIX?-({PCI_ADDRESS})")
_COLUMN_GAP_RE = re.compile(r"\s{2,}")


@dataclass(frozen=True)
class IrqLine:
    counts: tuple[int, ...]   # interrupts since boot, per online CPU in Interrupts.cpus order
    device: bool              # a numbered (device) IRQ; False for architecture lines (LOC, RES, IPI0, ...)
    actions: tuple[str, ...]  # handler names of a device line ('eth0-TxRx-0'); () for architecture lines
    chip_pci: str = ""        # PCI address in the chip column ('IR-PCI-MSIX-0000:5e:00.0'), '' if none


@dataclass(frozen=True)
class Interrupts:
    cpus: tuple[int, ...]      # online CPUs, in column order (from the header)
    lines: dict[str, IrqLine]  # label ('36', 'LOC') -> line; per-CPU lines only (no ERR/MIS)


def parse_interrupts(text: str) -> Interrupts:
    """/proc/interrupts -> online CPUs and the per-CPU lines with their handler names.

    Line layout (kernel/irq/proc.c): ``label:`` then one count per online CPU, then for a numbered line
    the chip, hwirq and flow (``IR-PCI-MSI 1048576-edge``; older kernels ``IR-PCI-MSI-edge``) and, after
    at least two spaces, the handlers joined by ``", "``. Lines with fewer counts than CPUs (ERR, MIS)
    are not per CPU and are left out.
    """
    rows = text.splitlines()
    if not rows:
        return Interrupts((), {})
    cpus = tuple(int(h[3:]) for h in rows[0].split() if h.startswith("CPU") and h[3:].isdigit())
    n = len(cpus)
    lines: dict[str, IrqLine] = {}
    if n == 0:
        return Interrupts((), lines)
    for row in rows[1:]:
        label, sep, rest = row.partition(":")
        label = label.strip()
        if not sep or not label or label in SYSTEM_WIDE_IRQ_LINES:
            continue
        fields = rest.split(None, n)
        if len(fields) < n:
            continue
        try:
            counts = tuple(map(int, fields[:n]))
        except ValueError:  # text where a count should be: not a per-CPU line
            continue
        device = label.isdigit()
        actions: tuple[str, ...] = ()
        chip_pci = ""
        if device and len(fields) > n:
            columns = _COLUMN_GAP_RE.split(fields[n].strip())
            if len(columns) >= 2:  # the last column is the handler list; a line without one ends at its flow
                actions = tuple(a.strip() for a in columns[-1].split(", ") if a.strip())
            m = _CHIP_PCI_RE.search(" ".join(columns[:-1]) if len(columns) >= 2 else columns[0])
            chip_pci = m.group(1).lower() if m else ""
        lines[label] = IrqLine(counts, device, actions, chip_pci)
    return Interrupts(cpus, lines)


@dataclass(frozen=True)
class InterruptDeltas:
    per_cpu: dict[int, int]         # CPU online at both reads -> interrupts (per-CPU lines but SUBSET ones)
    device_per_cpu: dict[int, int]  # the same over the numbered (device) lines only
    per_line: dict[str, int]        # line label -> interrupts over those CPUs
    cpu_set_changed: bool           # some CPU was online at only one read (its interrupts are missing)


def interrupt_deltas(prev: Interrupts, cur: Interrupts) -> InterruptDeltas:
    """Interrupts between two reads, per CPU and per line, over the CPUs online at both. Never negative.

    Element-wise work goes through map/itemgetter (C loops): a 256-CPU host has ~500k counts per read.
    """
    prev_col = {cpu: i for i, cpu in enumerate(prev.cpus)}
    cpus = [cpu for cpu in cur.cpus if cpu in prev_col]
    if not cpus:
        return InterruptDeltas({}, {}, {}, set(prev.cpus) != set(cur.cpus))
    # itemgetter of several indexes returns a tuple, of one a bare value: always ask for two or more.
    cur_cols = [i for i, cpu in enumerate(cur.cpus) if cpu in prev_col]
    prev_cols = [prev_col[cpu] for cpu in cpus]
    pick_cur, pick_prev = itemgetter(*cur_cols, *cur_cols[:1]), itemgetter(*prev_cols, *prev_cols[:1])
    n = len(cpus)
    all_sum, device_sum = [0] * n, [0] * n
    per_line: dict[str, int] = {}
    for label, line in cur.lines.items():
        before = prev.lines.get(label)
        now = pick_cur(line.counts)[:n]
        # A line absent before had zero counts on every CPU online then: the kernel hides only those.
        d = list(now) if before is None else list(map(sub, now, pick_prev(before.counts)[:n]))
        if min(d) < 0:  # 32-bit wrap, or the IRQ was freed and reused: nothing from that CPU this interval
            d = [x if x > 0 else 0 for x in d]
        per_line[label] = sum(d)
        if label not in SUBSET_IRQ_LINES:
            all_sum = list(map(add, all_sum, d))
            if line.device:
                device_sum = list(map(add, device_sum, d))
    return InterruptDeltas(dict(zip(cpus, all_sum)), dict(zip(cpus, device_sum)), per_line,
                           set(prev.cpus) != set(cur.cpus))


@dataclass(frozen=True)
class PortDevice:
    """Where a port sits in sysfs: what IRQ handler names can refer to."""
    device: str       # the port's device: 'virtio0', '0000:3b:00.0' (a PCI NIC), 'host3' (FC)
    pci_address: str  # the PCI function the port is on ('' when none)
    driver: str = ""  # 'ixgbe', 'virtio_net', 'qla2xxx', 'lpfc'; '' when unknown


IrqTarget = tuple[str, int]  # (port_id, queue); queue -1 = the port as a whole (misc / link / config vectors)

_VIRTIO_RE = re.compile(r"(virtio\d+)(?:-(?:(?:input|output)\.(\d+)|.+))?")
_MLX5_RE = re.compile(rf"mlx5_(?:comp(\d+)|\w+)@pci:({PCI_ADDRESS})")
_QLA_HOST_RE = re.compile(r"qla2xxx(\d+)_.+")
_QUEUE_SUFFIX_RE = re.compile(r"(?:txrx|rxtx|tx-rx|rx|tx|fp)-(\d+)|(\d+)", re.IGNORECASE)
FC_DRIVERS = ("qla2xxx", "lpfc")


@dataclass(frozen=True)
class _PortIndex:
    nics: Mapping[str, PortDevice]
    fc_hosts: Mapping[str, PortDevice]
    nic_patterns: list[tuple[str, re.Pattern[str]]]  # longest first: 'br-lan-0' is br-lan's, not br's
    by_virtio: dict[str, str]
    by_pci: dict[str, list[str]]
    fc_by_driver: dict[str, list[str]]

    @classmethod
    def of(cls, nics: Mapping[str, PortDevice], fc_hosts: Mapping[str, PortDevice]) -> "_PortIndex":
        by_pci: dict[str, list[str]] = {}
        for name, dev in [*nics.items(), *fc_hosts.items()]:
            if dev.pci_address:
                by_pci.setdefault(dev.pci_address.lower(), []).append(name)
        fc_by_driver: dict[str, list[str]] = {}
        for name, dev in fc_hosts.items():
            fc_by_driver.setdefault(dev.driver, []).append(name)
        return cls(nics, fc_hosts,
                   [(n, re.compile(rf"(?:\w+-)?{re.escape(n)}-(.+)")) for n in sorted(nics, key=len, reverse=True)],
                   {d.device: n for n, d in nics.items() if re.fullmatch(r"virtio\d+", d.device)},
                   by_pci, fc_by_driver)

    def on_pci(self, address: str) -> str | None:
        names = self.by_pci.get(address.lower(), [])
        return names[0] if len(names) == 1 else None  # shared PCI function: ambiguous


def _action_target(action: str, chip_pci: str, ix: _PortIndex) -> IrqTarget | None:
    m = _VIRTIO_RE.fullmatch(action)
    if m:
        port = ix.by_virtio.get(m.group(1))  # virtio1-req.0 (a disk) has no interface: None
        return None if port is None else (port, int(m.group(2)) if m.group(2) else -1)
    m = _MLX5_RE.fullmatch(action)
    if m:
        port = ix.on_pci(m.group(2))
        return None if port is None else (port, int(m.group(1)) if m.group(1) else -1)
    m = _QLA_HOST_RE.fullmatch(action)
    if m and f"host{m.group(1)}" in ix.fc_hosts:
        return (f"host{m.group(1)}", -1)
    driver = next((d for d in FC_DRIVERS if action.startswith(d)), None)
    if driver is not None:
        port = ix.on_pci(chip_pci) if chip_pci else None
        if port in ix.fc_hosts:
            return (port, -1)
        hosts = ix.fc_by_driver.get(driver, [])
        return (hosts[0], -1) if len(hosts) == 1 else None
    if action in ix.nics:
        return (action, -1)
    for name, pattern in ix.nic_patterns:
        m = pattern.fullmatch(action)
        if m:
            q = _QUEUE_SUFFIX_RE.fullmatch(m.group(1))
            return (name, int(q.group(1) or q.group(2))) if q else (name, -1)
    m = _PCI_ADDRESS_RE.search(action)
    if m:
        port = ix.on_pci(m.group(0))
        return None if port is None else (port, -1)
    return None


def map_irq_lines(irqs: Interrupts, nics: Mapping[str, PortDevice],
                  fc_hosts: Mapping[str, PortDevice]) -> dict[str, IrqTarget]:
    """Device IRQ lines -> (port, queue) by their handler names (rules in the module docstring)."""
    ix = _PortIndex.of(nics, fc_hosts)
    out: dict[str, IrqTarget] = {}
    for label, line in irqs.lines.items():
        if not line.device or not line.actions:
            continue
        found = [_action_target(a, line.chip_pci, ix) for a in line.actions]
        targets = {t for t in found if t is not None}
        if len(targets) < len(set(found)):
            continue  # shared with a handler of another (unmapped) device: cannot be split
        ports = {port for port, _ in targets}
        if len(ports) != 1:
            continue  # shared by two ports
        queues = {q for _, q in targets}
        out[label] = (ports.pop(), queues.pop() if len(queues) == 1 else -1)
    return out


def counter_delta(prev: int | None, cur: int | None) -> int | None:
    """cur - prev, or None when either is unknown or the counter went backwards (wrap/reset)."""
    if prev is None or cur is None or cur < prev:
        return None
    return cur - prev


# --- snapshots --------------------------------------------------------------------------------------------
ReadFile = Callable[[str], "str | None"]
ListDir = Callable[[str], list[str]]
ResolveLink = Callable[[str], "str | None"]  # path -> absolute target with every symlink resolved, or None


def real_read_file(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:  # missing file, or e.g. `speed` on a down link raises EINVAL
        return None


def real_list_dir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def real_resolve_link(path: str) -> str | None:
    try:
        return os.path.realpath(path, strict=True)
    except OSError:  # no such link: a virtual interface has no `device`
        return None


@dataclass(frozen=True)
class PortCounters:
    kind: PortKind
    rx_bytes: int | None
    tx_bytes: int | None
    rx_frames: int | None
    tx_frames: int | None
    rx_errors: int | None
    tx_errors: int | None
    link_speed_bps: int


@dataclass
class Snapshot:
    ts_ms: int
    disks: dict[str, DiskCounters] = field(default_factory=dict)
    stat: ProcStat | None = None
    interrupts: Interrupts | None = None
    ports: dict[str, PortCounters] = field(default_factory=dict)
    #: /proc/interrupts line label -> (port_id, queue), from this read's handler names and sysfs links.
    irq_targets: dict[str, IrqTarget] = field(default_factory=dict)


def _int_or_none(text: str | None) -> int | None:
    if text is None:
        return None
    t = text.strip()
    try:
        return int(t, 16) if t.startswith("0x") else int(t)
    except ValueError:
        return None


def port_device(device_path: str | None, driver_path: Callable[[str], str | None]) -> PortDevice | None:
    """The resolved ``<port>/device`` path -> PortDevice. Pure: ``driver_path`` resolves ``<dir>/driver``.

    PCI NIC: ``/sys/devices/pci0000:00/0000:00:02.0/0000:3b:00.0``; virtio NIC: ``.../0000:00:03.0/virtio0``;
    FC host: ``.../0000:af:00.0/host3``. The PCI function is the device itself or its parent; the driver is
    the device's, else (FC hosts have none) the PCI function's.
    """
    if not device_path:
        return None
    name = posixpath.basename(device_path)
    parent = posixpath.dirname(device_path)
    if _PCI_ADDRESS_RE.fullmatch(name):
        pci = name
    elif _PCI_ADDRESS_RE.fullmatch(posixpath.basename(parent)):
        pci = posixpath.basename(parent)
    else:
        pci = ""
    driver = driver_path(device_path + "/driver")
    if driver is None and pci and pci != name:
        driver = driver_path(parent + "/driver")
    return PortDevice(name, pci.lower(), posixpath.basename(driver) if driver else "")


def read_snapshot(ts_ms: int, read_file: ReadFile = real_read_file, list_dir: ListDir = real_list_dir,
                  root: str = "", *, resolve_link: ResolveLink = real_resolve_link) -> Snapshot:
    snap = Snapshot(ts_ms)
    t = read_file(root + "/proc/diskstats")
    if t is not None:
        snap.disks = parse_diskstats(t)
    t = read_file(root + "/proc/stat")
    if t is not None:
        snap.stat = parse_proc_stat(t)
    t = read_file(root + "/proc/interrupts")
    if t is not None:
        snap.interrupts = parse_interrupts(t)
    nics: dict[str, PortDevice] = {}
    fc_hosts: dict[str, PortDevice] = {}
    net = root + "/sys/class/net"
    for name in list_dir(net):
        if name == "lo":
            continue
        s = f"{net}/{name}/statistics/"
        rd = lambda f: _int_or_none(read_file(s + f))  # noqa: E731
        speed_mbps = _int_or_none(read_file(f"{net}/{name}/speed"))
        snap.ports[name] = PortCounters("NIC", rd("rx_bytes"), rd("tx_bytes"), rd("rx_packets"), rd("tx_packets"),
                                        rd("rx_errors"), rd("tx_errors"),
                                        speed_mbps * 1_000_000 if speed_mbps and speed_mbps > 0 else 0)
        dev = port_device(resolve_link(f"{net}/{name}/device"), resolve_link)
        if dev is not None:
            nics[name] = dev
    fc = root + "/sys/class/fc_host"
    for name in list_dir(fc):
        s = f"{fc}/{name}/statistics/"
        rd = lambda f: _int_or_none(read_file(s + f))  # noqa: E731
        rx_w, tx_w = rd("rx_words"), rd("tx_words")
        speed = _fc_speed_bps(read_file(f"{fc}/{name}/speed"))
        err = rd("error_frames")
        crc = rd("invalid_crc_count")
        snap.ports[name] = PortCounters("FC_HBA", None if rx_w is None else rx_w * 4,
                                        None if tx_w is None else tx_w * 4, rd("rx_frames"), rd("tx_frames"),
                                        None if err is None and crc is None else (err or 0) + (crc or 0),
                                        None, speed)
        dev = port_device(resolve_link(f"{fc}/{name}/device"), resolve_link)
        if dev is not None:
            fc_hosts[name] = dev
    if snap.interrupts is not None:
        snap.irq_targets = map_irq_lines(snap.interrupts, nics, fc_hosts)
    return snap


def _fc_speed_bps(text: str | None) -> int:
    """'16 Gbit' / '8 Gbit/s' -> bits per second; 0 when unknown."""
    if not text:
        return 0
    p = text.split()
    try:
        n = float(p[0])
    except (ValueError, IndexError):
        return 0
    unit = p[1].lower() if len(p) > 1 else ""
    return int(n * (1e9 if unit.startswith("g") else 1e6 if unit.startswith("m") else 0))


# --- deltas -> records ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tagging:
    run_id: str
    step_index: int = -1
    host: str = ""
    vm: str = ""


def records_between(prev: Snapshot, cur: Snapshot, tag: Tagging,
                    devices: Iterable[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(topic, record) pairs for the interval prev -> cur. Pure."""
    interval_ms = cur.ts_ms - prev.ts_ms
    if interval_ms <= 0:
        return []
    out: list[tuple[str, dict[str, Any]]] = []
    wanted = set(devices) if devices is not None else None
    common = dict(ts_ms=prev.ts_ms, interval_ms=interval_ms, run_id=tag.run_id, step_index=tag.step_index,
                  host=tag.host, vm=tag.vm)
    for dev, c in cur.disks.items():
        p = prev.disks.get(dev)
        if p is None or (wanted is not None and dev not in wanted):
            continue
        for direction, (ops_p, ops_c, sec_p, sec_c, ms_p, ms_c) in (
                ("READ", (p.reads, c.reads, p.read_sectors, c.read_sectors, p.read_ms, c.read_ms)),
                ("WRITE", (p.writes, c.writes, p.write_sectors, c.write_sectors, p.write_ms, c.write_ms))):
            ops, sectors, ms = counter_delta(ops_p, ops_c), counter_delta(sec_p, sec_c), counter_delta(ms_p, ms_c)
            if ops is None or sectors is None or ms is None:
                continue  # wrapped or reset: skip this interval for this device/direction
            tags = {"source": "proc_diskstats", "outstanding_ios_basis": "in_flight_gauge"}
            if ops:
                tags["latency_sum_ns_estimate"] = str(ms * 1_000_000)
                tags["latency_sum_basis"] = "diskstats_estimate"
            out.append((topics.IO_SAMPLES, io_sample(
                **common, target=dev, direction=direction, ops=ops, bytes_=sectors * SECTOR_BYTES,
                outstanding_ios=float(c.in_flight), tags=tags)))
    irq = (interrupt_deltas(prev.interrupts, cur.interrupts)
           if prev.interrupts is not None and cur.interrupts is not None else None)
    out.extend(_cpu_records(prev, cur, tag, common, irq))
    port_irqs, queue_irqs = _port_interrupts(irq, cur.irq_targets) if irq is not None else ({}, {})
    for name, c in cur.ports.items():
        p = prev.ports.get(name)
        if p is None:
            continue
        d = {f: counter_delta(getattr(p, f), getattr(c, f))
             for f in ("rx_bytes", "tx_bytes", "rx_frames", "tx_frames", "rx_errors", "tx_errors")}
        if d["rx_bytes"] is None or d["tx_bytes"] is None:
            continue  # no byte counters, or wrapped: skip
        if any(d[f] is None and getattr(c, f) is not None for f in d):
            continue  # some other counter wrapped
        out.append((topics.PORT_SAMPLES, PortSample(
            ts_ms=prev.ts_ms, interval_ms=interval_ms, run_id=tag.run_id, step_index=tag.step_index,
            host=tag.host, port_id=name, kind=c.kind, queue=-1, vm=tag.vm, link_speed_bps=c.link_speed_bps,
            rx_bytes=d["rx_bytes"], tx_bytes=d["tx_bytes"], rx_frames=d["rx_frames"] or 0,
            tx_frames=d["tx_frames"] or 0, rx_errors=d["rx_errors"] or 0, tx_errors=d["tx_errors"] or 0,
            interrupts=port_irqs.get(name, 0),
            tags={"source": "sysfs_fc_host" if c.kind == "FC_HBA" else "sysfs_net",
                  "interrupts_basis": _interrupts_basis(irq, name in port_irqs)})))
    for (name, queue), n in sorted(queue_irqs.items()):
        c = cur.ports.get(name)
        if c is None or name not in prev.ports:
            continue
        out.append((topics.PORT_SAMPLES, PortSample(
            ts_ms=prev.ts_ms, interval_ms=interval_ms, run_id=tag.run_id, step_index=tag.step_index,
            host=tag.host, port_id=name, kind=c.kind, queue=queue, vm="", link_speed_bps=c.link_speed_bps,
            rx_bytes=0, tx_bytes=0, rx_frames=0, tx_frames=0, rx_errors=0, tx_errors=0, interrupts=n,
            tags={"source": "proc_interrupts", "traffic_basis": "not_measured",
                  "interrupts_basis": _interrupts_basis(irq, True)})))
    return out


def _port_interrupts(irq: InterruptDeltas, targets: Mapping[str, IrqTarget]
                     ) -> tuple[dict[str, int], dict[IrqTarget, int]]:
    """Per port (every line mapped to it) and per (port, queue >= 0): interrupts in the interval."""
    per_port: dict[str, int] = {}
    per_queue: dict[IrqTarget, int] = {}
    for label, (port, queue) in targets.items():
        n = irq.per_line.get(label, 0)
        per_port[port] = per_port.get(port, 0) + n
        if queue >= 0:
            per_queue[(port, queue)] = per_queue.get((port, queue), 0) + n
    return per_port, per_queue


def _interrupts_basis(irq: InterruptDeltas | None, mapped: bool) -> str:
    if irq is None:
        return "unavailable"
    if not mapped:
        return "unmapped"
    return "proc_interrupts_partial" if irq.cpu_set_changed else "proc_interrupts"


def _cpu_records(prev: Snapshot, cur: Snapshot, tag: Tagging, common: dict[str, Any],
                 irq: InterruptDeltas | None) -> list[tuple[str, dict]]:
    if prev.stat is None or cur.stat is None:
        return []
    seconds = common["interval_ms"] / 1000.0
    intr = counter_delta(prev.stat.interrupts, cur.stat.interrupts)
    n_cpus = sum(1 for k in cur.stat.cpus if k >= 0)
    scope = "GUEST" if tag.vm else "HOST"
    out = []
    for cpu, c in sorted(cur.stat.cpus.items()):
        p = prev.stat.cpus.get(cpu)
        if p is None:
            continue
        d = [b - a for a, b in zip(p, c)]
        # guest/guest_nice are already counted inside user/nice: leave them out of the total.
        total = sum(d[:8])
        if any(x < 0 for x in d) or total <= 0:
            continue
        pct = {f: 100.0 * x / total for f, x in zip(CPU_FIELDS, d)}
        tags = {"source": "proc_stat"}
        interrupts_per_s = 0.0
        if cpu == -1:
            interrupts_per_s = intr / seconds if intr is not None else 0.0
            tags["interrupts_per_s_basis"] = "proc_stat_intr"
            if irq is not None:
                # Exactly the sums of the per-CPU samples' figures (CPUs online at both reads).
                tags["proc_interrupts_per_s"] = f"{sum(irq.per_cpu.values()) / seconds:.3f}"
                tags["proc_device_interrupts_per_s"] = f"{sum(irq.device_per_cpu.values()) / seconds:.3f}"
        elif irq is None:
            tags["interrupts_per_s_basis"] = "unavailable"
        elif cpu not in irq.per_cpu:
            tags["interrupts_per_s_basis"] = "cpu_set_changed"  # offline at one read: unknown, not 0
        else:
            interrupts_per_s = irq.per_cpu[cpu] / seconds
            tags["interrupts_per_s_basis"] = "proc_interrupts"
            tags["device_interrupts_per_s"] = f"{irq.device_per_cpu[cpu] / seconds:.3f}"
        out.append((topics.CPU_SAMPLES, cpu_sample(
            **common, scope=scope, cpu=cpu, logical_processors=n_cpus if cpu == -1 else 1,
            utilization_pct=max(0.0, 100.0 - pct["idle"] - pct["iowait"]),
            user_pct=pct["user"] + pct["nice"], privileged_pct=pct["system"] + pct["irq"] + pct["softirq"],
            dpc_pct=pct["softirq"], interrupt_pct=pct["irq"], iowait_pct=pct["iowait"],
            interrupts_per_s=interrupts_per_s, tags=tags)))
    return out


# --- the sampler ------------------------------------------------------------------------------------------
def collect_linux(producer_like: Any, run_id: str, step_index: int = -1, interval_s: float = 1.0,
                  duration_s: float | None = None, vm: str = "", devices: Iterable[str] | None = None, *,
                  host: str | None = None, clock: Callable[[], float] = time.time,
                  sleep: Callable[[float], None] = time.sleep, read_file: ReadFile = real_read_file,
                  list_dir: ListDir = real_list_dir, resolve_link: ResolveLink = real_resolve_link,
                  root: str = "", stop: Callable[[], bool] = lambda: False) -> int:
    """Sample every ``interval_s`` until ``duration_s`` elapsed (None: until ``stop()`` or Ctrl-C).

    Sends each record with ``producer_like.send(topic, record)``; returns the number of records sent.
    Sleeps to the next tick of a fixed schedule so intervals do not drift by the sampling time.
    """
    tag = Tagging(run_id, step_index, host if host is not None else socket.gethostname(), vm)
    dev_list = list(devices) if devices is not None else None
    start = clock()
    prev = read_snapshot(int(start * 1000), read_file, list_dir, root, resolve_link=resolve_link)
    sent = 0
    tick = 1
    try:
        while not stop():
            due = start + tick * interval_s
            if duration_s is not None and due > start + duration_s + 1e-9:
                break
            wait = due - clock()
            if wait > 0:
                sleep(wait)
            cur = read_snapshot(int(clock() * 1000), read_file, list_dir, root, resolve_link=resolve_link)
            for topic, rec in records_between(prev, cur, tag, dev_list):
                producer_like.send(topic, rec)
                sent += 1
            prev = cur
            tick += 1
    except KeyboardInterrupt:
        pass
    return sent


__all__ = ["parse_diskstats", "parse_proc_stat", "parse_interrupts", "interrupt_deltas", "map_irq_lines",
           "port_device", "counter_delta", "read_snapshot", "records_between", "collect_linux", "Snapshot",
           "Tagging", "DiskCounters", "ProcStat", "Interrupts", "IrqLine", "InterruptDeltas", "PortDevice"]
