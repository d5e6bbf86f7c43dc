"""One run per sweep: an import's steps split into runs that each step along one load axis.

An input often holds several independent sweeps: an Iometer CSV cycles the queue depth once per access
specification, a VMFleet directory sweeps the queue depth for each block size and mix, a bench-fio directory
holds one fio JSON per (rw, iodepth, numjobs). As one run, the scaling curve steps from one workload into the
next and its gain, efficiency, knee and USL fit mean nothing. ``split_sweeps`` works on any importer's result,
from the StepLoad of each step alone:

* The sweep axis is the one asked for, else the one with the most distinct values within a profile (ties go
  to the first in ``AXES``: queue depth). A profile is what no sweep crosses: ``PROFILE_LABELS`` (Iometer
  access specification, VMFleet addspec, pattern and throughput limit) and the adapter.
* Steps that agree on everything but the axis form one sweep, ordered by the axis value, so no run varies two
  axes at once. A load point met again within a sweep starts a repetition, a run of its own with a warning:
  repeated points are never merged.
* Each sweep is a run. Its id is the base id (the importer's, or ``--run-id``) when the input holds a single
  sweep, else the base id plus a slug of what sets the sweep apart (``-4k-r70-rand``), so the same files
  give the same ids. Every step carries ``config_labels`` ``sweep_group`` (the base id), ``sweep`` (what sets
  it apart, readable) and ``sweep_axis``; the description says the same.
* Samples follow their step (run id and step index rewritten): every sample lands in exactly one run.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ioscale.errors import ExitStatus, IoscaleError
from ioscale.importers.common import ImportIssue, ImportResult
from ioscale.wire.records import RunEvent, StepLoad


def _size_text(n: int) -> str:
    for unit, mult in (("M", 1 << 20), ("K", 1 << 10)):
        if n and n % mult == 0:
            return f"{n // mult}{unit}"
    return f"{n}B"


def _rw_text(v: tuple[float, float]) -> str:
    read, rnd = v
    pattern = "random" if rnd >= 100 else "seq" if rnd <= 0 else f"{rnd:g}% random"
    return f"{pattern} {'read' if read >= 100 else 'write' if read <= 0 else f'{read:g}% read'}"


def _rw_slug(v: tuple[float, float]) -> str:
    read, rnd = v
    pattern = "rand" if rnd >= 100 else "seq" if rnd <= 0 else f"rnd{rnd:g}"
    return f"r{read:g}-{pattern}"


def _plural(n: int, one: str) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {one}s"


@dataclass(frozen=True)
class Axis:
    """A load parameter a sweep can step along, read from StepLoad: its value, as shown and in a run id."""

    name: str
    meaning: str
    value: Callable[[StepLoad], Any]
    point: Callable[[Any], str]
    text: Callable[[Any], str]
    slug: Callable[[Any], str]


#: In tie order: with as many distinct values, the earlier axis is the sweep axis.
AXES: tuple[Axis, ...] = (
    Axis("iodepth", "queue depth (outstanding_ios_per_target)", lambda l: l["outstanding_ios_per_target"], str,
         lambda v: f"QD {v}", lambda v: f"qd{v}"),
    Axis("vm_count", "VMs (vm_count)", lambda l: l["vm_count"], str, lambda v: _plural(v, "VM"),
         lambda v: f"vm{v}"),
    Axis("numjobs", "workers per target (workers_per_target)", lambda l: l["workers_per_target"], str,
         lambda v: _plural(v, "worker") + "/target", lambda v: f"j{v}"),
    Axis("targets", "targets per VM or host (targets_per_vm)", lambda l: l["targets_per_vm"], str,
         lambda v: _plural(v, "target"), lambda v: f"t{v}"),
    Axis("bs", "block size (block_size_bytes)", lambda l: l["block_size_bytes"], _size_text, _size_text,
         lambda v: _size_text(v).lower()),
    Axis("rw", "read/write and random/sequential mix (read_pct, random_pct)",
         lambda l: (round(l["read_pct"], 2), round(l["random_pct"], 2)), _rw_text, _rw_text, _rw_slug),
)
AXIS_NAMES: tuple[str, ...] = tuple(a.name for a in AXES)
_AXIS = {a.name: a for a in AXES}

#: config_labels that name a workload no sweep crosses (Iometer access spec; VMFleet addspec, pattern, limit).
PROFILE_LABELS: tuple[str, ...] = ("access_spec", "addspec", "pattern", "throughput_limit_bytes_per_ms")
#: Axes an access specification fixes: not repeated in a slug that already names the spec.
_SPEC_FIXES = {"bs", "rw", "pattern"}
MAX_SLUG = 48


class SweepAxisError(IoscaleError):
    exit_status = ExitStatus.USAGE

    def __init__(self, axis: str):
        super().__init__(f"unknown sweep axis {axis!r}", hint="choose one of: " + ", ".join(AXIS_NAMES))


@dataclass
class _Step:
    index: int
    started: RunEvent
    ended: RunEvent | None
    profile: tuple[tuple[str, str], ...]
    point: dict[str, Any]

    @property
    def start_ms(self) -> int:
        return self.ended["start_ms"] if self.ended and self.ended["start_ms"] is not None else self.started["ts_ms"]

    @property
    def end_ms(self) -> int:
        return self.ended["end_ms"] if self.ended and self.ended["end_ms"] is not None else self.start_ms


def _profile(load: StepLoad) -> tuple[tuple[str, str], ...]:
    labels = load["config_labels"]
    out = [(k, labels[k]) for k in PROFILE_LABELS if k in labels]
    if load["adapter"]:
        out.append(("adapter", load["adapter"]))
    return tuple(out)


def choose_axis(loads: Sequence[StepLoad]) -> str:
    """The axis with the most distinct values within a profile; ties go to the earlier one in AXES."""
    by_profile: dict[tuple, list[StepLoad]] = defaultdict(list)
    for load in loads:
        by_profile[_profile(load)].append(load)

    def score(axis: Axis) -> int:
        return max((len({axis.value(l) for l in group}) for group in by_profile.values()), default=0)

    return max(AXES, key=lambda a: (score(a), -AXES.index(a))).name


def split_sweeps(result: ImportResult, axis: str | None = None) -> list[ImportResult]:
    """One ImportResult per sweep of ``result`` (consumed: its records move into the new results).

    ``axis`` is one of ``AXIS_NAMES``, or None to choose it (``choose_axis``). A result without steps, or
    with samples of a step it has no event for, is returned whole, with a warning in the second case.
    """
    if axis is not None and axis not in _AXIS:
        raise SweepAxisError(axis)
    steps, run_started, run_ended = _steps(result)
    if not steps:
        return [result]
    orphans = {s["step_index"] for s in (*result.io_samples, *result.cpu_samples, *result.port_samples)} - set(steps)
    if orphans:
        result.errors.append(ImportIssue("", f"samples of step(s) {sorted(orphans)} have no step event; the import "
                                             "stays one run", severity="warning"))
        return [result]
    chosen = axis or choose_axis([s.started["load"] for s in steps.values()])
    sweeps = _group(list(steps.values()), _AXIS[chosen])
    parts = _distinguishing(sweeps, chosen)
    base = result.run_id
    names = [_names(key, rep, parts) for key, rep, _ in sweeps]
    run_ids = _run_ids(base, [(slug, repr((key, rep))) for (key, rep, _), (slug, _) in zip(sweeps, names)],
                       single=len(sweeps) == 1)

    out: list[ImportResult] = []
    where: dict[int, tuple[ImportResult, int]] = {}
    reps: dict[tuple, list[ImportResult]] = defaultdict(list)
    for n, ((key, _, members), run_id, (_, text)) in enumerate(zip(sweeps, run_ids, names), start=1):
        run = ImportResult(run_id=run_id, sweep_group=base, sweep=text, sweep_axis=chosen,
                           sweep_points=[_AXIS[chosen].point(s.point[chosen]) for s in members])
        labels = {"sweep_group": base, "sweep": text, "sweep_axis": chosen}
        note = (f"; sweep {n} of {len(sweeps)} of {base} along {chosen}" + (f": {text}" if text else "")
                if len(sweeps) > 1 else f"; sweep along {chosen}")
        for new_index, s in enumerate(members):
            where[s.index] = (run, new_index)
        run.run_events = _events(run_id, members, run_started, run_ended, labels, note)
        reps[key].append(run)
        out.append(run)
    for kind in ("io_samples", "cpu_samples", "port_samples"):
        for s in getattr(result, kind):
            run, new_index = where[s["step_index"]]
            s["run_id"], s["step_index"] = run.run_id, new_index
            getattr(run, kind).append(s)
    _hosts_of_run(out)
    _place_issues(result.errors, out)
    for repeated in (r for r in reps.values() if len(r) > 1):
        repeated[0].errors.append(ImportIssue(
            _source_of(repeated[0]), f"load points along {chosen} repeat: the sweep was measured {len(repeated)} "
            "times; each repetition is a run of its own, not merged: " + ", ".join(r.run_id for r in repeated),
            severity="warning"))
    if axis is not None and len(steps) > 1 and all(len(r.sweep_points) == 1 for r in out):
        best = choose_axis([s.started["load"] for s in steps.values()])
        out[0].errors.append(ImportIssue(
            "", f"no sweep steps along {axis}: each of the {len(out)} runs has one step"
            + (f"; the load varies most along {best} (--sweep-axis {best})" if best != axis else ""),
            severity="warning"))
    return out


def _steps(result: ImportResult) -> tuple[dict[int, _Step], RunEvent | None, RunEvent | None]:
    steps: dict[int, _Step] = {}
    run_started = run_ended = None
    for ev in result.run_events:
        kind = ev["event_type"]
        if kind == "RUN_STARTED":
            run_started = ev
        elif kind == "RUN_ENDED":
            run_ended = ev
        elif kind == "STEP_STARTED" and ev["load"] is not None:
            load = ev["load"]
            steps[ev["step_index"]] = _Step(ev["step_index"], ev, None, _profile(load),
                                            {a.name: a.value(load) for a in AXES})
        elif kind == "STEP_ENDED" and ev["step_index"] in steps:
            steps[ev["step_index"]].ended = ev
    return steps, run_started, run_ended


def _group(steps: list[_Step], axis: Axis) -> list[tuple[tuple, int, list[_Step]]]:
    """(key, repetition, steps ordered by the axis) per sweep, in order of each sweep's first step in time."""
    by_key: dict[tuple, list[list[_Step]]] = {}
    for s in sorted(steps, key=lambda s: (s.start_ms, s.index)):
        key = (s.profile, tuple((a, v) for a, v in s.point.items() if a != axis.name))
        reps = by_key.setdefault(key, [[]])
        rep = next((r for r in reps if all(m.point[axis.name] != s.point[axis.name] for m in r)), None)
        if rep is None:
            rep = []
            reps.append(rep)
        rep.append(s)
    out = []
    for key, reps in by_key.items():
        for k, members in enumerate(reps, start=1):
            out.append((key, k, sorted(members, key=lambda m: (m.point[axis.name], m.start_ms))))
    return sorted(out, key=lambda g: (min(m.start_ms for m in g[2]), g[1], min(m.index for m in g[2])))


