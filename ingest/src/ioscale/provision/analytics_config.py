"""The analytics job's tunables on the local stack: QoS objectives, saturation thresholds, steady state, lateness.

They live in ``<home>/analytics.conf`` (``key = value`` lines, ``#`` comments), so they hold for every later
``ioscale stack up`` instead of being lost with an environment variable. ``ioscale config`` shows and edits the
file; ``ioscale stack up`` passes the values to the job as ``--key value`` and, when they differ from what the
running job was started with, redeploys it from a savepoint (``FlinkJobs.configure``). Where there is no such file
(compose's ``ioscale admin submit-jobs``), the same keys come from ``IOSCALE_<KEY>`` variables (``from_env``).

Values are checked here, before anything is deployed, so a typo is reported by ``ioscale config`` with the key
and the reason rather than by a failed job submission. The job validates them again (it is the authority for
``saturation`` and ``steady-state``, whose keys it lists with the rest).

What each option is (type, default, allowed values, meaning) is read from the job's own description,
``schema/analytics_options.json`` (written from the job's AnalyticsOptions and kept current by its tests), not
retyped here; this module only chooses which options ``ioscale config`` manages.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping

from ioscale.errors import ConfigError
from ioscale.paths import repo_root

FILE_NAME = "analytics.conf"

_DURATION = re.compile(r"^\s*\d+\s*(ms|s|min|h)\s*$")
_KEY_VALUES = re.compile(r"^\s*[a-z][a-z0-9-]*\s*=\s*[^,=]+(\s*,\s*[a-z][a-z0-9-]*\s*=\s*[^,=]+)*\s*$")
_SLO_OBJECTIVE = re.compile(r"^\s*(mean|avg|max|p(?P<pct>[0-9]+(?:\.[0-9]+)?))\s*(<=|<)\s*"
                            r"(?P<bound>[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?P<unit>ns|us|µs|μs|ms|s)\s*$",
                            re.IGNORECASE)
OPTIONS_FILE = Path("schema") / "analytics_options.json"


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


def _check_allowed(allowed: tuple[str, ...], value: str) -> None:
    if value not in allowed:
        raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")


def _check_integer(minimum: int, value: str) -> None:
    try:
        ok = int(value) >= minimum
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{value!r} is not a whole number >= {minimum}")


def _job_options() -> dict[str, dict[str, Any]]:
    """The job's options by name, from schema/analytics_options.json of the checkout this module is in."""
    path = repo_root() / OPTIONS_FILE
    if not path.is_file():
        raise ConfigError(f"cannot find {path}; set IOSCALE_REPO to the ioscale checkout")
    return {o["name"]: o for o in json.loads(path.read_text(encoding="utf-8"))["options"]}


def _check_for(option: dict[str, Any]) -> Callable[[str], None]:
    if option.get("allowed"):
        return partial(_check_allowed, tuple(option["allowed"]))
    checks: dict[str, Callable[[str], None]] = {"slo": check_slo, "duration": _check_duration,
                                                 "key-values": _check_key_values}
    if option["type"] == "integer":
        return partial(_check_integer, option.get("minimum", -2**63))
    return checks[option["type"]]


def _meaning(option: dict[str, Any]) -> str:
    parts = [option["description"]]
    if option.get("allowed"):
        parts.append(f"One of: {', '.join(option['allowed'])}.")
    if option.get("keys"):
        parts.append(f"Keys: {', '.join(k['name'] for k in option['keys'])}.")
    if option.get("default") not in (None, ""):
        parts.append(f"Job default: {option['default']}.")
    return " ".join(parts)


@dataclass(frozen=True)
class Tunable:
    key: str  # the job's option name, passed as --key
    meaning: str
    check: Callable[[str], None]


_JOB_OPTIONS = _job_options()
#: The job's options that ``ioscale config`` manages, in the order it shows and writes them.
TUNABLES: dict[str, Tunable] = {
    key: Tunable(key, _meaning(_JOB_OPTIONS[key]), _check_for(_JOB_OPTIONS[key])) for key in (
        "slo", "saturation", "steady-state", "load-axis", "allowed-lateness", "step-close-idle", "out-of-orderness",
        "idleness", "max-ahead", "early-fire-delay", "checkpoint-interval", "sink-flush-interval", "parallelism")}
LOAD_AXES: tuple[str, ...] = tuple(_JOB_OPTIONS["load-axis"]["allowed"])


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


def env_name(key: str) -> str:
    """The variable that sets ``key`` where there is no analytics.conf (compose): ``slo`` -> IOSCALE_SLO."""
    return "IOSCALE_" + key.upper().replace("-", "_")


def from_env(env: Mapping[str, str]) -> dict[str, str]:
    """The settings given as ``IOSCALE_<KEY>`` variables (an empty one: the job's default), validated."""
    values = {key: env[env_name(key)].strip() for key in TUNABLES if env.get(env_name(key), "").strip()}
    for key, value in values.items():
        try:
            check(key, value)
        except ConfigError as e:
            raise ConfigError(f"{env_name(key)}: {e}") from None
    return values


def program_args(values: dict[str, str]) -> tuple[str, ...]:
    """``--key value`` pairs for the job, in TUNABLES order (stable, so an unchanged file means unchanged args)."""
    return tuple(arg for key in TUNABLES if key in values for arg in (f"--{key}", values[key]))
