#!/usr/bin/env bash
# The project's own Docker engine (dockerd under $IOSCALE_HOME/docker, its own socket; never a system engine's).
#   scripts/docker-engine.sh install   apt-get install docker.io (root)
#   scripts/docker-engine.sh start     start dockerd; prints the DOCKER_HOST to export
#   scripts/docker-engine.sh stop      stop it by PID and undo its iptables chains, bridges and ip_forward
#   scripts/docker-engine.sh status    running or not (exit 1 when stopped)
#   scripts/docker-engine.sh env       the DOCKER_HOST line, for eval
# The same as `ioscale docker engine ...` (ingest/src/ioscale/cli/docker.py, stack/docker_engine.py).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${IOSCALE_PYTHON:-${IOSCALE_HOME:-$repo/.ioscale}/venv/bin/python}"
[[ -x "$python" ]] || { echo "error: no Python venv at $python; run scripts/bootstrap.sh (or set IOSCALE_PYTHON)" >&2; exit 3; }
PYTHONPATH="$repo/ingest/src${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m ioscale.cli docker engine "$@"