def _distinguishing(sweeps: list[tuple[tuple, int, list[_Step]]], axis: str) -> list[str]:
    """The profile labels and axes (besides the sweep axis) whose value differs between sweeps, in slug order."""
    values: dict[str, set] = defaultdict(set)
    for (profile, rest), _, _ in sweeps:
        p = dict(profile)
        for k in (*PROFILE_LABELS, "adapter"):
            values[k].add(p.get(k))
        for a, v in rest:
            values[a].add(v)
    order = [*PROFILE_LABELS, "adapter", *(a for a in AXIS_NAMES if a != axis)]
    parts = [k for k in order if len(values[k]) > 1]
    if "access_spec" in parts:
        parts = [k for k in parts if k not in _SPEC_FIXES]
    return parts


def _names(key: tuple, rep: int, parts: list[str]) -> tuple[str, str]:
    """(slug, readable text) of a sweep: the values of ``parts``, then the repetition."""
    profile, rest = dict(key[0]), dict(key[1])
    slugs, texts = [], []
    for k in parts:
        if k in _AXIS:
            v = rest[k]
            slugs.append(_AXIS[k].slug(v))
            texts.append(_AXIS[k].text(v))
        else:
            v = profile.get(k, "")
            slugs.append(_slugify(v) or "none")
            texts.append(_LABEL_TEXT[k](v) if v else f"no {k}")
    if rep > 1:
        slugs.append(f"rep{rep}")
        texts.append(f"repetition {rep}")
    return "-".join(slugs), ", ".join(texts)


