#!/usr/bin/env bash
# The integration tests that run against the whole topology in containers (IOSCALE_STACK=containers: the `stack`
# fixture brings docker-compose.yml + docker-compose.local.yml up with Testcontainers). Part of `make test`.
# Installs what it needs (docker.io, iptables, debootstrap; compose v2 built from its Go module), starts the
# project's own engine under $IOSCALE_HOME/docker unless one runs, builds the images (cached by recipe hash), runs
# the tests, and stops the engine it started, undoing its network changes, whatever the tests did.
#   scripts/test-containers.sh [TEST...] [pytest options]
#       default tests: the smoke tests, the compose checks and the dashboards (an option with a value is
#       written in one word: -kEXPR, --timeout=600)
#   IOSCALE_COMPOSE_PROFILE=multinode scripts/test-containers.sh tests/integration/docker/test_compose_multinode.py
#       the same with docker-compose.multinode.yml added (three Kafka brokers, two TaskManagers; no Superset):
#       its topology, and a lost broker and a lost TaskManager mid-sweep (~12 min)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export IOSCALE_HOME="${IOSCALE_HOME:-$repo/.ioscale}"
scripts/bootstrap.sh --test
say() { echo "== containers: $*" >&2; }

say "engine packages and the compose plugin"
scripts/docker-engine.sh install >&2
started=0
if ! scripts/docker-engine.sh status >/dev/null; then
  say "starting the project's Docker engine"
  scripts/docker-engine.sh start >&2
  started=1
fi
stop_engine() {
  # A session killed before its teardown leaves its compose project: remove every test project by label.
  "$IOSCALE_HOME/venv/bin/python" tests/integration/containers.py --remove >&2 || true
  if (( started )); then
    say "stopping the engine and undoing its network changes"
    scripts/docker-engine.sh stop >&2 || echo "warning: scripts/docker-engine.sh stop failed; run it again" >&2
  fi
}
trap stop_engine EXIT
eval "$(scripts/docker-engine.sh env)"

say "images (built once per recipe; the first build takes ~6 min)"
scripts/docker-images.sh build

tests=()
for a in "$@"; do [[ $a == -* ]] || tests+=("$a"); done
(( ${#tests[@]} )) || set -- "$@" tests/integration/test_smoke_pipeline.py tests/integration/docker \
                               tests/integration/superset/test_dashboards.py
say "pytest $*"
IOSCALE_STACK=containers "$IOSCALE_HOME/venv/bin/pytest" "$@"
