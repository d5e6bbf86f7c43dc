"""Superset configuration for the ioscale local stack: one local user, SQLite metadata, no phone-home.

Loaded by Superset through ``SUPERSET_CONFIG_PATH``; everything it overrides is listed here.
The launcher (``ioscale.stack.superset``) sets these environment variables; there are no defaults
for secrets, so a missing variable stops Superset at start-up instead of running with a known key:

    SUPERSET_SECRET_KEY          signs sessions and encrypts stored database passwords (secrets.env)
    IOSCALE_SUPERSET_DATA_DIR    state directory: SQLite metadata DB, uploads (<home>/data/superset)

Pinned for apache-superset==6.1.0 (see requirements.lock next to this file).
"""

from __future__ import annotations

import logging
import os
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
    "DASHBOARD_VIRTUALIZATION": True,
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
    # The ioscale alerts (superset/alerts/, applied by `python -m ioscale.stack.superset_alerts`) notify by
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
# In-process caches: nothing to run beside Superset. Chart data is cached for 5 s only, so a
# dashboard refreshing every 5 s shows new samples while repeated loads within a refresh are cheap.
# Filter state and explore form data keep the default metastore cache: it lives in the metadata DB
# and is therefore shared by all gunicorn workers (a per-process cache would lose permalinks).
CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 300, "CACHE_KEY_PREFIX": "ioscale_"}
DATA_CACHE_CONFIG = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 5, "CACHE_KEY_PREFIX": "ioscale_data_"}

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

# -- performance: no connection just to learn the default schema -----------------------------------
# For every chart query on a virtual dataset, Superset 6.1 asks the engine spec twice for the database's
# default schema (RLS checks: Database.get_default_schema), and the base implementation opens a connection
# and an inspector for it. With clickhouse-connect every new connection costs 3-4 server round trips
# (version, system.settings, protocol probe): two of the three connections a chart query made, ~60 of its
# ~140 ms here. A ClickHouse URI names its database, which is the default schema: answer from the URI.
def _clickhouse_default_schema(cls, database, catalog):  # noqa: ANN001, ANN202 (classmethod signature)
    from sqlalchemy.engine.url import make_url

    return make_url(database.sqlalchemy_uri_decrypted).database or "default"


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


def FLASK_APP_MUTATOR(app) -> None:  # noqa: N802, ANN001 (Superset's config hook)
    import importlib

    from superset.db_engine_specs.clickhouse import ClickHouseConnectEngineSpec

    ClickHouseConnectEngineSpec.get_default_schema = classmethod(_clickhouse_default_schema)
    # The package re-exports functions named like its modules (pivot, aggregate): fetch the modules themselves.
    modules = [importlib.import_module(f"superset.utils.pandas_postprocessing.{m}") for m in ("utils", "pivot", "aggregate")]
    fast = _fast_aggregate_funcs(modules[0]._get_aggregate_funcs)
    for module in modules:  # pivot and aggregate imported the function by name
        module._get_aggregate_funcs = fast


# -- logging ---------------------------------------------------------------------------------------
# gunicorn sends stdout/stderr to .ioscale/logs/superset.log; INFO keeps start-up and errors visible.
LOG_LEVEL = logging.INFO


class _DropMissingSpinnerWarning(logging.Filter):
    """6.1.0's wheel looks for its spinner SVG in the source tree it was built from and warns on
    every page view; the page falls back to the bundled spinner, so the warning is only noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "default spinner SVG" not in record.getMessage()


logging.getLogger("superset.views.base").addFilter(_DropMissingSpinnerWarning())
