"""Dashboard load time and chart query latency on a simulated 320-VM, one-hour run.

Targets: in a 1600 x 1000 window, every dashboard's first screen drawn in under 2 s and the whole dashboard,
scrolled through, in under 4 s (median of the cold loads); chart queries p95 < 300 ms.

    .ioscale/venv/bin/python bench/dashboards_bench.py                 # generate once, wait for Flink, measure
    .ioscale/venv/bin/python bench/dashboards_bench.py --generate-only
    .ioscale/venv/bin/python bench/dashboards_bench.py --loads 5 --repeat 20
    .ioscale/venv/bin/python bench/dashboards_bench.py --run RUN --compare BASELINE --compare OTHER   # same runs

Data: the first run of scenario s2d-vmfleet-320 (Storage Spaces Direct, 4 nodes, VMFleet 4 KiB 70/30, 1 to 80 VMs
per node: 320 VMs in the last step), 11 steps of 5 s ramp-up + 322 s = 3597 s: ~0.96 M I/O samples, ~0.5 M CPU and
~43 k port samples through the real pipeline: producer -> Kafka -> ClickHouse (raw tables) and the Flink job (result
tables). The run is stamped so that it ends at the moment generation starts, and sent in fast mode (~1-2 min): the
job analyses it like a live run (its watermark follows the run's timestamps; nothing is stamped ahead of the wall
clock), as long as nothing else streams live meanwhile -- run the bench on a quiet stack. A run of this scenario and
seed that ClickHouse holds completely (raw samples and the job's per-step rows) is reused; --resend makes a new one.

Every dashboard shows that 320-VM hour (the comparison: it against the previous such run when there is one, else
the two newest runs of one scenario).

Measured, per dashboard, opened on its runs as a shared link would: `?run=<run_id>` where the Run filter selects
its first value (live, scaling, saturation, fleet balance), a stored filter state for the comparison's runs:
  load         chromium (Debian's, through playwright) in a 1600 x 1000 window: from navigation to every chart in
               the window drawn (first screen), then scrolling on by 80 % of the window as soon as the charts in
               view are drawn, to every chart drawn (full); with the number of chart requests sent before the
               first scroll (Superset's DASHBOARD_VIRTUALIZATION_DEFER_DATA: only the first screen's). "Cold"
               loads empty Superset's chart-data cache first (a directory, see stack/superset/superset_config.py),
               "warm" loads follow at once (a colleague opening the same dashboard, or the live dashboard's 5 s
               refresh). The browser's own cache is warm (second visit).
  cpu          CPU seconds a cold load costs the browser (its chromium processes), Superset and ClickHouse (their
               process groups; ClickHouse's includes whatever else runs on it): a figure a busy machine does not
               inflate the way it inflates load times.
  query        every chart's saved query through /api/v1/chart/data with force=true (no cache): p50 and p95 of
               --repeat calls, Superset included; and the SQL Superset generated, timed on ClickHouse alone as the
               read-only user (server-side elapsed from X-ClickHouse-Summary).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from hour_run import RAMP_S, SCENARIO, STEP_S, STEPS, expected_counts, generate, hour_engine, percentile
from ioscale.provision.superset import api_session
from ioscale.simulator.engine import run_id_for
from ioscale.stack.clickhouse import client
from ioscale.stack.settings import StackSettings, load_secrets
from ioscale.stack.superset import RUN_LINK_SLUGS, clear_chart_data_cache
from pipeline_bench import StackCpu  # bench/ is on sys.path when a bench script runs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devtools"))  # test and bench tooling, not installed
from superset_browser import USER_VIEWPORT, browser  # noqa: E402

TARGET_LOAD_S = 2.0       # first screen
TARGET_FULL_S = 4.0       # the whole dashboard, scrolled through
TARGET_P95_MS = 300.0
SEED = 43                          # not the SQL library bench's 42: its run is stamped in the past, unanalysed
REPO = Path(__file__).resolve().parents[1]

# slug -> (filter values to select the run, charts on the dashboard)
DASHBOARDS: dict[str, Any] = {}


def run_state(ch: Any, run_id: str) -> dict[str, int]:
    """Rows ClickHouse holds for the run: raw I/O samples and the Flink job's step rows."""
    q = ("SELECT (SELECT count() FROM ioscale.io_samples WHERE run_id = {r:String}),"
         " (SELECT count() FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String}),"
         " (SELECT count() FROM ioscale.io_fleet_10s FINAL WHERE run_id = {r:String})")
    io, steps, windows = ch.query(q, parameters={"r": run_id}).result_rows[0]
    return {"io_samples": int(io), "step_rows": int(steps), "fleet_10s_windows": int(windows)}


