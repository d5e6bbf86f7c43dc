"""Fault soak: a long live sweep with a component killed (kill -9) every few minutes, chosen from a seed.

Target (ioscale issue 17): nothing lost, nothing duplicated, fresh result rows within 30 s of every kill.

    .ioscale/venv/bin/python bench/fault_soak.py                      # an hour, a kill every ~4 min
    .ioscale/venv/bin/python bench/fault_soak.py --minutes 10 --every-s 120 --seed 3

Load: the first run of s2d-vmfleet-320 (4 nodes, 1-80 VMs per node, 11 steps) streamed in real time, its steps
stretched so that the run lasts --minutes (up to 320 I/O samples a second in the last step). Kills: at times drawn
from --seed (uniform in 0.5-1.5 x --every-s apart, none in the run's last 60 s), each of a component drawn from
--faults, then `ioscale stack up <component>` at once, as an operator would. Measured per kill: restart time and
the time to a fleet row for a second after the kill. Once the run settled: the raw tables against the records
sent (per step: samples with and without FINAL, ops, bytes, latency N, histogram buckets; CPU, port samples, run
events) and every rollup and step row against the raw samples (analysis_check). A fault-free twin of an hour
would double the bench, so step rows, fits and alerts are compared with the fault-free run by the fault suite
(tests/integration/faults), not here.

Run it on a quiet stack: it uses the running local stack (`ioscale stack up`) and kills its processes.
The last line is the headline: records lost or duplicated over the kills, and the slowest recovery against 30 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The fault suite's sweep, oracle and checks (tests/integration is the test suite's own import path).
sys.path.insert(0, str(REPO / "tests" / "integration"))

from ioscale.provision import analysis_check  # noqa: E402
from ioscale.provision.launcher import Launcher  # noqa: E402
from ioscale.stack.progress import SilentProgress  # noqa: E402
from ioscale.stack.settings import StackSettings, load_secrets  # noqa: E402

from endpoints import from_settings  # noqa: E402
from fault_checks import (FAULTS, RECOVERY_S, expected_raw, fresh_rows_after, kill9, raw_state, reader,  # noqa: E402
                          rollups_vs_raw, settle)
from live_sweep import LiveSweep  # noqa: E402

STEPS = 11  # s2d-vmfleet-320's first run


def schedule(seed: int, seconds: float, every_s: float, faults: list[str]) -> list[tuple[float, str]]:
    """(seconds after the start, fault) for each kill; none in the last minute (the run must end observed)."""
    rng = random.Random(seed)
    out, t = [], 0.0
    while True:
        t += rng.uniform(0.5, 1.5) * every_s
        if t > seconds - 60:
            return out
        out.append((t, rng.choice(faults)))


def lost_and_duplicated(raw: dict, want: dict) -> tuple[int, int]:
    """I/O samples missing and extra (with FINAL: lost; without: duplicated), over all steps."""
    lost = sum(max(0, v[0] - raw["io"].get(s, [0])[0]) for s, v in want["io"].items())
    dup = sum(max(0, raw["io_no_final"].get(s, 0) - n) for s, n in want["io_no_final"].items())
    return lost, dup


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=60.0, help="length of the live run (default 60)")
    ap.add_argument("--every-s", type=float, default=240.0, help="mean time between kills (default 240)")
    ap.add_argument("--seed", type=int, default=17, help="seed of the kill times and components (default 17)")
    ap.add_argument("--faults", default=",".join(f for f in FAULTS if f != "superset"),
                    help="components to kill, comma-separated (default: every one on the data path)")
    args = ap.parse_args()
    faults = [f.strip() for f in args.faults.split(",") if f.strip()]
    unknown = sorted(set(faults) - set(FAULTS))
    if unknown:
        ap.error(f"unknown fault(s) {unknown}; choose from {sorted(FAULTS)}")

    settings = StackSettings.from_env()
    stack = from_settings(settings, load_secrets(settings), started_here=False)
    step_s = max(6, int(args.minutes * 60 / STEPS))
    sweep = LiveSweep(stack, args.seed, step_s=step_s, ramp_s=min(5, step_s // 6))
    plan = schedule(args.seed, sweep.seconds, args.every_s, faults)
    print(f"soak: {sweep.run_id}, {sum(sweep.oracle.records.values()):,} records in {sweep.seconds:.0f} s "
          f"({STEPS} steps of {step_s} s); {len(plan)} kills planned (seed {args.seed})", flush=True)
    sweep.start()
    kills = []
    for at_s, fault in plan:
        time.sleep(max(0.0, sweep.start_ms / 1000 + at_s - time.time()))
        component, proc_name = FAULTS[fault]
        killed_ms = int(time.time() * 1000)
        kill9(stack, proc_name)
        t0 = time.monotonic()
        Launcher(settings, SilentProgress()).up([component])
        restart_s = time.monotonic() - t0
        fresh_s = fresh_rows_after(stack, sweep, killed_ms)
        kills.append((fault, restart_s, fresh_s))
        print(f"  {at_s:7.0f} s  kill -9 {fault:<18} restart {restart_s:5.1f} s  fresh rows "
              f"{'none within 90 s' if fresh_s is None else f'{fresh_s:5.1f} s'}", flush=True)

    settle(stack, sweep)
    with reader(stack) as ch:
        raw, want = raw_state(ch, sweep.run_id), expected_raw(sweep.oracle)
        check = analysis_check.check(ch, sweep.run_id)
        other = rollups_vs_raw(ch, sweep.run_id)
    lost, dup = lost_and_duplicated(raw, want)
    slowest = max((f for _, _, f in kills if f is not None), default=0.0)
    missing = sum(1 for _, _, f in kills if f is None)
    print(f"raw tables as sent: {raw == want}; rollups and step rows vs raw: "
          f"{'exact' if check.ok and not other else f'{len(check.mismatches)} mismatches, {other}'}")
    print(f"kills {len(kills)}; slowest recovery {slowest:.1f} s (target {RECOVERY_S:.0f} s: "
          f"{slowest / RECOVERY_S:.2f}x); kills without fresh rows within 90 s: {missing}")
    print(f"headline: {lost} I/O samples lost, {dup} duplicated over {len(kills)} kills in "
          f"{sweep.seconds / 60:.0f} min; slowest recovery {slowest:.1f} s / {RECOVERY_S:.0f} s")
    return 0 if raw == want and check.ok and not other and missing == 0 and slowest < RECOVERY_S else 1


if __name__ == "__main__":
    sys.exit(main())
