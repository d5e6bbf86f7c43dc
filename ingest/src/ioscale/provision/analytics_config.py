"""The analytics job's tunables on the local stack: QoS objectives, saturation thresholds, steady state, lateness.

They live in ``<home>/analytics.conf`` (``key = value`` lines, ``#`` comments), so they hold for every later
``ioscale stack up`` instead of being lost with an environment variable. ``ioscale config`` shows and edits the
file; ``ioscale stack up`` passes the values to the job as ``--key value`` and, when they differ from what the
running job was started with, redeploys it from a savepoint (``FlinkJobs.configure``).

Values are checked here, before anything is deployed, so a typo is reported by ``ioscale config`` with the key
and the reason rather than by a failed job submission. The job validates them again (it is the authority for
``saturation`` and ``steady-state``, whose keys are listed in its SaturationConfig and SteadyStateConfig).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Callable

from ioscale.errors import ConfigError

FILE_NAME = "analytics.conf"

_DURATION = re.compile(r"^\s*\d+\s*(ms|s|min|h)\s*$")
_KEY_VALUES = re.compile(r"^\s*[a-z][a-z0-9-]*\s*=\s*[^,=]+(\s*,\s*[a-z][a-z0-9-]*\s*=\s*[^,=]+)*\s*$")
_SLO_OBJECTIVE = re.compile(r"^\s*(mean|avg|max|p(?P<pct>[0-9]+(?:\.[0-9]+)?))\s*(<=|<)\s*"
                            r"(?P<bound>[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?P<unit>ns|us|µs|μs|ms|s)\s*$",
                            re.IGNORECASE)
LOAD_AXES = ("total-outstanding", "vm-count", "workers", "queue-depth", "step")


def check_slo(value: str) -> None:
    """The job's SloEvaluator grammar: ``statistic < number unit`` separated by ``,`` or ``;``, or ``none``."""
    if value.strip().lower() == "none":
        return
    for part in re.split(r"[,;]", value):
        m = _SLO_OBJECTIVE.match(part)
        if not m:
            raise ValueError(f"objective {part.strip()!r} is not '<mean|max|pNN> < <number><ns|us|ms|s>' "
                             "(e.g. 'p99.999 < 2 ms')")
        if m.group("pct") is not None and not Decimal(0) < Decimal(m.group("pct")) < Decimal(100):
            raise ValueError(f"percentile in {part.strip()!r} is not in (0, 100)")
        if not float(m.group("bound")) > 0:
            raise ValueError(f"bound in {part.strip()!r} must be > 0")


def _check_duration(value: str) -> None:
    if not _DURATION.match(value):
        raise ValueError(f"{value!r} is not a duration such as '500 ms', '30 s' or '2 min'")


def _check_key_values(value: str) -> None:
    if value.strip() and not _KEY_VALUES.match(value):
        raise ValueError(f"{value!r} is not a list of key=value separated by commas")


def _check_load_axis(value: str) -> None:
    if value not in LOAD_AXES:
        raise ValueError(f"{value!r} is not one of {', '.join(LOAD_AXES)}")


def _check_parallelism(value: str) -> None:
    try:
        ok = int(value) >= 0
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{value!r} is not a whole number >= 0 (0: the cluster's default)")


@dataclass(frozen=True)
class Tunable:
    key: str  # the job's option name (AnalyticsOptions), passed as --key
    meaning: str
    check: Callable[[str], None]


TUNABLES: dict[str, Tunable] = {t.key: t for t in (
    Tunable("slo", "latency objectives raising SLO-breach alerts, e.g. 'p99 < 1 ms, p99.999 < 2 ms'; "
                   "'none' disables them (job default: 'p99 < 10 ms, p99.999 < 50 ms')", check_slo),
    Tunable("saturation", "saturation thresholds, key=value,... e.g. 'port-utilization-pct=90,cpu-utilization-pct=85' "
                          "(keys: metric, marginal-gain-ratio, min-efficiency, min-latency-growth-pct, "
                          "port-utilization-pct, cpu-utilization-pct, littles-law-tolerance)", _check_key_values),
    Tunable("steady-state", "how a step's steady state is chosen, key=value,... (see SteadyStateConfig)",
            _check_key_values),
    Tunable("load-axis", f"x of the scaling curve: {', '.join(LOAD_AXES)}", _check_load_axis),
    Tunable("allowed-lateness", "records this late still update their window (default 10 s)", _check_duration),
    Tunable("out-of-orderness", "watermark delay behind the newest event time per partition (default 2 s)",
            _check_duration),
    Tunable("idleness", "a silent partition stops holding the watermark back after this (default 10 s)",
            _check_duration),
    Tunable("max-ahead", "records stamped further ahead of the wall clock are counted, not analysed (default 1 min)",
            _check_duration),
    Tunable("early-fire-delay", "live rollup rows are emitted this long after their window ends, before the "
                                "watermark closes it, and updated as late samples arrive; '0 ms' = off (default 200 ms)",
            _check_duration),
    Tunable("checkpoint-interval", "how often the job checkpoints its windows and Kafka offsets: a restart "
                                   "replays at most this much (default 30 s)", _check_duration),
    Tunable("sink-flush-interval", "longest a result row waits before its ClickHouse insert (default 200 ms)",
            _check_duration),
    Tunable("parallelism", "operator parallelism; 0 = the cluster's default", _check_parallelism),
)}


def config_path(home: Path) -> Path:
    return home / FILE_NAME


def require_known(key: str) -> None:
    if key not in TUNABLES:
        raise ConfigError(f"unknown analytics setting {key!r}; known: {', '.join(TUNABLES)}")


def check(key: str, value: str) -> None:
    """Raise ConfigError naming ``key`` when it is unknown or ``value`` is not valid for it."""
    require_known(key)
    try:
        TUNABLES[key].check(value)
    except (ValueError, InvalidOperation) as e:
        raise ConfigError(f"analytics setting {key}: {e}") from None


def parse(text: str, source: str = FILE_NAME) -> dict[str, str]:
    values: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ConfigError(f"{source}:{n}: expected 'key = value', got {line!r}")
        key, value = key.strip(), value.strip()
        try:
            check(key, value)
        except ConfigError as e:
            raise ConfigError(f"{source}:{n}: {e}") from None
        values[key] = value
    return values


def load(home: Path) -> dict[str, str]:
    """The settings in ``<home>/analytics.conf`` (empty when there is none), validated."""
    path = config_path(home)
    return parse(path.read_text(), str(path)) if path.exists() else {}


def save(home: Path, values: dict[str, str]) -> Path:
    """Write ``values`` (validated) to ``<home>/analytics.conf``, in the order TUNABLES lists them."""
    for key, value in values.items():
        check(key, value)
    lines = ["# ioscale analytics job settings: edit with `ioscale config KEY=VALUE`, apply with `ioscale stack up`"]
    lines += [f"{key} = {values[key]}" for key in TUNABLES if key in values]
    path = config_path(home)
    home.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)
    return path


def program_args(values: dict[str, str]) -> tuple[str, ...]:
    """``--key value`` pairs for the job, in TUNABLES order (stable, so an unchanged file means unchanged args)."""
    return tuple(arg for key in TUNABLES if key in values for arg in (f"--{key}", values[key]))