def complete_runs(ch: Any, want_io: int) -> list[str]:
    """Runs of the bench's scenario and seed that ClickHouse holds completely, newest first."""
    runs = [r for (r,) in ch.query(
        "SELECT run_id FROM ioscale.run_events WHERE scenario = {s:String} AND run_id LIKE {p:String} "
        "AND event_type = 'run_ended' GROUP BY run_id ORDER BY max(ts) DESC LIMIT 5",
        parameters={"s": SCENARIO, "p": f"sim-{SCENARIO}-%-s{SEED}"}).result_rows]
    return [r for r in runs if (st := run_state(ch, r))["io_samples"] >= want_io and st["step_rows"] >= STEPS]


def ensure_run(settings: StackSettings, secrets: dict[str, str], timeout_s: float, resend: bool = False) -> list[str]:
    """The complete bench runs, newest first; generates one (ending now) when there is none or with ``resend``."""
    span_s = STEPS * (STEP_S + RAMP_S)
    want_io = expected_counts(hour_engine(SEED, 0))["io_samples"]
    with client(settings, secrets, "reader") as ch:
        runs = complete_runs(ch, want_io)
        if runs and not resend:
            print(f"reusing {runs[0]} ({want_io:,} I/O samples, {STEPS} analysed steps)")
            return runs
        start_ms = (int(time.time()) - span_s) * 1000
        engine = hour_engine(SEED, start_ms)
        run_id = run_id_for(engine.scenario.name, engine.scenario.runs[0].key, start_ms, SEED)
        print(f"generating {run_id}: {STEPS} steps x ({RAMP_S} + {STEP_S}) s ending now, {want_io:,} I/O samples")
        generate(settings, engine)
        t0 = time.perf_counter()
        have = run_state(ch, run_id)
        while time.perf_counter() - t0 < timeout_s:
            have = run_state(ch, run_id)
            if have["io_samples"] >= want_io and have["step_rows"] >= STEPS:
                print(f"  ingested and analysed {time.perf_counter() - t0:.0f} s after the producer's flush: {have}")
                return complete_runs(ch, want_io)
            print(f"  waiting: {have}", flush=True)
            time.sleep(10)
    raise SystemExit(f"after {timeout_s:.0f} s the run holds {have}: is ingestion running, and the Flink job "
                     "(`ioscale stack status`)? Was something else streaming live (its watermark makes the run late)?")


def dashboards(api: Any) -> list[dict[str, Any]]:
    """Every dashboard of the bundle with its chart ids (from the API) and Run filter id."""
    from ioscale.provision.superset_bundle import load_sources

    out = []
    for name, doc in sorted(load_sources(REPO / "superset").items()):
        if not name.startswith("dashboards/"):
            continue
        d = api.api("GET", f"/api/v1/dashboard/{doc['slug']}").json()["result"]
        charts = api.api("GET", f"/api/v1/dashboard/{d['id']}/charts").json()["result"]
        out.append({"slug": doc["slug"], "title": doc["dashboard_title"], "charts": charts,
                    "filters": doc["metadata"]["native_filter_configuration"]})
    return out


def pick_runs(ch: Any, bench_runs: list[str], compare: list[str] | None = None) -> dict[str, list[str]]:
    """The 320-VM hour on every dashboard; the comparison shows ``compare`` when given, else puts the hour against
    the previous bench run, or else shows the two newest runs of one scenario (which other work on the stack may
    change between two bench runs: name them to compare figures)."""
    runs = {slug: bench_runs[:1] for slug in ("ioscale-live", "ioscale-fleet-balance", "ioscale-scaling",
                                               "ioscale-saturation")}
    if compare:
        runs["ioscale-compare"] = compare
    elif len(bench_runs) >= 2:
        runs["ioscale-compare"] = bench_runs[:2]
    else:
        pair = ch.query("SELECT groupArray(2)(run_id) FROM (SELECT run_id, scenario, last_step_end FROM "
                        "ioscale.dash_run_limits WHERE scenario = (SELECT argMax(scenario, last_step_end) FROM "
                        "ioscale.dash_run_limits WHERE steps >= 3) ORDER BY last_step_end DESC)").result_rows
        if pair and len(pair[0][0]) == 2:
            runs["ioscale-compare"] = list(pair[0][0])
    return runs


