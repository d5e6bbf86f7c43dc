"""One load step on one host as a queueing network (model.py), and the per-I/O costs the engine needs.

Stations, in the order an I/O meets them (see specs.py for the parameters):

    issuer   the OS that issues the I/O: a VM's vCPUs or the host's cores, limited to the worker threads
             (one Iometer worker is one thread) -- private to one VM (group = its targets)
    channel  a virtual storage adapter's single-threaded channel (Hyper-V VMBus/VSC-VSP, ESX vSCSI) --
             private to the targets on that adapter
    cpu      the host's logical processors: all CPU an I/O costs (guest + root partition / vmkernel +
             hypervisor) -- shared by the host
    vswitch  Hyper-V virtual switch receive path: one root processor without VMQ (shared), one queue and
             processor per VM with VMQ (private to the VM)
    engine   the HBA's I/O processor, per-I/O time -- shared
    rx / tx  each direction of each port (full duplex), payload bytes / payload rate -- shared
    device   the target's device (parallelism = servers) or the host's storage pool (S2D) -- private/shared
    delay    fixed latency per direction (fabric, array controller, media), not shared

Identical hosts (a cluster's nodes) carry identical load, so one host is solved and its figures reused.
"""

from __future__ import annotations

from dataclasses import dataclass

from ioscale.simulator.model import GLOBAL, ClassSolution, ClassType, Solution, Station, solve
from ioscale.simulator.specs import PortSpec, RunSpec, StepSpec, Workload


def type_name(workload_index: int) -> str:
    return f"w{workload_index}"


def port_bytes_per_io(port: PortSpec, block_bytes: int, write: bool) -> tuple[float, float]:
    """(rx, tx) bytes crossing the port for one I/O, protocol overhead included."""
    if write:
        return block_bytes * port.write_rx + port.command_bytes, block_bytes * port.write_tx + port.command_bytes
    return block_bytes * port.read_rx + port.command_bytes, block_bytes * port.read_tx + port.command_bytes


def issuer_servers(run: RunSpec, w: Workload) -> int:
    threads = w.targets_per_vm * w.workers_per_target
    cpus = run.host.cores if w.vm_count == 0 else w.vcpus
    return max(1, min(cpus, threads))


def vswitch_bytes_per_io(run: RunSpec, block_bytes: int, write: bool) -> float:
    """Bytes received for a VM per I/O (the traffic the virtual switch must route)."""
    if run.vswitch is None:
        return 0.0
    port = run.ports[run.vswitch.port_index]
    return block_bytes * (port.write_rx if write else port.read_rx)


