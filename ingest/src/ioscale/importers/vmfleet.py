"""VMFleet result directories (one DISKSPD XML per VM and sweep point) -> steps, VMs and samples.

VMFleet (microsoft/diskspd ``Frameworks/VMFleet``) runs DISKSPD inside every VM of a Hyper-V cluster and
copies each VM's ``-Rxml`` output to a shared result directory. ``run-sweeptemplate.ps1`` (and the 2.x
module) names each file after the sweep parameters and the VM::

    result-b<b>t<t>o<o>w<w>p<p>[g<g>][-<addspec>]-<vmspec>.xml
    e.g. result-b4t1o32w30pr-base-vm-base-NODE1-1+vm-base-NODE1-1.xml

``b`` block size in KiB, ``t`` threads per target, ``o`` outstanding I/Os per thread, ``w`` write percent,
``p`` pattern (``r`` random, ``s`` sequential, ``si`` interlocked sequential), ``g`` optional throughput
limit (bytes/ms), ``addspec`` a free label. ``vmspec`` is the content of the VM's ``c:\\vmspec.txt``:
``<vm directory>+<vhd name>``, both the VM name ``vm-<group>-<host>-<n>`` (``create-vmfleet.ps1``), so the
host a VM was created on is in its name. The hyphenated form (``result-b4k-t1-o32-w30-pr-...``) is
accepted too.

Mapping: each distinct parameter set (b, t, o, w, p, g, addspec) is a load step, ordered by time; each file
a VM (``vm`` = VM name, ``host`` = host from the name, ``scope = GUEST`` for its CPU samples); the VM's
DISKSPD numbers map as in ``diskspd``. Percentiles stay per VM: VMFleet itself averages per-VM p50/p90/p99
into a fleet figure, which is exactly what FIELD-NOTES shows to be wrong (p99 -34%), so nothing is averaged
here. Files whose name does not follow the pattern are still imported, keyed by the load in their XML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ioscale.importers.common import (UNKNOWN_HOST, ImportResult, Issues, Source, StepSpan, derive_run_id,
                                      host_topology, run_events, step_load)
from ioscale.importers.diskspd import DiskspdRun, diskspd_runs, timespan_records, timespan_windows

_NAME_RE = re.compile(
    r"^result-b(?P<b>\d+)k?-?t(?P<t>\d+)-?o(?P<o>\d+)-?w(?P<w>\d+)-?p(?P<p>si|r|s)"
    r"(?:-?g(?P<g>\d+))?(?P<rest>-.*)?\.xml$",
    re.IGNORECASE,
)
_VM_RE = re.compile(r"^vm-[^-]+-(?P<host>.+)-(?P<n>\d+)$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class SweepPoint:
    """The swept parameters of one VMFleet run, as encoded in the result file name."""

    block_kib: int
    threads: int
    outstanding: int
    write_pct: int
    pattern: str
    throughput_limit: int | None
    addspec: str

    @property
    def label(self) -> str:
        g = f" g{self.throughput_limit}" if self.throughput_limit is not None else ""
        spec = f" [{self.addspec}]" if self.addspec else ""
        return (f"{self.block_kib}K {dict(r='random', s='seq', si='seq-interlocked')[self.pattern]} "
                f"{100 - self.write_pct}% read, {self.threads} thread(s) x QD {self.outstanding}{g}{spec}")


@dataclass(frozen=True)
class VmRef:
    vm: str
    host: str


def parse_result_name(name: str) -> tuple[SweepPoint, VmRef] | None:
    """Sweep point and VM of a VMFleet result file name; None when the name does not follow the pattern."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    m = _NAME_RE.match(base)
    if not m:
        return None
    addspec, vmspec = _split_rest((m.group("rest") or "")[1:])
    vm = vmspec.split("+")[-1] if vmspec else ""
    hm = _VM_RE.match(vm)
    point = SweepPoint(int(m.group("b")), int(m.group("t")), int(m.group("o")), int(m.group("w")),
                       m.group("p").lower(), int(m.group("g")) if m.group("g") else None, addspec)
    return point, VmRef(vm=vm, host=hm.group("host") if hm else UNKNOWN_HOST)


def _split_rest(rest: str) -> tuple[str, str]:
    """'base-vm-base-N1-1+vm-base-N1-1' -> ('base', 'vm-base-N1-1+vm-base-N1-1').

    VMFleet VM names start with 'vm-', which is where the optional addspec ends; without such a name the
    first dash-separated token is the addspec when there are several.
    """
    if not rest:
        return "", ""
    if rest.lower().startswith("vm-"):
        return "", rest
    i = rest.lower().find("-vm-")
    if i >= 0:
        return rest[:i], rest[i + 1:]
    if "-" not in rest:
        return "", rest
    addspec, vmspec = rest.split("-", 1)
    return addspec, vmspec


