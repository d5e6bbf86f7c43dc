"""Lab reports and the regression gate, rendered from the SQL library's rows (no data access here).

    model    a run's rows (scaling_curve or scaling_curve_raw, usl_fit, saturation_events, run_steps,
             run_info, port_utilization) as Steps and a RunData
    figures  the figures, matplotlib -> inline SVG, each with the numbers it plots
    html     one self-contained HTML file: verdict, figures, per-step table, comparison, what ran
    gate     candidate vs baseline, steps matched by load, thresholds, JUnit XML

The commands (ioscale.cli.report) run the queries and hand the rows over; everything here works on rows, so it
is tested without a server.
"""

from ioscale.report.gate import GateResult, NotComparableError, compare_runs, junit_xml, parse_pct
from ioscale.report.model import RunData, Step, UslFit, build_run, rows_as_dicts

__all__ = ["GateResult", "NotComparableError", "RunData", "Step", "UslFit", "build_run", "compare_runs",
           "junit_xml", "parse_pct", "rows_as_dicts"]
