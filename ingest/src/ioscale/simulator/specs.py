"""What a scenario is made of: hosts, ports, storage, CPU costs, and the load steps swept over them.

Frozen dataclasses only; scenarios.py fills them in, network.py turns one step into a queueing network.
Units are in the names: *_us microseconds of one logical processor (CPU) or of a device, *_bytes, *_bps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from ioscale.simulator.model import LatencyShape
from ioscale.wire.records import PortKind, Tool

KIB = 1024
MIB = 1024 * 1024
GIB = 1024 * MIB

Platform = Literal["bare", "hyperv", "esx"]


@dataclass(frozen=True)
class HostSpec:
    names: tuple[str, ...]      # one per identical host; a 4-node cluster has four
    platform: Platform          # which CPU scopes exist: bare HOST; hyperv +ROOT_PARTITION; esx +HYPERVISOR
    hypervisor: str             # as RunEvent.HostTopology.hypervisor; "" for bare metal
    sockets: int
    cores: int
    logical_processors: int
    memory_bytes: int


@dataclass(frozen=True)
class PortSpec:
    """A host port (or `count` identical ports sharing the load: multipath), per direction capacity.

    The byte factors say how many bytes cross each direction per byte of I/O payload: an FC HBA moves a
    read's data in (rx) and a write's out (tx); an S2D node's SAS port writes three copies; a file server's
    NIC also receives the data a client copies in before the VM writes it out (write_rx = 1).
    """

    port_id: str
    kind: PortKind
    speed_bps: int
    payload_bytes_per_s: int
    full_duplex: bool = True
    count: int = 1
    frame_payload_bytes: int = 2048    # FC frame data field; Ethernet: TCP payload per packet
    command_bytes: int = 0             # protocol bytes per I/O in each direction (FC command + status)
    engine_us: float = 0.0             # per-I/O time of the adapter's completion path (HBA engine, DPC)
    engine_per_kib_us: float = 0.0     # plus per KiB moved (DMA, frame handling)
    ios_per_interrupt: float = 1.0     # interrupt coalescing (I/O completions per interrupt)
    read_rx: float = 1.0
    read_tx: float = 0.0
    write_rx: float = 0.0
    write_tx: float = 1.0
    link_variability: float = 0.05     # burstiness of the wire (model.Station.variability): FC is near-deterministic
    engine_variability: float = 1.0    # of the completion path; batched DPCs: ~ the batch size

    def port_ids(self) -> list[str]:
        return [self.port_id] if self.count == 1 else [f"{self.port_id}{i + 1}" for i in range(self.count)]


@dataclass(frozen=True)
class StorageSpec:
    """The devices behind the targets: one device per target, or one pool per host (pooled)."""

    target_name: str                   # format string with {n} (1-based per VM / per host)
    read_service_us: float             # device busy time per 4 KiB read
    write_service_us: float
    per_kib_us: float = 0.0            # extra device time per KiB above 4 KiB
    parallelism: int = 1               # I/Os the device (or pool) works on at once
    pooled: bool = False
    read_delay_us: float = 0.0         # fixed latency not shared with anyone (fabric, controller, media)
    write_delay_us: float = 0.0
    delay_per_kib_us: float = 0.0      # fixed latency per KiB (remote transfer at the array's own port speed)
    write_delay_per_kib_us: float = 0.0  # extra per KiB for writes (copies sent to other nodes before the ack)
    write_amplification: float = 1.0   # backend writes per front-end write (a 3-way mirror: 3)
    variability: float = 1.0
    target_port_bytes_per_s: int = 0   # array-side port per target (payload per direction); 0 = none

    def service_s(self, block_bytes: int, write: bool) -> float:
        base = self.write_service_us * self.write_amplification if write else self.read_service_us
        extra_kib = max(block_bytes / KIB - 4.0, 0.0)
        amp = self.write_amplification if write else 1.0
        return (base + self.per_kib_us * extra_kib * amp) * 1e-6

    def delay_s(self, block_bytes: int, write: bool) -> float:
        base = self.write_delay_us if write else self.read_delay_us
        per_kib = self.delay_per_kib_us + (self.write_delay_per_kib_us if write else 0.0)
        return (base + per_kib * block_bytes / KIB) * 1e-6


@dataclass(frozen=True)
class CpuSpec:
    """CPU time per I/O, in microseconds of one logical processor, at 4 KiB (+ per KiB above)."""

    guest_us: float                    # issuing OS: load tool + storage stack + driver or VSC
    guest_per_kib_us: float = 0.0
    root_us: float = 0.0               # root partition / vmkernel: VSP, physical driver, ISR + DPC
    root_per_kib_us: float = 0.0
    root_write_extra_us: float = 0.0   # extra root CPU per write (replication to other nodes)
    root_servers: int = 0              # logical processors serving the root path; 0 = all
    channel_us: float = 0.0            # single-threaded virtual adapter channel (VMBus / vSCSI) per I/O
    hypervisor_us: float = 0.0         # hypervisor time per I/O from a VM (exits, interrupt injection)
    interrupt_us: float = 1.5          # part of root_us spent in interrupt service routines
    dpc_fraction: float = 0.35         # part of root_us spent in DPCs / softirqs
    idle_pct_per_vm: float = 0.3       # percent of one logical processor a running VM costs when idle
    base_pct: float = 0.8              # host background, percent of all logical processors
    variability: float = 1.0           # burstiness of CPU stations (issuer, channel, root)

    def guest_s(self, block_bytes: int) -> float:
        return (self.guest_us + self.guest_per_kib_us * max(block_bytes / KIB - 4.0, 0.0)) * 1e-6

    def root_s(self, block_bytes: int, write: bool = False) -> float:
        extra = self.root_write_extra_us if write else 0.0
        return (self.root_us + extra + self.root_per_kib_us * max(block_bytes / KIB - 4.0, 0.0)) * 1e-6

    def host_s(self, block_bytes: int, write: bool, in_vm: bool) -> float:
        """All CPU one I/O costs on the host's logical processors."""
        return self.guest_s(block_bytes) + self.root_s(block_bytes, write) + (self.hypervisor_us * 1e-6 if in_vm else 0.0)


