"""Windows performance counters (typeperf, data collector sets, relog CSV/TSV) -> CPU, I/O and port samples.

The PDH layout is read by ``pdh.py`` and driven row by row by ``hostcounters.py`` (intervals, counts from rates,
companion runs per I/O layer). Object and counter names are matched without regard to case (relog and some
collectors lower-case them). Mapping, per interval:

* **CpuSample** per logical CPU and per scope total (cpu = -1, ``logical_processors`` = the CPUs it covers;
  ``_Total`` instances are that total and never summed with the per-CPU ones):

  - ``Processor Information(g,n)`` / ``Processor(n)``: % Processor/User/Privileged/DPC/Interrupt Time,
    Interrupts/sec, DPCs Queued/sec. Scope ROOT_PARTITION when the host's file also holds Hyper-V hypervisor
    processor counters (on a Hyper-V host these objects see the root's virtual processors), else HOST.
    ``(g,n)`` instances are numbered 0.. in (group, number) order (tags ``processor_group``,
    ``group_cpu``); ``g,_Total`` (a group or NUMA node) is left out. Both objects present: Processor
    Information wins field by field.
  - ``Hyper-V Hypervisor Logical Processor(Hv LP n)``: scope HYPERVISOR; utilization = % Total Run Time
    (guest + hypervisor), interrupts_per_s = Total Interrupts/sec; % Guest/Hypervisor Run Time and Hardware
    Interrupts/sec in tags.
  - ``Hyper-V Hypervisor Root Virtual Processor(Root VP n)``: scope ROOT_PARTITION, the same record as
    Processor Information's CPU n (which wins where both exist; the root VP's % Total Run Time is then tag
    ``root_vp_total_run_pct``).
  - ``Hyper-V Hypervisor Virtual Processor(<vm>:Hv VP n)``: scope VM, ``vm`` = the VM, per VP, plus one total
    per VM (cpu = -1: the mean over its VPs, tag ``utilization_basis = mean_of_vps``).

* **IoSample** per disk and direction, no histogram (``common.no_histogram_latency``: latency_count = ops,
  latency_sum_ns = mean x ops): ops = Disk Reads|Writes/sec x interval, bytes likewise, mean latency =
  Avg. Disk sec/Read|Write, ``outstanding_ios`` = Avg. Disk Read|Write Queue Length (tag
  ``outstanding_ios_basis = avg_queue_length``); the direction-less totals (Disk Transfers/sec, Avg. Disk
  sec/Transfer, Disk Bytes/sec, Avg. Disk Queue Length, Current Disk Queue Length) go to tags. Layers:
  ``PhysicalDisk`` is counted (the run itself); ``Hyper-V Virtual Storage Device`` (per virtual disk file:
  Read|Write Operations/Sec, Read|Write Bytes/sec; Queue Length and Latency as tags, their units
  undocumented) goes to run ``<run>-vsd``; ``Cluster CSV File System`` (per CSV volume: Reads|Writes/sec,
  Read|Write Bytes/sec, Read|Write Latency in seconds, Read|Write Queue Length) to ``<run>-csvfs``.
  ``_Total`` instances are left out.

* **PortSample**: ``Network Adapter`` / ``Network Interface`` (kind NIC, tag ``port_role = physical``):
  Bytes Received|Sent/sec -> rx|tx_bytes, Packets Received|Sent/sec -> frames, the cumulative Packets
  Received|Outbound Errors + Discarded -> errors (difference to the previous row), Current Bandwidth ->
  ``link_speed_bps``. ``Hyper-V Virtual Network Adapter`` (``port_role = vm_adapter``, ``vm`` from the
  instance's ``<vm>_Network Adapter_...`` prefix when it has one) and ``Hyper-V Virtual Switch``
  (``port_role = virtual_switch``): bytes and packets, Dropped Packets Incoming|Outgoing/sec -> errors.
  ``Per Processor Network Interface Card Activity(cpu, adapter)`` -> kind NIC_VMQ, ``queue`` = that CPU
  (the VM queue or RSS queue whose interrupts land there; tag ``queue_basis = processor``): Received
  Packets/sec -> rx_frames, Interrupts/sec -> interrupts, DPCs Queued/sec in a tag; bytes are not measured
  there (tag ``traffic_basis = packets_only``); ``link_speed_bps`` is the adapter's when the same file
  has its Current Bandwidth.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioscale.importers.common import (UNKNOWN_HOST, ImportResult, Source, cpu_sample, io_sample, littles_law,
                                      no_histogram_latency)
from ioscale.importers.common import port_sample as common_port_sample
from ioscale.importers.hostcounters import Column, CounterMap, Record, RowContext, Skip, import_sources
from ioscale.importers.pdh import CounterPath, PdhHeader
from ioscale.wire import topics
from ioscale.wire.records import PortKind, PortSample

TOOL = "perfmon"
DIRECTIONS = ("READ", "WRITE")
#: Per direction the normalised field names io_records reads (built once: this runs for every disk of every row).
_DIR_FIELDS = tuple((d, f"ops.{d}", f"bytes.{d}", f"lat.{d}", f"queue.{d}", f" {d.lower()}s", f" {d.lower()} bytes")
                    for d in DIRECTIONS)

_OS_CPU = {"% processor time": "utilization_pct", "% user time": "user_pct", "% privileged time": "privileged_pct",
           "% dpc time": "dpc_pct", "% interrupt time": "interrupt_pct", "interrupts/sec": "interrupts_per_s",
           "dpcs queued/sec": "dpcs_per_s", "% processor utility": "tag:processor_utility_pct"}
_LP = {"% total run time": "utilization_pct", "total interrupts/sec": "interrupts_per_s",
       "% guest run time": "tag:guest_run_pct", "% hypervisor run time": "tag:hypervisor_run_pct",
       "hardware interrupts/sec": "tag:hardware_interrupts_per_s"}
_VP = {"% total run time": "utilization_pct", "% guest run time": "tag:guest_run_pct",
       "% hypervisor run time": "tag:hypervisor_run_pct"}
HYPERV_CPU_OBJECTS = ("hyper-v hypervisor logical processor", "hyper-v hypervisor root virtual processor")

# (field, scale): "R"/"W" fields are per direction; seconds -> ns for latencies.
_PHYSICAL_DISK = {
    "disk reads/sec": ("ops.READ", 1.0), "disk writes/sec": ("ops.WRITE", 1.0),
    "disk read bytes/sec": ("bytes.READ", 1.0), "disk write bytes/sec": ("bytes.WRITE", 1.0),
    "avg. disk sec/read": ("lat.READ", 1e9), "avg. disk sec/write": ("lat.WRITE", 1e9),
    "avg. disk read queue length": ("queue.READ", 1.0), "avg. disk write queue length": ("queue.WRITE", 1.0),
    "disk transfers/sec": ("tag:disk_transfers_per_s", 1.0), "avg. disk sec/transfer": ("tag:avg_disk_sec_per_transfer", 1.0),
    "disk bytes/sec": ("tag:disk_bytes_per_s", 1.0), "avg. disk queue length": ("tag:avg_disk_queue_length", 1.0),
    "current disk queue length": ("tag:current_disk_queue_length", 1.0),
}
_VSD = {
    "read operations/sec": ("ops.READ", 1.0), "write operations/sec": ("ops.WRITE", 1.0),
    "read bytes/sec": ("bytes.READ", 1.0), "write bytes/sec": ("bytes.WRITE", 1.0),
    "queue length": ("tag:vsd_queue_length", 1.0), "latency": ("tag:vsd_latency", 1.0),
}
_CSVFS = {
    "reads/sec": ("ops.READ", 1.0), "writes/sec": ("ops.WRITE", 1.0),
    "read bytes/sec": ("bytes.READ", 1.0), "write bytes/sec": ("bytes.WRITE", 1.0),
    "read latency": ("lat.READ", 1e9), "write latency": ("lat.WRITE", 1e9),
    "read queue length": ("queue.READ", 1.0), "write queue length": ("queue.WRITE", 1.0),
}
IO_OBJECTS = {"physicaldisk": ("physical_disk", _PHYSICAL_DISK), "hyper-v virtual storage device": ("vsd", _VSD),
              "cluster csv file system": ("csvfs", _CSVFS)}

_NIC = {"bytes received/sec": "rate:rx_bytes", "bytes sent/sec": "rate:tx_bytes",
        "packets received/sec": "rate:rx_frames", "packets sent/sec": "rate:tx_frames",
        "packets received errors": "cum:rx_errors", "packets received discarded": "cum:rx_discards",
        "packets outbound errors": "cum:tx_errors", "packets outbound discarded": "cum:tx_discards",
        "current bandwidth": "link_speed_bps"}
_VNIC = {"bytes received/sec": "rate:rx_bytes", "bytes sent/sec": "rate:tx_bytes",
         "packets received/sec": "rate:rx_frames", "packets sent/sec": "rate:tx_frames",
         "dropped packets incoming/sec": "rate:rx_errors", "dropped packets outgoing/sec": "rate:tx_errors"}
_PER_CPU_NIC = {"received packets/sec": "rate:rx_frames", "interrupts/sec": "rate:interrupts",
                "dpcs queued/sec": "tag:dpcs_queued_per_s"}
PORT_OBJECTS = {"network adapter": ("physical", _NIC), "network interface": ("physical", _NIC),
                "hyper-v virtual network adapter": ("vm_adapter", _VNIC),
                "hyper-v virtual switch": ("virtual_switch", _VNIC),
                "per processor network interface card activity": ("vmq", _PER_CPU_NIC)}

_NUM_RE = re.compile(r"(\d+)$")
_GROUP_CPU_RE = re.compile(r"^(\d+),(\d+)$")
_VP_RE = re.compile(r"^(.*):hv vp (\d+)$", re.IGNORECASE)
_VNIC_VM_RE = re.compile(r"^(.+?)_network adapter", re.IGNORECASE)
_PER_CPU_NIC_RE = re.compile(r"^(\d+),\s*(.+)$")


class PerfmonMap(CounterMap):
    tool = TOOL
    counted_layer = "physical_disk"
    hypervisor = ""

    def __init__(self) -> None:
        self.hyperv_hosts: set[str] = set()
        #: host -> sorted (group, number) of the Processor Information instances: their dense CPU numbers
        self.group_cpus: dict[str, dict[tuple[int, int], int]] = {}
        #: (host, scope, vm) -> number of per-CPU instances a total covers
        self.cpu_count: dict[tuple[str, str, str], int] = {}
        #: VM VP utilization seen in the current row: (host, vm) -> [sum, n, ts]
        self._vm_rows: dict[tuple[str, str], list[float]] = {}
        self._links: dict[tuple[str, str], int] = {}

    def start(self, header: PdhHeader) -> None:
        pairs: dict[str, set[tuple[int, int]]] = {}
        per_cpu: dict[tuple[str, str, str], set[int]] = {}
        for p in header.instances():
            obj = p.object.lower()
            if obj in HYPERV_CPU_OBJECTS:
                self.hyperv_hosts.add(p.host)
                self.hypervisor = "hyperv"
            if obj == "processor information" and (m := _GROUP_CPU_RE.match(p.instance)):
                pairs.setdefault(p.host, set()).add((int(m.group(1)), int(m.group(2))))
        self.group_cpus = {h: {gn: i for i, gn in enumerate(sorted(s))} for h, s in pairs.items()}
        for p in header.instances():
            got = self._cpu_identity(p)
            if got is not None and got[2] >= 0:
                per_cpu.setdefault((p.host, got[0], got[1]), set()).add(got[2])
        self.cpu_count = {k: len(v) for k, v in per_cpu.items()}

    def _cpu_identity(self, p: CounterPath) -> tuple[str, str, int] | None:
        """(scope, vm, cpu) of a CPU object's instance; None when it names no CPU or total."""
        obj, inst = p.object.lower(), (p.instance or "").strip()
        low = inst.lower()
        os_scope = "ROOT_PARTITION" if p.host in self.hyperv_hosts else "HOST"
        if obj == "processor information":
            if low == "_total":
                return os_scope, "", -1
            m = _GROUP_CPU_RE.match(inst)
            return (os_scope, "", self.group_cpus.get(p.host, {}).get((int(m.group(1)), int(m.group(2))), -2)) \
                if m else None
        if obj == "processor":
            return (os_scope, "", -1) if low == "_total" else (os_scope, "", int(inst)) if inst.isdecimal() else None
        if obj in ("hyper-v hypervisor logical processor", "hyper-v hypervisor root virtual processor"):
            scope = "HYPERVISOR" if obj.endswith("logical processor") else "ROOT_PARTITION"
            if low == "_total":
                return scope, "", -1
            m = _NUM_RE.search(inst)
            return (scope, "", int(m.group(1))) if m else None
        if obj == "hyper-v hypervisor virtual processor":
            m = _VP_RE.match(inst)
            return ("VM", m.group(1), int(m.group(2))) if m else None
        return None

    def column(self, index: int, p: CounterPath) -> list[Column] | Skip | None:
        obj, counter = p.object.lower(), p.counter.lower()
        inst = (p.instance or "").strip()
        if obj in ("processor information", "processor", "hyper-v hypervisor logical processor",
                   "hyper-v hypervisor root virtual processor", "hyper-v hypervisor virtual processor"):
            table = _OS_CPU if obj.startswith("processor") else _LP if obj.endswith("logical processor") else _VP
            fld = table.get(counter)
            if fld is None:
                return []
            ident = self._cpu_identity(p)
            if ident is None:
                if obj == "processor information" and inst.lower().endswith(",_total"):
                    return Skip("Processor Information group/NUMA-node totals (the host total is _Total)")
                if obj == "hyper-v hypervisor virtual processor" and inst.lower() == "_total":
                    return Skip("Hyper-V Hypervisor Virtual Processor(_Total) (all VMs' VPs; per-VM totals are built)")
                return None
            scope, vm, cpu = ident
            key = ("cpu", p.host, scope, vm, cpu)
            cols = [Column(index, key, fld, rank=0 if obj == "processor information" else 1)]
            if obj == "hyper-v hypervisor root virtual processor":
                cols = [Column(index, key, fld, rank=5)] + (
                    [Column(index, key, "tag:root_vp_total_run_pct")] if fld == "utilization_pct" else [])
            if obj == "processor information" and cpu >= 0 and fld == "utilization_pct":
                m = _GROUP_CPU_RE.match(inst)
                # A constant tag rides on the utilization column: present exactly when the record is.
                cols.append(Column(index, key, f"const:processor_group={m.group(1)};group_cpu={m.group(2)}"))
            return cols
        if obj in IO_OBJECTS:
            layer, table = IO_OBJECTS[obj]
            got = table.get(counter)
            if got is None:
                return []
            if inst.lower() == "_total":
                return Skip(f"{p.object}(_Total) (the sum of the instances, which are imported)")
            return [Column(index, ("io", p.host, layer, inst), got[0], got[1])]
        if obj in PORT_OBJECTS:
            role, table = PORT_OBJECTS[obj]
            fld = table.get(counter)
            if fld is None:
                return []
            if inst.lower() == "_total":
                return Skip(f"{p.object}(_Total) (the sum of the instances, which are imported)")
            if role == "vmq":
                m = _PER_CPU_NIC_RE.match(inst)
                if not m:
                    return None
                return [Column(index, ("port", p.host, m.group(2), int(m.group(1)), role), fld)]
            return [Column(index, ("port", p.host, inst, -1, role), fld)]
        return None

    # --- records ---------------------------------------------------------------------------------------------

    def records(self, key: tuple, values: dict[str, float], ctx: RowContext) -> list[Record]:
        if key[0] == "cpu":
            return self._cpu(key, values, ctx)
        if key[0] == "io":
            return io_records(key, values, ctx, tool=TOOL, vm=ctx.vm)
        return self._port(key, values, ctx)

    def _cpu(self, key: tuple, values: dict[str, float], ctx: RowContext) -> list[Record]:
        _, host, scope, vm, cpu = key
        if scope in ("HOST", "ROOT_PARTITION") and ctx.vm:
            scope, vm = "GUEST", ctx.vm   # a file recorded inside a VM (collect --vm)
        util = ctx.pct(values.get("utilization_pct"), f"{scope} CPU {cpu} utilization")
        if util is None:
            return []
        fields = {f: ctx.pct(values.get(f), f) or 0.0 for f in ("user_pct", "privileged_pct", "dpc_pct", "interrupt_pct")}
        tags = {"source": TOOL}
        for name, v in values.items():
            if name.startswith("tag:"):
                tags[name[4:]] = f"{v:.6g}"
            elif name.startswith("const:"):
                tags.update(kv.split("=", 1) for kv in name[6:].split(";"))
        if scope == "VM" and cpu >= 0:
            acc = self._vm_rows.setdefault((host, vm), [0.0, 0])
            acc[0] += util
            acc[1] += 1
        return [(topics.CPU_SAMPLES, cpu_sample(
            ts_ms=ctx.ts_ms, interval_ms=ctx.interval_ms, run_id=ctx.run_id, step_index=ctx.step_index,
            host=host or UNKNOWN_HOST, vm=vm, scope=scope, cpu=cpu,
            logical_processors=self.cpu_count.get((host, key[2], key[3]), 0) if cpu == -1 else 1,
            utilization_pct=util, interrupts_per_s=max(values.get("interrupts_per_s", 0.0), 0.0),
            dpcs_per_s=max(values.get("dpcs_per_s", 0.0), 0.0), tags=tags, **fields))]

    def _port(self, key: tuple, values: dict[str, float], ctx: RowContext) -> list[Record]:
        _, host, port, queue, role = key
        rx, tx = ctx.count(values.get("rate:rx_bytes"), port, " rx bytes"), ctx.count(values.get("rate:tx_bytes"),
                                                                                         port, " tx bytes")
        tags = {"source": TOOL, "port_role": role}
        speed = values.get("link_speed_bps")
        if speed is not None and speed >= 0:
            self._links[(host, port)] = int(min(speed, 2**63 - 1))
        if role == "vmq":
            frames = ctx.count(values.get("rate:rx_frames"), port, f" queue {queue} packets")
            interrupts = ctx.count(values.get("rate:interrupts"), port, f" queue {queue} interrupts")
            if frames is None and interrupts is None:
                return []
            tags.update(queue_basis="processor", traffic_basis="packets_only")
            if "tag:dpcs_queued_per_s" in values:
                tags["dpcs_queued_per_s"] = f"{values['tag:dpcs_queued_per_s']:.6g}"
            return [(topics.PORT_SAMPLES, port_sample(
                ctx, host=host, port_id=port, kind="NIC_VMQ", queue=queue, vm="",
                link_speed_bps=self._links.get((host, port), 0), rx_bytes=0, tx_bytes=0, rx_frames=frames or 0,
                interrupts=interrupts or 0, tags=tags))]
        errors = {}
        for side in ("rx", "tx"):
            if f"rate:{side}_errors" in values:
                errors[side] = ctx.count(values[f"rate:{side}_errors"], port, f" {side} drops") or 0
            else:
                # Before any early return: the cumulative counts must be remembered from every row.
                parts = [ctx.delta(key, n, values.get(f"cum:{side}_{n}")) for n in ("errors", "discards")]
                errors[side] = sum(p for p in parts if p is not None)
        if rx is None or tx is None:
            return []
        vm = ""
        if role == "vm_adapter" and (m := _VNIC_VM_RE.match(port)):
            vm = m.group(1)
        return [(topics.PORT_SAMPLES, port_sample(
            ctx, host=host, port_id=port, kind="NIC", queue=-1, vm=vm,
            link_speed_bps=int(min(speed, 2**63 - 1)) if speed is not None and speed >= 0 else 0, rx_bytes=rx, tx_bytes=tx,
            rx_frames=ctx.count(values.get("rate:rx_frames"), port, " rx packets") or 0,
            tx_frames=ctx.count(values.get("rate:tx_frames"), port, " tx packets") or 0,
            rx_errors=errors["rx"], tx_errors=errors["tx"], tags=tags))]

    def row_done(self, ctx: RowContext) -> list[Record]:
        out = []
        for (host, vm), (total, n) in sorted(self._vm_rows.items()):
            out.append((topics.CPU_SAMPLES, cpu_sample(
                ts_ms=ctx.ts_ms, interval_ms=ctx.interval_ms, run_id=ctx.run_id, step_index=ctx.step_index,
                host=host or UNKNOWN_HOST, vm=vm, scope="VM", cpu=-1, logical_processors=int(n),
                utilization_pct=total / n, tags={"source": TOOL, "utilization_basis": "mean_of_vps"})))
        self._vm_rows.clear()
        return out


