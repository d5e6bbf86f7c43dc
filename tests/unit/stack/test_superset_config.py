"""stack/superset/superset_config.py's performance pieces, without Superset: the shared chart-data cache, the
refresh mode, one computation per identical chart query, remembered ClickHouse connection set-up, no ECharts
animation; and the bench's cache reset."""

from __future__ import annotations

import runpy
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from ioscale.stack.settings import StackSettings
from ioscale.stack.superset import chart_data_cache_dir, clear_chart_data_cache

REPO = Path(__file__).resolve().parents[3]
CONFIG = REPO / "stack" / "superset" / "superset_config.py"


@pytest.fixture()
def cfg(monkeypatch, tmp_path) -> dict:
    monkeypatch.setenv("SUPERSET_SECRET_KEY", "x" * 32)
    monkeypatch.setenv("IOSCALE_SUPERSET_DATA_DIR", str(tmp_path / "data" / "superset"))
    return runpy.run_path(str(CONFIG))


def test_chart_data_cache_is_one_directory_for_all_workers_where_the_bench_clears_it(cfg, tmp_path):
    data = cfg["DATA_CACHE_CONFIG"]
    assert data["CACHE_TYPE"] == "FileSystemCache"  # not per process: both gunicorn workers read it
    assert data["CACHE_DEFAULT_TIMEOUT"] == 5  # the live dashboard's refresh period
    settings = StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path)})
    assert Path(data["CACHE_DIR"]) == chart_data_cache_dir(settings) == tmp_path / "data" / "superset" / "cache" / "chart_data"


def test_auto_refresh_reads_through_the_cache(cfg):
    assert cfg["DASHBOARD_AUTO_REFRESH_MODE"] == "fetch"


def test_clear_chart_data_cache_removes_every_entry_and_keeps_the_directory(tmp_path):
    settings = StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path)})
    assert clear_chart_data_cache(settings) == 0  # no cache yet: nothing to do
    cache = chart_data_cache_dir(settings)
    cache.mkdir(parents=True)
    for name in ("1e1fc30bda7a1e509572315cfa688f0f", "2029240f6d1128be89ddc32729463129", "__wz_cache_count"):
        (cache / name).write_bytes(b"x")
    assert clear_chart_data_cache(settings) == 3
    assert cache.is_dir() and not any(cache.iterdir())


class _Processor:
    """Just enough of Superset's QueryContextProcessor for the de-duplicating wrapper."""

    def __init__(self, key: str | None, force: bool = False):
        self._query_context = types.SimpleNamespace(force=force)
        self.key = key

    def query_cache_key(self, query_obj) -> str | None:
        return self.key


class _Query:
    def __init__(self):
        self.validated = 0

    def validate(self) -> None:
        self.validated += 1


def _run_concurrently(cfg, processors: list[_Processor], work_s: float = 0.15) -> int:
    """Call the wrapped get_df_payload from one thread per processor; the most calls of the original at once."""
    running, peak, lock = [0], [0], threading.Lock()

    def original(self, query_obj, force_cached=False):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(work_s)
        with lock:
            running[0] -= 1
        return {"key": self.key}

    wrapped = cfg["_deduplicated_df_payload"](original)
    Path(cfg["_INFLIGHT_LOCK_DIR"]).mkdir(parents=True, exist_ok=True)
    results = []
    threads = [threading.Thread(target=lambda p=p: results.append(wrapped(p, _Query()))) for p in processors]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["key"] or "" for r in results) == sorted(p.key or "" for p in processors)
    return peak[0]


def test_identical_chart_queries_run_one_at_a_time(cfg):
    # The second and third wait for the first, then find its result in the cache (the original reads it).
    assert _run_concurrently(cfg, [_Processor("same-key") for _ in range(3)]) == 1


def test_different_or_forced_chart_queries_run_side_by_side(cfg):
    assert _run_concurrently(cfg, [_Processor(f"key-{i}") for i in range(3)]) == 3
    assert _run_concurrently(cfg, [_Processor("same-key", force=True) for _ in range(3)]) == 3