_LABEL_TEXT: dict[str, Callable[[str], str]] = {
    "access_spec": lambda v: f"access spec '{v}'", "addspec": lambda v: f"[{v}]",
    "pattern": lambda v: f"pattern {v}", "throughput_limit_bytes_per_ms": lambda v: f"limit {v} B/ms",
    "adapter": lambda v: f"adapter {v}",
}


def _slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _run_ids(base: str, slugs: list[tuple[str, str]], *, single: bool) -> list[str]:
    """base-slug per sweep (base alone for a single sweep); slugs too long or shared get a hash of the key."""
    if single:
        return [base]
    counts: dict[str, int] = defaultdict(int)
    cut = []
    for slug, key in slugs:
        short = slug if len(slug) <= MAX_SLUG else f"{slug[:MAX_SLUG - 7].rstrip('-')}-{_digest(key)}"
        cut.append(short)
        counts[short] += 1
    # An empty slug is the first measurement of a sweep that was repeated: its later ones end in -rep<n>.
    return ["-".join(p for p in (base, s, "" if counts[s] == 1 else _digest(key)) if p)
            for s, (_, key) in zip(cut, slugs)]


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:6]


def _events(run_id: str, members: list[_Step], run_started: RunEvent | None, run_ended: RunEvent | None,
            labels: dict[str, str], note: str) -> list[RunEvent]:
    """The run's events: RUN_STARTED, each step's pair in time order, RUN_ENDED (as ``common.run_events``)."""
    start = min(s.start_ms for s in members)
    end = max(s.end_ms for s in members)
    steps: list[RunEvent] = []
    for new_index, s in sorted(enumerate(members), key=lambda p: (p[1].start_ms, p[0])):
        for ev in (s.started, s.ended):
            if ev is None:
                continue
            load = ev["load"]
            if load is not None:
                load = {**load, "config_labels": {**load["config_labels"], **labels}}
            steps.append({**ev, "run_id": run_id, "step_index": new_index, "load": load,
                          "description": ev["description"] + note})
    out: list[RunEvent] = []
    if run_started is not None:
        out.append({**run_started, "run_id": run_id, "ts_ms": start, "description": run_started["description"] + note})
    out += steps
    if run_ended is not None:
        out.append({**run_ended, "run_id": run_id, "ts_ms": end, "start_ms": start, "end_ms": end,
                    "description": run_ended["description"] + note})
    return out


