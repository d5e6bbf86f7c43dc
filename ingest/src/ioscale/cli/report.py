"""`ioscale report RUN [RUN ...]`: a lab report as one HTML file; `ioscale compare BASE CAND`: the regression gate.

The data access lives here: every figure comes from the SQL library (sql/queries) run as the read-only reader
account; ioscale.report renders the rows.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from ioscale.query import connect


def rows(ch: Any, name: str, **params: Any) -> list[dict[str, Any]]:
    """A named query's answer as dicts (column -> value)."""
    from ioscale import query
    from ioscale.report import rows_as_dicts

    q = query.load(name)
    result = query.execute(q, query.bind(q, params), ch)
    return rows_as_dicts(result.columns, result.rows)


def fetch_run(ch: Any, run_id: str) -> Any:
    """One run's rows from the library: the Flink job's step rows, else the raw computation."""
    from ioscale.report import build_run
    from ioscale.report.model import UnknownRunError

    curve, source, ports, hosts, usl = rows(ch, "scaling_curve", run_id=run_id), "scaling_curve", [], [], []
    if curve:
        usl = rows(ch, "usl_fit", run_id=run_id, latest_only=True)
    else:
        curve, source = rows(ch, "scaling_curve_raw", run_id=run_id), "scaling_curve_raw"
        if curve:
            ports = rows(ch, "port_utilization", run_id=run_id)
            hosts = rows(ch, "step_host_counters", run_id=run_id)
    info = rows(ch, "run_info", run_id=run_id)
    if not info and not curve:
        raise UnknownRunError(f"no run {run_id!r} in ClickHouse", "`ioscale sql run_list` lists the runs")
    return build_run(run_id, curve, source=source, info=info[0] if info else None, usl_rows=usl,
                     saturation_rows=rows(ch, "saturation_events", run_id=run_id, kind="saturation",
                                                          phase="final"),
                     window_rows=rows(ch, "run_steps", run_id=run_id), port_rows=ports,
                     host_rows=hosts)


def fetch_runs(run_ids: list[str]) -> list[Any]:
    from ioscale.stack.settings import StackSettings, load_secrets

    settings = StackSettings.from_env()
    ch = connect(settings, load_secrets(settings))
    try:
        return [fetch_run(ch, r) for r in run_ids]
    finally:
        ch.close()


def report_name(run_ids: list[str]) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", run_ids[0])
    return f"report-{safe}" + (f"-and-{len(run_ids) - 1}-more" if len(run_ids) > 1 else "") + ".html"


def _cmd_report(args: argparse.Namespace) -> int:
    import ioscale
    from ioscale.report import html

    runs = fetch_runs(args.runs)
    out_dir = Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / report_name(args.runs)
    path.write_text(html.render(runs, ioscale_version=ioscale.__version__), encoding="utf-8")
    print(path)
    if args.pdf:
        print(write_pdf(path, path.with_suffix(".pdf"), args.chromium))
    for run in runs:
        if not run.steps:
            print(f"warning: run {run.run_id} has no ended step with data: its section has no figures",
                  file=sys.stderr)
    return 0


def write_pdf(html_path: Path, pdf_path: Path, chromium: str) -> Path:
    """Print the report to PDF with chromium (through playwright, never its browser download)."""
    from ioscale.errors import ConfigError

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ConfigError("--pdf needs playwright (the `test` extra: playwright==1.58.0)",
                          "pip install -e 'ingest[test]', or open the HTML file and print it from a browser") from None
    if not Path(chromium).is_file():
        raise ConfigError(f"--pdf needs chromium at {chromium}", "apt install chromium, or pass --chromium PATH")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto(html_path.resolve().as_uri(), wait_until="load")
            page.pdf(path=str(pdf_path), format="A4", landscape=True, print_background=True,
                     margin={"top": "12mm", "bottom": "12mm", "left": "10mm", "right": "10mm"})
        finally:
            browser.close()
    return pdf_path


def _cmd_compare(args: argparse.Namespace) -> int:
    from ioscale import query
    from ioscale.report import gate

    max_drop = gate.parse_pct(args.max_drop, "--max-drop")
    max_rise = gate.parse_pct(args.max_latency_rise, "--max-latency-rise")
    base, cand = fetch_runs([args.baseline, args.candidate])
    try:
        result = gate.compare_runs(base.run_id, base.steps, cand.run_id, cand.steps, max_drop, max_rise)
    except gate.NotComparableError as e:
        if args.junit:
            Path(args.junit).write_text(gate.junit_error_xml(base.run_id, cand.run_id, str(e)), encoding="utf-8")
        raise
    print(f"baseline {base.run_id}, candidate {cand.run_id}: steps matched by load; fail on IOPS -{max_drop:g}% "
          f"or p99 / p99.999 +{max_rise:g}%")
    print(query.format_result(gate.COLUMNS, gate.table_rows(result)), end="")
    for s in result.steps:
        notes = [f"{c.figure} not compared: {c.note}" for c in s.checks if c.diff_pct is None]
        if s.failed or notes:
            print(f"step {s.base.step_index}/{s.cand.step_index} ({s.base.load_text}): "
                  + "; ".join([c.text('IOPS' if c.figure == 'IOPS' else 'us') for c in s.checks if c.failed]
                              + notes))
    for s in result.only_baseline:
        print(f"baseline step {s.step_index} ({s.load_text}): no comparable step in the candidate")
    for s in result.only_candidate:
        print(f"candidate step {s.step_index} ({s.load_text}): no comparable step in the baseline")
    if args.junit:
        Path(args.junit).write_text(gate.junit_xml(result), encoding="utf-8")
    bad = result.failed
    print(f"{'FAIL' if bad else 'PASS'}: {len(bad)} of {len(result.steps)} comparable steps worse than the limits")
    return int(result.exit_status)


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("report", help="write a lab report (one self-contained HTML file) for one or more runs")
    r.add_argument("runs", nargs="+", metavar="RUN", help="run ids (`ioscale sql run_list`); several are overlaid")
    r.add_argument("-o", "--output", default=".", metavar="DIR", help="directory for the HTML file (default: .)")
    r.add_argument("--pdf", action="store_true", help="also print it to PDF (chromium through playwright)")
    r.add_argument("--chromium", default="/usr/bin/chromium", metavar="PATH", help="the chromium --pdf runs")
    r.set_defaults(func=_cmd_report)

    c = sub.add_parser("compare", help="regression gate: a candidate run against a baseline, steps matched by load")
    c.add_argument("baseline", metavar="BASELINE")
    c.add_argument("candidate", metavar="CANDIDATE")
    c.add_argument("--max-drop", default="10%", help="largest IOPS drop allowed at any step (default 10%%)")
    c.add_argument("--max-latency-rise", default="20%",
                   help="largest p99 / p99.999 rise allowed at any step (default 20%%)")
    c.add_argument("--junit", metavar="FILE", help="also write the verdict as JUnit XML, one testcase per step")
    c.set_defaults(func=_cmd_compare)
