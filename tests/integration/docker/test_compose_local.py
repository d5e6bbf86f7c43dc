"""docker-compose.yml + docker-compose.local.yml, from the images built here, run the whole pipeline.

Opt-in (not part of `make test` yet): IOSCALE_DOCKER_TESTS=1, an engine (scripts/docker-engine.sh start; DOCKER_HOST
or the project's own socket) and the images (scripts/docker-images.sh). Otherwise every test skips, saying which.

One compose project per session, under a name of its own and on free ports (never the local stack's), brought up
with every service; then: topics, schemas, migrations, both Flink jobs RUNNING with completed checkpoints (the
flink-data volume is writable), Superset healthy with its dashboards, and a simulated sweep through to a
scaling-curve row for every step (the jar has its Avro schemas). Start time and memory per service (docker stats)
go to tests/artifacts/docker-compose-local.json and the test output. `down -v` and a removal by the project's
label run whatever happened.
"""

from __future__ import annotations

import json
import os
import resource
import secrets as pysecrets
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from endpoints import from_settings
from isolation import unique
from ioscale.stack.docker_engine import Engine
from ioscale.stack.images import BASE_IMAGE, RECIPES
from ioscale.stack.settings import DEFAULT_PORTS, SECRET_NAMES, StackSettings
from ioscale.wire import schemas, topics
from sim_sweep import FLINK_JOB, _produce, _wait

pytestmark = [pytest.mark.docker, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[3]
FILES = ("docker-compose.yml", "docker-compose.local.yml")
COMPOSE_PORTS = ("kafka", "registry", "clickhouse_http", "clickhouse_tcp", "flink", "superset")
UP_TIMEOUT_S = 1800  # a first start builds the job jar in a container (Maven fetches its dependencies)
READY_TIMEOUT_S = 600
JOBS = ("ioscale-sample-monitor", FLINK_JOB)
ARTIFACT = REPO / "tests" / "artifacts" / "docker-compose-local.json"


def _docker_host() -> str:
    return os.environ.get("DOCKER_HOST") or Engine(StackSettings.from_env()).host


def _skip_reason() -> str | None:
    if os.environ.get("IOSCALE_DOCKER_TESTS") != "1":
        return "opt-in: set IOSCALE_DOCKER_TESTS=1 to run the compose tests (they need a Docker engine)"
    if not shutil.which("docker-compose") or not shutil.which("docker"):
        return "docker-compose or the docker client is missing (scripts/bootstrap.sh --test, docker-engine.sh install)"
    env = {**os.environ, "DOCKER_HOST": _docker_host()}
    r = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], env=env, capture_output=True, timeout=30)
    if r.returncode != 0:
        return f"no Docker engine answers at {env['DOCKER_HOST']}: run scripts/docker-engine.sh start"
    missing = [t for t in [BASE_IMAGE] + [rc.tag for rc in RECIPES]
               if subprocess.run(["docker", "image", "inspect", t], env=env, capture_output=True).returncode != 0]
    if missing:
        return f"images not built here: {', '.join(missing)}; run scripts/docker-images.sh"
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


