"""Superset configuration for the ioscale local stack: one local user, SQLite metadata, no phone-home.

Loaded by Superset through ``SUPERSET_CONFIG_PATH``; everything it overrides is listed here.
The launcher (``ioscale.stack.superset``) sets these environment variables; there are no defaults
for secrets, so a missing variable stops Superset at start-up instead of running with a known key:

    SUPERSET_SECRET_KEY          signs sessions and encrypts stored database passwords (secrets.env)
    IOSCALE_SUPERSET_DATA_DIR    state directory: SQLite metadata DB, uploads (<home>/data/superset)

Pinned for apache-superset==6.1.0 (see requirements.lock next to this file).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import sys
from collections.abc import Iterator
from datetime import timedelta


def _required_env(name: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise RuntimeError(
            f"{name} is not set; start Superset through `ioscale stack up`, which sets it from "
            ".ioscale/secrets.env and the state directory"
        )
    return value


# -- secrets and paths ---------------------------------------------------------------------------
SECRET_KEY = _required_env("SUPERSET_SECRET_KEY")
if os.environ.get("SUPERSET_DB_URI"):
    # docker-compose: PostgreSQL metadata DB (scheduled Alerts & Reports fail on SQLite upstream).
    SQLALCHEMY_DATABASE_URI = os.environ["SUPERSET_DB_URI"]
    DATA_DIR = os.environ.get("IOSCALE_SUPERSET_DATA_DIR", "/app/superset_home")
else:
    DATA_DIR = _required_env("IOSCALE_SUPERSET_DATA_DIR")
    # timeout: the web workers and CLI commands may touch SQLite at once; wait instead of failing.
    SQLALCHEMY_DATABASE_URI = f"sqlite:///{os.path.join(DATA_DIR, 'superset.db')}?check_same_thread=false"
    SQLALCHEMY_ENGINE_OPTIONS = {"connect_args": {"timeout": 30}}
UPLOAD_FOLDER = os.path.join(DATA_DIR, "uploads") + "/"

# -- features --------------------------------------------------------------------------------------
# Native filters and UUID-matched imports are built in since 4.x; these flags are the ones the
# ioscale dashboards rely on or deliberately turn off.
FEATURE_FLAGS: dict[str, bool] = {
    # Jinja in dataset SQL ({{ filter_values('run_id') }}) for per-run virtual datasets.
    "ENABLE_TEMPLATE_PROCESSING": True,
    # Charts below the window are neither drawn nor queried until scrolled to: the first screen's queries
    # do not queue behind theirs on a small server (6.1.0's Chart.runQuery skips a chart not in view).
    "DASHBOARD_VIRTUALIZATION": True,
    "DASHBOARD_VIRTUALIZATION_DEFER_DATA": True,
    "DRILL_TO_DETAIL": True,
    # These need Celery workers, a browser or Redis, none of which the local stack runs.
    "ALERT_REPORTS": False,
    "THUMBNAILS": False,
    "GLOBAL_ASYNC_QUERIES": False,
    "SQLLAB_FORCE_RUN_ASYNC": False,
    "TAGGING_SYSTEM": False,
}
if os.environ.get("SUPERSET_CELERY_BROKER_URL"):
    # docker-compose runs Celery worker + beat: Alerts & Reports on the saturation/SLO queries.
    class CeleryConfig:
        broker_url = os.environ["SUPERSET_CELERY_BROKER_URL"]
        result_backend = os.environ.get("SUPERSET_CELERY_RESULT_BACKEND", broker_url)
        imports = ("superset.sql_lab", "superset.tasks.scheduler")
        worker_prefetch_multiplier = 1
        task_acks_late = False
        beat_schedule = {
            "reports.scheduler": {"task": "reports.scheduler", "schedule": 60.0},
            "reports.prune_log": {"task": "reports.prune_log", "schedule": 24 * 3600.0},
        }

    CELERY_CONFIG = CeleryConfig
    FEATURE_FLAGS["ALERT_REPORTS"] = True
    # The ioscale alerts (superset/alerts/, applied as superset/README.md says under Alerting) notify by
    # e-mail and/or webhook and send the chart as TEXT, which needs no browser in the worker.
    FEATURE_FLAGS["ALERT_REPORT_WEBHOOK"] = True
    ALERT_REPORTS_WEBHOOK_HTTPS_ONLY = os.environ.get("SUPERSET_WEBHOOK_HTTPS_ONLY", "true") == "true"
    ALERT_REPORTS_NOTIFICATION_DRY_RUN = os.environ.get("SUPERSET_ALERTS_DRY_RUN", "true") == "true"
    # Scheduled alerts are evaluated as their owner (the admin that applied them).
    ALERT_REPORTS_DEFAULT_WORKING_TIMEOUT = 300
    SMTP_HOST = os.environ.get("SUPERSET_SMTP_HOST", "localhost")
    SMTP_PORT = int(os.environ.get("SUPERSET_SMTP_PORT", "25"))
    SMTP_STARTTLS = os.environ.get("SUPERSET_SMTP_STARTTLS", "true") == "true"
    SMTP_SSL = False
    SMTP_USER = os.environ.get("SUPERSET_SMTP_USER", "")
    SMTP_PASSWORD = os.environ.get("SUPERSET_SMTP_PASSWORD", "")
    SMTP_MAIL_FROM = os.environ.get("SUPERSET_SMTP_MAIL_FROM", "ioscale-superset@localhost")
    EMAIL_REPORTS_SUBJECT_PREFIX = "[ioscale] "
    WEBDRIVER_BASEURL = "http://superset:8088/"
    WEBDRIVER_BASEURL_USER_FRIENDLY = os.environ.get("SUPERSET_PUBLIC_URL", "http://127.0.0.1:8088/")

# Live dashboards refresh every few seconds; no cap on the refresh interval, no nag message.
SUPERSET_DASHBOARD_PERIODICAL_REFRESH_LIMIT = 0
SUPERSET_DASHBOARD_PERIODICAL_REFRESH_WARNING_MESSAGE = None
SQLLAB_TIMEOUT = int(timedelta(seconds=60).total_seconds())
SUPERSET_WEBSERVER_TIMEOUT = int(timedelta(seconds=90).total_seconds())

# -- caches ----------------------------------------------------------------------------------------
# Nothing to run beside Superset. Chart data is cached for 5 s by default (the live dashboard's datasets),
# so a dashboard refreshing every 5 s shows new samples while repeated loads within a refresh are cheap;
# datasets of the Flink job's step results say 60 s themselves (superset/datasets/, `cache_timeout`).
# The chart-data cache is a directory, not a per-process dict: a dashboard's charts are spread over both
# gunicorn workers, and with per-process caches a reload found half its charts cached at best (the
# worker that answered before). The bench empties this directory for its cold loads.
# Filter state and explore form data keep the default metastore cache: it lives in the metadata DB
# and is therefore shared by all gunicorn workers (a per-process cache would lose permalinks).
CHART_DATA_CACHE_DIR = os.path.join(DATA_DIR, "cache", "chart_data")
CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 300, "CACHE_KEY_PREFIX": "ioscale_"}
DATA_CACHE_CONFIG = {
    "CACHE_TYPE": "FileSystemCache",
    "CACHE_DIR": CHART_DATA_CACHE_DIR,
    "CACHE_DEFAULT_TIMEOUT": 5,
    "CACHE_KEY_PREFIX": "ioscale_data_",
    # Entries are a chart's result (KiBs); past this many files the cache drops expired ones first.
    "CACHE_THRESHOLD": 5000,
}
# The live dashboard's 5 s auto-refresh reads through that cache instead of forcing every chart past it
# (Superset's default, "force"): with several viewers, or a refresh that meets a reload, each chart is
# queried once per 5 s instead of once per viewer and refresh. An entry is at most 5 s old when read.
DASHBOARD_AUTO_REFRESH_MODE = "fetch"

# -- security: local single user -------------------------------------------------------------------
WTF_CSRF_ENABLED = True
# Rate limits guard public servers; here they only add an in-memory store and its start-up warning.
RATELIMIT_ENABLED = False
AUTH_RATE_LIMITED = False
RATELIMIT_STORAGE_URI = "memory://"
SESSION_COOKIE_SECURE = False  # plain HTTP on 127.0.0.1
SESSION_COOKIE_SAMESITE = "Lax"
ENABLE_PROXY_FIX = False

# -- no phone-home ---------------------------------------------------------------------------------
# The 6.x front end embeds a tracking pixel and map tiles from third-party hosts; a content security
# policy that allows only this server makes the browser refuse them. Theme fonts stay local too.
THEME_FONT_URL_ALLOWED_DOMAINS: list[str] = []
TALISMAN_ENABLED = True
TALISMAN_CONFIG = {
    "content_security_policy": {
        "base-uri": ["'self'"],
        "default-src": ["'self'"],
        "img-src": ["'self'", "blob:", "data:"],
        "worker-src": ["'self'", "blob:"],
        "connect-src": ["'self'"],
        "object-src": "'none'",
        "style-src": ["'self'", "'unsafe-inline'"],
        "font-src": ["'self'", "data:"],
        "script-src": ["'self'", "'strict-dynamic'"],
    },
    "content_security_policy_nonce_in": ["script-src"],
    "force_https": False,
    "session_cookie_secure": False,
}
CONTENT_SECURITY_POLICY_WARNING = False
MAPBOX_API_KEY = ""
# The "Report a bug" / documentation links point outside; hide them.
BUG_REPORT_URL = None
DOCUMENTATION_URL = None

# -- performance: charts drawn once, not animated --------------------------------------------------------
# ECharts animates every series in for ~1 s after each load and each refresh: every chart of the live
# dashboard would be repainted frame by frame, every 5 s, on the same two cores as the server. The theme's ECharts overrides
# (merged into every ECharts chart's options by Superset 6.1) turn animation off, in the light and dark theme.
# Superset reads this file inside its own config module, whose defaults are complete by then.
_ECHARTS_OVERRIDES = {"animation": False}
_superset_defaults = sys.modules.get("superset.config")
if _superset_defaults is not None:
    THEME_DEFAULT = {**_superset_defaults.THEME_DEFAULT,
                     "token": {**_superset_defaults.THEME_DEFAULT["token"], "echartsOptionsOverrides": _ECHARTS_OVERRIDES}}
    if _superset_defaults.THEME_DARK is not None:
        THEME_DARK = {**_superset_defaults.THEME_DARK,
                      "token": {**_superset_defaults.THEME_DARK["token"], "echartsOptionsOverrides": _ECHARTS_OVERRIDES}}


# -- performance: no connection just to learn the default schema -----------------------------------
# For every chart query on a virtual dataset, Superset 6.1 asks the engine spec twice for the database's
# default schema (RLS checks: Database.get_default_schema), and the base implementation opens a connection
# and an inspector for it. With clickhouse-connect every new connection costs 3-4 server round trips
# (version, system.settings, protocol probe): two of the three connections a chart query made, ~60 of its
# ~140 ms here. A ClickHouse URI names its database, which is the default schema: answer from the URI.
def _clickhouse_default_schema(cls, database, catalog):  # noqa: ANN001, ANN202 (classmethod signature)
    from sqlalchemy.engine.url import make_url

    return make_url(database.sqlalchemy_uri_decrypted).database or "default"


# -- performance: no query to learn the default schema when a new engine first connects ----------------
# Superset builds a new SQLAlchemy engine for every chart query, and SQLAlchemy initialises the dialect on an
# engine's first connection; clickhouse-connect's dialect asks the server `SELECT currentDatabase()` for it: one
# more round trip before each chart's query (py-spy: ~4 % of a chart request's time). The database the URI names
# is the current database; without one in the URI, the server is asked as before.
def _url_default_schema(original):  # noqa: ANN001, ANN202
    def _get_default_schema_name(self, connection):  # noqa: ANN001, ANN202 (SQLAlchemy's signature)
        database = getattr(getattr(getattr(connection, "engine", None), "url", None), "database", None)
        return database or original(self, connection)

    _get_default_schema_name.__wrapped__ = original
    return _get_default_schema_name


# -- performance: a new ClickHouse connection without its three set-up queries ------------------------
# Superset opens a new database connection for every chart query (its engines use NullPool), and each new
# clickhouse-connect client first asks the server three things: version and time zone, the ~1,300 rows of
# system.settings (which settings the user may change), and a protocol probe. py-spy on the workers while the
# live dashboard loaded: 11 % of their busy time, and three round trips before each chart's own query. The
# answers depend only on the server and the account, so each worker asks once per server, user and settings
# and reuses the answer for 5 minutes (a restarted or reconfigured server is seen within that time).
_CLICKHOUSE_INIT_TTL_S = 300.0
_clickhouse_init_results: dict[str, tuple[float, object]] = {}


def _remembered_clickhouse_init(original):  # noqa: ANN001, ANN202
    def _init_common_settings(self, tz_source):  # noqa: ANN001, ANN202 (clickhouse-connect's signature)
        import time

        from clickhouse_connect.driver._backend.models import ClientConfig
        from clickhouse_connect.driver._backend.orchestration import init_sequence, run_sync

        config = ClientConfig(settings=self._initial_settings or {}, timezone_policy=tz_source)
        # The account is part of the key (its readonly settings differ), hashed: the header holds the password.
        account = hashlib.sha256(repr(sorted(self.headers.items())).encode()).hexdigest()
        key = f"{type(self).__name__}|{getattr(self, 'url', '')}|{account}|{config!r}"
        now = time.monotonic()
        hit = _clickhouse_init_results.get(key)
        if hit is None or hit[0] < now:
            hit = (now + _CLICKHOUSE_INIT_TTL_S, run_sync(init_sequence(config), self._execute_operation))
            _clickhouse_init_results[key] = hit
        self._apply_init_result(hit[1])

    _init_common_settings.__wrapped__ = original
    return _init_common_settings


# -- performance: no per-request event log ------------------------------------------------------------
# Superset records every chart-data request, dashboard view and filter change in its `logs` table (who
# looked at what). Here that is one single-user SQLite commit per chart query: a fifth of a chart-data
# request's server time, measured with py-spy while a 9-chart dashboard loaded. Nothing in ioscale reads
# that table, so the local stack logs nothing; Docker (PostgreSQL, several users) keeps Superset's default.
try:
    from superset.utils.log import AbstractEventLogger
except ImportError:  # this file read outside Superset's venv (unit tests): nothing to configure
    AbstractEventLogger = None  # noqa: N816

if AbstractEventLogger is not None and not os.environ.get("IOSCALE_SUPERSET_DOCKER"):
    class _NoEventLogger(AbstractEventLogger):
        def log(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            return None

    EVENT_LOGGER = _NoEventLogger()


# -- performance: pandas' own mean/min/max/median in chart post-processing ----------------------------
# Every time-series chart pivots its rows (x, series) with an aggregate per metric; Superset 6.1 hands pandas
# `functools.partial(np.mean)`, which pandas can only apply group by group in Python: ~250 ms for a one-hour,
# ten-series chart here, more than its query. The same aggregate named as a string takes pandas' vectorised path.
# Only mean, min, max and median: like the numpy functions, they give NaN for a group of NaNs (np.sum would
# give NaN where pandas' "sum" gives 0, so sum and the others keep numpy's).
_PANDAS_AGGREGATES = {"mean", "min", "max", "median"}


def _fast_aggregate_funcs(original):  # noqa: ANN001, ANN202
    def get_aggregate_funcs(df, aggregates):  # noqa: ANN001, ANN202
        from pandas import NamedAgg

        funcs = original(df, aggregates)
        for name, agg in aggregates.items():
            if agg.get("operator") in _PANDAS_AGGREGATES and not agg.get("options"):
                funcs[name] = NamedAgg(column=funcs[name].column, aggfunc=agg["operator"])
        return funcs

    return get_aggregate_funcs


# -- performance: box plot statistics in one pass per group ---------------------------------------------
# Superset 6.1's `boxplot` post-processing hands pandas eight Python callables per metric (mean, median, whiskers,
# quartiles, count, outliers); pandas builds a Series per group for each, and the whiskers and outliers compute the
# quartiles again (ten percentiles per group and metric). The fleet-balance box plots (11 steps x up to 320 VMs)
# spent about as long in it as in ClickHouse (py-spy). The same statistics from one slice per group and metric:
# the quartiles with the same np.nanpercentile call, mean and median through pandas' group mean and median (what
# pandas runs for np.mean and np.median), count as np.ma.count does (every row, NaN included), outliers in row
# order above then below. Tukey whiskers on float metrics only; anything else takes Superset's own path.
def _fast_boxplot(original):  # noqa: ANN001, ANN202
    def boxplot(df, groupby, metrics, whisker_type, percentiles=None):  # noqa: ANN001, ANN202 (Superset's signature)
        import numpy as np
        from pandas import DataFrame, to_numeric

        if str(getattr(whisker_type, "value", whisker_type)) != "tukey" or not groupby or not metrics:
            return original(df, groupby, metrics, whisker_type, percentiles)
        for column in metrics:  # as Superset does: nanpercentile needs numbers
            if df.dtypes[column] == np.object_:
                df[column] = to_numeric(df[column], errors="coerce")
        if any(df.dtypes[column] != np.float64 for column in metrics) or any(c not in df for c in groupby):
            return original(df, groupby, metrics, whisker_type, percentiles)
        grouped = df.groupby(by=groupby)
        sizes = grouped.size()  # one row per group, in the order of Superset's result (sorted keys)
        # rows of each group in their original order: group numbers (-1: a key is NaN, dropped as pandas does)
        codes = grouped.ngroup().to_numpy()
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(sizes) + 1))
        stats: dict[str, dict[str, list]] = {m: {k: [] for k in ("max", "min", "q1", "q3", "outliers")}
                                             for m in metrics}
        for group in range(len(sizes)):
            rows = order[bounds[group]:bounds[group + 1]]
            for metric in metrics:
                values = df[metric].to_numpy()[rows]
                q1 = np.nanpercentile(values, 25, method="midpoint")
                q3 = np.nanpercentile(values, 75, method="midpoint")
                high, low = q3 + 1.5 * (q3 - q1), q1 - 1.5 * (q3 - q1)
                inside_high, inside_low = values[values <= high], values[values >= low]
                whisker_high = inside_high.max() if inside_high.size else np.nan
                whisker_low = inside_low.min() if inside_low.size else np.nan
                s = stats[metric]
                s["max"].append(whisker_high)
                s["min"].append(whisker_low)
                s["q1"].append(q1)
                s["q3"].append(q3)
                s["outliers"].append(values[values > whisker_high].tolist() + values[values < whisker_low].tolist())
        columns: dict[str, object] = {}
        for name in ("mean", "median", "max", "min", "q1", "q3", "count", "outliers"):  # Superset's column order
            for metric in metrics:
                if name == "mean":
                    columns[f"{metric}__{name}"] = grouped[metric].mean().to_numpy()
                elif name == "median":
                    columns[f"{metric}__{name}"] = grouped[metric].median().to_numpy()
                elif name == "count":
                    columns[f"{metric}__{name}"] = sizes.to_numpy()
                else:
                    columns[f"{metric}__{name}"] = stats[metric][name]
        return DataFrame(columns, index=sizes.index).reset_index()

    boxplot.__wrapped__ = original
    return boxplot


# -- performance: time columns that already are timestamps are left as they are --------------------------
# After every query Superset 6.1 "normalises" each time column: it prints a sample as text to guess a format, tries
# fourteen formats on it, then runs pd.to_datetime over the column, which iterates it as Python Timestamps to decide
# on caching (py-spy: ~9 % of a time-series chart request). clickhouse-connect returns DateTime64 columns as
# datetime64 already, and pd.to_datetime hands such a column back unchanged whatever the format (checked in
# tests/integration/superset/test_config_in_superset.py); epoch formats and every other dtype keep Superset's path.
def _datetime_columns_kept(original):  # noqa: ANN001, ANN202
    def _process_datetime_column(df, col):  # noqa: ANN001, ANN202 (Superset's signature)
        from pandas import DatetimeTZDtype

        dtype = df[col.col_label].dtype
        already = isinstance(dtype, DatetimeTZDtype) or str(dtype) in (
            "datetime64[s]", "datetime64[ms]", "datetime64[us]", "datetime64[ns]")
        if already and col.timestamp_format not in ("epoch_s", "epoch_ms"):
            return None
        return original(df, col)

    _process_datetime_column.__wrapped__ = original
    return _process_datetime_column


# -- performance: one computation per identical chart query -------------------------------------------
# A dashboard opened from a link that carries filter values (native_filters_key) asks for every chart three
# times within ~2 s: Superset 6.1's Run filter ("select first value", requiredFirst) re-applies the linked
# value twice as its options arrive, and each time the page aborts the earlier requests -- which the server
# still computes to the end. Two viewers, or a reload meeting the 5 s refresh, ask for the same chart at once
# too. A query whose cache key is being computed waits for that computation, then reads its result from the
# chart-data cache (a directory both workers share), so each distinct query runs once. The lock is a file
# lock (flock: across threads and both worker processes), one of 4096 picked by the key's hash; forced
# queries (force=true, "refresh" in the UI) skip it as they skip the cache.
_INFLIGHT_LOCK_DIR = os.path.join(DATA_DIR, "cache", "inflight")
_INFLIGHT_STRIPES = 4096


@contextlib.contextmanager
def _one_at_a_time(cache_key: str) -> Iterator[None]:
    stripe = int(hashlib.sha256(cache_key.encode()).hexdigest()[:8], 16) % _INFLIGHT_STRIPES
    fd = os.open(os.path.join(_INFLIGHT_LOCK_DIR, f"{stripe:03x}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _deduplicated_df_payload(original):  # noqa: ANN001, ANN202
    def get_df_payload(self, query_obj, force_cached=False):  # noqa: ANN001, ANN202 (Superset's signature)
        if not query_obj or self._query_context.force:
            return original(self, query_obj, force_cached)
        query_obj.validate()  # as the original does before computing the key (it normalises the extras)
        cache_key = self.query_cache_key(query_obj)
        if not cache_key:
            return original(self, query_obj, force_cached)
        with _one_at_a_time(cache_key):
            return original(self, query_obj, force_cached)

    return get_df_payload


# -- performance: static assets cached whatever the session cookie --------------------------------------
# Superset's static files (/static/assets/*.js, hashed names, max-age one year) leave the app with "Vary: Cookie",
# as every response whose request touched the session. The browser keys its cache on the Cookie header then, so
# whenever the session cookie changes (login, a refreshed session) it fetches the dashboard's JavaScript again --
# its entry bundles (vendors.js alone is 1.7 MB), recompiled because a new response drops V8's code cache for
# them. Static files are the same for everyone: their responses vary on Accept-Encoding only.
class StaticAssetsVaryOnEncodingOnly:
    """WSGI middleware (ADDITIONAL_MIDDLEWARE): drops Cookie from the Vary header of /static/ responses."""

    def __init__(self, app):  # noqa: ANN001 (a WSGI app)
        self.app = app

    def __call__(self, environ, start_response):  # noqa: ANN001, ANN204 (WSGI signature)
        if not environ.get("PATH_INFO", "").startswith("/static/"):
            return self.app(environ, start_response)

        def start(status, headers, exc_info=None):  # noqa: ANN001, ANN202
            return start_response(status, _without_vary_cookie(headers), exc_info)

        return self.app(environ, start)


def _without_vary_cookie(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for name, value in headers:
        if name.lower() == "vary":
            value = ", ".join(v for v in (p.strip() for p in value.split(",")) if v and v.lower() != "cookie")
            if not value:
                continue
        out.append((name, value))
    return out


ADDITIONAL_MIDDLEWARE = [StaticAssetsVaryOnEncodingOnly]


def FLASK_APP_MUTATOR(app) -> None:  # noqa: N802, ANN001 (Superset's config hook)
    import importlib

    from clickhouse_connect.driver.client import Client as ClickHouseClient
    from superset.common.query_context_processor import QueryContextProcessor
    from superset.db_engine_specs.clickhouse import ClickHouseConnectEngineSpec

    ClickHouseConnectEngineSpec.get_default_schema = classmethod(_clickhouse_default_schema)
    ClickHouseClient._init_common_settings = _remembered_clickhouse_init(ClickHouseClient._init_common_settings)
    os.makedirs(_INFLIGHT_LOCK_DIR, exist_ok=True)
    QueryContextProcessor.get_df_payload = _deduplicated_df_payload(QueryContextProcessor.get_df_payload)
    # The package re-exports functions named like its modules (pivot, aggregate): fetch the modules themselves.
    modules = [importlib.import_module(f"superset.utils.pandas_postprocessing.{m}") for m in ("utils", "pivot", "aggregate")]
    fast = _fast_aggregate_funcs(modules[0]._get_aggregate_funcs)
    for module in modules:  # pivot and aggregate imported the function by name
        module._get_aggregate_funcs = fast
    # core.normalize_dttm_col looks the function up in its module at run time
    import superset.utils.core as superset_core
    from clickhouse_connect.cc_sqlalchemy.dialect import ClickHouseDialect

    superset_core._process_datetime_column = _datetime_columns_kept(superset_core._process_datetime_column)
    ClickHouseDialect._get_default_schema_name = _url_default_schema(ClickHouseDialect._get_default_schema_name)
    # query_object.py looks each operation up on the package at run time
    postprocessing = importlib.import_module("superset.utils.pandas_postprocessing")
    postprocessing.boxplot = _fast_boxplot(postprocessing.boxplot)


# -- logging ---------------------------------------------------------------------------------------
# gunicorn sends stdout/stderr to .ioscale/logs/superset.log; INFO keeps start-up and errors visible.
LOG_LEVEL = logging.INFO


class _DropMissingSpinnerWarning(logging.Filter):
    """6.1.0's wheel looks for its spinner SVG in the source tree it was built from and warns on
    every page view; the page falls back to the bundled spinner, so the warning is only noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "default spinner SVG" not in record.getMessage()


logging.getLogger("superset.views.base").addFilter(_DropMissingSpinnerWarning())
