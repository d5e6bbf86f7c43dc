"""ESXi ``esxtop -b`` batch files (PDH CSV layout, ``(PDH-CSV 4.0) (UTC)(0)``) -> CPU, I/O and port samples.

Read and driven as perfmon files are (``pdh.py``, ``hostcounters.py``); counter names as esxtop writes them,
matched without regard to case. Per interval:

* **CpuSample**, scope HYPERVISOR (ESXi's physical CPUs are the hypervisor's logical processors):
  ``Physical Cpu(n)`` and ``Physical Cpu(_Total)`` (cpu = -1): utilization = % Util Time (esxtop's
  PCPU UTIL%, busy time); % Core Util Time and % Processor Time (PCPU USED%, frequency- and HT-weighted) in
  tags ``core_util_pct`` and ``processor_time_pct``.
  ``Group Cpu(<id>:<name>)`` of a VM: scope VM, ``vm`` = the name, cpu = -1. esxtop's group percentages are
  sums over the group's worlds (a 4-vCPU VM can show 400 % used), so utilization = % Used / vCPUs (the
  ``Vcpu(<id>:...)`` instances of the group when the file has them, tag ``utilization_basis =
  used_over_vcpus``, else the group's Members, ``used_over_members``), clamped to 100; the raw sums are in
  tags ``used_pct``, ``ready_pct``, ``wait_pct``, ``costop_pct``, ``run_pct``, ``system_pct``. Groups of
  the hypervisor's own services (system, helper, drivers, vmotion, ``hostd.1234``, ...) are not VMs and are
  left out.
* **IoSample** per adapter and direction, no histogram (``common.no_histogram_latency``): ``Physical Disk
  Adapter(vmhbaN)``: ops = Reads|Writes/sec x interval, bytes = MBytes Read|Written/sec x 2^20 x interval,
  mean latency = Average Guest MilliSec/Read|Write (GAVG, what the VMs see), ``outstanding_ios`` by Little's
  law. The latency split goes to tags: per command ``davg_ms`` (device), ``kavg_ms`` (VMkernel), ``qavg_ms``
  (queued in the kernel), ``gavg_ms`` (= DAVG + KAVG), overridden per direction by the /Read and /Write
  variants when present; ``commands_per_s``. A rising DAVG is the device's knee; a rising KAVG or QAVG with a
  flat DAVG is queueing in the host (queue depth, throttling). Adapters are the counted layer; ``Physical
  Disk SCSI Device(naa...)`` (per LUN, same counters) goes to run ``<run>-device`` and ``Virtual Disk(<vm>:
  scsi0:0)`` (per VM virtual disk: Average MilliSec/Read|Write) to ``<run>-vdisk`` with ``vm`` set;
  ``Virtual Disk(<vm>)`` (the VM's sum over its disks) is left out.
* **PortSample**: ``Network Port(<portset>:<port id>:<client>)``, kind NIC, ``port_id`` = the client
  (``vmnic0``, ``vmk0``, ``<vm>.eth0``; tags ``portset``, ``port_number``, ``port_role`` physical |
  vmkernel | vm_adapter, ``vm`` for a VM's port): MBits Received|Transmitted/sec x 10^6 / 8 x interval ->
  bytes, Packets Received|Transmitted/sec -> frames, % Received|Outbound Packets Dropped x packets -> errors
  (tag ``errors_basis = dropped_pct_x_packets``). Per adapter one PortSample kind OTHER (esxtop does not
  say whether a vmhba is FC, iSCSI, SAS or local): rx = bytes read, tx = bytes written, so its MB/s can
  be held against the adapter's link speed declared for the run (esxtop has no link speed: 0).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ioscale.importers.common import UNKNOWN_HOST, ImportResult, Source, cpu_sample
from ioscale.importers.hostcounters import Column, CounterMap, Record, RowContext, Skip, import_sources
from ioscale.importers.pdh import CounterPath, PdhHeader
from ioscale.importers.perfmon import io_records, port_sample
from ioscale.wire import topics

TOOL = "esxtop"
MIB = float(1 << 20)
MS_NS = 1e6

_PCPU = {"% util time": "utilization_pct", "% core util time": "tag:core_util_pct",
         "% processor time": "tag:processor_time_pct"}
_GROUP = {"% used": "used", "% ready": "ready", "% wait": "wait", "% costop": "costop", "% run": "run",
          "% system": "system", "members": "members"}

_DEVICE = {
    "reads/sec": ("ops.READ", 1.0), "writes/sec": ("ops.WRITE", 1.0),
    "mbytes read/sec": ("bytes.READ", MIB), "mbytes written/sec": ("bytes.WRITE", MIB),
    "average guest millisec/read": ("lat.READ", MS_NS), "average guest millisec/write": ("lat.WRITE", MS_NS),
    "average driver millisec/command": ("tag:davg_ms", 1.0), "average kernel millisec/command": ("tag:kavg_ms", 1.0),
    "average guest millisec/command": ("tag:gavg_ms", 1.0), "average queue millisec/command": ("tag:qavg_ms", 1.0),
    "average driver millisec/read": ("dtag.READ:davg_ms", 1.0),
    "average kernel millisec/read": ("dtag.READ:kavg_ms", 1.0),
    "average queue millisec/read": ("dtag.READ:qavg_ms", 1.0),
    "average driver millisec/write": ("dtag.WRITE:davg_ms", 1.0),
    "average kernel millisec/write": ("dtag.WRITE:kavg_ms", 1.0),
    "average queue millisec/write": ("dtag.WRITE:qavg_ms", 1.0),
    "commands/sec": ("tag:commands_per_s", 1.0),
}
_VDISK = {
    "reads/sec": ("ops.READ", 1.0), "writes/sec": ("ops.WRITE", 1.0),
    "mbytes read/sec": ("bytes.READ", MIB), "mbytes written/sec": ("bytes.WRITE", MIB),
    "average millisec/read": ("lat.READ", MS_NS), "average millisec/write": ("lat.WRITE", MS_NS),
    "commands/sec": ("tag:commands_per_s", 1.0),
}
_PORT = {"mbits received/sec": ("rate:rx_bytes", 125_000.0), "mbits transmitted/sec": ("rate:tx_bytes", 125_000.0),
         "packets received/sec": ("rate:rx_frames", 1.0), "packets transmitted/sec": ("rate:tx_frames", 1.0),
         "% received packets dropped": ("pct:rx_dropped", 1.0), "% outbound packets dropped": ("pct:tx_dropped", 1.0)}

#: Groups of ESXi's own services; a VM's group is named after the VM.
SYSTEM_GROUPS = frozenset({"idle", "system", "helper", "drivers", "ft", "vmotion", "vmkapimod", "host", "init",
                           "vmkboot", "ovs", "vsantraced", "vsan", "user", "storagerm"})
_SERVICE_GROUP_RE = re.compile(r"^[\w\-]+\.\d+$")   # hostd.2099, vpxa.2345, sshd.3456
_GROUP_RE = re.compile(r"^(\d+):(.+)$")
_VM_PORT_RE = re.compile(r"^(.+)\.eth\d+$")


class EsxtopMap(CounterMap):
    tool = TOOL
    counted_layer = "adapter"
    hypervisor = "esxi"

    def __init__(self) -> None:
        self.vcpus: dict[tuple[str, str], int] = {}   # (host, group id) -> vCPU worlds
        self.pcpus: dict[str, int] = {}

    def start(self, header: PdhHeader) -> None:
        vcpu_worlds: dict[tuple[str, str], set[str]] = {}
        pcpus: dict[str, set[str]] = {}
        for p in header.instances():
            obj = p.object.lower()
            if obj == "vcpu":
                parts = p.instance.split(":")
                if len(parts) >= 3:
                    vcpu_worlds.setdefault((p.host, parts[0]), set()).add(parts[2])
            elif obj == "physical cpu" and p.instance.isdecimal():
                pcpus.setdefault(p.host, set()).add(p.instance)
        self.vcpus = {k: len(v) for k, v in vcpu_worlds.items()}
        self.pcpus = {h: len(v) for h, v in pcpus.items()}

    def column(self, index: int, p: CounterPath) -> list[Column] | Skip | None:
        obj, counter, inst = p.object.lower(), p.counter.lower(), (p.instance or "").strip()
        if obj == "physical cpu":
            fld = _PCPU.get(counter)
            if fld is None:
                return []
            cpu = -1 if inst.lower() == "_total" else int(inst) if inst.isdecimal() else None
            return None if cpu is None else [Column(index, ("cpu", p.host, cpu), fld)]
        if obj == "vcpu":
            return Skip("Vcpu (read only to count each VM's vCPUs)")
        if obj == "group cpu":
            fld = _GROUP.get(counter)
            m = _GROUP_RE.match(inst)
            if fld is None or not m:
                return [] if m else None
            gid, name = m.groups()
            if name.lower() in SYSTEM_GROUPS or _SERVICE_GROUP_RE.match(name):
                return Skip("Group Cpu of ESXi's own services (not VMs)")
            if not self.vcpus and self._looks_like_world(name):
                return Skip("Group Cpu of ESXi's own services (not VMs)")
            if self.vcpus and (p.host, gid) not in self.vcpus:
                return Skip("Group Cpu without vCPUs (ESXi's own services, not VMs)")
            return [Column(index, ("group", p.host, gid, name), fld)]
        if obj in ("physical disk adapter", "physical disk scsi device"):
            got = _DEVICE.get(counter)
            if got is None:
                return []
            layer = "adapter" if obj == "physical disk adapter" else "device"
            cols = [Column(index, ("io", p.host, layer, inst), got[0], got[1], rank=0)]
            if counter == "average guest millisec/command":   # the mean for a direction without its own
                cols += [Column(index, ("io", p.host, layer, inst), f"lat.{d}", MS_NS, rank=1)
                         for d in ("READ", "WRITE")]
            if layer == "adapter" and got[0].startswith("bytes."):
                cols.append(Column(index, ("hba", p.host, inst), got[0], got[1]))
            return cols
        if obj == "virtual disk":
            got = _VDISK.get(counter)
            if got is None:
                return []
            vm, sep, disk = inst.rpartition(":")
            if not sep or not re.match(r"^(scsi|sata|ide|nvme)\d+$", vm.rsplit(":", 1)[-1], re.IGNORECASE):
                return Skip("Virtual Disk per-VM sums (their disks are imported)")
            vm_name, _, bus = vm.rpartition(":")
            return [Column(index, ("io", p.host, "vdisk", inst, vm_name, f"{bus}:{disk}"), got[0], got[1])]
        if obj == "network port":
            got = _PORT.get(counter)
            if got is None:
                return []
            parts = inst.split(":", 2)
            if len(parts) != 3:
                return None
            return [Column(index, ("port", p.host, *parts), got[0], got[1])]
        return None

    @staticmethod
    def _looks_like_world(name: str) -> bool:
        return name.startswith("vmsyslogd") or name.startswith("sh.") or name.startswith("busybox")

    def records(self, key: tuple, values: dict[str, float], ctx: RowContext) -> list[Record]:
        kind = key[0]
        if kind == "cpu":
            _, host, cpu = key
            util = ctx.pct(values.get("utilization_pct"), f"PCPU {cpu} % Util Time")
            if util is None:
                return []
            tags = {"source": TOOL, **{f[4:]: f"{v:.6g}" for f, v in values.items() if f.startswith("tag:")}}
            return [(topics.CPU_SAMPLES, cpu_sample(
                ts_ms=ctx.ts_ms, interval_ms=ctx.interval_ms, run_id=ctx.run_id, step_index=ctx.step_index,
                host=host or UNKNOWN_HOST, scope="HYPERVISOR", cpu=cpu,
                logical_processors=self.pcpus.get(host, 0) if cpu == -1 else 1, utilization_pct=util, tags=tags))]
        if kind == "group":
            _, host, gid, name = key
            used = values.get("used")
            if used is None or used < 0:
                return []
            n = self.vcpus.get((host, gid))
            basis = "used_over_vcpus"
            if not n:
                n, basis = int(values.get("members") or 0), "used_over_members"
            if n <= 0:
                return []
            tags = {"source": TOOL, "group_id": gid, "utilization_basis": basis,
                    **{f"{f}_pct": f"{values[f]:.6g}" for f in ("used", "ready", "wait", "costop", "run", "system")
                       if f in values}}
            return [(topics.CPU_SAMPLES, cpu_sample(
                ts_ms=ctx.ts_ms, interval_ms=ctx.interval_ms, run_id=ctx.run_id, step_index=ctx.step_index,
                host=host or UNKNOWN_HOST, vm=name, scope="VM", cpu=-1, logical_processors=n,
                utilization_pct=min(100.0, used / n), tags=tags))]
        if kind == "io":
            if key[2] == "vdisk":
                return io_records(key, values, ctx, tool=TOOL, vm=key[4], target=key[5])
            return io_records(key, values, ctx, tool=TOOL)
        if kind == "hba":
            _, host, name = key
            rd, wr = ctx.count(values.get("bytes.READ"), name, " bytes read"), ctx.count(
                values.get("bytes.WRITE"), name, " bytes written")
            if rd is None or wr is None:
                return []
            return [(topics.PORT_SAMPLES, port_sample(
                ctx, host=host, port_id=name, kind="OTHER", queue=-1, vm="", link_speed_bps=0, rx_bytes=rd,
                tx_bytes=wr, tags={"source": TOOL, "port_role": "storage_adapter", "traffic_basis": "adapter_io"}))]
        return self._port(key, values, ctx)

    def _port(self, key: tuple, values: dict[str, float], ctx: RowContext) -> list[Record]:
        _, host, portset, number, client = key
        rx, tx = ctx.count(values.get("rate:rx_bytes"), client, " rx"), ctx.count(values.get("rate:tx_bytes"),
                                                                                client, " tx")
        if rx is None or tx is None:
            return []
        rx_frames = ctx.count(values.get("rate:rx_frames"), client, " rx packets") or 0
        tx_frames = ctx.count(values.get("rate:tx_frames"), client, " tx packets") or 0
        m = _VM_PORT_RE.match(client)
        role = "physical" if client.startswith("vmnic") else "vmkernel" if client.startswith("vmk") else "vm_adapter"
        tags = {"source": TOOL, "portset": portset, "port_number": number, "port_role": role}
        errors = {}
        for side, frames in (("rx", rx_frames), ("tx", tx_frames)):
            pct = values.get(f"pct:{side}_dropped")
            pct = ctx.pct(pct, f"{client} % {side} dropped") if pct is not None else None
            errors[side] = round(pct / 100 * frames) if pct else 0
        if "pct:rx_dropped" in values or "pct:tx_dropped" in values:
            tags["errors_basis"] = "dropped_pct_x_packets"
        return [(topics.PORT_SAMPLES, port_sample(
            ctx, host=host, port_id=client, kind="NIC", queue=-1, vm=m.group(1) if m and role == "vm_adapter" else "",
            link_speed_bps=0, rx_bytes=rx, tx_bytes=tx, rx_frames=rx_frames, tx_frames=tx_frames,
            rx_errors=errors["rx"], tx_errors=errors["tx"], tags=tags))]


def import_esxtop(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                  now_ms: int) -> ImportResult:
    """Import ``esxtop -b`` CSV files (see the module doc); several files are one run."""
    return import_sources(EsxtopMap, TOOL, list(sources), run_id, now_ms=now_ms)


__all__ = ["EsxtopMap", "import_esxtop"]
