#!/usr/bin/env bash
# Builds the project's container images on this machine (no image registry needed): local/debian:bookworm from
# debootstrap, then one image per service with the local stack's pinned artifacts. Cached by recipe hash.
#   scripts/docker-images.sh [build] [NAME...]   build all (or the named ones and their parents)
#   scripts/docker-images.sh list                tags, sizes, recipe hashes
# Needs the engine: scripts/docker-engine.sh start.
# The same as `ioscale docker images ...` (ingest/src/ioscale/cli/docker.py, stack/images.py).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${IOSCALE_PYTHON:-${IOSCALE_HOME:-$repo/.ioscale}/venv/bin/python}"
[[ -x "$python" ]] || { echo "error: no Python venv at $python; run scripts/bootstrap.sh (or set IOSCALE_PYTHON)" >&2; exit 3; }
PYTHONPATH="$repo/ingest/src${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m ioscale.cli docker images "$@"