def open_args(dash: dict[str, Any], runs: list[str]) -> dict[str, Any]:
    """How the bench opens a dashboard on its runs, as a user's link would: ``?run=`` where the Run filter
    selects its first value (one round of chart requests), the comparison's filter state otherwise."""
    if dash["slug"] in RUN_LINK_SLUGS and len(runs) == 1:
        return {"run": runs[0]}
    return {"filters": run_filters(dash, runs)}


def run_filters(dash: dict[str, Any], runs: list[str]) -> dict[str, tuple[str, list[Any]]]:
    values: dict[str, tuple[str, list[Any]]] = {}
    for f in dash["filters"]:
        col = (f.get("targets") or [{}])[0].get("column", {}).get("name")
        if col == "run_id":
            values[f["id"]] = (col, runs)
        elif col == "baseline_run_id":
            values[f["id"]] = (col, runs[:1])
    return values


def measure_loads(settings: StackSettings, secrets: dict[str, str], dashes: list[dict[str, Any]],
                  runs: dict[str, list[str]], loads: int, shots: Path | None) -> int:
    failures = 0
    print(f"\nwindow {USER_VIEWPORT['width']} x {USER_VIEWPORT['height']}, {loads} cold loads each; "
          f"first screen vs {TARGET_LOAD_S:.0f} s, full (scrolled) vs {TARGET_FULL_S:.0f} s (medians)")
    print(f"{'dashboard':<34} {'charts':>6} {'first screen s':>15} {'full s':>7} {'(max)':>6} {'warm full':>9}  "
          f"{'requests before scroll':>22}")
    with browser(settings, secrets, viewport=USER_VIEWPORT) as b:
        first = dashes[0]
        b.open_dashboard(first["slug"], **open_args(first, runs[first["slug"]]), expected_charts=len(first["charts"]),
                         scroll=True)
        for dash in dashes:
            if dash["slug"] not in runs:
                print(f"{dash['slug']:<34} skipped: no analysed run to show")
                continue
            how, n = open_args(dash, runs[dash["slug"]]), len(dash["charts"])
            cold, first_screen, warm, cpu, early = [], [], [], [], []
            for _ in range(loads):
                time.sleep(2)  # requests the previous load left running on the server end and fill the cache...
                clear_chart_data_cache(settings)  # ...which is emptied, so every chart queries ClickHouse again
                stack_cpu, browser_cpu_s = StackCpu(settings), b.cpu_s()
                load = b.open_dashboard(dash["slug"], **how, expected_charts=n, scroll=True)
                used = stack_cpu.delta()
                cpu.append((b.cpu_s() - browser_cpu_s, used.get("superset", 0.0), used.get("clickhouse", 0.0)))
                cold.append(load.load_s)
                first_screen.append(load.first_screen_s)
                early.append(f"{load.requests_first_screen} for {load.first_screen_charts} in view")
                bad = [c.title for c in load.failed]
                warm.append(b.open_dashboard(dash["slug"], **how, expected_charts=n, scroll=True).load_s)
            if shots is not None:
                b.screenshot(shots / f"bench-{dash['slug']}.png")
            verdict = ("ok" if statistics.median(first_screen) < TARGET_LOAD_S
                       and statistics.median(cold) < TARGET_FULL_S else "OVER")
            failures += verdict != "ok"
            print(f"{dash['slug']:<34} {n:>6} {statistics.median(first_screen):>15.2f} {statistics.median(cold):>7.2f} "
                  f"{max(cold):>6.2f} {statistics.median(warm):>9.2f}  {early[-1]:>22}  {verdict}"
                  + (f"  empty or not drawn: {bad}" if bad else "")
                  + f"  load avg {os.getloadavg()[0]:.1f}  [{', '.join(runs[dash['slug']])}]",
                  flush=True)
            # CPU seconds a cold load costs: what a busy machine does not inflate (ClickHouse's includes whatever
            # else queried or inserted meanwhile)
            print(f"{'':<34} cold load CPU s (median): browser {statistics.median(c[0] for c in cpu):.2f}, "
                  f"Superset {statistics.median(c[1] for c in cpu):.2f}, "
                  f"ClickHouse {statistics.median(c[2] for c in cpu):.2f}", flush=True)
    return failures


