"""`scripts/docker-engine.sh` and `scripts/docker-images.sh` as a user runs them: through `ioscale docker ...`,
with the CLI's usage errors and exit statuses, against an engine that is not running."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def script(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"IOSCALE_HOME": str(tmp_path / "home"), "IOSCALE_PYTHON": sys.executable}
    return subprocess.run([str(REPO / "scripts" / name), *args], env=env, capture_output=True, text=True,
                          timeout=60)


def test_engine_status_names_its_own_socket_and_exits_1_when_stopped(tmp_path):
    r = script(tmp_path, "docker-engine.sh", "status")
    assert r.returncode == 1
    assert r.stdout.strip() == f"dockerd stopped; DOCKER_HOST=unix://{tmp_path}/home/docker/docker.sock"
    assert script(tmp_path, "docker-engine.sh", "env").stdout == (
        f"export DOCKER_HOST=unix://{tmp_path}/home/docker/docker.sock\n"
        f"export DOCKER_CONFIG={tmp_path}/home/docker/config\n")


def test_an_unknown_action_is_a_usage_error(tmp_path):
    engine = script(tmp_path, "docker-engine.sh", "restart")
    images = script(tmp_path, "docker-images.sh", "push")
    assert (engine.returncode, images.returncode) == (2, 2)
    assert "invalid choice: 'restart'" in engine.stderr
    assert "invalid choice: 'push'" in images.stderr