def _point_from_xml(run: DiskspdRun) -> SweepPoint:
    load = run.timespans[0].load if run.timespans else None
    if load is None:
        return SweepPoint(0, 0, 0, 0, "r", None, "unnamed")
    pattern = "s" if load.random_pct == 0 else "r"
    return SweepPoint(load.block_size_bytes // 1024, load.threads_per_target, load.outstanding,
                      int(load.write_pct or 0), pattern, None, "unnamed")


def import_vmfleet(sources: Sequence[Source], run_id: str | None = None, *, start_ms: int | None = None,
                   now_ms: int) -> ImportResult:
    """Import a VMFleet result set (the XML files of one result directory)."""
    result = ImportResult(run_id=run_id or derive_run_id("VMFLEET", sources))
    members: dict[SweepPoint, list[tuple[str, DiskspdRun, VmRef]]] = {}
    for name, run, issues in diskspd_runs(sources, result, now_ms):
        parsed = parse_result_name(name)
        if parsed is None:
            issues.warn("file name does not follow VMFleet's result-b<b>t<t>o<o>w<w>p<p>[-<addspec>]-<vm>.xml; "
                        "step taken from the XML profile, VM from its computer name")
            point, ref = _point_from_xml(run), VmRef(vm=run.computer or name, host=UNKNOWN_HOST)
        else:
            point, ref = parsed
            _check_against_xml(point, run, issues)
        members.setdefault(point, []).append((name, run, ref))
    if not members:
        return result

    windows: dict[str, list[tuple[int, int, str]]] = {}
    for point, files in members.items():
        for name, run, _ in files:
            windows[name] = timespan_windows(run, Issues(name, result.errors), start_ms)
    order = sorted(members, key=lambda p: (min(windows[n][0][0] for n, _, _ in members[p]), p))
    spans: list[StepSpan] = []
    hosts: dict[str, set[str]] = {}
    for step_index, point in enumerate(order):
        starts: list[int] = []
        ends: list[int] = []
        targets = 0
        for name, run, ref in sorted(members[point], key=lambda m: m[2].vm):
            hosts.setdefault(ref.host, set()).add(ref.vm)
            for ts, (start, end, basis) in zip(run.timespans, windows[name]):
                io, cpu = timespan_records(
                    run, ts, run_id=result.run_id, step_index=step_index, host=ref.host, vm=ref.vm,
                    scope="GUEST", start_ms=start, end_ms=end, time_basis=basis,
                    source_tags={"source_file": name, "vmfleet_addspec": point.addspec})
                result.io_samples.extend(io)
                result.cpu_samples.extend(cpu)
                starts.append(start)
                ends.append(end)
                targets = max(targets, len(ts.targets))
        labels = {"pattern": point.pattern, "hosts": str(len({r.host for _, _, r in members[point]}))}
        if point.addspec:
            labels["addspec"] = point.addspec
        if point.throughput_limit is not None:
            labels["throughput_limit_bytes_per_ms"] = str(point.throughput_limit)
        spans.append(StepSpan(
            index=step_index, label=point.label, start_ms=min(starts), end_ms=max(ends),
            load=step_load(vm_count=len(members[point]), targets_per_vm=max(1, targets),
                           workers_per_target=point.threads, outstanding_ios_per_target=point.outstanding,
                           block_size_bytes=point.block_kib * 1024, read_pct=100.0 - point.write_pct,
                           random_pct=100.0 if point.pattern == "r" else 0.0, config_labels=labels)))
    result.run_events = run_events(
        run_id=result.run_id, tool="VMFLEET", scenario=_scenario(sources),
        description=f"imported from {sum(len(v) for v in members.values())} VMFleet result file(s)",
        hosts=[host_topology(h, hypervisor="Hyper-V") for h in sorted(hosts)], steps=spans,
        tags={"vms": str(len({v for vs in hosts.values() for v in vs}))})
    return result


def _check_against_xml(point: SweepPoint, run: DiskspdRun, issues: Issues) -> None:
    load = run.timespans[0].load
    checks = [("block size", point.block_kib * 1024, load.block_size_bytes),
              ("threads", point.threads, load.threads_per_target),
              ("outstanding", point.outstanding, load.outstanding),
              ("write %", point.write_pct, load.write_pct)]
    for what, from_name, from_xml in checks:
        if from_xml not in (None, 0) and from_name != from_xml:
            issues.warn(f"{what} {from_name} in the file name but {from_xml} in the XML profile; using the name")


def _scenario(sources: Sequence[Source]) -> str:
    parts = sources[0][0].replace("\\", "/").rsplit("/", 2) if sources else [""]
    return parts[-2] if len(parts) >= 2 else "vmfleet"


__all__ = ["import_vmfleet", "parse_result_name", "SweepPoint", "VmRef"]
