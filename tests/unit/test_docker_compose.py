"""docker-compose.yml is valid for docker compose v2 (the plugin the project builds), and keeps the local stack's promises:
pinned images, ports on 127.0.0.1 only (the same ports as the local stack, moved by the same variables), health
checks that mean what they say, no default passwords, memory limits; docker-compose.local.yml selects the images
built here for the same topology. (The defects these catch were found by reading the file; the running proof is
tests/integration/docker/test_compose_local.py, which needs the engine.)"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from ioscale.stack.images import RECIPES
from ioscale.stack.docker_engine import Engine
from ioscale.stack.settings import DEFAULT_PORTS, StackSettings

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
LOCAL = REPO / "docker-compose.local.yml"
PASSWORDS = {
    "CLICKHOUSE_ADMIN_PASSWORD": "pw-admin-7f3a9c", "CLICKHOUSE_INGEST_PASSWORD": "pw-ingest-7f3a9c",
    "CLICKHOUSE_FLINK_PASSWORD": "pw-flink-7f3a9c", "CLICKHOUSE_READER_PASSWORD": "pw-reader-7f3a9c",
    "SUPERSET_ADMIN_PASSWORD": "pw-superset-7f3a9c", "SUPERSET_SECRET_KEY": "pw-secret-7f3a9c", "SUPERSET_DB_PASSWORD": "pw-db-7f3a9c",
}
LONG_RUNNING = {"kafka", "schema-registry", "clickhouse", "flink-jobmanager", "superset-db", "superset"}
ONE_SHOT = {"stream-jobs-build", "flink-job-submit", "ioscale-init", "superset-init"}

ENGINE = Engine(StackSettings.from_env())
needs_compose = pytest.mark.skipif(not ENGINE.compose_plugin.exists(),
                                   reason="no docker compose plugin (scripts/bootstrap.sh --test builds it)")


def _config(env_extra: dict[str, str], *files: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in PASSWORDS and not k.endswith("_PORT")}
    env.update(env_extra)
    args = [a for f in (files or (COMPOSE,)) for a in ("-f", str(f))]
    # The plugin binary also runs on its own, as `docker-compose`: no docker client needed to render the files.
    return subprocess.run([str(ENGINE.compose_plugin), *args, "config"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


def _published(rendered: dict) -> dict[int, tuple[str, int]]:
    """host port -> (service, container port)"""
    out = {}
    for name, svc in rendered["services"].items():
        for p in svc.get("ports", []):
            text = p if isinstance(p, str) else f"{p.get('host_ip', '')}:{p['published']}:{p['target']}"
            _, published, target = text.split(":", 2)
            out[int(published)] = (name, int(target.split("/")[0]))
    return out


@pytest.fixture(scope="module")
def rendered() -> dict:
    proc = _config(PASSWORDS)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load(proc.stdout)


@needs_compose
def test_config_validates_and_has_the_whole_topology(rendered):
    assert LONG_RUNNING | ONE_SHOT | {"flink-taskmanager", "superset-worker", "superset-beat"} <= set(rendered["services"])


@needs_compose
def test_images_are_pinned(rendered):
    for name, svc in rendered["services"].items():
        if "image" in svc:
            image = svc["image"]
            assert ":" in image and not image.endswith(":latest"), f"{name}: {image} is not pinned"
    raw = COMPOSE.read_text()
    for df in ("stack/docker/ioscale.Dockerfile", "stack/docker/superset.Dockerfile"):
        assert df in raw
        base = next(l for l in (REPO / df).read_text().splitlines() if l.startswith("FROM "))
        assert ":" in base and "latest" not in base


@needs_compose
def test_published_ports_are_loopback_and_match_the_local_stack(rendered):
    published = {}
    for name, svc in rendered["services"].items():
        for p in svc.get("ports", []):
            text = p if isinstance(p, str) else f"{p.get('host_ip', '')}:{p['published']}:{p['target']}"
            host_ip, published_port, _ = text.split(":", 2)
            assert host_ip == "127.0.0.1", f"{name} publishes {text} beyond loopback"
            published[int(published_port)] = name
    expected = {DEFAULT_PORTS["kafka"], DEFAULT_PORTS["registry"], DEFAULT_PORTS["clickhouse_http"],
                DEFAULT_PORTS["clickhouse_tcp"], DEFAULT_PORTS["flink"], DEFAULT_PORTS["superset"]}
    assert set(published) == expected


@needs_compose
def test_services_have_health_checks_and_volumes(rendered):
    for name in LONG_RUNNING:
        assert "healthcheck" in rendered["services"][name], name
    assert {"kafka-data", "clickhouse-data", "superset-db"} <= set(rendered["volumes"])


@needs_compose
def test_no_default_passwords(rendered):
    proc = _config({})
    assert proc.returncode != 0
    assert "PASSWORD" in proc.stderr or "SECRET" in proc.stderr
    # Whatever was rendered came from the environment, never from the file.
    raw = COMPOSE.read_text()
    for value in PASSWORDS.values():
        assert value not in raw


def _submit_args(svc: dict):
    from ioscale.cli import build_parser

    return build_parser().parse_args([str(a) for a in svc["command"]])


def _jobs_by_name(jobs) -> dict:
    return {j.name: j for j in jobs}


#: The arguments whose values are where the services are (host names, paths): all the two job lists may differ in.
ENDPOINT_FLAGS = {"--kafka-bootstrap", "--registry-url", "--clickhouse-url", "--clickhouse-password-file",
                  "--checkpoint-dir"}


@needs_compose
def test_both_stream_jobs_are_the_local_stacks_with_the_compose_endpoints_and_no_password_in_arguments(rendered,
                                                                                                       tmp_path):
    # One definition of the jobs: compose submits through `ioscale admin submit-jobs`, which builds the local
    # stack's job list (provision.flink.stream_jobs_for) from the compose endpoints.
    from ioscale.cli.stack import external_targets, flink_targets
    from ioscale.provision import analytics_config, flink
    from ioscale.provision.external import external_jobs

    svc = rendered["services"]["flink-job-submit"]
    args = _submit_args(svc)
    assert (args.command, args.action) == ("admin", "submit-jobs")
    compose = _jobs_by_name(external_jobs(external_targets(args), flink_targets(args), svc["environment"]))
    settings = StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path)})
    analytics_config.save(settings.home, analytics_config.from_env(svc["environment"]))
    local = _jobs_by_name(flink.stream_jobs(settings))
    assert list(compose) == list(local) == ["ioscale-analytics", "ioscale-sample-monitor"]
    for name, job in compose.items():
        assert job.entry_class == local[name].entry_class
        flags = job.program_args[::2]
        assert flags == local[name].program_args[::2], name
        differ = {f for f, a, b in zip(flags, job.program_args[1::2], local[name].program_args[1::2]) if a != b}
        assert differ <= ENDPOINT_FLAGS, name

    analytics = dict(zip(compose["ioscale-analytics"].program_args[::2], compose["ioscale-analytics"].program_args[1::2]))
    assert analytics["--kafka-bootstrap"] == "kafka:29092"
    assert analytics["--registry-url"] == "http://schema-registry:8081"
    assert analytics["--clickhouse-url"] == "http://clickhouse:8123"
    assert analytics["--clickhouse-password-file"] == "/flink-data/submit/clickhouse.env"
    assert analytics["--checkpoint-dir"] == "file:///flink-data/checkpoints/ioscale-analytics"
    assert analytics["--slo"] == "p99 < 10 ms, p99.999 < 50 ms" and "--saturation" not in analytics
    assert "--clickhouse-password" not in analytics
    assert PASSWORDS["CLICKHOUSE_FLINK_PASSWORD"] not in " ".join(map(str, svc["command"]))
    assert svc["environment"]["CLICKHOUSE_FLINK_PASSWORD"] == PASSWORDS["CLICKHOUSE_FLINK_PASSWORD"]


def _mounts(svc: dict) -> dict[str, str]:
    """container path -> volume or host path"""
    out = {}
    for v in svc.get("volumes", []):
        src, dst = (v["source"], v["target"]) if isinstance(v, dict) else v.split(":")[:2]
        out[dst] = src
    return out


@needs_compose
def test_the_submitter_sees_flink_data_where_the_jobmanager_does_and_as_its_user(rendered):
    # The submitter restores the newest checkpoint it finds and the JobManager reads it, its password file and
    # writes savepoints at the same paths: the same volume at the same place, and the same uid (files 0600).
    services = rendered["services"]
    svc = services["flink-job-submit"]
    args = _submit_args(svc)
    for name in ("flink-jobmanager", "flink-taskmanager", "flink-job-submit"):
        assert _mounts(services[name]).get("/flink-data") == "flink-data", name
    for path in (args.checkpoint_dir, args.state_dir):
        assert Path(path).is_relative_to("/flink-data"), path
    for name in ("flink-jobmanager", "flink-taskmanager"):
        conf = dict(line.split(": ", 1) for line in services[name]["environment"]["FLINK_PROPERTIES"].splitlines())
        assert conf["state.checkpoints.dir"] == Path(args.checkpoint_dir).as_uri(), name
    assert _mounts(svc)["/jars"] == "flink-jars" and args.jar.startswith("/jars/")
    assert svc["user"] == "9999:9999"
    # the Flink images' user: the official image's is 9999:9999, and the one built here says so
    recipe = (REPO / "stack/docker/local/flink.Dockerfile").read_text()
    assert "--gid 9999 flink" in recipe and "--uid 9999 --gid flink" in recipe
    for dependency in ("stream-jobs-build", "ioscale-init"):
        assert svc["depends_on"][dependency]["condition"] == "service_completed_successfully"
    assert svc["depends_on"]["flink-jobmanager"]["condition"] == "service_healthy"


def _job_flags() -> set[str]:
    options = yaml.safe_load((REPO / "schema" / "analytics_options.json").read_text())["options"]
    return {f"--{o['name']}" for o in options} | {"--topic"}  # the sample monitor's own


@needs_compose
def test_the_compose_files_hold_no_copy_of_the_jobs_arguments(rendered):
    # Regression: the submit service ran `flink run` with its own copy of both jobs' arguments, which drifted from
    # the local stack's. A job's flag may appear in the compose files only as an endpoint of `admin submit-jobs`.
    svc = rendered["services"]["flink-job-submit"]
    _submit_args(svc)  # argparse rejects a flag that is not one of the command's own
    command_flags = {str(a).split("=", 1)[0] for a in svc["command"] if str(a).startswith("--")}
    assert command_flags & _job_flags() <= ENDPOINT_FLAGS
    for f in (COMPOSE, LOCAL):
        text = f.read_text()
        used = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
        assert not (used & _job_flags()) - command_flags, f.name
        assert "io.ioscale.jobs." not in text and "flink run" not in text, f.name
    provision = (REPO / "ingest/src/ioscale/provision/flink.py").read_text()
    for flag in ("--clickhouse-user", "--clickhouse-password-file", "--topic"):
        assert f'"{flag}"' in provision, flag


@needs_compose
def test_ports_move_with_the_local_stack_variables_and_kafka_advertises_the_published_one():
    moved = {"IOSCALE_KAFKA_PORT": "19092", "IOSCALE_REGISTRY_PORT": "18081", "IOSCALE_CLICKHOUSE_HTTP_PORT": "18123",
             "IOSCALE_CLICKHOUSE_TCP_PORT": "19000", "IOSCALE_FLINK_PORT": "18082", "IOSCALE_SUPERSET_PORT": "18088"}
    proc = _config({**PASSWORDS, **moved})
    assert proc.returncode == 0, proc.stderr
    rendered = yaml.safe_load(proc.stdout)
    assert _published(rendered) == {19092: ("kafka", 9092), 18081: ("schema-registry", 8081),
                                    18123: ("clickhouse", 8123), 19000: ("clickhouse", 9000),
                                    18082: ("flink-jobmanager", 8081), 18088: ("superset", 8088)}
    # A client on the host bootstraps on the published port and is sent to the advertised one: they must agree.
    advertised = rendered["services"]["kafka"]["environment"]["KAFKA_ADVERTISED_LISTENERS"]
    assert "EXTERNAL://127.0.0.1:19092" in advertised.split(",")


def _pom_sibling_dirs() -> set[str]:
    pom = (REPO / "stream-jobs" / "pom.xml").read_text()
    return set(re.findall(r"\$\{project\.basedir\}/\.\./([A-Za-z0-9_-]+)", pom))


def _build_tree(svc: dict) -> dict[str, Path]:
    """Where the build command puts the checkout's directories: container path -> repo directory, from the
    service's bind mounts and the `cp -r SRC DST` steps of its command."""
    tree = {}
    for v in svc["volumes"]:
        src, dst = (v["source"], v["target"]) if isinstance(v, dict) else v.split(":")[:2]
        if src.startswith(("/", ".")):
            tree[dst] = (REPO / src).resolve()
    script = svc["command"][-1]
    for src, dst in re.findall(r"cp -r (\S+) (\S+)", script):
        if src in tree:
            tree[dst] = tree[src]
    return tree


