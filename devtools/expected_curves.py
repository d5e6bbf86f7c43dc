"""Recomputes the load curves of the real sweeps in tests/fixtures/real (the oracle for expected_curves.json).

tests/fixtures/real/expected_curves.json holds, per sweep, the figures worked out by hand from the numbers the
tool printed; tests/unit/importers/test_expected_curves_oracle.py checks that this script arrives at the same
ones, so analysis code can be tested against curves neither of them produced.

Independence from the code under test: this module does NOT import ioscale. It reads the fio JSON with the
standard library, takes the load from each file's own job options (not from its name) and restates the
saturation rule from its prose definition.

Per step (one fio JSON file; every 'jobs' entry and the sweep's direction):
    iops          sum of the printed 'iops'
    mb_s          sum of io_bytes / runtime_ms / 1000 (decimal MB/s), rounded to 6 decimals
    lat/clat      'lat_ns' / 'clat_ns' mean in ms, weighted by 'total_ios' when there are several entries,
                  rounded to 6 decimals
Saturation: the first step k >= 1 whose IOPS gain over step k-1 is below 10 % while its mean completion
latency rose by 20 % or more; None when no step qualifies.

Usage (from the repository root):
    python devtools/expected_curves.py            # print the computed curves as JSON
    python devtools/expected_curves.py --check    # exit 1 if expected_curves.json disagrees
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

REAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real"
EXPECTED = REAL / "expected_curves.json"

IOPS_GAIN_BELOW = 0.10
LATENCY_RISE_AT_LEAST = 0.20
#: The per-sweep keys this script computes; the rest of an expected_curves.json entry is description.
COMPUTED_KEYS = ("tool", "dir", "axis", "direction", "steps", "saturation")


@dataclass(frozen=True)
class Sweep:
    id: str
    tool: str
    dir: str
    axis: str  # the fio job option the sweep steps: "iodepth" or "numjobs"
    direction: str  # "read" or "write"


SWEEPS: tuple[Sweep, ...] = (
    Sweep("fio_fioplot_mx200_randread_qd", "fio", "fio_fioplot_mx200_randread_qd", "iodepth", "read"),
    Sweep("fio_fioplot_d3s4610_randread_numjobs", "fio", "fio_fioplot_d3s4610_randread_numjobs", "numjobs", "read"),
    Sweep("fio_fioplot_hgst7k2_randread_qd", "fio", "fio_fioplot_hgst7k2_randread_qd", "iodepth", "read"),
)


def _job_option(doc: dict, job: dict, name: str) -> int:
    """A job's option, falling back to the file's global options (fio prints each where it was set)."""
    for options in (job.get("job options") or {}, doc.get("global options") or {}):
        if name in options:
            return int(options[name])
    return 1  # fio's default for both iodepth and numjobs


def _mean_ms(entries: list[dict], key: str) -> float:
    if len(entries) == 1:
        return entries[0][key]["mean"] / 1e6
    total = sum(e["total_ios"] for e in entries)
    return sum(e[key]["mean"] * e["total_ios"] for e in entries) / total / 1e6


def fio_point(path: Path, sweep: Sweep) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    jobs = doc["jobs"]
    entries = [job[sweep.direction] for job in jobs]
    for e in entries:
        if "io_kbytes" not in e:  # fio 2.x printed io_bytes in KiB; this oracle reads fio 3 files only
            raise ValueError(f"{path}: no io_kbytes, not a fio 3 JSON file")
    iodepth = _job_option(doc, jobs[0], "iodepth")
    numjobs = _job_option(doc, jobs[0], "numjobs")
    return {
        "file": path.name,
        "load": iodepth if sweep.axis == "iodepth" else numjobs,
        "iodepth": iodepth,
        "numjobs": numjobs,
        "iops": sum(e["iops"] for e in entries),
        "mb_s": round(sum(e["io_bytes"] / e["runtime"] / 1000 for e in entries), 6),
        "lat_mean_ms": round(_mean_ms(entries, "lat_ns"), 6),
        "clat_mean_ms": round(_mean_ms(entries, "clat_ns"), 6),
    }


def saturation(steps: list[dict]) -> dict | None:
    for k in range(1, len(steps)):
        prev, cur = steps[k - 1], steps[k]
        gain = cur["iops"] / prev["iops"] - 1
        rise = cur["clat_mean_ms"] / prev["clat_mean_ms"] - 1
        if gain < IOPS_GAIN_BELOW and rise >= LATENCY_RISE_AT_LEAST:
            return {"index": k, "load": cur["load"], "file": cur["file"],
                    "iops_gain_pct": round(gain * 100, 2), "latency_rise_pct": round(rise * 100, 2)}
    return None


def curve(sweep: Sweep, root: Path = REAL) -> dict:
    if sweep.tool != "fio":
        raise ValueError(f"{sweep.id}: no reader for tool {sweep.tool!r}")
    files = sorted((root / sweep.dir).glob("*.json"))
    if not files:
        raise FileNotFoundError(f"{root / sweep.dir}: no fio JSON files")
    steps = sorted((fio_point(f, sweep) for f in files), key=lambda s: s["load"])
    return {"id": sweep.id, "tool": sweep.tool, "dir": sweep.dir, "axis": sweep.axis,
            "direction": sweep.direction, "steps": steps, "saturation": saturation(steps)}


def compute(root: Path = REAL) -> dict:
    return {
        "saturation_rule": {"iops_gain_below": IOPS_GAIN_BELOW, "latency_rise_at_least": LATENCY_RISE_AT_LEAST,
                            "latency": "clat_mean_ms"},
        "sweeps": [curve(s, root) for s in SWEEPS],
    }


def disagreements(expected: dict, computed: dict) -> list[str]:
    """Where the hand-worked expected_curves.json and the recomputation differ (empty when they agree)."""
    out = []
    for key in ("iops_gain_below", "latency_rise_at_least", "latency"):
        if expected["saturation_rule"].get(key) != computed["saturation_rule"][key]:
            out.append(f"saturation_rule.{key}: {expected['saturation_rule'].get(key)!r} "
                       f"!= {computed['saturation_rule'][key]!r}")
    exp = {s["id"]: s for s in expected["sweeps"]}
    got = {s["id"]: s for s in computed["sweeps"]}
    if set(exp) != set(got):
        out.append(f"sweep ids: {sorted(exp)} != {sorted(got)}")
    for sid in sorted(set(exp) & set(got)):
        for key in COMPUTED_KEYS:
            want, have = exp[sid].get(key), got[sid][key]
            if key == "steps" and isinstance(want, list) and len(want) == len(have):
                for i, (w, h) in enumerate(zip(want, have)):
                    out += [f"{sid}.steps[{i}].{f}: expected {w.get(f)!r}, computed {h[f]!r}"
                            for f in h if w.get(f) != h[f]]
                    out += [f"{sid}.steps[{i}].{f}: not computed" for f in w if f not in h]
            elif want != have:
                out.append(f"{sid}.{key}: expected {want!r}, computed {have!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with expected_curves.json instead of printing")
    args = parser.parse_args(argv)
    computed = compute()
    if not args.check:
        json.dump(computed, sys.stdout, indent=2)
        print()
        return 0
    problems = disagreements(json.loads(EXPECTED.read_text(encoding="utf-8")), computed)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