def measure_queries(settings: StackSettings, secrets: dict[str, str], api: Any, dashes: list[dict[str, Any]],
                    runs: dict[str, list[str]], repeat: int) -> int:
    failures = 0
    seen: set[int] = set()
    print(f"\n{'chart (dashboard)':<72} {'p50 ms':>7} {'p95 ms':>7} {'CH p50':>7} {'CH p95':>7}  "
          f"vs {TARGET_P95_MS:.0f} ms p95")
    with client(settings, secrets, "reader") as ch:
        for dash in dashes:
            if dash["slug"] not in runs:
                continue
            flt = run_filters(dash, runs[dash["slug"]])
            for c in dash["charts"]:
                if c["id"] in seen:
                    continue
                seen.add(c["id"])
                qc = json.loads(api.api("GET", f"/api/v1/chart/{c['id']}").json()["result"]["query_context"])
                for q in qc["queries"]:
                    q["filters"] = q.get("filters", []) + [{"col": col, "op": "IN", "val": vals}
                                                           for col, vals in flt.values()]
                qc["force"] = True
                wall = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    r = api.api("POST", "/api/v1/chart/data", json=qc)
                    wall.append((time.perf_counter() - t0) * 1000)
                    if r.status_code != 200:
                        raise SystemExit(f"{c['slice_name']}: HTTP {r.status_code} {r.text[:300]}")
                sql = [x["query"] for x in api.api("POST", "/api/v1/chart/data",
                                                   json={**qc, "result_type": "query"}).json()["result"]]
                server = []
                for _ in range(repeat):
                    elapsed = 0.0
                    for s in sql:
                        res = ch.query(s)
                        elapsed += float(res.summary.get("elapsed_ns", 0)) / 1e6
                    server.append(elapsed)
                wall.sort()
                server.sort()
                p95 = percentile(wall, 0.95)
                verdict = "ok" if p95 < TARGET_P95_MS else "OVER"
                failures += verdict != "ok"
                label = f"{c['slice_name'][:52]} ({dash['slug'].removeprefix('ioscale-')})"
                print(f"{label:<72} {statistics.median(wall):>7.0f} {p95:>7.0f} {statistics.median(server):>7.0f} "
                      f"{percentile(server, 0.95):>7.0f}  {verdict}", flush=True)
    return failures


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--loads", type=int, default=5, help="cold and warm loads per dashboard (default 5)")
    p.add_argument("--repeat", type=int, default=20, help="timed calls per chart query (default 20)")
    p.add_argument("--generate-only", action="store_true", help="make sure the run is there, then stop")
    p.add_argument("--skip-queries", action="store_true", help="dashboard load times only")
    p.add_argument("--screenshots", type=Path, help="save a PNG of each dashboard here")
    p.add_argument("--timeout-s", type=float, default=1800.0, help="how long to wait for ingestion and Flink")
    p.add_argument("--resend", action="store_true", help="generate a new run even if ClickHouse holds one")
    p.add_argument("--only", action="append", metavar="SLUG", help="measure only this dashboard (repeatable)")
    p.add_argument("--run", action="append", help="measure on this run instead (repeat for the comparison's second)")
    p.add_argument("--compare", action="append", metavar="RUN", help="the comparison's runs (repeat; first: baseline)")
    args = p.parse_args()

    settings = StackSettings.from_env()
    secrets = load_secrets(settings)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    bench_runs = args.run or ensure_run(settings, secrets, args.timeout_s, args.resend)
    if args.generate_only:
        return 0
    api = api_session(settings, secrets)
    dashes = [d for d in dashboards(api) if not args.only or d["slug"] in args.only]
    with client(settings, secrets, "reader") as ch:
        runs = pick_runs(ch, bench_runs, args.compare)
    failures = measure_loads(settings, secrets, dashes, runs, args.loads, args.screenshots)
    if not args.skip_queries:
        failures += measure_queries(settings, secrets, api, dashes, runs, args.repeat)
    print(f"\n{failures} over target; load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
