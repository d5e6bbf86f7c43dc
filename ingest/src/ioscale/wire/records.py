"""In-memory records: plain dicts typed to match `schema/*.avsc` field for field.

Dicts, not classes: the producer hands them straight to the Avro encoder, and a simulator that must
emit 50k samples/s cannot afford a conversion per record. The TypedDicts give type checkers and
readers the field list; `schema/` stays the source of truth (tests check the two agree).
"""

from __future__ import annotations

from typing import Literal, TypedDict

Direction = Literal["READ", "WRITE"]
Tool = Literal["IOMETER", "DISKSPD", "VMFLEET", "FIO", "SIMULATOR", "LIVE"]
RunEventType = Literal["RUN_STARTED", "STEP_STARTED", "STEP_ENDED", "RUN_ENDED"]
CpuScope = Literal["HOST", "ROOT_PARTITION", "HYPERVISOR", "VM", "GUEST"]
PortKind = Literal["FC_HBA", "NIC", "NIC_VMQ", "SAS", "OTHER"]


class Measured(TypedDict):
    """The fields I/O and CPU samples begin with: the interval measured, the run and step, and where."""

    ts_ms: int
    interval_ms: int
    run_id: str
    step_index: int
    host: str
    vm: str


class IoSample(Measured):
    target: str
    direction: Direction
    ops: int
    bytes: int
    outstanding_ios: float
    errors: int
    latency_count: int
    latency_sum_ns: int
    latency_min_ns: int
    latency_max_ns: int
    latency_hist_scheme: int
    latency_bucket_index: list[int]
    latency_bucket_count: list[int]
    percentile_q: list[float]
    percentile_ns: list[int]
    tags: dict[str, str]


class HostTopology(TypedDict):
    host: str
    hypervisor: str
    sockets: int
    cores: int
    logical_processors: int
    memory_bytes: int


class StepLoad(TypedDict):
    vm_count: int
    targets_per_vm: int
    workers_per_target: int
    outstanding_ios_per_target: int
    block_size_bytes: int
    read_pct: float
    random_pct: float
    adapter: str
    config_labels: dict[str, str]


class LinkCapacity(TypedDict):
    host: str
    port_id: str
    kind: PortKind
    speed_bps: int
    payload_bytes_per_s: int
    full_duplex: bool


class RunEvent(TypedDict):
    event_type: RunEventType
    ts_ms: int
    run_id: str
    scenario: str
    tool: Tool
    description: str
    hosts: list[HostTopology]
    step_index: int
    step_label: str
    load: StepLoad | None
    links: list[LinkCapacity]
    start_ms: int | None
    end_ms: int | None
    tags: dict[str, str]


class CpuSample(Measured):
    scope: CpuScope
    cpu: int
    logical_processors: int
    utilization_pct: float
    user_pct: float
    privileged_pct: float
    dpc_pct: float
    interrupt_pct: float
    iowait_pct: float
    interrupts_per_s: float
    dpcs_per_s: float
    tags: dict[str, str]


class PortSample(TypedDict):
    ts_ms: int
    interval_ms: int
    run_id: str
    step_index: int
    host: str
    port_id: str
    kind: PortKind
    queue: int
    vm: str
    link_speed_bps: int
    rx_bytes: int
    tx_bytes: int
    rx_frames: int
    tx_frames: int
    rx_errors: int
    tx_errors: int
    interrupts: int
    tags: dict[str, str]


#: Record type -> Avro schema file, so tests can check that the TypedDicts and schemas agree.
SCHEMA_FILES = {
    IoSample: "io_sample.avsc",
    RunEvent: "run_event.avsc",
    CpuSample: "cpu_sample.avsc",
    PortSample: "port_sample.avsc",
}
