"""The container variant of the `stack` fixture: docker-compose.yml + docker-compose.local.yml, from the images
built on this machine, brought up with testcontainers-python's DockerCompose (`docker compose`, the v2 plugin
scripts/docker-engine.sh install builds) on the project's own engine.

scripts/test-containers.sh runs the tests that take a `stack` with IOSCALE_STACK=containers; without an engine or
the images every such test skips, saying which command makes them.

One compose project per session under a name of its own (label com.docker.compose.project) on free ports, never
the local stack's, with passwords made for it (an env file, 0600). Ready means: the one-shot services exited 0,
both Flink jobs RUNNING, Superset healthy. Start time and memory per service (docker stats) go to
tests/artifacts/docker-compose-<profile>.json and the test output. `down -v` and a removal of whatever still carries the
project's label run whatever happened; what a killed session left (its teardown never ran) is removed by the next
session's start and by scripts/test-containers.sh on exit (`python tests/integration/containers.py --remove`).

IOSCALE_COMPOSE_PROFILE=multinode adds docker-compose.multinode.yml (three Kafka brokers, two TaskManagers) and
brings up the pipeline only (Superset is the same in both and the multinode tests do not use it); the default,
unset, is the single-node topology above. Each test module takes the project with `compose_of`, which skips
the checks of the other profile.
"""

from __future__ import annotations

import json
import os
import resource
import secrets as pysecrets
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import requests

from endpoints import StackEndpoints, from_settings
from isolation import PREFIX, unique

from ioscale.paths import write_private
from ioscale.stack.docker_engine import COMPOSE_VERSION, Engine, compose_version
from ioscale.stack.flink import JOB_NAMES
from ioscale.stack.images import BASE_IMAGE, RECIPES
from ioscale.stack.settings import DEFAULT_PORTS, SECRET_NAMES, StackSettings

REPO = Path(__file__).resolve().parents[2]
PROJECT_PREFIX = f"ioscale-{PREFIX}"  # ContainerStack's project names: isolation.unique's under "ioscale-"
FILES = ["docker-compose.yml", "docker-compose.local.yml"]
PUBLISHED = ("kafka", "registry", "clickhouse_http", "clickhouse_tcp", "flink", "superset")
PROJECT_LABEL = "com.docker.compose.project"
ONE_SHOT = ("ioscale-init", "stream-jobs-build", "flink-data-init", "superset-init", "flink-job-submit")
READY_TIMEOUT_S = 900  # a first start builds the job jar in a container (Maven fetches its dependencies)
ARTIFACTS = REPO / "tests" / "artifacts"
SCRIPT = "scripts/test-containers.sh"
PROFILE_ENV = "IOSCALE_COMPOSE_PROFILE"


@dataclass(frozen=True)
class Profile:
    """A topology: the compose files added to FILES, the extra host ports (name -> variable), the services `up`
    starts with their dependencies (None: all) and where the measurements go."""

    name: str
    files: tuple[str, ...] = ()
    ports: tuple[tuple[str, str], ...] = ()
    services: tuple[str, ...] | None = None

    @property
    def artifact(self) -> Path:
        return ARTIFACTS / f"docker-compose-{self.name}.json"


PROFILES = {p.name: p for p in (
    Profile("local"),
    Profile("multinode", files=("docker-compose.multinode.yml",),
            ports=(("kafka_2", "IOSCALE_KAFKA_PORT_2"), ("kafka_3", "IOSCALE_KAFKA_PORT_3")),
            services=("kafka", "kafka-2", "kafka-3", "schema-registry", "clickhouse", "flink-taskmanager",
                      "flink-job-submit")),
)}


def profile() -> Profile:
    name = os.environ.get(PROFILE_ENV, "") or "local"
    if name not in PROFILES:
        raise ValueError(f"{PROFILE_ENV}={name!r}: known profiles are {', '.join(PROFILES)}")
    return PROFILES[name]


def wanted() -> bool:
    return os.environ.get("IOSCALE_STACK", "local") == "containers"


def skip_reason(engine: Engine) -> str | None:
    """Why the container stack cannot start here (None: it can)."""
    if compose_version(engine) != COMPOSE_VERSION.lstrip("v"):
        return f"no docker compose {COMPOSE_VERSION} plugin under {engine.config_dir}: run {SCRIPT}"
    r = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], env=engine.env(),
                       capture_output=True, timeout=30)
    if r.returncode != 0:
        return f"no Docker engine answers at {engine.host}: run {SCRIPT} (it starts and stops one)"
    missing = [t for t in [BASE_IMAGE] + [rc.tag for rc in RECIPES]
               if subprocess.run(["docker", "image", "inspect", t], env=engine.env(), capture_output=True).returncode]
    if missing:
        return f"images not built here: {', '.join(missing)}; run {SCRIPT}"
    return None


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def until(what: str, check: Callable[[], object], timeout_s: float, interval_s: float = 3.0):
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (requests.RequestException, ValueError, KeyError, subprocess.SubprocessError, RuntimeError) as e:
            # RuntimeError: testcontainers' ContainerIsNotRunning, while a service is not created yet
            last = e
        time.sleep(interval_s)
    raise AssertionError(f"{what}: not within {timeout_s:.0f}s (last: {last!r})")