class _ClickHouseClient:
    """Just enough of clickhouse-connect's client for the remembered connection set-up."""

    url = "http://127.0.0.1:8123"

    def __init__(self, user: str, calls: list[str]):
        self._initial_settings = {}
        self.headers = {"Authorization": f"Basic {user}"}
        self.calls = calls
        self.applied = None

    def _execute_operation(self, operation):
        from clickhouse_connect.driver._backend.operations import CommandOp, QueryOp

        self.calls.append(operation.text)
        if isinstance(operation, CommandOp):
            return ["26.9.2.1", "UTC"]
        if isinstance(operation, QueryOp):
            rows = [{"name": "date_time_input_format", "value": "basic", "readonly": 0}]
            return types.SimpleNamespace(named_results=lambda: iter(rows))
        return b"not the probe's answer"

    def _apply_init_result(self, result) -> None:
        self.applied = result


def test_clickhouse_connection_setup_is_asked_once_per_account(cfg):
    init = cfg["_remembered_clickhouse_init"](None)
    calls: list[str] = []
    first = _ClickHouseClient("reader", calls)
    init(first, "auto")
    asked = len(calls)
    assert asked >= 2 and any("system.settings" in c for c in calls)
    assert first.applied.server_info.version == "26.9.2.1"
    second = _ClickHouseClient("reader", calls)
    init(second, "auto")
    assert len(calls) == asked and second.applied is first.applied  # remembered: no query at all
    init(_ClickHouseClient("admin", calls), "auto")
    assert len(calls) == 2 * asked  # another account asks for itself


def test_echarts_are_drawn_without_animation_in_both_themes(monkeypatch, tmp_path):
    defaults = types.ModuleType("superset.config")
    defaults.THEME_DEFAULT = {"token": {"colorPrimary": "#2893B3"}, "algorithm": "default"}
    defaults.THEME_DARK = {"token": {"colorPrimary": "#2893B3"}, "algorithm": "dark"}
    monkeypatch.setitem(sys.modules, "superset.config", defaults)
    monkeypatch.setenv("SUPERSET_SECRET_KEY", "x" * 32)
    monkeypatch.setenv("IOSCALE_SUPERSET_DATA_DIR", str(tmp_path))
    cfg = runpy.run_path(str(CONFIG))
    for name, algorithm in (("THEME_DEFAULT", "default"), ("THEME_DARK", "dark")):
        theme = cfg[name]
        assert theme["algorithm"] == algorithm and theme["token"]["colorPrimary"] == "#2893B3"  # defaults kept
        assert theme["token"]["echartsOptionsOverrides"] == {"animation": False}
    assert defaults.THEME_DEFAULT["token"] == {"colorPrimary": "#2893B3"}  # Superset's own dict left alone


def test_static_assets_vary_on_encoding_only_other_responses_untouched(cfg):
    """Superset answers /static/ with "Vary: Accept-Encoding, Cookie": the browser refetched (and recompiled) the
    dashboard's JavaScript whenever the session cookie changed."""
    [middleware] = cfg["ADDITIONAL_MIDDLEWARE"]
    sent: list[tuple[str, list[tuple[str, str]]]] = []

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/javascript"), ("Vary", "Accept-Encoding, Cookie"),
                                  ("Cache-Control", "public, max-age=31536000")])
        return [b"js"]

    def start_response(status, headers, exc_info=None):
        sent.append((status, headers))

    wrapped = middleware(app)
    assert wrapped({"PATH_INFO": "/static/assets/vendors.js"}, start_response) == [b"js"]
    assert sent[-1] == ("200 OK", [("Content-Type", "text/javascript"), ("Vary", "Accept-Encoding"),
                                   ("Cache-Control", "public, max-age=31536000")])
    wrapped({"PATH_INFO": "/api/v1/chart/data"}, start_response)  # the API depends on who asks: left alone
    assert ("Vary", "Accept-Encoding, Cookie") in sent[-1][1]
    assert cfg["_without_vary_cookie"]([("Vary", "Cookie"), ("ETag", "x")]) == [("ETag", "x")]


