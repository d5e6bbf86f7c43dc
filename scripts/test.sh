#!/usr/bin/env bash
# The whole test suite: Java unit/MiniCluster tests, Python unit tests, integration tests against the real local
# stack (started by the `stack` fixture, or reused if already running), then the container tests
# (scripts/test-containers.sh: the same topology in Docker, through Testcontainers). With pytest arguments, only
# pytest runs, with them.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export IOSCALE_HOME="${IOSCALE_HOME:-$repo/.ioscale}"
scripts/bootstrap.sh --test
echo "== stream-jobs: mvn verify" >&2
mvn -B -q -f stream-jobs/pom.xml verify
echo "== pytest" >&2
if (( $# )); then
  exec "$IOSCALE_HOME/venv/bin/pytest" "$@"
fi
status=0
"$IOSCALE_HOME/venv/bin/pytest" || status=$?
# The containers run after the local stack's tests (and after the fixture stopped what it started): the two
# stacks never compete for the 2 cores.
echo "== containers" >&2
scripts/test-containers.sh || status=$?
exit $status