def mem_mib(text: str) -> float:
    """docker stats' "436.2MiB / 1.5GiB" -> 436.2."""
    value = text.split("/")[0].strip()
    for unit, mult in (("GiB", 1024), ("MiB", 1), ("KiB", 1 / 1024), ("B", 1 / 2**20)):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * mult
    raise ValueError(text)


class ContainerStack:
    """One compose project: its names, ports and passwords, and the testcontainers handle that runs it."""

    def __init__(self, engine: Engine, tmp: Path, topology: Profile = PROFILES["local"]):
        from testcontainers.compose import DockerCompose

        self.engine = engine
        self.profile = topology
        self.project = f"ioscale-{unique('compose')}"
        assert self.project.startswith(PROJECT_PREFIX)
        extra = dict(topology.ports)
        ports = dict(zip([*PUBLISHED, *extra], _free_ports(len(PUBLISHED) + len(extra))))
        self.ports = {k: ports[k] for k in PUBLISHED}
        self.extra_ports = {k: ports[k] for k in extra}
        self.secrets = {n: pysecrets.token_urlsafe(18) for n in SECRET_NAMES}
        self.env_file = tmp / "compose.env"
        values = {**self.secrets, **{f"IOSCALE_{k.upper()}_PORT": str(p) for k, p in self.ports.items()},
                  **{extra[k]: str(p) for k, p in self.extra_ports.items()},
                  # An engine whose own open-files limit is lower cannot give ClickHouse 262144.
                  "IOSCALE_CLICKHOUSE_NOFILE": str(min(262144, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))}
        write_private(self.env_file, "".join(f"{k}={v}\n" for k, v in values.items()))
        # DockerCompose runs `docker compose` with this process's environment: the variables it must see.
        # No Ryuk reaper: its image cannot be pulled here; remove() cleans up by the project's label instead.
        self.variables = {**engine.variables(), "COMPOSE_PROJECT_NAME": self.project,
                          "TESTCONTAINERS_RYUK_DISABLED": "true"}
        self.env_names = list(values)
        self.compose = DockerCompose(context=str(REPO), compose_file_name=[*FILES, *topology.files],
                                     env_file=str(self.env_file), wait=False, pull=False, build=False,
                                     services=list(topology.services) if topology.services else None)
        self.measured: dict = {"project": self.project, "profile": topology.name}
        # The tools on the host reach the compose services through these settings (nothing of the local stack).
        settings = StackSettings(home=tmp, repo=REPO, ports={**DEFAULT_PORTS, **self.ports})
        endpoints = from_settings(settings, self.secrets, True, containers=self)
        if self.extra_ports:
            # Every broker: a client on the host then starts even while the first one is down.
            brokers = [endpoints.kafka_bootstrap] + [f"{settings.host}:{p}" for k, p in self.extra_ports.items()
                                                     if k.startswith("kafka_")]
            endpoints = replace(endpoints, kafka_bootstrap=",".join(brokers))
        self.endpoints = endpoints

    def docker(self, *args: str) -> str:
        return docker(self.engine, *args)

    def container_ids(self, service: str) -> list[str]:
        """The ids of the service's containers (a scaled one has several), running or not, in replica order."""
        lines = self.docker("ps", "-a", "--filter", f"label={PROJECT_LABEL}={self.project}", "--filter",
                            f"label=com.docker.compose.service={service}", "--format",
                            '{{.Label "com.docker.compose.container-number"}} {{.ID}}').splitlines()
        return [line.split()[1] for line in sorted(lines, key=lambda line: int(line.split()[0]))]

    def state(self, service: str) -> tuple[str, int, str]:
        """(status, exit code, health) of the service's container, also once it exited."""
        c = self.compose.get_container(service, include_all=True)
        out = self.docker("inspect", "--format",
                          "{{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{end}}",
                          c.ID)
        status, code, *health = out.split()
        return status, int(code), (health or [""])[0]

    def rerun(self, service: str, timeout_s: float = 300) -> tuple[int, str]:
        """Start a one-shot service's exited container again, as the next `up` would; (exit code, its output)."""
        c = self.compose.get_container(service, include_all=True)
        r = subprocess.run(["docker", "start", "-a", c.ID], env=self.engine.env(), capture_output=True, text=True,
                           timeout=timeout_s)
        return r.returncode, r.stdout + r.stderr

    def start(self) -> None:
        t0 = time.monotonic()
        self.compose.start()  # up --detach
        self.measured["up_returned_s"] = round(time.monotonic() - t0, 1)
        until("flink-job-submit exits 0", lambda: self.state("flink-job-submit")[:2] == ("exited", 0),
              READY_TIMEOUT_S)
        flink = self.endpoints.flink_url
        until("both Flink jobs RUNNING", lambda: {j["name"] for j in requests.get(
            f"{flink}/jobs/overview", timeout=10).json()["jobs"] if j["state"] == "RUNNING"} >= set(JOB_NAMES),
            READY_TIMEOUT_S)
        if self.profile.services is None or "superset" in self.profile.services:
            until("superset healthy", lambda: self.state("superset")[2] == "healthy", READY_TIMEOUT_S)
        self.measured["ready_s"] = round(time.monotonic() - t0, 1)

    def record(self) -> None:
        stats = self.docker("stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}")
        # compose v2 names containers <project>-<service>-<n>: the service's name, with <n> for a scaled one's
        used = {name.removeprefix(self.project + "-"): round(mem_mib(usage))
                for name, usage in (line.split("\t") for line in stats.splitlines()) if name.startswith(self.project)}
        services = [n.rsplit("-", 1)[0] for n in used]
        self.measured["memory_mib"] = {n if services.count(n.rsplit("-", 1)[0]) > 1 else n.rsplit("-", 1)[0]: mib
                                       for n, mib in used.items()}
        self.profile.artifact.parent.mkdir(parents=True, exist_ok=True)
        self.profile.artifact.write_text(json.dumps(self.measured, indent=1))
        print(f"\ncompose measured: {json.dumps(self.measured)}")

    def remove(self) -> list[str]:
        """down -v, then whatever still carries the project's label; returns what was left after that."""
        try:
            self.compose.stop(down=True)
        except subprocess.CalledProcessError:
            pass  # the label sweep below removes what down could not
        remove_test_projects(self.engine, prefix=self.project)
        return self.docker("ps", "-aq", "--filter", f"label={PROJECT_LABEL}={self.project}").split()


