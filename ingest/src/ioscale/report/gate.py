"""The regression gate: a candidate run against a baseline, step by step, matched by load.

Steps are matched by their load (VMs, disks per VM, workers per disk, queue depth, block size, read share),
never by their index: a sweep that skipped or reordered a step still compares like with like. Where a run
repeats a load, its n-th step of that load meets the other run's n-th.

A step is comparable when both runs have its throughput. At a comparable step the candidate fails when
  - its IOPS fell by more than ``max_drop_pct`` %, or
  - its p99 or p99.999 latency rose by more than ``max_latency_rise_pct`` %,
where a percentile is compared only when both sides have the N it needs (p99: 10^3, p99.999: 10^6, the rule of
ioscale.histogram.required_n): below that the figure is the step's max, and two maxima say little. The
comparison notes every figure it could not compare, so a gate that passed for want of data says so.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from ioscale.errors import ExitStatus, IoscaleError
from ioscale.histogram import required_n
from ioscale.report.model import Step

P99_N = required_n(0.99)
P99_999_N = required_n(0.99999)


class NotComparableError(IoscaleError):
    """The two runs share no load step: there is nothing to gate on."""

    exit_status = ExitStatus.BAD_INPUT


def parse_pct(text: str | float, what: str) -> float:
    """'10%', '10' or 10 -> 10.0 (a percentage, not a fraction)."""
    raw = str(text).strip()
    try:
        value = float(raw[:-1] if raw.endswith("%") else raw)
    except ValueError:
        raise IoscaleError(f"{what} {raw!r} is not a percentage", f"write it as e.g. {what} 10%") from None
    if not math.isfinite(value) or value < 0:
        raise IoscaleError(f"{what} {raw!r} must be a percentage >= 0", f"e.g. {what} 10%")
    return value


def diff_pct(base: float | None, cand: float | None) -> float | None:
    """(cand / base - 1) x 100; None when either is missing or the base is 0."""
    if base is None or cand is None or base == 0:
        return None
    return (cand / base - 1) * 100


@dataclass(frozen=True)
class Check:
    figure: str                  # 'IOPS', 'p99', 'p99.999'
    base: float | None
    cand: float | None
    diff_pct: float | None       # None: not compared (see note)
    limit_pct: float             # -max_drop for throughput, +max_rise for latency
    failed: bool
    note: str = ""

    def text(self, unit: str) -> str:
        if self.diff_pct is None:
            return f"{self.figure}: not compared ({self.note})"
        sign = "below" if self.limit_pct < 0 else "above"
        verdict = "FAIL" if self.failed else "ok"
        return (f"{self.figure}: baseline {self.base:,.1f} {unit}, candidate {self.cand:,.1f} {unit}, "
                f"{self.diff_pct:+.2f}% (limit {abs(self.limit_pct):g}% {sign}) {verdict}"
                + (f"; {self.note}" if self.note else ""))


@dataclass(frozen=True)
class StepComparison:
    base: Step
    cand: Step
    checks: tuple[Check, ...]

    @property
    def failed(self) -> bool:
        return any(c.failed for c in self.checks)

    @property
    def name(self) -> str:
        return f"{self.base.load_text} (baseline step {self.base.step_index}, candidate step {self.cand.step_index})"

    def check(self, figure: str) -> Check:
        return next(c for c in self.checks if c.figure == figure)


@dataclass
class GateResult:
    baseline: str
    candidate: str
    max_drop_pct: float
    max_latency_rise_pct: float
    steps: list[StepComparison]
    only_baseline: list[Step] = field(default_factory=list)
    only_candidate: list[Step] = field(default_factory=list)

    @property
    def failed(self) -> list[StepComparison]:
        return [s for s in self.steps if s.failed]

    @property
    def exit_status(self) -> ExitStatus:
        return ExitStatus.REGRESSION if self.failed else ExitStatus.OK


def match_steps(base: Sequence[Step], cand: Sequence[Step]) -> tuple[list[tuple[Step, Step]], list[Step], list[Step]]:
    """Pairs of steps with the same load (in the baseline's order), and the steps of each side left alone."""
    pool: dict[tuple, list[Step]] = defaultdict(list)
    for s in sorted(cand, key=lambda s: s.step_index):
        pool[s.load_key].append(s)
    pairs: list[tuple[Step, Step]] = []
    only_base: list[Step] = []
    for b in sorted(base, key=lambda s: s.step_index):
        if pool.get(b.load_key):
            pairs.append((b, pool[b.load_key].pop(0)))
        else:
            only_base.append(b)
    only_cand = sorted((s for left in pool.values() for s in left), key=lambda s: s.step_index)
    return pairs, only_base, only_cand


def _latency_check(figure: str, b: Step, c: Step, attr: str, need: int, max_rise: float) -> Check:
    bv, cv = getattr(b, attr), getattr(c, attr)
    if bv is None or cv is None:
        return Check(figure, bv, cv, None, max_rise, False, "no latency histogram on "
                     + ("either side" if bv is None and cv is None else "the baseline" if bv is None
                        else "the candidate"))
    if b.latency_n < need or c.latency_n < need:
        return Check(figure, bv, cv, None, max_rise, False,
                     f"N below {need:,} (baseline {b.latency_n:,}, candidate {c.latency_n:,}): the value is the max")
    d = diff_pct(bv, cv)
    return Check(figure, bv, cv, d, max_rise, d is not None and round(d, 9) > max_rise)


def compare_step(b: Step, c: Step, max_drop: float, max_rise: float) -> StepComparison:
    d = diff_pct(b.iops, c.iops)
    iops = Check("IOPS", b.iops, c.iops, d, -max_drop, d is not None and round(d, 9) < -max_drop,
                 "" if d is not None else "no throughput on one side")
    return StepComparison(b, c, (iops, _latency_check("p99", b, c, "p99_us", P99_N, max_rise),
                                 _latency_check("p99.999", b, c, "p99_999_us", P99_999_N, max_rise)))


def compare_runs(baseline: str, base_steps: Sequence[Step], candidate: str, cand_steps: Sequence[Step],
                 max_drop_pct: float = 10.0, max_latency_rise_pct: float = 20.0) -> GateResult:
    """The gate's verdict; raises NotComparableError when no step of one run has a twin in the other."""
    pairs, only_b, only_c = match_steps(base_steps, cand_steps)
    comparable = [(b, c) for b, c in pairs if b.iops is not None and c.iops is not None]
    if not comparable:
        def loads(steps: Sequence[Step]) -> str:
            return "; ".join(s.load_text for s in steps[:4]) + (" ..." if len(steps) > 4 else "") or "no steps"
        raise NotComparableError(
            f"runs {baseline} and {candidate} have no comparable step: baseline steps are {loads(base_steps)}; "
            f"candidate steps are {loads(cand_steps)}",
            "compare runs of the same sweep (same VMs, disks, workers, queue depth, block size and read share "
            "per step); `ioscale sql run_steps --param run_id=RUN` lists a run's steps")
    return GateResult(baseline, candidate, max_drop_pct, max_latency_rise_pct,
                      [compare_step(b, c, max_drop_pct, max_latency_rise_pct) for b, c in comparable],
                      only_b + [b for b, c in pairs if (b, c) not in comparable], only_c)


COLUMNS = ("load", "step_base", "step_cand", "iops_base", "iops_cand", "iops_diff_pct", "p99_us_base",
           "p99_us_cand", "p99_diff_pct", "p99_999_us_base", "p99_999_us_cand", "p99_999_diff_pct", "n_base",
           "n_cand", "verdict")


def table_rows(result: GateResult) -> list[tuple]:
    """One row per comparable step, in COLUMNS' order (what `ioscale compare` prints)."""
    def r(v: float | None, nd: int) -> float | None:
        return None if v is None else round(v, nd)

    out = []
    for s in result.steps:
        i, p, q = s.check("IOPS"), s.check("p99"), s.check("p99.999")
        out.append((s.base.load_text, s.base.step_index, s.cand.step_index, r(i.base, 1), r(i.cand, 1),
                    r(i.diff_pct, 2), r(p.base, 3), r(p.cand, 3), r(p.diff_pct, 2), r(q.base, 3), r(q.cand, 3),
                    r(q.diff_pct, 2), s.base.latency_n, s.cand.latency_n,
                    "FAIL: " + ", ".join(c.figure for c in s.checks if c.failed) if s.failed else "ok"))
    return out


_UNITS = {"IOPS": "IOPS", "p99": "us", "p99.999": "us"}


def step_text(s: StepComparison) -> str:
    return "\n".join(c.text(_UNITS[c.figure]) for c in s.checks)


def junit_xml(result: GateResult) -> str:
    """One testcase per comparable step; a failure carries the figures that broke the limits."""
    suite = ET.Element("testsuite", name=f"ioscale compare {result.baseline} vs {result.candidate}",
                       tests=str(len(result.steps)), failures=str(len(result.failed)), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    for k, v in (("baseline", result.baseline), ("candidate", result.candidate),
                 ("max_drop_pct", f"{result.max_drop_pct:g}"),
                 ("max_latency_rise_pct", f"{result.max_latency_rise_pct:g}")):
        ET.SubElement(props, "property", name=k, value=v)
    for s in result.steps:
        case = ET.SubElement(suite, "testcase", classname=f"ioscale.compare.{result.candidate}", name=s.name,
                             time="0")
        if s.failed:
            bad = [c for c in s.checks if c.failed]
            failure = ET.SubElement(case, "failure", type="regression",
                                    message="; ".join(f"{c.figure} {c.diff_pct:+.2f}%" for c in bad))
            failure.text = step_text(s)
        else:
            ET.SubElement(case, "system-out").text = step_text(s)
    root = ET.Element("testsuites", tests=str(len(result.steps)), failures=str(len(result.failed)))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def junit_error_xml(baseline: str, candidate: str, message: str) -> str:
    """The JUnit file when the runs could not be compared: one testcase in error, so CI shows why."""
    suite = ET.Element("testsuite", name=f"ioscale compare {baseline} vs {candidate}", tests="1", failures="0",
                       errors="1", skipped="0")
    case = ET.SubElement(suite, "testcase", classname=f"ioscale.compare.{candidate}", name="comparable steps",
                         time="0")
    ET.SubElement(case, "error", type="not_comparable", message=message).text = message
    root = ET.Element("testsuites", tests="1", failures="0", errors="1")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