@needs_compose
def test_stream_jobs_build_has_every_directory_the_pom_reads_next_to_it(rendered):
    # Regression: only ./stream-jobs was mounted, so the pom's ../schema was missing, the jar was built without
    # the Avro schemas and every analytics source failed at open (ReaderSchemas).
    svc = rendered["services"]["stream-jobs-build"]
    tree = _build_tree(svc)
    pom_flag = re.search(r"-f (\S+)/pom\.xml", svc["command"][-1]).group(1)
    assert tree[pom_flag] == (REPO / "stream-jobs").resolve()
    siblings = _pom_sibling_dirs()
    assert "schema" in siblings
    for name in siblings:
        where = str(Path(pom_flag).parent / name)
        assert tree.get(where) == (REPO / name).resolve(), f"the pom reads ../{name}; the build has nothing at {where}"


@needs_compose
def test_flink_data_is_handed_to_the_flink_user_before_flink_starts(rendered):
    # Regression: the named volume is created root-owned and the Flink image runs as user flink, so checkpoints
    # could not be written.
    services = rendered["services"]
    init = services["flink-data-init"]
    assert init["user"] in ("0", "root")
    assert init["entrypoint"][:3] == ["chown", "-R", "flink:flink"] and init["entrypoint"][3] == "/flink-data"
    assert any(str(v).startswith("flink-data:/flink-data") or (isinstance(v, dict) and v.get("source") == "flink-data")
               for v in init["volumes"])
    for name in ("flink-jobmanager", "flink-taskmanager"):
        assert services[name]["depends_on"]["flink-data-init"]["condition"] == "service_completed_successfully", name