def build(run: RunSpec, step: StepSpec) -> tuple[list[ClassType], list[Station]]:
    host, cpu, storage = run.host, run.cpu, run.storage
    types: list[ClassType] = []
    stations: list[Station] = []
    root_demands: dict[str, tuple[float, float]] = {}
    vswitch_demands: dict[str, tuple[float, float]] = {}
    port_demands: list[dict[str, dict[str, tuple[float, float]]]] = [
        {"rx": {}, "tx": {}, "engine": {}} for _ in run.ports]
    device_demands: dict[str, tuple[float, float]] = {}

    for j, w in enumerate(step.workloads):
        name = type_name(j)
        b = w.block_size_bytes
        types.append(ClassType(
            name=name, multiplicity=w.classes_per_host, population=float(w.population),
            read_fraction=w.read_pct / 100.0,
            read_delay_s=storage.delay_s(b, write=False), write_delay_s=storage.delay_s(b, write=True)))
        guest = cpu.guest_s(b)
        stations.append(Station(f"issuer/{name}", issuer_servers(run, w), group_size=w.targets_per_vm,
                                demands={name: (guest, guest)}, variability=cpu.variability))
        if cpu.channel_us > 0 and w.vm_count > 0:
            ch = cpu.channel_us * 1e-6
            stations.append(Station(f"channel/{name}", 1, group_size=w.targets_per_adapter(),
                                    demands={name: (ch, ch)}, variability=cpu.variability))
        # Every microsecond of CPU an I/O costs -- in the VM, the root partition or the hypervisor -- runs
        # on the host's logical processors: that pool is the real CPU limit. (The issuer station above
        # adds the per-VM / per-thread limit; its guest time is counted twice in latency, ~1 %.)
        in_vm = w.vm_count > 0
        root_demands[name] = (cpu.host_s(b, False, in_vm), cpu.host_s(b, True, in_vm))
        if run.vswitch is not None:
            ns = run.vswitch.root_ns_per_byte * 1e-9
            vswitch_demands[name] = (ns * vswitch_bytes_per_io(run, b, False), ns * vswitch_bytes_per_io(run, b, True))
        for p, port in enumerate(run.ports):
            (r_rx, r_tx), (w_rx, w_tx) = port_bytes_per_io(port, b, False), port_bytes_per_io(port, b, True)
            cap = float(port.payload_bytes_per_s)
            if port.full_duplex:
                port_demands[p]["rx"][name] = (r_rx / cap, w_rx / cap)
                port_demands[p]["tx"][name] = (r_tx / cap, w_tx / cap)
            else:
                port_demands[p]["rx"][name] = ((r_rx + r_tx) / cap, (w_rx + w_tx) / cap)
            if port.engine_us > 0 or port.engine_per_kib_us > 0:
                port_demands[p]["engine"][name] = ((port.engine_us + port.engine_per_kib_us * b / 1024) * 1e-6,) * 2
        device_demands[name] = (storage.service_s(b, write=False), storage.service_s(b, write=True))
        if storage.target_port_bytes_per_s:  # the array's port in front of this target, per direction
            cap = float(storage.target_port_bytes_per_s)
            # The same wire protocol as the host port: command + status bytes in both directions.
            cmd = run.ports[0].command_bytes if run.ports else 0
            stations.append(Station(f"target-out/{name}", 1, group_size=1, variability=0.05,
                                    demands={name: ((b + cmd) / cap, cmd / cap)}))
            stations.append(Station(f"target-in/{name}", 1, group_size=1, variability=0.05,
                                    demands={name: (cmd / cap, (b + cmd) / cap)}))
        if not storage.pooled:
            stations.append(Station(f"device/{name}", storage.parallelism, group_size=1,
                                    demands={name: device_demands[name]}, variability=storage.variability))

    if run.vswitch is not None:  # the switch's packet processing runs on the host's processors too
        for name, (dr, dw) in vswitch_demands.items():
            cr, cw = root_demands[name]
            root_demands[name] = (cr + dr, cw + dw)
    if root_demands:
        stations.append(Station("cpu", cpu.root_servers or host.logical_processors, demands=root_demands,
                                variability=cpu.variability))
    if run.vswitch is not None:
        if run.vswitch.vmq:  # one queue per VM: private to each VM's targets
            for j, w in enumerate(step.workloads):
                name = type_name(j)
                stations.append(Station(f"vswitch/{name}", 1, group_size=w.targets_per_vm,
                                        demands={name: vswitch_demands[name]}))
        else:
            stations.append(Station("vswitch", 1, demands=vswitch_demands))
    for p, port in enumerate(run.ports):
        for direction in ("rx", "tx", "engine"):
            if port_demands[p][direction]:
                v = port.engine_variability if direction == "engine" else port.link_variability
                stations.append(Station(f"{direction}/{port.port_id}", port.count,
                                        demands=port_demands[p][direction], variability=v))
    if storage.pooled:
        stations.append(Station("pool", storage.parallelism, demands=device_demands,
                                variability=storage.variability))
    return types, stations


@dataclass(frozen=True)
class StepResult:
    """The solved step for one host: per workload the class solution, plus station utilisations."""

    step: StepSpec
    solution: Solution

    def workload(self, j: int) -> ClassSolution:
        return self.solution.classes[type_name(j)]

    def totals(self) -> tuple[float, float]:
        """(IOPS, payload bytes/s) of one host."""
        iops = bps = 0.0
        for j, w in enumerate(self.step.workloads):
            x = self.workload(j).throughput_per_s * w.classes_per_host
            iops += x
            bps += x * w.block_size_bytes
        return iops, bps


def solve_step(run: RunSpec, step: StepSpec) -> StepResult:
    types, stations = build(run, step)
    return StepResult(step, solve(types, stations))


__all__ = ["GLOBAL", "StepResult", "build", "port_bytes_per_io", "solve_step", "issuer_servers",
           "vswitch_bytes_per_io", "type_name"]