def test_box_plot_statistics_per_group_as_superset_computes_them(cfg):
    """The fleet-balance box plots' post-processing (Tukey whiskers): every statistic checked by hand.
    Superset's own function is the oracle in tests/integration/superset/test_dashboards.py."""
    import numpy as np
    import pandas as pd

    boxplot = cfg["_fast_boxplot"](lambda *a: pytest.fail("Tukey whiskers on float metrics take the fast path"))
    df = pd.DataFrame({
        "step": [2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, None],
        "iops": [2.0, 1, 100, 2, 3, 4, 5, 6, 7, 8, 9, np.nan, 4.0, 50.0],
    })
    out = boxplot(df, ["step"], ["iops"], "tukey")
    assert list(out.columns) == ["step", "iops__mean", "iops__median", "iops__max", "iops__min", "iops__q1",
                                 "iops__q3", "iops__count", "iops__outliers"]
    assert out["step"].tolist() == [1.0, 2.0]  # sorted groups; the row without a step is left out, as pandas does
    one, two = out.to_dict("records")
    # step 1: 1..9 and 100; midpoint quartiles (3 + 4) / 2 and (7 + 8) / 2, fences 3.5 - 6 and 7.5 + 6
    assert (one["iops__q1"], one["iops__q3"]) == (3.5, 7.5)
    assert (one["iops__min"], one["iops__max"], one["iops__outliers"]) == (1.0, 9.0, [100.0])
    assert (one["iops__mean"], one["iops__median"], one["iops__count"]) == (14.5, 5.5, 10)
    # step 2: 2, NaN, 4 -- quartiles of the two numbers, both 3: the whiskers cross and both values lie outside
    # them (above first, then below, each in row order); the count holds the NaN row as np.ma.count does
    assert (two["iops__q1"], two["iops__q3"], two["iops__max"], two["iops__min"]) == (3.0, 3.0, 2.0, 4.0)
    assert (two["iops__outliers"], two["iops__count"]) == ([4.0, 2.0], 3)
    assert (two["iops__mean"], two["iops__median"]) == (3.0, 3.0)


def test_box_plots_other_than_tukey_on_floats_take_supersets_own_path(cfg):
    import pandas as pd

    calls = []
    boxplot = cfg["_fast_boxplot"](lambda *a: calls.append(a[3]) or "superset's")
    df = pd.DataFrame({"step": [1, 1], "iops": [1.0, 2.0], "n": [1, 2]})
    assert boxplot(df, ["step"], ["iops"], "min/max") == "superset's"
    assert boxplot(df, ["step"], ["iops"], "percentile", [10, 90]) == "superset's"
    assert boxplot(df, ["step"], ["n"], "tukey") == "superset's"  # an integer metric: Superset's dtypes kept
    assert calls == ["min/max", "percentile", "tukey"]


def test_new_engines_take_the_default_schema_from_the_uri(cfg):
    asked = []
    default_schema = cfg["_url_default_schema"](lambda self, conn: asked.append(conn) or "from the server")

    def connection(database):
        return types.SimpleNamespace(engine=types.SimpleNamespace(url=types.SimpleNamespace(database=database)))

    assert default_schema(None, connection("ioscale")) == "ioscale" and asked == []  # no round trip
    no_database = connection(None)
    assert default_schema(None, no_database) == "from the server" and asked == [no_database]


def test_time_columns_that_already_are_timestamps_skip_the_format_guessing(cfg):
    import pandas as pd

    seen = []
    process = cfg["_datetime_columns_kept"](lambda df, col: seen.append(col.col_label))
    times = pd.date_range("2026-11-21 22:56:50", periods=3, freq="10s")
    df = pd.DataFrame({"naive": times, "utc": times.tz_localize("UTC"), "ms": times.as_unit("ms"),
                       "text": times.astype(str), "epoch": times})
    before = df.copy()

    def col(label, fmt=None):
        return types.SimpleNamespace(col_label=label, timestamp_format=fmt)

    for label in ("naive", "utc", "ms"):
        process(df, col(label))
        process(df, col(label, "%Y-%m-%d %H:%M:%S"))
    assert seen == [] and df.equals(before)  # left as they are
    process(df, col("text"))
    process(df, col("epoch", "epoch_ms"))
    assert seen == ["text", "epoch"]  # Superset's own path: text to parse, epoch formats