def _health_exit(cmd: str, body: str) -> int:
    # The check's own shell pipeline, with curl answering ``body`` as Flink's REST API would.
    script = f"curl() {{ printf '%s' {shlex.quote(body)}; }}\n{cmd}"
    return subprocess.run(["sh", "-c", script], timeout=10).returncode


@needs_compose
def test_jobmanager_is_healthy_only_once_a_taskmanager_registered(rendered):
    # Regression: the check grepped "taskmanagers", which "taskmanagers":0 matches too.
    test = rendered["services"]["flink-jobmanager"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL"
    overview = '{"taskmanagers":%d,"slots-total":%d,"slots-available":%d,"jobs-running":0,"jobs-finished":0,' \
               '"jobs-cancelled":0,"jobs-failed":0,"flink-version":"2.2.1","flink-commit":"x"}'
    assert _health_exit(test[1], overview % (0, 0, 0)) != 0
    assert _health_exit(test[1], overview % (1, 4, 4)) == 0
    assert _health_exit(test[1], overview % (10, 40, 40)) == 0
    # The TaskManager must not wait for a health that needs the TaskManager.
    assert rendered["services"]["flink-taskmanager"]["depends_on"]["flink-jobmanager"]["condition"] == "service_started"


@needs_compose
def test_every_service_has_a_memory_limit_that_fits_a_shared_24_gib_machine(rendered):
    limits = {}
    for name, svc in rendered["services"].items():
        assert "mem_limit" in svc or name == "flink-data-init", f"{name} has no mem_limit"
        if "mem_limit" in svc:
            value = str(svc["mem_limit"]).lower()
            mult = {"g": 2**30, "m": 2**20}.get(value[-1], 1)
            limits[name] = int(value.rstrip("gm")) * mult if mult != 1 else int(value)
    # Everything at its limit still leaves a third of the machine to the rest of its work.
    assert sum(limits.values()) <= 16 * 2**30, {k: v // 2**20 for k, v in limits.items()}


@needs_compose
def test_local_override_runs_the_same_topology_from_images_built_here(rendered):
    proc = _config(PASSWORDS, COMPOSE, LOCAL)
    assert proc.returncode == 0, proc.stderr
    local = yaml.safe_load(proc.stdout)
    assert set(local["services"]) == set(rendered["services"])
    for name, svc in local["services"].items():
        assert svc["image"].startswith("local/ioscale-"), f"{name} would pull {svc['image']}"
        base = rendered["services"][name]
        for key in ("ports", "volumes", "depends_on", "command", "mem_limit"):
            same = (sorted(map(str, svc[key])) == sorted(map(str, base[key])) if isinstance(svc.get(key), list)
                    else svc.get(key) == base.get(key))
            assert same, f"{name}: {key} differs from docker-compose.yml"
    built = {r.tag for r in RECIPES}
    assert {svc["image"] for svc in local["services"].values()} <= built


def _run_submit(svc: dict, tmp_path: Path, monkeypatch, running: dict[str, str]) -> list[dict]:
    """Run the submit service's command in-process (ioscale's CLI) against a fake Flink REST API whose active jobs
    are ``running`` (name -> id), with its /flink-data and /jars under ``tmp_path``; returns the bodies of /run."""
    from fake_flink import fake_rest

    from ioscale.cli import main
    from ioscale.provision.flink import JobSubmitter

    argv = [str(a).replace("=/flink-data", f"={tmp_path}/flink-data").replace("=/jars", f"={tmp_path}/jars")
            for a in svc["command"]]
    (tmp_path / "jars").mkdir(exist_ok=True)
    (tmp_path / "jars" / "ioscale-stream-jobs.jar").write_bytes(b"PK jar")
    runs: list[dict] = []
    monkeypatch.setattr(JobSubmitter, "_rest", fake_rest(runs, running=running))
    for k, v in svc["environment"].items():
        monkeypatch.setenv(k, str(v))
    assert main(argv) == 0
    return runs


@needs_compose
def test_submitting_again_does_not_run_a_running_job_twice_and_restores_the_newest_checkpoint(rendered, tmp_path,
                                                                                             monkeypatch):
    # Regression: each `up` re-ran the one-shot and the JobManager ended with two analytics jobs writing the same
    # results (seen on the local images: two of each RUNNING).
    import stat

    svc = rendered["services"]["flink-job-submit"]
    runs = _run_submit(svc, tmp_path, monkeypatch, running={})
    assert [r["entryClass"] for r in runs] == ["io.ioscale.jobs.AnalyticsJob", "io.ioscale.jobs.SampleMonitorJob"]
    assert all("savepointPath" not in r for r in runs)
    password_file = tmp_path / "flink-data/submit/clickhouse.env"
    assert password_file.read_text() == f"CLICKHOUSE_FLINK_PASSWORD={PASSWORDS['CLICKHOUSE_FLINK_PASSWORD']}\n"
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600

    # Both runs recorded: the same command with both running (same jar, same arguments) submits nothing.
    assert _run_submit(svc, tmp_path, monkeypatch, running={"ioscale-analytics": "j1",
                                                            "ioscale-sample-monitor": "j2"}) == []

    # The JobManager restarted (no HA: no jobs) after the analytics job retained a checkpoint: it is restored.
    chk = tmp_path / "flink-data/checkpoints/ioscale-analytics/j1/chk-7"
    chk.mkdir(parents=True)
    (chk / "_metadata").write_bytes(b"m")
    runs = _run_submit(svc, tmp_path, monkeypatch, running={"ioscale-sample-monitor": "j2"})
    assert [(r["entryClass"], r.get("savepointPath")) for r in runs] == [
        ("io.ioscale.jobs.AnalyticsJob", chk.as_uri())]


@needs_compose
def test_superset_init_can_read_the_private_bundle_and_imports_it_as_assets(rendered):
    # Regression, found running compose: ioscale-init (root) writes the bundle 0600 and superset-init ran as the
    # image's user (PermissionError), then `superset import-dashboards` refused the bundle (type "assets").
    init = rendered["services"]["superset-init"]
    assert init.get("user") in ("0", "root") and rendered["services"]["ioscale-init"].get("user") in (None, "0", "root")
    script = init["command"][-1]
    assert "import-dashboards" not in script
    assert "python /app/ioscale/import_bundle.py /bundle/ioscale-dashboards.zip admin" in script
    assert yaml.safe_load((REPO / "superset" / "metadata.yaml").read_text())["type"] == "assets"
    for dockerfile in ("stack/docker/superset.Dockerfile", "stack/docker/local/superset.Dockerfile"):
        assert "stack/superset/import_bundle.py /app/ioscale/" in (REPO / dockerfile).read_text(), dockerfile


MULTINODE = REPO / "docker-compose.multinode.yml"
BROKERS = ("kafka", "kafka-2", "kafka-3")


@pytest.fixture(scope="module")
def multinode() -> dict:
    proc = _config({**PASSWORDS, "IOSCALE_KAFKA_PORT": "19092", "IOSCALE_KAFKA_PORT_2": "19094",
                    "IOSCALE_KAFKA_PORT_3": "19095"}, COMPOSE, LOCAL, MULTINODE)
    assert proc.returncode == 0, proc.stderr
    return yaml.safe_load(proc.stdout)["services"]


@needs_compose
def test_multinode_runs_three_brokers_of_one_cluster_each_advertising_its_published_port(multinode):
    envs = [multinode[b]["environment"] for b in BROKERS]
    assert [e["KAFKA_NODE_ID"] for e in envs] == ["1", "2", "3"]
    for key in ("CLUSTER_ID", "KAFKA_CONTROLLER_QUORUM_VOTERS", "KAFKA_MIN_INSYNC_REPLICAS",
                "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"):
        assert len({e[key] for e in envs}) == 1, key
    assert envs[0]["KAFKA_CONTROLLER_QUORUM_VOTERS"] == "1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093"
    assert (envs[0]["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"], envs[0]["KAFKA_MIN_INSYNC_REPLICAS"]) == ("3", "2")
    published = _published({"services": multinode})
    for broker, port in zip(BROKERS, (19092, 19094, 19095)):
        assert published[port] == (broker, 9092)
        assert f"EXTERNAL://127.0.0.1:{port}" in multinode[broker]["environment"]["KAFKA_ADVERTISED_LISTENERS"]
        assert multinode[broker]["image"].startswith("local/ioscale-kafka:") and "healthcheck" in multinode[broker]
    assert all(str(p.get("host_ip")) == "127.0.0.1" for s in multinode.values() for p in s.get("ports", []))
    assert "aW9zY2FsZS" in MULTINODE.read_text() and not set(PASSWORDS.values()) & set(MULTINODE.read_text().split())


@needs_compose
def test_multinode_clients_list_every_broker_and_create_replicated_topics(multinode, tmp_path):
    from ioscale.cli.stack import external_targets, flink_targets
    from ioscale.provision.external import external_jobs
    from ioscale.wire.topics import Replication

    every = "kafka:29092,kafka-2:29092,kafka-3:29092"
    registry = multinode["schema-registry"]["command"]
    assert registry[registry.index("--bootstrap") + 1] == every
    for name in ("ioscale-init", "flink-job-submit"):
        assert _submit_args(multinode[name]).kafka_bootstrap == every, name
    for name in ("ioscale-init", "schema-registry"):  # three replicas need three brokers
        assert Replication.from_env(multinode[name]["environment"]) == Replication(3, 2), name
        for broker in BROKERS:
            assert multinode[name]["depends_on"][broker]["condition"] == "service_healthy", name
    svc = multinode["flink-job-submit"]
    args = _submit_args(svc)
    jobs = external_jobs(external_targets(args), flink_targets(args), svc["environment"])
    assert [j.parallelism for j in jobs] == [2, 2]
    assert all(dict(zip(j.program_args[::2], j.program_args[1::2]))["--kafka-bootstrap"] == every for j in jobs)


@needs_compose
def test_multinode_jobmanager_is_healthy_only_with_both_taskmanagers(multinode):
    assert multinode["flink-taskmanager"]["scale"] == 2
    test = multinode["flink-jobmanager"]["healthcheck"]["test"]
    overview = '{"taskmanagers":%d,"slots-total":%d,"slots-available":0}'
    assert _health_exit(test[1], overview % (1, 4)) != 0
    assert _health_exit(test[1], overview % (2, 8)) == 0
    assert _health_exit(test[1], overview % (12, 48)) == 0
    conf = multinode["flink-jobmanager"]["environment"]["FLINK_PROPERTIES"]
    assert "state.checkpoints.dir: file:///flink-data/checkpoints" in conf
    assert _mounts(multinode["flink-taskmanager"])["/flink-data"] == "flink-data"
