"""Where the local stack lives and how it is reached: state directory, ports, generated credentials.

Precedence, highest first: environment variables (``IOSCALE_HOME``, ``IOSCALE_HOST``,
``IOSCALE_<SERVICE>_PORT``), then the defaults below. Unknown ``IOSCALE_*_PORT`` variables are
rejected so a typo never silently starts a service on the default port.

Everything the stack writes (installed artifacts, data, logs, PID files, secrets) lives under one
state directory, by default ``<checkout>/.ioscale`` (gitignored).
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ioscale.errors import ConfigError

#: Default TCP ports, one per listening socket. Names are what ``IOSCALE_<NAME>_PORT`` overrides.
DEFAULT_PORTS: dict[str, int] = {
    "kafka": 9092,
    "kafka_controller": 9093,
    "registry": 8081,
    "clickhouse_http": 8123,
    "clickhouse_tcp": 9000,
    "flink": 8082,
    "flink_rpc": 6123,
    "superset": 8088,
}

#: Generated once on first ``stack up`` into ``secrets.env``; never shipped, never in git.
SECRET_NAMES = (
    "CLICKHOUSE_ADMIN_PASSWORD",
    "CLICKHOUSE_INGEST_PASSWORD",
    "CLICKHOUSE_FLINK_PASSWORD",
    "CLICKHOUSE_READER_PASSWORD",
    "SUPERSET_ADMIN_PASSWORD",
    "SUPERSET_SECRET_KEY",
)

#: ClickHouse accounts: admin (DDL), ingest writer, Flink writer, read-only analyst/dashboards.
CLICKHOUSE_USERS = {
    "admin": "ioscale_admin",
    "ingest": "ioscale_ingest",
    "flink": "ioscale_flink",
    "reader": "ioscale_reader",
}
SUPERSET_ADMIN_USER = "admin"


def repo_root() -> Path:
    """The checkout this package was installed from (editable install), found by its marker files."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "stream-jobs").is_dir() and (parent / "ingest").is_dir():
            return parent
    env = os.environ.get("IOSCALE_REPO")
    if env:
        return Path(env)
    raise ConfigError("cannot find the ioscale checkout; set IOSCALE_REPO to its path")


@dataclass(frozen=True)
class StackSettings:
    home: Path
    repo: Path
    host: str = "127.0.0.1"
    ports: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PORTS))

    # Derived locations; one folder per concern so `rm -rf data/<svc>` resets one service.
    @property
    def dist_dir(self) -> Path:
        return self.home / "dist"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def secrets_file(self) -> Path:
        return self.home / "secrets.env"

    @property
    def venv_python(self) -> Path:
        return self.home / "venv" / "bin" / "python"

    def port(self, name: str) -> int:
        return self.ports[name]

    def url(self, port_name: str, scheme: str = "http") -> str:
        return f"{scheme}://{self.host}:{self.ports[port_name]}"

    @property
    def kafka_bootstrap(self) -> str:
        return f"{self.host}:{self.ports['kafka']}"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "StackSettings":
        env = dict(os.environ if env is None else env)
        repo = Path(env["IOSCALE_REPO"]) if env.get("IOSCALE_REPO") else repo_root()
        home = Path(env.get("IOSCALE_HOME") or repo / ".ioscale").resolve()
        ports = dict(DEFAULT_PORTS)
        for key, value in env.items():
            if not (key.startswith("IOSCALE_") and key.endswith("_PORT")):
                continue
            name = key[len("IOSCALE_"):-len("_PORT")].lower()
            if name not in ports:
                known = ", ".join(f"IOSCALE_{n.upper()}_PORT" for n in DEFAULT_PORTS)
                raise ConfigError(f"unknown setting {key}; known port settings: {known}")
            try:
                port = int(value)
            except ValueError:
                raise ConfigError(f"{key}={value!r} is not a port number") from None
            if not 1 <= port <= 65535:
                raise ConfigError(f"{key}={port} is outside 1-65535")
            ports[name] = port
        dupes = {p for p in ports.values() if list(ports.values()).count(p) > 1}
        if dupes:
            raise ConfigError(f"two services share port(s) {sorted(dupes)}; change one IOSCALE_*_PORT")
        host = env.get("IOSCALE_HOST", "127.0.0.1")
        return cls(home=home, repo=repo, host=host, ports=ports)


def load_secrets(settings: StackSettings, create: bool = False) -> dict[str, str]:
    """Read ``secrets.env``; with ``create``, generate any missing secret (mode 0600)."""
    path = settings.secrets_file
    values: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                values[k.strip()] = v.strip()
    missing = [n for n in SECRET_NAMES if not values.get(n)]
    if missing and create:
        for name in missing:
            values[name] = secrets.token_urlsafe(24)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(
            "# Generated by `ioscale stack up`. Local credentials; keep out of git.\n"
            + "".join(f"{k}={values[k]}\n" for k in SECRET_NAMES)
        )
        tmp.chmod(stat.S_IRUSR | stat.S_IWUSR)
        tmp.replace(path)
    elif missing:
        raise ConfigError(f"{path} lacks {', '.join(missing)}; run `ioscale stack up` first")
    return values