class Compose:
    def __init__(self, tmp: Path):
        self.project = f"ioscale-{unique('compose')}"
        self.ports = dict(zip(COMPOSE_PORTS, _free_ports(len(COMPOSE_PORTS))))
        self.secrets = {n: pysecrets.token_urlsafe(18) for n in (*SECRET_NAMES, "SUPERSET_DB_PASSWORD")}
        self.env = {k: v for k, v in os.environ.items() if not (k.startswith("IOSCALE_") and k.endswith("_PORT"))}
        self.env.update(self.secrets, DOCKER_HOST=_docker_host(),
                        # An engine whose own open-files limit is lower cannot give ClickHouse 262144.
                        IOSCALE_CLICKHOUSE_NOFILE=str(min(262144, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
        self.env.update({f"IOSCALE_{name.upper()}_PORT": str(p) for name, p in self.ports.items()})
        ports = {**DEFAULT_PORTS, **self.ports}
        # The tools on the host reach the compose services through these settings (and nothing of the local stack).
        self.endpoints = from_settings(StackSettings(home=tmp, repo=REPO, ports=ports), self.secrets, True)

    def run(self, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
        cmd = ["docker-compose", "-p", self.project, *(a for f in FILES for a in ("-f", str(REPO / f))), *args]
        r = subprocess.run(cmd, cwd=REPO, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed ({r.returncode}):\n{r.stderr[-3000:]}")
        return r

    def docker(self, *args: str) -> str:
        return subprocess.run(["docker", *args], env=self.env, capture_output=True, text=True, timeout=120).stdout

    def state(self, service: str) -> tuple[str, int, str]:
        """(status, exit code, health) of the service's container."""
        cid = self.run("ps", "-q", service).stdout.strip()
        out = self.docker("inspect", "--format",
                          "{{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{end}}", cid)
        status, code, *health = out.split()
        return status, int(code), (health or [""])[0]

    def remove(self) -> None:
        self.run("down", "-v", "--remove-orphans", "--timeout", "30", timeout=600, check=False)
        label = f"label=com.docker.compose.project={self.project}"
        left = self.docker("ps", "-aq", "--filter", label).split()
        if left:
            self.docker("rm", "-f", "-v", *left)
        vols = self.docker("volume", "ls", "-q", "--filter", label).split()
        if vols:
            self.docker("volume", "rm", *vols)


def _until(what: str, check, timeout_s: float, interval_s: float = 3.0):
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (requests.RequestException, ValueError, KeyError) as e:
            last = e
        time.sleep(interval_s)
    raise AssertionError(f"{what}: not within {timeout_s:.0f}s (last: {last!r})")


def _mem_mib(text: str) -> float:
    value = text.split("/")[0].strip()
    for unit, mult in (("GiB", 1024), ("MiB", 1), ("KiB", 1 / 1024), ("B", 1 / 2**20)):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * mult
    raise ValueError(text)


@pytest.fixture(scope="module")
def compose(tmp_path_factory):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    c = Compose(tmp_path_factory.mktemp("compose-home"))
    c.measured = {"project": c.project}
    try:
        t0 = time.monotonic()
        c.run("up", "-d", timeout=UP_TIMEOUT_S)
        c.measured["up_returned_s"] = round(time.monotonic() - t0, 1)
        _until("flink-job-submit exits 0", lambda: c.state("flink-job-submit")[:2] == ("exited", 0), READY_TIMEOUT_S)
        flink = c.endpoints.flink_url
        _until("both Flink jobs RUNNING", lambda: {j["name"] for j in requests.get(
            f"{flink}/jobs/overview", timeout=10).json()["jobs"] if j["state"] == "RUNNING"} >= set(JOBS),
            READY_TIMEOUT_S)
        _until("superset healthy", lambda: c.state("superset")[2] == "healthy", READY_TIMEOUT_S)
        c.measured["ready_s"] = round(time.monotonic() - t0, 1)
        yield c
    finally:
        try:
            stats = c.docker("stats", "--no-stream", "--format", "{{.Name}}\t{{.MemUsage}}\t{{.CPUPerc}}")
            c.measured["memory_mib"] = {
                line.split("\t")[0].removeprefix(c.project + "_").removesuffix("_1"): round(_mem_mib(line.split("\t")[1]))
                for line in stats.splitlines() if line.startswith(c.project)}
            ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
            ARTIFACT.write_text(json.dumps(c.measured, indent=1))
            print(f"\ncompose measured: {json.dumps(c.measured)}")
        finally:
            c.remove()
            assert not c.docker("ps", "-aq", "--filter", f"label=com.docker.compose.project={c.project}").split()


def test_init_services_provisioned_topics_schemas_and_migrations(compose):
    from confluent_kafka.admin import AdminClient

    ep = compose.endpoints
    names = set(AdminClient({"bootstrap.servers": ep.kafka_bootstrap}).list_topics(timeout=20).topics)
    assert {t.name for t in topics.TOPICS} <= names
    subjects = requests.get(f"{ep.registry_url}/subjects", timeout=10).json()
    assert sorted(subjects) == sorted(schemas.subject_for(t) for t in schemas.TOPIC_SCHEMAS)
    from ioscale.stack.clickhouse import client

    with client(ep.settings, ep.secrets, "admin") as ch:
        applied = ch.query("SELECT count() FROM ioscale_meta.schema_migrations").result_rows[0][0]
    assert applied == len(list((REPO / "sql" / "migrations").glob("*.sql")))
    for one_shot in ("ioscale-init", "stream-jobs-build", "flink-data-init", "superset-init"):
        assert compose.state(one_shot)[:2] == ("exited", 0), one_shot


def test_jobmanager_healthy_with_its_taskmanager_and_checkpoints_written_to_flink_data(compose):
    flink = compose.endpoints.flink_url
    overview = requests.get(f"{flink}/overview", timeout=10).json()
    assert overview["taskmanagers"] == 1 and overview["slots-total"] == 4
    assert compose.state("flink-jobmanager")[2] == "healthy"
    job = next(j for j in requests.get(f"{flink}/jobs/overview", timeout=10).json()["jobs"]
               if j["name"] == FLINK_JOB and j["state"] == "RUNNING")
    # Checkpoints every 30 s into file:///flink-data: one completes only if the flink user may write there.
    counts = _until("a completed checkpoint", lambda: (c := requests.get(
        f"{flink}/jobs/{job['jid']}/checkpoints", timeout=10).json()["counts"])["completed"] >= 1 and c, 150, 5)
    assert counts["failed"] == 0, counts


def test_a_simulated_sweep_reaches_the_scaling_curves(compose):
    ep = compose.endpoints
    t0 = time.monotonic()
    sweep = _produce(ep)
    got = _wait(ep, sweep, "scaling_curves", READY_TIMEOUT_S, push=True)
    compose.measured["sweep_to_scaling_curves_s"] = round(time.monotonic() - t0, 1)
    assert got == sweep.steps, f"scaling_curves holds steps {got} of {sweep.steps}"


def test_superset_serves_the_imported_dashboards(compose):
    ep = compose.endpoints
    assert requests.get(f"{ep.superset_url}/health", timeout=10).text.strip() == "OK"
    s = requests.Session()
    token = s.post(f"{ep.superset_url}/api/v1/security/login", timeout=30, json={
        "username": "admin", "password": ep.secrets["SUPERSET_ADMIN_PASSWORD"], "provider": "db"}).json()["access_token"]
    r = s.get(f"{ep.superset_url}/api/v1/dashboard/", params={"q": "(page_size:100)"}, timeout=30,
              headers={"Authorization": f"Bearer {token}"})
    slugs = {d["slug"] for d in r.json()["result"]}
    from ioscale.stack.superset import DASHBOARD_SLUGS

    assert set(DASHBOARD_SLUGS) <= slugs
