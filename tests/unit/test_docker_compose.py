"""docker-compose.yml is valid for Debian's docker-compose, and keeps the local stack's promises:
pinned images, ports on 127.0.0.1 only (the same ports as the local stack), health checks, no default passwords."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ioscale.stack.settings import DEFAULT_PORTS

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
PASSWORDS = {
    "CLICKHOUSE_ADMIN_PASSWORD": "pw-admin-7f3a9c", "CLICKHOUSE_INGEST_PASSWORD": "pw-ingest-7f3a9c",
    "CLICKHOUSE_FLINK_PASSWORD": "pw-flink-7f3a9c", "CLICKHOUSE_READER_PASSWORD": "pw-reader-7f3a9c",
    "SUPERSET_ADMIN_PASSWORD": "pw-superset-7f3a9c", "SUPERSET_SECRET_KEY": "pw-secret-7f3a9c", "SUPERSET_DB_PASSWORD": "pw-db-7f3a9c",
}
LONG_RUNNING = {"kafka", "schema-registry", "clickhouse", "flink-jobmanager", "superset-db", "superset"}
ONE_SHOT = {"stream-jobs-build", "flink-job-submit", "ioscale-init", "superset-init"}

needs_compose = pytest.mark.skipif(shutil.which("docker-compose") is None,
                                   reason="docker-compose not installed (scripts/bootstrap.sh --test installs it)")


def _config(env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in PASSWORDS}
    env.update(env_extra)
    return subprocess.run(["docker-compose", "-f", str(COMPOSE), "config"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


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


@needs_compose
def test_both_stream_jobs_are_submitted_with_the_compose_endpoints_and_no_password_in_arguments(rendered):
    # Regression: the submit service once ran only the jar's main class (the sample monitor), so under
    # compose the analytics job -- rollups, scaling curves, alerts -- never ran.
    svc = rendered["services"]["flink-job-submit"]
    script = svc["command"][0] if isinstance(svc["command"], list) else svc["command"]
    assert "-c io.ioscale.jobs.SampleMonitorJob" in script and "-c io.ioscale.jobs.AnalyticsJob" in script
    analytics = script[script.index("io.ioscale.jobs.AnalyticsJob"):]
    for arg in ("--kafka-bootstrap kafka:29092", "--registry-url http://schema-registry:8081",
                "--clickhouse-url http://clickhouse:8123", "--clickhouse-user ioscale_flink",
                "--clickhouse-password-file /tmp/clickhouse.env", "--checkpoint-dir file:///flink-data/"):
        assert arg in analytics, arg
    assert "--clickhouse-password " not in script and PASSWORDS["CLICKHOUSE_FLINK_PASSWORD"] not in script
    assert svc["environment"]["CLICKHOUSE_FLINK_PASSWORD"] == PASSWORDS["CLICKHOUSE_FLINK_PASSWORD"]
    assert svc["environment"]["IOSCALE_SLO"] == "p99 < 10 ms, p99.999 < 50 ms"
