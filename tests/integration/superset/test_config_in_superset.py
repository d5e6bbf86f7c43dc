"""stack/superset/superset_config.py's replacements of Superset functions, run inside the stack's Superset venv
against the Superset function they replace: same output, exactly."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = pytest.mark.timeout(300)

# Run by the Superset venv's python: our box plot statistics against Superset 6.1's on random frames (NaN values,
# a NaN group key, ties, one and two group-by columns, two metrics) and a fleet-balance-sized one.
_BOXPLOT_CHECK = """
import os, runpy, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
from superset.utils.pandas_postprocessing.boxplot import boxplot as superset_boxplot
cfg = runpy.run_path(os.environ["IOSCALE_SUPERSET_CONFIG"])
ours = cfg["_fast_boxplot"](lambda *a: (_ for _ in ()).throw(AssertionError("fell back to Superset's path")))
rng = np.random.default_rng(5)
frames = 0
for i in range(150):
    n = int(rng.integers(1, 400))
    df = pd.DataFrame({"step": rng.integers(0, int(rng.integers(1, 12)), n), "host": rng.choice(["h1", "h2", None], n),
                       "iops": rng.lognormal(8, 1, n).round(int(rng.integers(0, 3))), "lat": rng.normal(500, 90, n)})
    df.loc[rng.random(n) < 0.1, "iops"] = np.nan
    for groupby, metrics in ((["step"], ["iops", "lat"]), (["host", "step"], ["iops"])):
        want = superset_boxplot(df.copy(), groupby, metrics, "tukey")
        pd.testing.assert_frame_equal(ours(df.copy(), groupby, metrics, "tukey"), want, check_exact=True)
        frames += 1
big = pd.DataFrame({"step_index": np.repeat(np.arange(11), 320), "bal_iops": rng.lognormal(8, 0.3, 3520)})
pd.testing.assert_frame_equal(ours(big.copy(), ["step_index"], ["bal_iops"], "tukey"),
                              superset_boxplot(big.copy(), ["step_index"], ["bal_iops"], "tukey"), check_exact=True)
print(frames + 1)
"""


def test_box_plot_statistics_equal_supersets_own(stack, tmp_path):
    assert _run_in_superset_venv(stack, tmp_path, _BOXPLOT_CHECK) == "301"  # every frame compared


# Superset's time-column normalisation against ours: datetime64 columns (naive, UTC, millisecond unit) with and
# without a format come out identical, and ours does not call Superset's (no format guessing, no to_datetime).
_DATETIME_CHECK = """
import os, runpy, warnings
warnings.simplefilter("ignore")
import pandas as pd
import superset.utils.core as core
from superset.utils.core import DateColumn
cfg = runpy.run_path(os.environ["IOSCALE_SUPERSET_CONFIG"])
ours = cfg["_datetime_columns_kept"](lambda df, col: (_ for _ in ()).throw(AssertionError("Superset's path taken")))
times = pd.date_range("2026-11-21 22:56:50", periods=4000, freq="1s")
checked = 0
for values in (times, times.tz_localize("UTC"), times.as_unit("ms"), times.tz_localize("UTC").as_unit("ms")):
    for fmt in (None, "%Y-%m-%d %H:%M:%S"):
        want, got = pd.DataFrame({"ts": values, "v": 1.0}), pd.DataFrame({"ts": values, "v": 1.0})
        core._process_datetime_column(want, DateColumn(col_label="ts", timestamp_format=fmt))
        ours(got, DateColumn(col_label="ts", timestamp_format=fmt))
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        checked += 1
print(checked)
"""


def _run_in_superset_venv(stack, tmp_path, script: str) -> str:
    python = stack.settings.dist_dir / "superset" / "venv" / "bin" / "python"
    if not python.exists():
        pytest.skip(f"{python} is missing: Superset is not installed")
    env = {"SUPERSET_SECRET_KEY": "x" * 32, "IOSCALE_SUPERSET_DATA_DIR": str(tmp_path),
           "IOSCALE_SUPERSET_CONFIG": str(stack.settings.repo / "stack" / "superset" / "superset_config.py"),
           "PYTHONNOUSERSITE": "1"}
    r = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=240, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.split()[-1]


def test_time_columns_come_out_as_supersets_own_normalisation_leaves_them(stack, tmp_path):
    assert _run_in_superset_venv(stack, tmp_path, _DATETIME_CHECK) == "8"
