"""The load axes are the Flink job's (schema/analytics_options.json, written from its AnalyticsOptions); the SQL
library's queries that list them must list the same ones, in the same order, with the same default."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LOAD_AXIS = next(o for o in json.loads((ROOT / "schema" / "analytics_options.json").read_text())["options"]
                 if o["name"] == "load-axis")
AXES = LOAD_AXIS["allowed"]


@pytest.mark.parametrize("query, listed", [
    # the parameter's choices, which the SQL library enforces
    ("scaling_curve_raw.sql", r"^--\s+load_axis\s+String = \S+ \{(?P<axes>[^}]*)\}"),
    # the columns the job wrote, documented
    ("scaling_curve.sql", r"^--\s+load_axis\s+(?P<axes>\S+(?: \| \S+)+)$"),
    ("usl_fit.sql", r"^--\s+load_axis\s+the N of the fit: (?P<axes>\S+(?: \| \S+)+)$"),
])
def test_queries_list_the_jobs_load_axes(query, listed):
    text = (ROOT / "sql" / "queries" / query).read_text()
    found = [m.group("axes") for m in re.finditer(listed, text, re.MULTILINE)]
    assert len(found) == 1, f"{query}: expected one load_axis line matching {listed!r}"
    assert [a.strip() for a in re.split(r"[|]", found[0])] == AXES, (
        f"{query} lists other load axes than schema/analytics_options.json (the job's --load-axis)")


def test_raw_scaling_curve_computes_every_axis_and_defaults_as_the_job():
    text = (ROOT / "sql" / "queries" / "scaling_curve_raw.sql").read_text()
    assert re.search(r"^--\s+load_axis\s+String = (\S+)", text, re.MULTILINE).group(1) == LOAD_AXIS["default"]
    computed = set(re.findall(r"\{load_axis:String\} = '([^']+)'", text))
    # the default axis is the multiIf's fallback; every other one has its own branch
    assert computed == set(AXES) - {LOAD_AXIS["default"]}