def _source_of(run: ImportResult) -> str:
    records = (*run.run_events, *run.io_samples, *run.cpu_samples)
    return next((r["tags"]["source_file"] for r in records if "source_file" in r["tags"]), "")


def _hosts_of_run(runs: list[ImportResult]) -> None:
    """Each run's topology lists the hosts its samples come from (all of the import's when none match)."""
    for run in runs:
        seen = {s["host"] for s in (*run.io_samples, *run.cpu_samples, *run.port_samples)}
        for ev in run.run_events:
            if ev["hosts"] and seen & {h["host"] for h in ev["hosts"]}:
                ev["hosts"] = [h for h in ev["hosts"] if h["host"] in seen]


def _place_issues(issues: list[ImportIssue], runs: list[ImportResult]) -> None:
    """Each issue once, on the first run holding records of its file (else the first run)."""
    files: list[set[str]] = []
    for run in runs:
        held = {s["tags"].get("source_file") for s in (*run.io_samples, *run.cpu_samples, *run.port_samples)}
        held |= {ev["tags"].get("source_file") for ev in run.run_events}
        files.append(held)
    for issue in issues:
        k = next((i for i, held in enumerate(files) if issue.file in held), 0)
        runs[k].errors.append(issue)


__all__ = ["AXES", "AXIS_NAMES", "PROFILE_LABELS", "SweepAxisError", "choose_axis", "split_sweeps"]