def port_sample(ctx: RowContext, *, host: str, port_id: str, kind: PortKind, queue: int, vm: str,
                link_speed_bps: int, rx_bytes: int, tx_bytes: int, rx_frames: int = 0, tx_frames: int = 0,
                rx_errors: int = 0, tx_errors: int = 0, interrupts: int = 0, tags: dict[str, str]) -> PortSample:
    return common_port_sample(
        ts_ms=ctx.ts_ms, interval_ms=ctx.interval_ms, run_id=ctx.run_id, step_index=ctx.step_index,
        host=host or UNKNOWN_HOST, port_id=port_id, kind=kind, queue=queue, vm=vm, link_speed_bps=link_speed_bps,
        rx_bytes=rx_bytes, tx_bytes=tx_bytes, rx_frames=rx_frames, tx_frames=tx_frames, rx_errors=rx_errors,
        tx_errors=tx_errors, interrupts=interrupts, tags=tags)


def io_records(key: tuple, values: dict[str, float], ctx: RowContext, *, tool: str, vm: str = "",
               target: str | None = None, extra_tags: dict[str, str] | None = None) -> list[Record]:
    """IoSamples of one disk (or adapter, LUN, virtual disk) per direction from normalised fields:
    ``ops.D`` and ``bytes.D`` per second, ``lat.D`` mean ns, ``queue.D`` mean queue length (else Little's law
    from the mean), ``tag:*`` as tags of both directions, ``dtag.D:*`` as tags of direction D only."""
    _, host, layer, name = key[:4]
    run_id = ctx.layer_run(layer)
    base_tags = {"source": tool, "io_layer": layer, **(extra_tags or {})}
    per_dir: dict[str, dict[str, str]] = {"READ": {}, "WRITE": {}}
    for f, v in values.items():     # one pass: "tag:x" for both directions, "dtag.READ:x" for one
        if f[0] == "t":
            base_tags[f[4:]] = f"{v:.6g}"
        elif f[0] == "d":
            d, _, tag = f[5:].partition(":")
            per_dir[d][tag] = f"{v:.6g}"
    base_tags["ops_basis"] = "rate_x_interval"
    step_index = ctx.step_index if run_id == ctx.run_id else 0
    out: list[Record] = []
    for d, ops_f, bytes_f, lat_f, queue_f, ops_label, bytes_label in _DIR_FIELDS:
        ops = ctx.count(values.get(ops_f), name, ops_label)
        if ops is None:
            continue
        nbytes = ctx.count(values.get(bytes_f), name, bytes_label) or 0
        tags = {**base_tags, **per_dir[d]}
        mean = values.get(lat_f)
        if mean is not None and mean < 0:
            ctx.issues.error("negative", f"negative latency for {name} {d.lower()}s: left out", line=ctx.line)
            mean = None
        lat = no_histogram_latency(ops, mean * ops if mean is not None else None, tags)
        queue = values.get(queue_f)
        if queue is not None and queue >= 0:
            tags["outstanding_ios_basis"] = "avg_queue_length"
        elif lat:
            queue = littles_law(ops, ctx.interval_ms, mean)
            tags["outstanding_ios_basis"] = "littles_law"
        out.append((topics.IO_SAMPLES, io_sample(
            ts_ms=ctx.ts_ms, interval_ms=ctx.interval_ms, run_id=run_id, step_index=step_index,
            host=host or UNKNOWN_HOST, vm=vm, target=target if target is not None else name, direction=d, ops=ops,
            bytes_=nbytes, outstanding_ios=queue if queue is not None and queue >= 0 else 0.0, tags=tags, **lat)))
    return out


def import_perfmon(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                   now_ms: int) -> ImportResult:
    """Import perfmon CSV/TSV files (see the module doc); several files are one run."""
    return import_sources(PerfmonMap, TOOL, list(sources), run_id, now_ms=now_ms)


__all__ = ["PerfmonMap", "import_perfmon", "io_records", "port_sample"]