def docker(engine: Engine, *args: str, timeout_s: float = 300) -> str:
    """``docker ARGS`` on the project's engine; its standard output."""
    return subprocess.run(["docker", *args], env=engine.env(), capture_output=True, text=True,
                          timeout=timeout_s).stdout


def remove_test_projects(engine: Engine, prefix: str = PROJECT_PREFIX) -> list[str]:
    """Remove every container, volume and network of the compose projects whose name starts with ``prefix`` (by
    label; by default every test project, a ContainerStack's own name for one); returns the projects."""
    found: dict[str, set[str]] = {}
    for kind, fmt in (("container", "{{.ID}}"), ("volume", "{{.Name}}"), ("network", "{{.ID}}")):
        lines = docker(engine, kind, "ls", "-a" if kind == "container" else "-q", "--filter", f"label={PROJECT_LABEL}",
                       "--format", f'{fmt} {{{{.Label "{PROJECT_LABEL}"}}}}')
        for line in lines.splitlines():
            ident, _, project = line.partition(" ")
            if project.startswith(prefix):
                found.setdefault(kind, set()).add(ident)
                found.setdefault("project", set()).add(project)
    if found.get("container"):
        docker(engine, "rm", "-f", "-v", *sorted(found["container"]))
    for kind in ("volume", "network"):
        if found.get(kind):
            docker(engine, kind, "rm", *sorted(found[kind]))
    return sorted(found.get("project", ()))


@contextmanager
def container_stack(tmp: Path) -> Iterator[StackEndpoints]:
    """The whole topology in containers for one test session; removed whatever happens."""
    import pytest

    engine = Engine(StackSettings.from_env())
    reason = skip_reason(engine)
    if reason:
        pytest.skip(reason)
    left = remove_test_projects(engine)
    if left:
        print(f"removed what earlier test sessions left: {', '.join(left)}")
    cs = ContainerStack(engine, tmp, profile())
    with pytest.MonkeyPatch.context() as mp:
        # Compose reads the env file, but a variable set in the environment wins over it: drop the developer's.
        for k in [k for k in os.environ if k.startswith("IOSCALE_") and k.endswith("_PORT") or k in cs.env_names]:
            mp.delenv(k)
        for k, v in cs.variables.items():
            mp.setenv(k, v)
        try:
            cs.start()
            yield cs.endpoints
        finally:
            try:
                cs.record()
            finally:
                left = cs.remove()
                assert not left, f"containers of {cs.project} left after removal: {left}"


def compose_of(stack: StackEndpoints, name: str) -> ContainerStack:
    """The session's compose project when it runs the profile ``name``; otherwise the calling test skips, saying
    how to run it."""
    import pytest

    cs = stack.containers
    if cs is None or cs.profile.name != name:
        how = f"{PROFILE_ENV}={name} " if name != "local" else ""
        pytest.skip(f"checks of the {name} compose topology: run {how}{SCRIPT} (IOSCALE_STACK=containers)")
    return cs


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--remove"]:
        sys.exit("usage: containers.py --remove   (removes every test compose project left on the project's engine)")
    removed = remove_test_projects(Engine(StackSettings.from_env()))
    print(f"removed test compose projects: {', '.join(removed) or 'none'}")