@dataclass(frozen=True)
class VswitchSpec:
    """Hyper-V virtual switch receive path (seed 001). Without VMQ one root processor sorts and copies
    every received packet; with VMQ the NIC sorts into one queue per VM, each served by its own processor
    and copied once."""

    vmq: bool
    root_ns_per_byte: float            # root CPU per byte received for a VM
    bytes_per_interrupt: int           # interrupt moderation: received bytes per interrupt to the root
    port_index: int = 0                # which PortSpec carries the VM traffic


@dataclass(frozen=True)
class Workload:
    """One kind of load in a step: `vm_count` VMs per host (0 = the host OS itself), each with
    `targets_per_vm` targets, each driven by `workers_per_target` workers keeping `qd` I/Os in flight."""

    vm_count: int
    targets_per_vm: int
    workers_per_target: int
    qd: int
    block_size_bytes: int
    read_pct: float
    random_pct: float = 100.0
    vcpus: int = 1
    adapters: int = 1                  # virtual storage adapters per VM; targets spread over them
    first_vm: int = 1                  # number of the first VM (mixed steps put groups side by side)

    @property
    def population(self) -> int:
        return self.workers_per_target * self.qd

    @property
    def classes_per_host(self) -> int:
        return max(self.vm_count, 1) * self.targets_per_vm

    def targets_per_adapter(self) -> int:
        return math.ceil(self.targets_per_vm / max(self.adapters, 1))


@dataclass(frozen=True)
class StepSpec:
    label: str
    workloads: tuple[Workload, ...]
    adapter: str = ""                  # StepLoad.adapter, e.g. "virtual SCSI x4"
    config_labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSpec:
    key: str                           # short, unique within the scenario: goes into run_id
    description: str
    tool: Tool
    host: HostSpec
    ports: tuple[PortSpec, ...]
    storage: StorageSpec
    cpu: CpuSpec
    steps: tuple[StepSpec, ...]
    latency: LatencyShape = LatencyShape()
    vswitch: VswitchSpec | None = None
    vm_name: str = "vm{n:02d}"         # format with {n} (1-based per host) and {host}
    config_labels: dict[str, str] = field(default_factory=dict)
    throughput_cv: float = 0.02        # interval-to-interval spread of each source's throughput
    cpu_noise_pct: float = 0.4         # absolute noise on CPU percentages


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    reproduces: str                    # the study and figures it reproduces (for docs and --list)
    runs: tuple[RunSpec, ...]
    step_s: int = 30                   # measured seconds per step
    ramp_s: int = 5                    # ramp-up seconds before each step's measured part
    interval_ms: int = 1000

    @property
    def step_count(self) -> int:
        return sum(len(r.steps) for r in self.runs)

    def duration_s(self, step_s: int | None = None, ramp_s: int | None = None) -> int:
        per_step = (self.step_s if step_s is None else step_s) + (self.ramp_s if ramp_s is None else ramp_s)
        return per_step * self.step_count
